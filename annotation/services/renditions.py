"""Renditions of stored images, made once per digest and variant and kept in storage beside the originals."""

from __future__ import annotations

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from annotation import renditions
from annotation.errors import ApplicationError
from annotation.models import Media
from annotation.services.media import storage_put

FULL = "full"


def rendition_name(digest: str, variant: str, extension: str) -> str:
    """Where a rendition lives in storage: the digest, the variant and the encoding version, nothing else."""
    return f"renditions/v{renditions.VERSION}/{digest[:2]}/{digest}/{variant}.{extension}"


def rendition_variant(*, media: Media, variant: str, extension: str) -> tuple[str, str]:
    """``(variant, extension)`` checked against what ``media`` offers; 404 for anything it does not.

    ``full`` ignores the extension asked for (its own follows the original's type); ``w<width>`` must be one of
    the widths offered for the image, as ``webp`` or ``jpg``.
    """
    if media.kind != Media.Kind.IMAGE:
        raise ApplicationError("Only images have renditions.", code="not_found", status_code=404)
    if variant == FULL:
        return FULL, renditions.full_extension(media.mime_type)
    width = int(variant[1:]) if variant[:1] == "w" and variant[1:].isdigit() else None
    if width not in renditions.widths_for(media.width) or extension not in renditions.SIZED_FORMATS:
        raise ApplicationError("No such rendition.", code="not_found", status_code=404)
    return variant, extension


def media_rendition_ensure(*, media: Media, variant: str, extension: str) -> str:
    """The storage name of ``media``'s rendition ``variant``, made and stored first when it is missing.

    Idempotent: a second call (or a concurrent one) finds the stored file. An image that cannot be decoded
    gets its ``render_error`` recorded (every pair showing it is then flagged for curators) and a 422; its
    original is never offered instead.
    """
    variant, extension = rendition_variant(media=media, variant=variant, extension=extension)
    name = rendition_name(media.sha256, variant, extension)
    if default_storage.exists(name):
        return name
    if media.render_error:
        raise _unrenderable(media.render_error)
    with default_storage.open(media.file.name, "rb") as handle:
        data = handle.read()
    max_pixels = settings.CONCORD_MAX_IMAGE_PIXELS
    try:
        if variant == FULL:
            made = renditions.full(data, max_pixels=max_pixels)
        else:
            made = renditions.sized(data, width=int(variant[1:]), extension=extension, max_pixels=max_pixels)
    except renditions.RenditionError as exc:
        error = str(exc)[:300]
        Media.objects.filter(pk=media.pk).update(render_error=error)
        media.render_error = error
        raise _unrenderable(error) from exc
    storage_put(name, ContentFile(made.data))
    return name


def _unrenderable(error: str) -> ApplicationError:
    return ApplicationError(
        f"This image cannot be shown: {error}. The pair is flagged for the curators.",
        code="media_unrenderable",
        status_code=422,
    )
