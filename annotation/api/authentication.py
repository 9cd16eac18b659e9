"""HTTP Basic authentication for scripts, under the same failed-login throttle as the login page."""

from drf_spectacular.authentication import BasicScheme
from rest_framework import exceptions
from rest_framework.authentication import BasicAuthentication

from annotation.services.login_throttle import login_failure_record, login_lock_status, login_success_record


class ThrottledBasicAuthentication(BasicAuthentication):
    """Basic auth that refuses (429) a username+address locked by failures, so the API is no side door for guessing."""

    def authenticate_credentials(self, userid, password, request=None):
        address = (request.META.get("REMOTE_ADDR", "") if request is not None else "") or "unknown"
        lock = login_lock_status(username=userid, address=address)
        if lock.locked:
            raise exceptions.Throttled(wait=lock.retry_after, detail="Too many failed log-ins; try again later.")
        try:
            result = super().authenticate_credentials(userid, password, request)
        except exceptions.AuthenticationFailed:
            login_failure_record(username=userid, address=address)
            raise
        login_success_record(username=userid, address=address)
        return result


class ThrottledBasicScheme(BasicScheme):
    """Documents ThrottledBasicAuthentication in the OpenAPI schema as plain HTTP Basic."""

    target_class = "annotation.api.authentication.ThrottledBasicAuthentication"
