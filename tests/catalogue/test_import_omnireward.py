"""Omni-RewardBench rows: text, image, audio and video media resolved under the media root, criteria kept."""

import json

import pytest

from annotation.catalogue.models import Media, Pair
from annotation.workqueue.models import Annotation
from tests.catalogue.import_helpers import jpeg_bytes, mp4_bytes, png_bytes, run_import_json, wav_bytes, write_jsonl

pytestmark = pytest.mark.django_db


@pytest.fixture
def media_root(tmp_path):
    root = tmp_path / "omni"
    for folder in ("images", "audio", "video", "generated"):
        (root / folder).mkdir(parents=True)
    (root / "images" / "chart.png").write_bytes(png_bytes(1))
    (root / "audio" / "birdsong.wav").write_bytes(wav_bytes(1))
    (root / "video" / "skate.mp4").write_bytes(mp4_bytes(1))
    (root / "generated" / "cat_1.jpg").write_bytes(jpeg_bytes(1))
    (root / "generated" / "cat_2.jpg").write_bytes(jpeg_bytes(2))
    (root / "generated" / "song_1.wav").write_bytes(wav_bytes(2))
    (root / "generated" / "song_2.wav").write_bytes(wav_bytes(3))
    return root


def omni_rows() -> list[dict]:
    return [
        {"id": "t2t-1", "prompt": "Explain tides to a child.", "response1": "The moon pulls the sea.",
         "response2": "Tides are periodic.", "model1": "model-a", "model2": "model-b",
         "criteria": "Uses words a child knows", "criteria_preference": "response1"},
        {"id": "i2t-1", "prompt": "What does the chart show?", "image": "images/chart.png",
         "response1": "Sales rise.", "response2": "Sales fall.", "model1": "model-a", "model2": "model-c",
         "criteria": "Reads the axis correctly", "criteria_preference": "response2"},
        {"id": "a2t-1", "prompt": "Which bird is singing?", "audio_path": "audio/birdsong.wav",
         "response1": "A robin.", "response2": "A wren.", "model1": "model-b", "model2": "model-c",
         "criteria": "Names a plausible species", "criteria_preference": "tie"},
        {"id": "v2t-1", "prompt": "Describe the trick.", "video": "video/skate.mp4",
         "response1": "A kickflip.", "response2": "An ollie.", "model1": "model-a", "model2": "model-b",
         "criteria": "Identifies the trick", "criteria_preference": "response1", "subset": "sports"},
        {"id": "t2i-1", "prompt": "A cat in a hat", "response1_path": "generated/cat_1.jpg",
         "response2_path": "generated/cat_2.jpg", "model1": "gen-x", "model2": "gen-y",
         "criteria": "The hat is visible", "criteria_preference": "response2"},
        {"id": "t2a-1", "prompt": "A calm piano loop", "response1_path": "generated/song_1.wav",
         "response2_path": "generated/song_2.wav", "model1": "gen-x", "model2": "gen-z",
         "criteria": "Stays calm throughout", "criteria_preference": "tie"},
    ]


def test_rows_of_every_modality_import_with_their_criterion_and_label(tmp_path, media_root):
    path = write_jsonl(tmp_path / "omni.jsonl", omni_rows())
    code, summary = run_import_json(path, "--campaign", "omni", "--format", "omnireward", "--task", "image-to-text",
                                    "--schema", "omni-criteria", "--media-root", str(media_root), "--with-annotations")
    assert (code, summary["created"], summary["annotations_imported"], summary["errors"]) == (0, 6, 6, [])
    labels = {p.external_id: p.annotations.get().values for p in Pair.objects.prefetch_related("annotations")}
    assert labels["t2t-1"] == {"criteria": [{"criterion": "Uses words a child knows", "label": "A"}]}
    assert labels["i2t-1"]["criteria"][0]["label"] == "B"
    assert labels["a2t-1"]["criteria"][0]["label"] == "tie"
    image_pair = Pair.objects.get(external_id="i2t-1")
    assert image_pair.criteria == ["Reads the axis correctly"]
    assert image_pair.metadata == {"criteria_preference": "response2"}
    assert [b["type"] for b in image_pair.prompt.content] == ["text", "image"]
    assert image_pair.response_a.model_name == "model-a" and image_pair.response_b.model_name == "model-c"
    kinds = {p.external_id: sorted(p.media.values_list("kind", flat=True)) for p in Pair.objects.all()}
    assert kinds == {"t2t-1": [], "i2t-1": ["image"], "a2t-1": ["audio"], "v2t-1": ["video"],
                     "t2i-1": ["image", "image"], "t2a-1": ["audio", "audio"]}
    assert Pair.objects.get(external_id="v2t-1").metadata == {"subset": "sports", "criteria_preference": "response1"}
    generated = Pair.objects.get(external_id="t2i-1")
    assert generated.response_a.content == [{"type": "image", "media": generated.response_a.content[0]["media"], "alt": ""}]
    assert Media.objects.get(sha256=generated.response_a.content[0]["media"]).mime_type == "image/jpeg"
    assert {a.source for a in Annotation.objects.all()} == {Annotation.Source.IMPORTED}
    assert generated.status == Pair.Status.QUEUED, "one imported label is fewer than the campaign's overlap of 3"


def test_a_json_array_of_rows_imports_and_importing_again_creates_nothing(tmp_path, media_root):
    path = tmp_path / "omni.json"
    path.write_text(json.dumps(omni_rows(), indent=2))
    args = ("--campaign", "omni", "--format", "omnireward", "--task", "text-to-image", "--media-root", str(media_root))
    assert run_import_json(path, *args)[1]["created"] == 6
    code, again = run_import_json(path, *args)
    assert (code, again["created"], again["duplicates"]) == (0, 0, 6)
    assert Annotation.objects.count() == 0, "labels are stored as annotations only with --with-annotations"
    assert Pair.objects.count() == 6


def test_bad_omni_rows_get_precise_errors(tmp_path, media_root):
    rows = [
        {**omni_rows()[0], "id": "bad-pref", "criteria_preference": "response3"},
        {**omni_rows()[4], "id": "bad-ext", "response1_path": "generated/cat_1.heic"},
        {**omni_rows()[1], "id": "bad-image", "image": ["images/chart.png", 7]},
        {**omni_rows()[0], "id": "no-answer", "response2": None},
        {**omni_rows()[3], "id": "audio-as-video", "video": "audio/birdsong.wav"},
    ]
    path = write_jsonl(tmp_path / "bad.jsonl", rows)
    code, summary = run_import_json(path, "--campaign", "omni", "--format", "omnireward", "--task", "video-to-text",
                                    "--media-root", str(media_root), "--with-annotations")
    assert (code, summary["status"]) == (1, "failed"), "nothing was imported"
    assert summary["created"] == 0
    assert [e["message"] for e in summary["errors"]] == [
        "criteria_preference: expected response1, response2 or tie, got 'response3'",
        "response1_path: cannot tell what kind of media 'generated/cat_1.heic' is from its extension; expected one of "
        "bmp, flac, gif, glb, gltf, jpeg, jpg, m4a, m4v, mkv, mov, mp3, mp4, obj, oga, ogg, ply, png, stl, tif, tiff, "
        "wav, webm, webp",
        "image: expected a path or a list of paths, got a list",
        "response2: a response needs a text or a response2_path",
        "prompt.content: audio/birdsong.wav is audio/wav, not the video the block says",
    ]
