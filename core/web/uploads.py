"""Request size limits: a body declared larger than CONCORD_MAX_UPLOAD_BYTES is refused before it is read.

The middleware answers 413 from the Content-Length header; the upload handler also stops a body that
carries no length (chunked) once the bytes received pass the limit.
"""

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.http import JsonResponse
from django.template.response import TemplateResponse


class RequestTooLarge(Exception):
    pass


def _limit() -> int:
    return settings.CONCORD_MAX_UPLOAD_BYTES


def too_large_response(request, declared: int | None):
    limit = _limit()
    message = f"The upload is larger than the limit of {limit:,} bytes."
    if request.path.startswith("/api/"):
        return JsonResponse({"code": "upload_too_large", "message": message, "extra": {"limit": limit, "size": declared}},
                            status=413)
    return TemplateResponse(request, "frontend/console/too_large.html", {"message": message}, status=413).render()


class UploadSizeLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        raw = request.META.get("CONTENT_LENGTH") or ""
        try:
            declared = int(raw) if raw else None
        except ValueError:
            return JsonResponse({"code": "bad_request", "message": "Content-Length is not a number."}, status=400)
        if declared is not None and declared > _limit():
            return too_large_response(request, declared)
        try:
            return self.get_response(request)
        except RequestTooLarge:
            return too_large_response(request, None)


class SizeLimitedUploadHandler(FileUploadHandler):
    """First in FILE_UPLOAD_HANDLERS: counts every file byte of a request and stops past the limit."""

    def new_file(self, *args, **kwargs):
        super().new_file(*args, **kwargs)
        self.request.upload_bytes_seen = getattr(self.request, "upload_bytes_seen", 0)

    def receive_data_chunk(self, raw_data, start):
        self.request.upload_bytes_seen += len(raw_data)
        if self.request.upload_bytes_seen > _limit():
            raise StopUpload(connection_reset=True)
        return raw_data

    def file_complete(self, file_size):
        return None

    def upload_complete(self):
        # Called after a StopUpload too; raising here reaches the middleware, which answers 413.
        if getattr(self.request, "upload_bytes_seen", 0) > _limit():
            raise RequestTooLarge()
