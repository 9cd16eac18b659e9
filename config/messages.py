"""Django's MessageMiddleware, with each request's message storage made when the request first uses it."""

from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.messages.storage import default_storage
from django.utils.functional import SimpleLazyObject, empty


class LazyMessageMiddleware(MessageMiddleware):
    """Django builds a message storage for every request (a cookie and a session storage behind a fallback: ~44
    Python calls); the API, the work queue's claim and submit included, never uses one. Here it is built on first
    use (``messages.add_message``, or a template reading ``messages``). A request that never used it leaves the
    response as Django's would: an unused storage stores nothing."""

    def process_request(self, request):
        request._messages = SimpleLazyObject(lambda: default_storage(request))

    def process_response(self, request, response):
        messages = getattr(request, "_messages", None)
        if type(messages) is SimpleLazyObject and messages._wrapped is empty:
            return response
        return super().process_response(request, response)
