"""The login page, rate-limited: repeated failures get a 429 page saying when to try again."""

from django.contrib.auth import views as auth_views
from django.template.response import TemplateResponse

from annotation.services.login_throttle import login_failure_record, login_lock_status, login_success_record


def client_address(request) -> str:
    """The peer address as the server saw it; a proxy's X-Forwarded-For is not trusted, since clients forge it."""
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def throttled_response(request, retry_after: int):
    minutes = max(1, round(retry_after / 60))
    response = TemplateResponse(
        request, "frontend/console/login_throttled.html", {"minutes": minutes, "retry_after": retry_after}, status=429
    )
    response["Retry-After"] = str(retry_after)
    return response


class ThrottledLoginView(auth_views.LoginView):
    def post(self, request, *args, **kwargs):
        username = request.POST.get("username", "")[:150]
        address = client_address(request)
        lock = login_lock_status(username=username, address=address)
        if lock.locked:
            return throttled_response(request, lock.retry_after)
        response = super().post(request, *args, **kwargs)
        if request.user.is_authenticated:
            login_success_record(username=username, address=address)
        else:
            login_failure_record(username=username, address=address)
            lock = login_lock_status(username=username, address=address)
            if lock.locked:
                return throttled_response(request, lock.retry_after)
        return response
