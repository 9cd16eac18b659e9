"""The MMRB2 release files import whole: 1,000 pairs per task, every rating, media content-addressed."""

import hashlib
import io
import json
import re

import pytest
from PIL import Image

from annotation.catalogue.models import Media, Pair, Prompt
from annotation.workqueue.models import Annotation
from tests.catalogue.import_helpers import run_import_json

TASKS = {
    "t2i": ("text-to-image", "mmrb2-generation"),
    "edit": ("image-editing", "mmrb2-generation"),
    "interleaved": ("interleaved", "mmrb2-generation"),
    "reasoning": ("reasoning", "mmrb2-reasoning"),
}
LETTERS = {"A": 1, "B": 2, "C": 3}


def placeholder_images(pairs: list[dict], root) -> None:
    """A distinct tiny JPEG under every image name the pairs refer to."""
    root.mkdir(parents=True, exist_ok=True)
    for pair in pairs:
        for item in [*pair.get("prompt_content", []), *pair["response_a"]["response_content"],
                     *pair["response_b"]["response_content"]]:
            if item[0] == "image":
                seed = hashlib.sha256(item[1].encode()).digest()
                buffer = io.BytesIO()
                Image.frombytes("RGB", (4, 4), (seed * 2)[:48]).save(buffer, "JPEG", quality=95)
                (root / item[1]).write_bytes(buffer.getvalue())


def images_of(pair: dict) -> set[str]:
    return {v for side in ("response_a", "response_b") for k, v in pair[side]["response_content"] if k == "image"}


@pytest.mark.slow
@pytest.mark.django_db
@pytest.mark.parametrize("task", list(TASKS))
def test_a_release_file_imports_1000_pairs_with_every_rating(mmrb2_dir, tmp_path, task):
    path = mmrb2_dir / f"{task}_response_only.json"
    release = json.loads(path.read_text())["pairs"]
    placeholder_images(release, tmp_path / "images")
    kind, preset = TASKS[task]
    code, summary = run_import_json(path, "--campaign", f"mmrb2-{task}", "--format", "mmrb2", "--task", kind,
                                    "--schema", preset, "--media-root", str(tmp_path / "images"), "--with-annotations")
    assert (code, summary["created"], summary["duplicates"], summary["errors"]) == (0, 1000, 0, [])
    assert summary["annotations_imported"] == 3000
    stored = {p.external_id: p for p in Pair.objects.filter(campaign__slug=f"mmrb2-{task}").prefetch_related("annotations")}
    media_counts = dict(Pair.media.through.objects.filter(pair__campaign__slug=f"mmrb2-{task}").values_list(
        "pair__external_id").annotate(n=__import__("django.db.models", fromlist=["Count"]).Count("id")))
    rejected = 0
    for item in release:
        pair = stored[item["id"]]
        assert pair.metadata["chosen"] == item["chosen"]
        assert pair.status == Pair.Status.COMPLETE
        assert media_counts.get(item["id"], 0) == len(images_of(item))
        ratings = sorted(pair.annotations.all(), key=lambda a: a.rater_label)
        assert {a.source for a in ratings} == {Annotation.Source.IMPORTED}
        if task != "reasoning":
            assert [a.values for a in ratings] == [{"overall": r} for r in item["human_annotations"]]
            continue
        a_letters = item["human_annotations"]["response_a_ratings"]
        b_letters = item["human_annotations"]["response_b_ratings"]
        expected_rejected = [side for side, letters in (("A", a_letters), ("B", b_letters)) if not letters]
        assert pair.metadata.get("rejected_wrong_answer", []) == expected_rejected
        rejected += bool(expected_rejected)
        for i, annotation in enumerate(ratings):
            expected = {}
            if a_letters:
                expected["A"] = LETTERS[a_letters[i]]
            if b_letters:
                expected["B"] = LETTERS[b_letters[i]]
            assert annotation.values == {"correctness": expected}
    if task == "reasoning":
        assert rejected == 706, "373 + 333 pairs have one response rejected unrated in the release"
    assert Prompt.objects.filter(campaign__slug=f"mmrb2-{task}").count() == len(
        {(p["prompt_source"], json.dumps(p["prompt_metadata"], sort_keys=True)) for p in release})
    names = Media.objects.values_list("file", flat=True)
    assert all(re.fullmatch(r"media/[0-9a-f]{2}/[0-9a-f]{64}\.jpg", name) for name in names), "no model names in files"

    code, again = run_import_json(path, "--campaign", f"mmrb2-{task}", "--format", "mmrb2",
                                  "--media-root", str(tmp_path / "images"), "--with-annotations")
    assert (code, again["created"], again["duplicates"], again["annotations_imported"]) == (0, 0, 1000, 0)


@pytest.mark.django_db
def test_a_built_benchmark_with_prompt_content_keeps_the_prompt_and_its_images(mmrb2_dir, tmp_path):
    release = json.loads((mmrb2_dir / "edit_response_only.json").read_text())["pairs"][:3]
    for i, pair in enumerate(release):
        pair["prompt_content"] = [["text", f"Make picture {i} blue"], ["image", f"input_{i}.jpg"]]
    placeholder_images(release, tmp_path)
    path = tmp_path / "edit_built.json"
    path.write_text(json.dumps({"pairs": release}, indent=1))
    code, summary = run_import_json(path, "--campaign", "built", "--format", "mmrb2", "--task", "image-editing")
    assert (code, summary["created"]) == (0, 3), summary
    pair = Pair.objects.get(external_id=release[0]["id"])
    blocks = pair.prompt.content
    assert blocks[0] == {"type": "text", "text": "Make picture 0 blue", "format": "markdown"}
    assert blocks[1]["type"] == "image" and blocks[1]["media"] in set(pair.media.values_list("sha256", flat=True))
    assert pair.media.count() == 1 + len(images_of(release[0]))
    assert pair.annotations.count() == 0, "ratings are imported only with --with-annotations"


@pytest.mark.django_db
def test_a_malformed_release_pair_fails_alone(tmp_path):
    good = {"id": "g1", "prompt_source": "bench", "prompt_metadata": {"id": 1}, "chosen": "A",
            "response_a": {"model_name": "m1", "response_content": [["text", "one"]]},
            "response_b": {"model_name": "m2", "response_content": [["text", "two"]]},
            "human_annotations": [6, 5, 5]}
    bad_ratings = {**good, "id": "b1", "human_annotations": [7, 5, 5]}
    bad_kind = {**good, "id": "b2", "response_a": {"model_name": "m1", "response_content": [["gif", "x.gif"]]}}
    bad_letters = {**good, "id": "b3", "human_annotations": {"response_a_ratings": ["D"], "response_b_ratings": []}}
    path = tmp_path / "pairs.json"
    path.write_text(json.dumps({"pairs": [good, bad_ratings, bad_kind, bad_letters]}, indent=2))
    code, summary = run_import_json(path, "--campaign", "small", "--format", "mmrb2", "--task", "text-to-image",
                                    "--with-annotations")
    assert code == 2
    assert summary["created"] == 1
    text = path.read_text().splitlines()
    for error in summary["errors"]:
        assert text[error["line"] - 1].strip() == "{", "the line is where the failed pair starts"
    assert [e["message"] for e in summary["errors"]] == [
        "human_annotations: expected a list of whole numbers from 1 to 6",
        "response_a.response_content[0]: unknown kind 'gif'; MMRB2 uses 'text' and 'image'",
        "human_annotations.response_a_ratings: expected a list of the letters A, B, C",
    ]
