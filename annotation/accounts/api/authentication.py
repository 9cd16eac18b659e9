"""HTTP Basic authentication for scripts, under the same failed-login throttle as the login page."""

from drf_spectacular.authentication import BasicScheme
from rest_framework import exceptions
from rest_framework.authentication import BasicAuthentication

from annotation.accounts.services.login_throttle import login_attempt_finish, login_attempt_start
from core.web.proxies import client_address


class ThrottledBasicAuthentication(BasicAuthentication):
    """Basic auth that refuses (429) a username+address locked by failures, so the API is no side door for guessing."""

    def authenticate_credentials(self, userid, password, request=None):
        address = client_address(request) if request is not None else "unknown"
        lock = login_attempt_start(username=userid, address=address)
        if lock.locked:
            raise exceptions.Throttled(wait=lock.retry_after, detail="Too many failed log-ins; try again later.")
        outcome = "abandoned"
        try:
            result = super().authenticate_credentials(userid, password, request)
            outcome = "success"
        except exceptions.AuthenticationFailed:
            outcome = "failure"
            raise
        finally:
            login_attempt_finish(username=userid, address=address, outcome=outcome)
        return result


class ThrottledBasicScheme(BasicScheme):
    """Documents ThrottledBasicAuthentication in the OpenAPI schema as plain HTTP Basic."""

    target_class = "annotation.accounts.api.authentication.ThrottledBasicAuthentication"
