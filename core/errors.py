"""The one error type services raise for a request that cannot be honoured."""


class ApplicationError(Exception):
    """A precise, user-facing refusal; the API turns it into a 4xx with ``code`` and ``message``."""

    status_code = 400

    def __init__(self, message: str, *, code: str = "invalid", status_code: int | None = None, extra=None,
                 headers: dict[str, str] | None = None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.extra = extra or {}
        # Sent with the response (a 429's Retry-After).
        self.headers = headers or {}
        if status_code is not None:
            self.status_code = status_code
