"""Video, audio and 3D files reach annotators with every metadata element neutralised in place."""

import io
import json
import struct
import wave

import pytest
from PIL import Image

from annotation.catalogue.sanitize import SanitizeError, _ogg_crc, clean
from annotation.catalogue.services.media import MediaError, sniff
from tests.catalogue import glb, tagged_media
from tests.catalogue.tagged_media import NAME

MAKERS = {
    "audio/wav": tagged_media.tagged_wav, "audio/mpeg": tagged_media.tagged_mp3, "audio/flac": tagged_media.tagged_flac,
    "audio/ogg": tagged_media.tagged_ogg, "video/mp4": tagged_media.tagged_mp4, "video/webm": tagged_media.tagged_webm,
    "model/gltf-binary": tagged_media.tagged_glb, "model/ply": tagged_media.tagged_ply,
    "model/stl": tagged_media.tagged_stl, "model/obj": tagged_media.tagged_obj,
}


@pytest.mark.parametrize("mime_type", sorted(MAKERS))
def test_no_name_survives_and_the_file_is_still_what_it_was(mime_type):
    original = MAKERS[mime_type]()
    assert NAME in original and sniff(original).mime_type == mime_type
    cleaned = clean(original, mime_type)
    assert NAME.lower() not in cleaned.lower()
    assert sniff(cleaned).mime_type == mime_type
    if mime_type != "audio/mpeg":
        assert len(cleaned) == len(original), "nothing moves: offsets inside the file stay valid"


def test_a_wav_keeps_every_sample_and_its_tags_become_padding():
    original = tagged_media.tagged_wav()
    cleaned = clean(original, "audio/wav")
    with wave.open(io.BytesIO(original)) as a, wave.open(io.BytesIO(cleaned)) as b:
        assert a.readframes(a.getnframes()) == b.readframes(b.getnframes())
    assert b"JUNK" in cleaned and b"LIST" not in cleaned


def test_mp3_tags_are_cut_off_and_the_frames_kept():
    cleaned = clean(tagged_media.tagged_mp3(), "audio/mpeg")
    assert cleaned.startswith(b"\xff\xfb") and len(cleaned) == 3 * 417 and b"TAG" not in cleaned


def test_mp4_boxes_that_can_carry_names_become_free_boxes_in_place():
    cleaned = clean(tagged_media.tagged_mp4(), "video/mp4")
    top, at = [], 0
    while at < len(cleaned):
        size, kind = struct.unpack(">I4s", cleaned[at:at + 8])
        top.append(kind)
        at += size
    assert top == [b"ftyp", b"moov", b"free", b"mdat"]
    assert b"udta" not in cleaned and b"vide" in cleaned, "the handler type stays, its name goes"


def test_a_glb_keeps_its_geometry_and_loses_generator_names_and_extras():
    cleaned = clean(tagged_media.tagged_glb(), "model/gltf-binary")
    size = struct.unpack("<I", cleaned[12:16])[0]
    document = json.loads(cleaned[20:20 + size])
    assert document["asset"] == {"version": "2.0"} and document["nodes"] == [{"mesh": 0}]
    assert cleaned.endswith(bytes(36))


def test_ogg_pages_keep_valid_checksums_after_their_comments_are_blanked():
    assert _ogg_crc(b"123456789") == 0x89A1897F  # the Ogg CRC's check value (CRC-32/POSIX without the final xor)
    cleaned = clean(tagged_media.tagged_ogg(), "audio/ogg")
    at = 0
    while at < len(cleaned):
        count = cleaned[at + 26]
        length = 27 + count + sum(cleaned[at + 27:at + 27 + count])
        page = bytearray(cleaned[at:at + length])
        stored = struct.unpack("<I", page[22:26])[0]
        page[22:26] = bytes(4)
        assert _ogg_crc(bytes(page)) == stored
        at += length
    assert b"OpusTags" in cleaned and b"X=" in cleaned


def test_a_file_that_cannot_be_walked_is_refused_not_served_as_it_is():
    broken = tagged_media.tagged_mp4()[:60]
    with pytest.raises(SanitizeError, match="runs past its container"):
        clean(broken, "video/mp4")
    with pytest.raises(SanitizeError, match="no metadata cleaner for video/x-unknown"):
        clean(b"data", "video/x-unknown")


def test_webm_tags_become_a_void_element_and_a_bad_size_is_refused():
    original = tagged_media.tagged_webm()
    cleaned = clean(original, "video/webm")
    tags = original.index(b"\x12\x54\xc3\x67")
    assert cleaned[tags] == 0xEC and b"\x12\x54\xc3\x67" not in cleaned
    broken = bytearray(original)
    broken[original.index(b"\x15\x49\xa9\x66") + 4] = 0x1F  # the Info's size now runs past the file
    with pytest.raises(SanitizeError, match="runs past its container"):
        clean(bytes(broken), "video/webm")


@pytest.mark.django_db
def test_an_annotator_gets_the_clean_file_and_a_curator_the_original():
    from django.test import Client

    from annotation.catalogue.services.media import media_store
    from annotation.workqueue.services.assignments import assignment_claim
    from tests.factories import UserFactory
    from tests.workqueue.assignment_helpers import ab_tie_campaign

    campaign, (rater, other, _), (pair, *_) = ab_tie_campaign(pairs=1)
    original = tagged_media.tagged_wav()
    media = media_store(data=original, name="secretgen-9000_take1.wav")
    pair.media.add(media)
    assignment_claim(campaign=campaign, annotator=rater)
    client = Client()
    client.force_login(rater)
    served = client.get(f"/media/{media.sha256}.wav")
    body = b"".join(served.streaming_content)
    assert (served.status_code, served["Content-Type"]) == (200, "audio/wav")
    assert NAME not in body and body == clean(original, "audio/wav")
    assert "Content-Disposition" not in served
    curator = Client()
    curator.force_login(UserFactory(username="sanitize-curator", role="curator"))
    assert b"".join(curator.get(f"/media/{media.sha256}.wav").streaming_content) == original
    outsider = Client()
    outsider.force_login(other)
    assert outsider.get(f"/media/{media.sha256}.wav").status_code == 404


def _chunks(glb_bytes: bytes) -> tuple[dict, bytes]:
    size = struct.unpack("<I", glb_bytes[12:16])[0]
    return json.loads(glb_bytes[20:20 + size]), glb_bytes[20 + size + 8:]


def test_a_textured_glb_that_names_its_model_everywhere_comes_out_without_the_name_and_draws_the_same():
    model = "ClearWriter-70B"
    png = glb.texture_png((200, 40, 40), text=f"{model} texture baker")
    original = glb.glb("cube", name=model, texture=png)
    assert original.count(model.encode()) > 10 and sniff(original).mime_type == "model/gltf-binary"
    cleaned = clean(original, "model/gltf-binary")
    assert model.lower().encode() not in cleaned.lower() and len(cleaned) == len(original)
    before, _ = _chunks(original)
    document, binary = _chunks(cleaned)
    assert document["asset"] == {"version": "2.0"}
    assert "extensionsUsed" not in document and "extensions" not in document, "XMP goes with its declaration"
    assert document["nodes"] == [{"mesh": 0}] and document["scenes"] == [{"nodes": [0]}]
    assert document["meshes"][0]["primitives"] == before["meshes"][0]["primitives"]
    assert document["materials"][0] == {key: value for key, value in before["materials"][0].items() if key != "name"}
    assert [{k: v for k, v in a.items() if k != "name"} for a in before["accessors"]] == document["accessors"]
    view = document["bufferViews"][document["images"][0]["bufferView"]]
    texture = binary[view["byteOffset"]:view["byteOffset"] + view["byteLength"]]
    with Image.open(io.BytesIO(texture)) as image:
        image.load()
        assert image.getpixel((1, 1)) == (200, 40, 40) and "Software" not in image.info
    assert cleaned[-len(binary):][:view["byteOffset"]] == original[-len(binary):][:view["byteOffset"]], "geometry kept"


def test_a_jpeg_texture_loses_its_exif_and_comment_and_keeps_its_pixels():
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (30, 160, 60)).save(buffer, "JPEG", exif=b"Exif\x00\x00MM\x00*" + NAME, comment=NAME)
    original = glb.glb("pyramid", texture=buffer.getvalue())  # declared image/png: the cleaner reads the bytes
    cleaned = clean(original, "model/gltf-binary")
    assert NAME in original and NAME not in cleaned
    document, binary = _chunks(cleaned)
    view = document["bufferViews"][document["images"][0]["bufferView"]]
    with Image.open(io.BytesIO(binary[view["byteOffset"]:view["byteOffset"] + view["byteLength"]])) as image:
        pixel = image.convert("RGB").getpixel((4, 4))
    assert max(abs(a - b) for a, b in zip(pixel, (30, 160, 60), strict=True)) < 8


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["buffers"][0].update(uri="https://example.org/model.bin"), "a buffer refers to a file outside the GLB"),
    (lambda d: d.update(images=[{"uri": "textures/skin.png"}]), "image 0 refers to a file outside the GLB"),
])
def test_a_glb_that_refers_to_outside_files_is_not_served(change, message):
    size = struct.unpack("<I", glb.glb()[12:16])[0]
    document = json.loads(glb.glb()[20:20 + size])
    change(document)
    text = json.dumps(document).encode()
    text += b" " * (-len(text) % 4)
    body = struct.pack("<I4s", len(text), b"JSON") + text
    with pytest.raises(SanitizeError, match=message):
        clean(b"glTF" + struct.pack("<II", 2, 12 + len(body)) + body, "model/gltf-binary")


def test_an_ascii_stl_keeps_its_facets_and_its_solid_loses_its_name():
    original = tagged_media.tagged_ascii_stl()
    assert sniff(original, name="mesh.stl").mime_type == "model/stl"
    cleaned = clean(original, "model/stl")
    assert NAME not in cleaned and len(cleaned) == len(original)
    lines = cleaned.split(b"\n")
    assert lines[0].rstrip() == b"solid" and lines[0].endswith(b"\r") and lines[-2].rstrip() == b"endsolid"
    assert lines[1:-2] == original.split(b"\n")[1:-2], "every facet as it was"
    unnamed = b"solid\n" + original.split(b"\n", 1)[1].replace(b"endsolid " + NAME, b"endsolid")
    assert sniff(unnamed, name="mesh.stl").mime_type == "model/stl" and clean(unnamed, "model/stl") == unnamed


def test_a_binary_stl_is_known_by_its_length_and_keeps_every_facet():
    original = tagged_media.tagged_stl()
    cleaned = clean(original, "model/stl")
    assert cleaned[:80] == bytes(80) and cleaned[80:] == original[80:]
    assert sniff(cleaned, name="mesh.stl").mime_type == "model/stl"
    with pytest.raises(MediaError, match="not a recognised image, video, audio or 3D file"):
        sniff(original[:-1], name="mesh.stl")  # one byte short: the facet count no longer says its length


def test_an_obj_keeps_its_vertices_and_faces_and_every_statement_keyword():
    cleaned = clean(tagged_media.tagged_obj(), "model/obj").decode()
    statements = [line.split()[0] for line in cleaned.splitlines() if line.strip()]
    assert statements == ["#", "mtllib", "o", "g", "v", "v", "v", "usemtl", "#", "f"]
    assert "v 1 0 0" in cleaned and "f 1 2 3" in cleaned and cleaned.splitlines()[0] == "#" + " " * 13 + " " * len(NAME)


@pytest.mark.parametrize("text", [
    b"# Notes\nv is for vendetta, f for friend.\nNothing else here.\n",  # prose that starts like OBJ
    b"v,f\n1,2\n",  # CSV
    b"import os\nprint(os.name)\n",  # code
    b"# only comments\n# and a vertex\nv 0 0 0\n",  # no face: not a mesh
])
def test_text_that_is_not_a_mesh_is_not_taken_for_an_obj(text):
    with pytest.raises(MediaError) as error:
        sniff(text, name="model.obj")
    assert error.value.code == "media_unknown_type"
