"""Blind down to the bytes: annotators receive renditions re-encoded from the pixels, curators and releases the
originals; a corrupt image is never served as imported and flags its pair."""

import io
import json
import re

import pytest
from django.core.files.storage import default_storage
from django.test import Client
from PIL import Image

from annotation.catalogue import renditions
from annotation.catalogue.models import Campaign, Media, Pair
from tests.catalogue.import_helpers import run_import_json, write_jsonl
from tests.catalogue.tagged_images import MODEL, corrupt_png, tagged_jpeg, tagged_png
from tests.factories import UserFactory

MAX = 10**8


def _decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


@pytest.mark.parametrize("make", [tagged_png, tagged_jpeg], ids=["png", "jpeg"])
def test_every_rendition_drops_exif_xmp_iptc_text_chunks_and_c2pa(make):
    original = make()
    assert MODEL.encode() in original
    made = [renditions.full(original, max_pixels=MAX)]
    made += [renditions.sized(original, width=40, extension=ext, max_pixels=MAX) for ext in ("webp", "jpg")]
    for rendition in made:
        assert MODEL.encode().lower() not in rendition.data.lower()
        for marker in (b"Exif", b"xmpmeta", b"Photoshop", b"8BIM", b"jumb", b"c2pa", b"tEXt", b"zTXt", b"iTXt", b"eXIf"):
            assert marker not in rendition.data, marker
        info = _decoded(rendition.data).info
        assert not {"exif", "xmp", "icc_profile", "photoshop", "comment", "parameters", "Software"} & set(info)


def test_a_png_full_rendition_keeps_every_pixel_and_a_sized_one_keeps_the_aspect():
    original = tagged_png(size=(300, 200))
    full = renditions.full(original, max_pixels=MAX)
    assert (full.mime_type, full.extension) == ("image/png", "png")
    assert _decoded(full.data).tobytes() == _decoded(original).tobytes()
    small = renditions.sized(original, width=150, extension="webp", max_pixels=MAX)
    assert (small.mime_type, _decoded(small.data).size) == ("image/webp", (150, 100))


def test_exif_orientation_is_applied_before_it_is_dropped():
    image = Image.new("RGB", (40, 20), (10, 200, 10))
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90° clockwise to display
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif)
    assert _decoded(renditions.full(out.getvalue(), max_pixels=MAX).data).size == (20, 40)


def test_a_corrupt_image_that_passes_verify_cannot_be_rendered():
    data = corrupt_png()
    Image.open(io.BytesIO(data)).verify()
    with pytest.raises(renditions.RenditionError, match="the image cannot be decoded"):
        renditions.full(data, max_pixels=MAX)


def test_only_widths_smaller_than_the_image_are_offered():
    assert renditions.widths_for(2048) == [640, 1280, 1920]
    assert renditions.widths_for(700) == [640]
    assert renditions.widths_for(640) == []
    assert renditions.widths_for(None) == []


# End to end: import, claim as an annotator, fetch everything the annotator can fetch.

def _import_tagged(tmp_path, *, a: bytes, b: bytes, model_a: str = MODEL, model_b: str = "other-maker") -> Campaign:
    root = tmp_path / "media"
    root.mkdir()
    (root / f"{model_a}_0001.png").write_bytes(a)
    (root / f"{model_b}_0001.jpg").write_bytes(b)

    def response(model, file):
        return {"model": model, "content": [{"type": "image", "file": file, "alt": file}]}

    record = {"id": f"{model_a}-vs-{model_b}", "prompt": {"id": "p-1", "content": [{"type": "text", "text": "A fox"}]},
              "response_a": response(model_a, f"{model_a}_0001.png"), "response_b": response(model_b, f"{model_b}_0001.jpg")}
    path = write_jsonl(tmp_path / "pairs.jsonl", [record])
    code, summary = run_import_json(path, "--campaign", "blind", "--format", "concord", "--task", "text-to-image",
                                    "--schema", "mmrb2-generation", "--media-root", str(root))
    assert (code, summary["created"]) == (0, 1), summary
    return Campaign.objects.get(slug="blind")


def _annotator_client(campaign: Campaign) -> tuple[Client, object]:
    rater = UserFactory(username="fox-rater")
    campaign.members.add(rater)
    client = Client()
    client.force_login(rater)
    return client, rater


MEDIA_URL = re.compile(r"/media/[0-9a-f]{64}(?:\.[a-z0-9]+|/w\d+\.[a-z]+)")


def _assert_names_nothing(response, what: str) -> None:
    body = b"".join(response.streaming_content) if response.streaming else response.content
    headers = json.dumps(dict(response.headers)).lower()
    for secret in (MODEL, "other-maker"):
        assert secret.encode() not in body.lower(), f"{secret} in the bytes of {what}"
        assert secret not in headers, f"{secret} in the headers of {what}"
    assert "content-disposition" not in headers, what


@pytest.mark.django_db
def test_an_annotator_finds_the_model_name_in_no_byte_and_no_header_of_anything_they_can_fetch(tmp_path):
    campaign = _import_tagged(tmp_path, a=tagged_png(size=(700, 500)), b=tagged_jpeg(MODEL.replace("secret", "other"),
                                                                                          size=(700, 500)))
    client, _ = _annotator_client(campaign)
    claimed = client.post(f"/api/v1/campaigns/{campaign.slug}/claim/")
    assert claimed.status_code == 200
    _assert_names_nothing(claimed, "the claim")
    page = client.get(f"/work/assignments/{claimed.json()['assignment']}/")
    assert page.status_code == 200
    _assert_names_nothing(page, "the workspace page")
    urls = set(MEDIA_URL.findall(claimed.content.decode() + page.content.decode()))
    digests = {m.sha256 for m in Media.objects.all()}
    for digest in digests:  # every variant there is, offered or not
        urls |= {f"/media/{digest}.png", f"/media/{digest}.jpg", f"/media/{digest}/w640.webp", f"/media/{digest}/w640.jpg"}
    assert any("/w640.webp" in url for url in MEDIA_URL.findall(page.content.decode())), "the page offers a srcset"
    for url in sorted(urls):
        fetched = client.get(url)
        assert fetched.status_code == 200, url
        assert fetched["Content-Type"] in ("image/png", "image/jpeg", "image/webp"), url
        _assert_names_nothing(fetched, url)
    assert client.get(f"/media/{next(iter(digests))}/w1280.webp").status_code == 404, "not offered: wider than the image"


@pytest.mark.django_db
def test_curators_and_releases_keep_the_original_bytes(tmp_path):
    original = tagged_png(size=(80, 60))
    campaign = _import_tagged(tmp_path, a=original, b=tagged_jpeg())
    media = Media.objects.get(mime_type="image/png")
    with default_storage.open(media.file.name, "rb") as handle:
        assert handle.read() == original
    curator = UserFactory(username="curator-1", role="curator")
    client = Client()
    client.force_login(curator)
    fetched = client.get(f"/media/{media.sha256}.png")
    assert b"".join(fetched.streaming_content) == original
    annotator, _ = _annotator_client(campaign)
    annotator.post(f"/api/v1/campaigns/{campaign.slug}/claim/")
    served = annotator.get(f"/media/{media.sha256}.png")
    assert b"".join(served.streaming_content) != original


@pytest.mark.django_db
def test_a_rendition_of_media_the_annotator_does_not_hold_is_a_404(tmp_path):
    campaign = _import_tagged(tmp_path, a=tagged_png(size=(702, 500)), b=tagged_jpeg())  # bytes no other test stores
    client, _ = _annotator_client(campaign)
    digest = Media.objects.get(mime_type="image/png").sha256
    for url in (f"/media/{digest}.png", f"/media/{digest}/w640.webp"):
        assert client.get(url).status_code == 404, url
    assert not default_storage.exists(f"renditions/v{renditions.VERSION}/{digest[:2]}/{digest}/full.png"), "nothing made"


@pytest.mark.django_db
def test_a_corrupt_image_is_never_served_to_annotators_and_flags_its_pair_for_curators(tmp_path):
    corrupt = corrupt_png()
    campaign = _import_tagged(tmp_path, a=corrupt, b=tagged_jpeg())
    client, _ = _annotator_client(campaign)
    claimed = client.post(f"/api/v1/campaigns/{campaign.slug}/claim/")
    media = Media.objects.get(mime_type="image/png")
    served = client.get(f"/media/{media.sha256}.png")
    assert served.status_code == 422
    assert served.content.decode().startswith("This image cannot be shown: the image cannot be decoded")
    assert corrupt not in served.content
    media.refresh_from_db()
    assert media.render_error.startswith("the image cannot be decoded")
    again = client.get(f"/api/v1/assignments/{claimed.json()['assignment']}/").json()
    assert "" in [block["url"] for block in again["left"] + again["right"]], "the display no longer offers it"
    curator = UserFactory(username="curator-2", role="curator")
    console = Client()
    console.force_login(curator)
    detail = console.get(f"/console/pairs/{Pair.objects.get().pk}/")
    assert detail.status_code == 200
    html = detail.content.decode()
    assert f"{media.sha256[:12]}</code> cannot be rendered: the image cannot be decoded" in html, html[html.find("Blind"):][:800]


@pytest.mark.django_db
def test_prepare_renditions_makes_every_offered_rendition_once_and_flags_a_corrupt_image(tmp_path):
    from io import StringIO

    from django.core.management import call_command

    campaign = _import_tagged(tmp_path, a=corrupt_png(size=(33, 33)), b=tagged_jpeg(size=(1300, 40)))
    out = StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command("prepare_renditions", "--campaign", campaign.slug, "--json", stdout=out)
    assert exited.value.code == 2
    broken = Media.objects.get(mime_type="image/png")
    assert json.loads(out.getvalue()) == {"media": 2, "unrenderable": [broken.sha256]}
    assert Media.objects.get(pk=broken.pk).render_error.startswith("the image cannot be decoded")
    good = Media.objects.get(mime_type="image/jpeg")
    folder = f"renditions/v{renditions.VERSION}/{good.sha256[:2]}/{good.sha256}"
    assert sorted(default_storage.listdir(folder)[1]) == ["full.jpg", "w1280.webp", "w640.webp"]
    again = StringIO()
    with pytest.raises(SystemExit):
        call_command("prepare_renditions", "--campaign", campaign.slug, "--json", stdout=again)
    assert json.loads(again.getvalue()) == {"media": 2, "unrenderable": [broken.sha256]}
