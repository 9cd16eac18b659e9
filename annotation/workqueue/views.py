"""Media served by Concord itself, checked against the viewer's role.

Annotators never receive an imported file as it was imported: images as renditions re-encoded from the pixels
(``annotation.catalogue.renditions``), video, audio and 3D files with their metadata neutralised
(``annotation.catalogue.sanitize``).
Curators get the original at ``/media/<sha256>.<ext>``, as releases keep it. No response names a file: no
Content-Disposition, no Last-Modified, only the type, the length and caching by digest.
"""

from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.files.storage import default_storage
from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.views import View

from annotation.catalogue.ranges import ranged_file_response
from annotation.catalogue.services.renditions import FULL, media_rendition_ensure
from annotation.workqueue.selectors import media_visible_to
from core.errors import ApplicationError


class MediaView(LoginRequiredMixin, View):
    """``/media/<sha256>.<ext>`` (the original for curators, its ``full`` or ``clean`` rendition for annotators) and
    ``/media/<sha256>/w<width>.<webp|jpg>`` (a rendition sized for the screen): digests only, never a name."""

    raise_exception = True

    def get(self, request, name: str, variant: str = FULL):
        if variant == FULL:
            digest, _, extension = name.partition(".")
        else:
            digest = name
            variant, _, extension = variant.partition(".")
        media = media_visible_to(user=request.user, digest=digest)
        if media is None:
            raise Http404("no such media")
        if variant == FULL and request.user.is_curator:
            return _served(request, media.file.name, media.mime_type)
        try:
            stored, content_type = media_rendition_ensure(media=media, variant=variant, extension=extension)
        except ApplicationError as exc:
            if exc.status_code == 404:
                raise Http404(exc.message) from exc
            return HttpResponse(exc.message, status=exc.status_code, content_type="text/plain; charset=utf-8")
        return _served(request, stored, content_type)


def _served(request, stored: str, content_type: str):
    url = default_storage.url(stored)
    if url.startswith("http"):
        return HttpResponseRedirect(url)
    response = ranged_file_response(default_storage.open(stored, "rb"), size=default_storage.size(stored),
                                    content_type=content_type, range_header=request.headers.get("Range"))
    # FileResponse names the file it streams (inline; filename=…); the digest is in the URL already.
    response.headers.pop("Content-Disposition", None)
    response["Cache-Control"] = "private, max-age=86400, immutable"
    response["X-Content-Type-Options"] = "nosniff"
    return response
