"""MMRB2 end to end: the release files imported with their ratings, then compute_agreement and
apply_consensus through the database reproduce the published figures and every `chosen`."""

import hashlib
import io
import json

import pytest
from django.core.management import call_command
from PIL import Image

from annotation.catalogue.models import Pair
from curation.models import ConsensusRecord
from tests.curation.agreement.mmrb2_files import GENERATION_TASKS, PUBLISHED, load_pairs

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def write_placeholder_images(pairs: list[dict], root) -> None:
    """A tiny distinct JPEG under every image name the release refers to (the images are not in the files)."""
    root.mkdir(parents=True, exist_ok=True)
    for pair in pairs:
        for side in ("response_a", "response_b"):
            for kind, value in pair[side]["response_content"]:
                if kind == "image" and not (root / value).exists():
                    seed = hashlib.sha256(value.encode()).digest()
                    buffer = io.BytesIO()
                    Image.frombytes("RGB", (4, 4), (seed * 2)[:48]).save(buffer, "JPEG", quality=95)
                    (root / value).parent.mkdir(parents=True, exist_ok=True)
                    (root / value).write_bytes(buffer.getvalue())


def import_release(mmrb2_dir, tmp_path, task: str, kind: str, preset: str) -> str:
    write_placeholder_images(load_pairs(mmrb2_dir, task), tmp_path / "images")
    slug = f"mmrb2-{task}"
    call_command("import_pairs", str(mmrb2_dir / f"{task}_response_only.json"), "--campaign", slug, "--format", "mmrb2",
                 "--task", kind, "--schema", preset, "--media-root", str(tmp_path / "images"), "--with-annotations",
                 stdout=io.StringIO(), stderr=io.StringIO())
    return slug


def run_json(command: str, *args: str) -> dict:
    out = io.StringIO()
    call_command(command, *args, "--json", stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue())


@pytest.mark.parametrize("task", sorted(GENERATION_TASKS))
def test_imported_generation_release_reproduces_agreement_and_keeps_every_pair_with_its_chosen(mmrb2_dir, tmp_path,
                                                                                               task):
    slug = import_release(mmrb2_dir, tmp_path, task, GENERATION_TASKS[task], "mmrb2-generation")
    report = run_json("compute_agreement", "--campaign", slug, "--bootstrap", "100")
    assert (report["items"], report["annotations"]) == (1000, 3000)
    assert round(report["pairwise_agreement_excluding_ties"], 2) == PUBLISHED[task]["pairwise"]
    assert round(report["alpha"]["ordinal"], 4) == PUBLISHED[task]["ordinal"]
    assert report["alpha_ci95"]["ordinal"][0] < report["alpha"]["ordinal"] < report["alpha_ci95"]["ordinal"][1]
    assert report["per_dimension"]["overall"]["alpha"] == report["alpha"]

    summary = run_json("apply_consensus", "--campaign", slug)
    chosen_in_file = [p["chosen"] for p in load_pairs(mmrb2_dir, task)]
    assert (summary["kept"], summary["dropped"], summary["dropped_by_reason"]) == (1000, 0, {})
    assert summary["chosen"] == {"A": chosen_in_file.count("A"), "B": chosen_in_file.count("B")}
    records = ConsensusRecord.objects.filter(pair__campaign__slug=slug).values_list("chosen", "pair__metadata")
    assert len(records) == 1000
    assert all(chosen == metadata["chosen"] for chosen, metadata in records)


def test_imported_reasoning_release_keeps_every_pair_with_its_chosen(mmrb2_dir, tmp_path):
    """With the policy's defaults every pair is kept with the file's `chosen`: responses rejected unrated (a
    wrong final answer) count as rejected and the one pair of two preferred responses is kept (B).

    The release holds one o3 response (muirbench 438, rejected unrated) twice, byte for byte, in two pairs.
    Concord stores it once; it is never a chosen response, so the default ``unique_responses: chosen`` keeps
    both pairs, and the stricter options (``both_preferred: drop``, ``unique_responses: all``) drop 2."""
    slug = import_release(mmrb2_dir, tmp_path, "reasoning", "reasoning", "mmrb2-reasoning")
    strict = json.dumps({"both_preferred": "drop", "unique_responses": "all"})
    summary = run_json("apply_consensus", "--campaign", slug, "--params", strict)
    assert summary["policy"] == "mmrb2-reasoning"
    assert (summary["kept"], summary["dropped_by_reason"]) == (998, {"both_preferred": 1, "response_used_twice": 1})
    reused = ConsensusRecord.objects.get(pair__campaign__slug=slug, reason="response_used_twice").pair
    assert reused.metadata["rejected_wrong_answer"] == ["A"]

    summary = run_json("apply_consensus", "--campaign", slug)
    assert (summary["kept"], summary["dropped"], summary["dropped_by_reason"]) == (1000, 0, {})
    records = list(ConsensusRecord.objects.filter(pair__campaign__slug=slug).values_list(
        "decision", "chosen", "pair__metadata"))
    assert len(records) == 1000
    assert all(decision == "kept" and chosen == metadata["chosen"] for decision, chosen, metadata in records)
    assert sum(1 for r in records if not r[2].get("rejected_wrong_answer")) == 294
    report = run_json("compute_agreement", "--campaign", slug, "--bootstrap", "50", "--no-slices")
    assert report["primary_question"] == "correctness"
    assert report["per_dimension"]["correctness"]["ratings"] == 3 * (294 * 2 + 706)
    assert Pair.objects.filter(campaign__slug=slug, status=Pair.Status.ADJUDICATION).count() == 0
