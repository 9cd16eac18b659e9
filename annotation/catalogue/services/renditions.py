"""Renditions of stored images, made once per digest and variant and kept in storage beside the originals."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from annotation.catalogue import renditions, sanitize
from annotation.catalogue.models import Campaign, Media
from annotation.catalogue.services.media import storage_put
from core.errors import ApplicationError

FULL = "full"
CLEAN = "clean"


def rendition_name(digest: str, variant: str, extension: str) -> str:
    """Where a rendition lives in storage: the digest, the variant and the encoding version (and, for a clean file,
    the cleaners' version), nothing else."""
    if variant == CLEAN:
        variant = f"{CLEAN}-s{sanitize.VERSION}"
    return f"renditions/v{renditions.VERSION}/{digest[:2]}/{digest}/{variant}.{extension}"


def rendition_variant(*, media: Media, variant: str, extension: str) -> tuple[str, str]:
    """``(variant, extension)`` checked against what ``media`` offers; 404 for anything it does not.

    ``full`` ignores the extension asked for (its own follows the original's type); ``w<width>`` must be one of
    the widths offered for the image, as ``webp`` or ``jpg``. A video, audio or 3D file has one: ``clean``, the
    file with its metadata neutralised (``annotation.catalogue.sanitize``).
    """
    if media.kind != Media.Kind.IMAGE:
        if variant != FULL:
            raise ApplicationError("Only images have sized renditions.", code="not_found", status_code=404)
        return CLEAN, PurePosixPath(media.file.name).suffix.lstrip(".") or "bin"
    if variant == FULL:
        return FULL, renditions.full_extension(media.mime_type)
    width = int(variant[1:]) if variant[:1] == "w" and variant[1:].isdigit() else None
    if width not in renditions.widths_for(media.width) or extension not in renditions.SIZED_FORMATS:
        raise ApplicationError("No such rendition.", code="not_found", status_code=404)
    return variant, extension


def media_rendition_ensure(*, media: Media, variant: str, extension: str) -> tuple[str, str]:
    """The storage name and content type of ``media``'s rendition ``variant``, made and stored first when missing.

    Idempotent: a second call (or a concurrent one) finds the stored file. An image that cannot be decoded
    (or a container that cannot be walked) gets its ``render_error`` recorded (every pair showing it is then
    flagged for curators) and a 422; its original is never offered instead.
    """
    variant, extension = rendition_variant(media=media, variant=variant, extension=extension)
    name = rendition_name(media.sha256, variant, extension)
    content_type = media.mime_type if variant == CLEAN else renditions.TYPES[extension]
    if not default_storage.exists(name):
        _make(media, [(variant, extension)])
    return name, content_type


def _make(media: Media, wanted: list[tuple[str, str]]) -> None:
    """Make and store the renditions ``wanted`` (checked variants) of ``media``, reading and decoding it once."""
    if media.render_error:
        raise _unrenderable(media.render_error, media.kind)
    with default_storage.open(media.file.name, "rb") as handle:
        data = handle.read()
    try:
        if media.kind != Media.Kind.IMAGE:
            made = {(CLEAN, extension): sanitize.clean(data, media.mime_type) for _, extension in wanted}
        else:
            decoded = renditions.decode(data, max_pixels=settings.CONCORD_MAX_IMAGE_PIXELS)
            made = {(v, e): renditions.render(decoded, variant=v, extension=e).data for v, e in wanted}
    except (renditions.RenditionError, sanitize.SanitizeError) as exc:
        error = str(exc)[:300]
        Media.objects.filter(pk=media.pk).update(render_error=error)
        media.render_error = error
        raise _unrenderable(error, media.kind) from exc
    for (variant, extension), content in made.items():
        storage_put(rendition_name(media.sha256, variant, extension), ContentFile(content))


def _unrenderable(error: str, kind: str = Media.Kind.IMAGE) -> ApplicationError:
    what = "image" if kind == Media.Kind.IMAGE else "file"
    return ApplicationError(
        f"This {what} cannot be shown: {error}. The pair is flagged for the curators.",
        code="media_unrenderable",
        status_code=422,
    )


def _offered(media: Media) -> list[tuple[str, str]]:
    """Every (variant, extension) an annotator's page asks for: the full (or clean) file and the sized WebPs."""
    if media.kind != Media.Kind.IMAGE:
        return [(FULL, "")]
    return [(FULL, ""), *((f"w{width}", "webp") for width in renditions.widths_for(media.width))]


def media_renditions_prepare(*, campaign: Campaign, progress: Callable[[int, int], None] | None = None) -> dict:
    """Make, ahead of the annotators, every rendition the pairs of ``campaign`` will ask for; a file that cannot be
    rendered is flagged now (``render_error``) rather than when a rater opens its pair. Idempotent: what is stored
    is kept. Returns the count of media and the digests that cannot be rendered."""
    media = list(Media.objects.filter(pairs__campaign=campaign).distinct().order_by("pk"))
    unrenderable = []
    for done, item in enumerate(media, start=1):
        wanted = [rendition_variant(media=item, variant=v, extension=e) for v, e in _offered(item)]
        missing = [(v, e) for v, e in wanted if not default_storage.exists(rendition_name(item.sha256, v, e))]
        try:
            if missing:
                _make(item, missing)
        except ApplicationError:
            unrenderable.append(item.sha256)
        if progress:
            progress(done, len(media))
    return {"media": len(media), "unrenderable": unrenderable}
