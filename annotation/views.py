"""Media served by Concord itself, checked against the viewer's role."""

from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.files.storage import default_storage
from django.http import Http404, HttpResponseRedirect
from django.views import View

from annotation.ranges import ranged_file_response
from annotation.selectors import media_visible_to


class MediaView(LoginRequiredMixin, View):
    """``/media/<sha256>.<ext>``: the name carries the digest only, never a model or file name."""

    raise_exception = True

    def get(self, request, name: str):
        digest = name.split(".", 1)[0]
        media = media_visible_to(user=request.user, digest=digest)
        if media is None:
            raise Http404("no such media")
        url = default_storage.url(media.file.name)
        if url.startswith("http"):
            return HttpResponseRedirect(url)
        response = ranged_file_response(
            default_storage.open(media.file.name, "rb"),
            size=default_storage.size(media.file.name),
            content_type=media.mime_type,
            range_header=request.headers.get("Range"),
        )
        response["Cache-Control"] = "private, max-age=86400, immutable"
        response["X-Content-Type-Options"] = "nosniff"
        return response
