"""The demo generator writes valid concord JSONL whose every media file is a real picture or sound."""

import io
import json
import random
import re
import struct
import wave
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from annotation.catalogue import content
from annotation.catalogue.sanitize import clean
from annotation.catalogue.services.media import sniff
from demo import generation, meshes, omni, stories, traces
from demo.build import build_demo
from demo.bundle import MediaFolder, write_jsonl

MMRB2_KINDS = ("text-to-image", "image-editing", "interleaved", "reasoning")
ALL_MODELS = {m.name for m in (*generation.T2I_MODELS, *generation.EDIT_MODELS, *stories.STORY_MODELS,
                               *traces.AGENTS, *omni.AUDIO_MODELS)} | set(omni.TEXT_MODELS) | set(meshes.MESH_MODELS)


pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The whole demo, built once for this module: {kind: [rows]}, the campaigns and the media root."""
    out = tmp_path_factory.mktemp("demo")
    campaigns, media_root = build_demo(out)
    rows = {c.kind: [json.loads(line) for line in c.jsonl.read_text(encoding="utf-8").splitlines()] for c in campaigns}
    return rows, campaigns, media_root


def media_blocks(blocks):
    return list(content.iter_media(content.validate(blocks, allow_files=True)))


def every_side(row):
    return (row["prompt"]["content"], row["response_a"]["content"], row["response_b"]["content"])


def test_every_row_validates_as_content_with_files(demo):
    """Prompt and both responses of every row pass content.validate(allow_files=True) unchanged."""
    rows, _, _ = demo
    for kind, kind_rows in rows.items():
        for row in kind_rows:
            assert set(row) >= {"id", "prompt", "response_a", "response_b", "priority"}
            assert row["prompt"]["task"] == kind
            for blocks in every_side(row):
                assert content.validate(blocks, allow_files=True) == blocks, row["id"]
            assert row["response_a"]["content"] != row["response_b"]["content"], f"{row['id']}: identical responses"


def test_each_mmrb2_kind_has_twenty_to_forty_pairs_and_omni_kinds_exist(demo):
    """About 20–40 pairs per MMRB2 kind, plus small text-to-audio and text-to-text campaigns with criteria."""
    rows, campaigns, _ = demo
    for kind in MMRB2_KINDS:
        assert 20 <= len(rows[kind]) <= 40, kind
    assert {c.kind for c in campaigns} == {*MMRB2_KINDS, "text-to-audio", "text-to-text", "text-to-3d"}
    assert {c.preset for c in campaigns if c.kind in ("text-to-audio", "text-to-text", "text-to-3d")} == {"omni-criteria"}
    for kind in ("text-to-audio", "text-to-text"):
        assert rows[kind] and all(row["criteria"] for row in rows[kind])
    ids = [row["id"] for kind_rows in rows.values() for row in kind_rows]
    assert len(ids) == len(set(ids))


def test_each_campaigns_instructions_speak_of_what_its_raters_see_and_hear(demo):
    """Text raters are not told to listen, audio raters are not told to look at pictures, editors compare inputs."""
    _, campaigns, _ = demo
    instructions = {c.kind: c.instructions.lower() for c in campaigns}
    assert len(set(instructions.values())) == len(campaigns), "each kind has its own instructions"
    words = {kind: set(re.findall(r"[a-z]+", text)) for kind, text in instructions.items()}
    assert not words["text-to-text"] & {"listen", "audio", "sound", "sounds", "picture", "pictures", "image", "images"}
    assert "listen" in words["text-to-audio"] and not words["text-to-audio"] & {"picture", "pictures", "image"}
    for kind in MMRB2_KINDS:
        assert not words[kind] & {"listen", "audio", "sound", "sounds"}, kind
    assert {"input", "edit"} <= words["image-editing"]


def test_every_referenced_file_exists_and_is_what_its_block_says(demo):
    """Each media block's file is under the media root and its bytes sniff as that kind (image or audio)."""
    rows, _, media_root = demo
    seen = Counter()
    for kind_rows in rows.values():
        for row in kind_rows:
            for blocks in every_side(row):
                for block in media_blocks(blocks):
                    path = media_root / block["file"]
                    assert path.is_file(), block["file"]
                    found = sniff(path.read_bytes(), name=block["file"])
                    assert found.kind == block["type"]
                    seen[found.mime_type] += 1
    assert seen["image/jpeg"] > 300 and seen["audio/wav"] >= 16 and seen["model/gltf-binary"] == 16


def test_pictures_are_photographic_not_placeholder_boxes(demo):
    """Every prompt image and generated picture has the texture of a photograph: many tones, real contrast.

    (Tool results inside reasoning traces may be masks or colour swatches, so they are left out.)"""
    rows, _, media_root = demo
    pictures = set()
    for kind, kind_rows in rows.items():
        for row in kind_rows:
            shown = [row["prompt"]["content"]]
            if kind != "reasoning":
                shown += [row["response_a"]["content"], row["response_b"]["content"]]
            pictures.update(b["file"] for blocks in shown for b in media_blocks(blocks) if b["type"] == "image")
    assert len(pictures) > 250
    for name in sorted(pictures):
        path = media_root / name
        with Image.open(path) as image:
            pixels = np.asarray(image.convert("RGB"))
        assert pixels.std() > 8, f"{name} is nearly flat"
        # Black-and-white edits are legitimate photographs too, so count grey levels rather than colours.
        assert len(np.unique(pixels.mean(axis=2).astype(np.uint8))) > 100, f"{name} has too few tones to be a photograph"


def test_sounds_are_audible_wav_of_the_requested_length(demo):
    """Each WAV is 16-bit mono with a non-silent signal between half a second and three seconds."""
    _, _, media_root = demo
    for path in sorted((media_root / "audio").rglob("*.wav")):
        with wave.open(io.BytesIO(path.read_bytes())) as sound:
            assert (sound.getnchannels(), sound.getsampwidth()) == (1, 2)
            seconds = sound.getnframes() / sound.getframerate()
            samples = np.frombuffer(sound.readframes(sound.getnframes()), dtype="<i2")
        assert 0.5 <= seconds <= 3.0
        assert np.abs(samples).max() > 5_000


def test_image_editing_has_single_and_multi_image_inputs(demo):
    """Editing prompts carry one, two or three input images and an instruction; each output is one image."""
    rows, _, _ = demo
    inputs = Counter()
    for row in rows["image-editing"]:
        prompt = row["prompt"]["content"]
        assert prompt[0]["type"] == "text" and prompt[0]["text"]
        inputs[len(media_blocks(prompt))] += 1
        for side in ("response_a", "response_b"):
            assert [b["type"] for b in row[side]["content"]] == ["image"]
    assert set(inputs) == {1, 2, 3}


def test_interleaved_answers_alternate_paragraphs_and_illustrations(demo):
    """Each story answer has three or more text paragraphs, each followed by its illustration."""
    rows, _, _ = demo
    for row in rows["interleaved"]:
        for side in ("response_a", "response_b"):
            kinds = [b["type"] for b in row[side]["content"]]
            assert kinds[0] == "text" and kinds.count("image") >= 3
            assert kinds[1:] == ["text", "image"] * kinds.count("image")


def test_reasoning_traces_show_steps_code_tool_results_and_a_final_answer(demo):
    """Traces hold numbered reasoning steps, Python, tool calls with image results and a final answer;
    most pairs set a correct final answer against a wrong one, as the reasoning rubric expects."""
    rows, _, _ = demo
    found = Counter()
    split = 0
    for row in rows["reasoning"]:
        finals = []
        for side in ("response_a", "response_b"):
            blocks = row[side]["content"]
            assert blocks[-1]["type"] == "final_answer"
            finals.append(blocks[-1]["text"] == row["prompt"]["metadata"]["answer"])
            for block in blocks:
                found[block["type"]] += 1
                for inner in block.get("blocks", []):
                    found[inner["type"]] += 1
                    if inner["type"] == "tool_call" and any(r["type"] == "image" for r in inner["result"]):
                        found["tool_call_with_image"] += 1
        split += finals[0] != finals[1]
    assert found["reasoning"] and found["code"] and found["tool_call_with_image"] and found["final_answer"]
    assert split >= len(rows["reasoning"]) // 2
    assert {row["prompt"]["metadata"]["category"] for row in rows["reasoning"]} >= {
        "counting", "fine_detail", "instrument_reading", "multi_image_matching", "colour_comparison"}


def test_no_model_name_leaks_outside_the_model_field(demo):
    """Model names appear only in response 'model' fields: never in ids, file names, prompts or response content."""
    rows, _, media_root = demo
    for kind_rows in rows.values():
        for row in kind_rows:
            assert row["response_a"]["model"] in ALL_MODELS and row["response_b"]["model"] in ALL_MODELS
            visible = json.dumps([row["id"], row["prompt"], row["response_a"]["content"], row["response_b"]["content"]])
            for name in ALL_MODELS:
                assert name not in visible, f"{row['id']} shows {name}"
    for path in media_root.rglob("*"):
        assert not any(name in path.name for name in ALL_MODELS)


def test_better_models_win_more_often_on_generation(demo):
    """Quality differs by model: in text-to-image the strongest model's images are right more often than the weakest's."""
    rendered = {}
    for model in (generation.T2I_MODELS[0], generation.T2I_MODELS[-1]):
        correct = 0
        for i in range(24):
            rng = random.Random(f"t2i:{i}")
            scene = generation._scene(rng, i)
            ideal = generation.render_scene(scene, generation.ImageModel("ideal", 1.0, 1.0, 0.0), random.Random(i))
            image = generation.render_scene(scene, model, random.Random(i))
            correct += float(np.abs(np.asarray(ideal, dtype=float) - np.asarray(image.resize(ideal.size), dtype=float))
                             .mean()) < 8
        rendered[model.name] = correct
    assert rendered["lumen-xl"] > rendered["sketchbot-mini"]


@pytest.mark.parametrize(
    "make",
    [lambda m: generation.text_to_image_rows(m, count=3), lambda m: generation.image_editing_rows(m, count=3),
     lambda m: stories.interleaved_rows(m, count=2), lambda m: traces.reasoning_rows(m, count=5),
     lambda m: omni.text_to_audio_rows(m), lambda m: meshes.text_to_3d_rows(m)],
    ids=["text-to-image", "image-editing", "interleaved", "reasoning", "text-to-audio", "text-to-3d"],
)
def test_generation_is_deterministic(tmp_path: Path, make):
    """The same seed writes byte-identical JSONL and media, so seeding twice imports nothing new."""
    outputs = []
    for run in ("one", "two"):
        media = MediaFolder(tmp_path / run / "media")
        write_jsonl(tmp_path / run / "pairs.jsonl", make(media), seed="same")
        files = {p.relative_to(media.root): p.read_bytes() for p in media.root.rglob("*") if p.is_file()}
        outputs.append(((tmp_path / run / "pairs.jsonl").read_bytes(), files))
    assert outputs[0] == outputs[1]


def test_reasoning_answers_are_true_of_the_pictures(demo):
    """The expected answers hold for the stored pictures: the stars counted by colour, and the detail found by
    template matching only in the image the answer names."""
    from scipy import ndimage
    from skimage.feature import match_template

    rows, _, media_root = demo

    def pictures(row):
        return [np.asarray(Image.open(media_root / b["file"]).convert("RGB"))
                for b in media_blocks(row["prompt"]["content"])]

    checked = Counter()
    for row in rows["reasoning"]:
        category, answer = row["prompt"]["metadata"]["category"], row["prompt"]["metadata"]["answer"]
        if category == "counting":
            colour = next(c for c in ("pink", "blue", "purple", "green") if f" {c} stars" in row["prompt"]["content"][0]["text"])
            mask = np.abs(pictures(row)[0].astype(int) - np.array(traces.im.COLOURS[colour])).max(axis=2) < 50
            labels, found = ndimage.label(ndimage.binary_opening(mask))
            sizes = ndimage.sum(mask, labels, range(1, found + 1))
            assert int((sizes > 60).sum()) == int(answer), row["id"]
            checked[category] += 1
        elif category == "multi_image_matching":
            detail, *candidates = pictures(row)
            small = np.asarray(Image.fromarray(detail).resize((130, 130)).convert("L"), dtype=float)
            scores = [match_template(np.asarray(Image.fromarray(c).convert("L"), dtype=float), small).max()
                      for c in candidates]
            assert f"Image {int(np.argmax(scores)) + 2}" == answer, (row["id"], scores)
            checked[category] += 1
    assert checked["counting"] >= 3 and checked["multi_image_matching"] >= 3


def test_3d_models_are_glbs_that_name_their_model_only_where_the_cleaner_removes_it(demo):
    """Each text-to-3D response is a GLB with its two sides different; the exporter names the model in
    asset.generator, as real ones do, and the annotators' clean copy keeps the geometry and drops the name."""
    rows, _, media_root = demo
    assert len(rows["text-to-3d"]) == len(meshes.SOLIDS) and all(row["criteria"] for row in rows["text-to-3d"])
    for row in rows["text-to-3d"]:
        files = [media_root / side["content"][0]["file"] for side in (row["response_a"], row["response_b"])]
        assert files[0].read_bytes() != files[1].read_bytes(), row["id"]
        for side, path in zip((row["response_a"], row["response_b"]), files, strict=True):
            data = path.read_bytes()
            assert side["model"].encode() in data
            cleaned = clean(data, "model/gltf-binary")
            size = struct.unpack("<I", cleaned[12:16])[0]
            document = json.loads(cleaned[20:20 + size])
            assert document["asset"] == {"version": "2.0"} and document["meshes"]
            assert not any(name.encode() in cleaned for name in ALL_MODELS)
