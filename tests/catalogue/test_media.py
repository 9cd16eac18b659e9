"""Media: content-addressed, deduplicated, sniffed from the bytes, safe against hostile paths."""

import io
import os

import pytest
from PIL import Image

from annotation.catalogue.models import Media
from annotation.catalogue.services.media import MediaError, media_store, media_store_path


def png_bytes(size=(8, 6), color=(200, 30, 30)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, "PNG")
    return buffer.getvalue()


@pytest.mark.django_db
def test_the_same_bytes_are_stored_once_under_their_digest():
    first = media_store(data=png_bytes(), name="gpt-image_0.png")
    second = media_store(data=png_bytes(), name="other-name.png")
    assert first.pk == second.pk
    assert Media.objects.count() == 1
    assert first.file.name == f"media/{first.sha256[:2]}/{first.sha256}.png"
    assert (first.kind, first.width, first.height) == ("image", 8, 6)


@pytest.mark.django_db
def test_a_file_that_is_not_what_its_name_says_is_refused():
    with pytest.raises(MediaError, match="the name says video but the bytes are image/png"):
        media_store(data=png_bytes(), name="clip.mp4")
    with pytest.raises(MediaError, match="not a recognised image"):
        media_store(data=b"<html>hello</html>", name="x.jpg")
    assert Media.objects.count() == 0


@pytest.mark.django_db
def test_oversized_images_are_refused_as_bombs(settings):
    settings.CONCORD_MAX_IMAGE_PIXELS = 100
    with pytest.raises(MediaError, match="exceeds the limit of 100"):
        media_store(data=png_bytes(size=(20, 20)), name="big.png")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("relative", "message"),
    [("../outside.png", "may not contain '..'"), ("/etc/passwd", "absolute paths"), ("link.png", "leaves the media root"),
     ("missing.png", "file not found"),
     ("a" * 5000, r"^a{80}… \(4,920 more characters\): the media path is 5,000 characters; the limit is 1,024$"),
     ("dir/" + "é" * 200 + ".png", r"a folder or file name in the path is 404 bytes; the limit is 255$"),
     ("/".join(["d" * 250] * 4), r"^d{80}… \(923 more characters\): file not found under the media root$")],
)
def test_hostile_paths_are_refused(tmp_path, relative, message):
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "outside.png").write_bytes(png_bytes())
    os.symlink(tmp_path / "outside.png", root / "link.png")
    with pytest.raises(MediaError, match=message):
        media_store_path(root=root, relative=relative)
    assert Media.objects.count() == 0
