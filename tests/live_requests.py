"""The live server's requests in flight, so that a browser test's database is emptied only once they are done.

A rating page saves its draft when it is hidden (``pagehide``, ``keepalive``), so closing a browser context sends one
more request; arriving while the test's database is flushed, it deadlocks the TRUNCATE ("couldn't be flushed"), and
arriving after, it meets pytest-django's database blocker. The suite's settings put :class:`InFlightMiddleware`
first, and :func:`settle` (called after every live-server test, before the flush) waits until the server has been
quiet for a moment."""

import threading
import time

_lock = threading.Lock()
_in_flight = 0
_last_seen = 0.0


class InFlightMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        global _in_flight, _last_seen
        with _lock:
            _in_flight += 1
            _last_seen = time.monotonic()
        try:
            return self.get_response(request)
        finally:
            with _lock:
                _in_flight -= 1
                _last_seen = time.monotonic()


def settle(*, quiet: float = 0.2, timeout: float = 10.0) -> None:
    """Return once no request is in flight and none began or ended in the last ``quiet`` seconds (or at ``timeout``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with _lock:
            idle = _in_flight == 0 and time.monotonic() - _last_seen >= quiet
        if idle:
            return
        time.sleep(0.05)
