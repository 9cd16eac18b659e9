"""The login page, rate-limited: repeated failures get a 429 page saying when to try again."""

from django.contrib.auth import views as auth_views
from django.template.response import TemplateResponse

from annotation.accounts.services.login_throttle import login_attempt_finish, login_attempt_start
from core.web.proxies import client_address


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
        lock = login_attempt_start(username=username, address=address)
        if lock.locked:
            return throttled_response(request, lock.retry_after)
        try:
            response = super().post(request, *args, **kwargs)
        except BaseException:
            login_attempt_finish(username=username, address=address, outcome="abandoned")
            raise
        if request.user.is_authenticated:
            login_attempt_finish(username=username, address=address, outcome="success")
            return response
        lock = login_attempt_finish(username=username, address=address, outcome="failure")
        return throttled_response(request, lock.retry_after) if lock.locked else response
