"""Omni-RewardBench end to end: single-label rows imported with --overlap 1, ties kept by consensus and
published, an Omni-format export beside the MMRB2 one, and Omni's with-ties / without-ties scoring."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.catalogue.models import Campaign, Pair
from curation.models import ConsensusRecord
from tests.catalogue.import_helpers import jpeg_bytes, run_import, run_import_json, write_jsonl

pytestmark = pytest.mark.django_db

# Sixteen text pairs, five of them ties (the item set of issue 17: 0.5625 with ties, 0.6364 without).
LABELS = ["response1", "response2"] * 5 + ["response1"] + ["tie"] * 5


def omni_text_rows() -> list[dict]:
    return [{"id": f"t2t-{i}", "prompt": f"Question {i}?", "response1": f"Answer one to {i}.",
             "response2": f"Answer two to {i}.", "model1": "model-x", "model2": "model-y",
             "criteria": f"Criterion {i}", "criteria_preference": label} for i, label in enumerate(LABELS)]


def import_omni(path, campaign: str, task: str, *extra):
    return run_import_json(path, "--campaign", campaign, "--format", "omnireward", "--task", task,
                           "--schema", "omni-criteria", "--with-annotations", "--overlap", "1", *extra)


@pytest.fixture
def omni_release(tmp_path, releases_root):
    code, summary = import_omni(write_jsonl(tmp_path / "t2t.jsonl", omni_text_rows()), "omni-t2t", "text-to-text")
    assert (code, summary["created"], summary["annotations_imported"]) == (0, 16, 16)
    media = tmp_path / "media"
    media.mkdir()
    for name, seed in (("cat_1.jpg", 1), ("cat_2.jpg", 2), ("dog_1.jpg", 3), ("dog_2.jpg", 4)):
        (media / name).write_bytes(jpeg_bytes(seed))
    image_rows = [
        {"id": "t2i-cat", "prompt": "A cat in a hat", "response1_path": "cat_1.jpg", "response2_path": "cat_2.jpg",
         "model1": "gen-x", "model2": "gen-y", "criteria": "The hat is visible", "criteria_preference": "tie"},
        {"id": "t2i-dog", "prompt": "A dog on a bike", "response1_path": "dog_1.jpg", "response2_path": "dog_2.jpg",
         "model1": "gen-x", "model2": "gen-z", "criteria": "The bike has two wheels", "criteria_preference": "response2"},
    ]
    assert import_omni(write_jsonl(tmp_path / "t2i.jsonl", image_rows), "omni-t2i", "text-to-image",
                       "--media-root", str(media))[1]["created"] == 2
    for slug in ("omni-t2t", "omni-t2i"):
        call_command("apply_consensus", "--campaign", slug, stdout=StringIO())
    call_command("publish_release", "--campaign", "omni-t2t,omni-t2i", "--name", "omni-bench", "--version", "1.0.0",
                 stdout=StringIO())
    return releases_root / "omni-bench" / "1.0.0"


def test_single_label_rows_imported_with_overlap_1_are_complete_and_ties_are_kept_by_consensus(omni_release):
    assert Campaign.objects.get(slug="omni-t2t").overlap == 1
    assert set(Pair.objects.values_list("status", flat=True)) == {Pair.Status.COMPLETE}
    records = ConsensusRecord.objects.filter(pair__campaign__slug="omni-t2t")
    assert records.filter(decision="kept", chosen="tie").count() == 5
    assert records.filter(decision="kept").count() == 16


def test_the_release_keeps_tie_pairs_and_writes_them_in_omni_format_beside_mmrb2(omni_release):
    manifest = json.loads((omni_release / "manifest.json").read_text())
    assert manifest["counts"]["pairs"] == 18
    paths = {f["path"] for f in manifest["files"]}
    assert {"omni/text_to_text.json", "omni/text_to_image.json"} <= paths
    rows = json.loads((omni_release / "omni" / "text_to_text.json").read_text())
    assert [r["criteria_preference"] for r in rows] == LABELS
    assert rows[0] == {"id": "t2t-0", "task": "text_to_text", "prompt": "Question 0?", "response1": "Answer one to 0.",
                       "model1": "model-x", "response2": "Answer two to 0.", "model2": "model-y",
                       "criteria": "Criterion 0", "criteria_preference": "response1"}
    assert not (omni_release / "mmrb2" / "text-to-text.json").exists(), "MMRB2 has no text-to-text task"
    mmrb2 = json.loads((omni_release / "mmrb2" / "t2i.json").read_text())["pairs"]
    assert len(mmrb2) == 1 and mmrb2[0]["chosen"] in ("A", "B"), (
        "of the two text-to-image pairs only the one with a winner: MMRB2's chosen is A or B, never a tie")
    images = {r["id"]: r for r in json.loads((omni_release / "omni" / "text_to_image.json").read_text())}
    cat = images["t2i-cat"]
    assert cat["criteria_preference"] == "tie" and cat["response1"] == cat["response1_path"]
    assert (omni_release / cat["response1_path"]).read_bytes() == jpeg_bytes(1)
    assert (omni_release / images["t2i-dog"]["response2_path"]).read_bytes() == jpeg_bytes(4)


def test_the_omni_export_imports_back_with_the_same_labels_and_media(omni_release, tmp_path):
    export = omni_release / "omni" / "text_to_image.json"
    code, summary = import_omni(export, "omni-again", "text-to-image", "--media-root", str(omni_release))
    assert (code, summary["created"], summary["errors"]) == (0, 2, [])
    again = {p.external_id: p for p in Pair.objects.filter(campaign__slug="omni-again")}
    original = {p.external_id: p for p in Pair.objects.filter(campaign__slug="omni-t2i")}
    for pair_id, pair in again.items():
        assert pair.response_a.content == original[pair_id].response_a.content
        assert pair.annotations.get().values == original[pair_id].annotations.get().values


def test_evaluate_judge_omnireward_gives_the_with_and_without_ties_accuracies_of_omni_results(omni_release, tmp_path):
    """Omni's own results file: every row with its reference and the judge's ``predicted`` label. The judge
    gets 7 of the 11 non-tie pairs and 2 of the 5 ties: 9/16 = 0.5625 with ties, 7/11 = 0.6364 without."""
    rows = json.loads((omni_release / "omni" / "text_to_text.json").read_text())
    wrong = {"response1": "response2", "response2": "tie"}
    predicted = [r["criteria_preference"] for r in rows[:7]] + [wrong[r["criteria_preference"]] for r in rows[7:11]]
    predicted += ["tie", "tie", "response1", "response2", None]
    path = tmp_path / "judge_preferences_with_tie.json"
    path.write_text(json.dumps([{**r, "predicted": p} for r, p in zip(rows, predicted, strict=True)]))
    out = StringIO()
    call_command("evaluate_judge", "--release", "omni-bench@1.0.0", "--predictions", str(path), "--format",
                 "omnireward", "--json", stdout=out)
    scores = json.loads(out.getvalue())
    text_to_text = scores["per_task"]["text-to-text"]
    assert text_to_text["with_ties"] == 0.5625
    assert round(text_to_text["without_ties"], 4) == 0.6364
    assert (text_to_text["pairs"], text_to_text["tie_pairs"], text_to_text["missing"]) == (16, 5, 1)
    # The two image pairs have no label in this file: Omni counts them wrong.
    assert scores["with_ties"] == 9 / 18 and scores["without_ties"] == 7 / 12
    assert scores["unknown_ids"] == 0


@pytest.mark.parametrize("predicted", [None, "pred"])
def test_a_releases_own_omni_export_scored_as_predictions_is_refused(omni_release, predicted):
    """The export carries the reference under criteria_preference: read as predictions it scored 100.00 %, and
    so did a file whose records say pred: "response2". Refused with the first record; nothing is stored."""
    from curation.models import JudgeEvaluation

    rows = json.loads((omni_release / "omni" / "text_to_text.json").read_text())
    path = omni_release.parent / "export.json"
    path.write_text(json.dumps(rows if predicted is None else [{**r, predicted: "response2"} for r in rows]))
    with pytest.raises(CommandError, match=r"\[0\] \(t2t-0\): no prediction\. criteria_preference is the reference"):
        call_command("evaluate_judge", "--release", "omni-bench@1.0.0", "--predictions", str(path), "--format",
                     "omnireward", stdout=StringIO())
    assert not JudgeEvaluation.objects.exists()


def test_omnis_two_runs_give_each_figure_from_its_own_file(omni_release, tmp_path):
    """--predictions is the with-tie run (every pair), --predictions-no-tie the no-tie run (non-tie pairs)."""
    rows = json.loads((omni_release / "omni" / "text_to_text.json").read_text())
    with_tie = tmp_path / "judge_preferences_with_tie.json"
    with_tie.write_text(json.dumps([{**r, "predicted": "tie"} for r in rows]))  # right on the 5 ties only
    no_tie = tmp_path / "judge_preferences.json"
    no_tie.write_text(json.dumps([{**r, "predicted": r["criteria_preference"]} for r in rows
                                  if r["criteria_preference"] != "tie"]))  # right on all 11
    out = StringIO()
    call_command("evaluate_judge", "--release", "omni-bench@1.0.0", "--predictions", str(with_tie),
                 "--predictions-no-tie", str(no_tie), "--format", "omnireward", "--json", stdout=out)
    scores = json.loads(out.getvalue())
    t2t = scores["per_task"]["text-to-text"]
    assert (t2t["with_ties"], t2t["without_ties"]) == (5 / 16, 1.0)
    assert scores["files"]["predictions"]["name"] == "judge_preferences_with_tie.json"
    assert scores["files"]["predictions_no_tie"]["name"] == "judge_preferences.json"
    assert scores["without_ties_from"] == "no-tie run"
    text = StringIO()
    call_command("evaluate_judge", "--release", "omni-bench@1.0.0", "--predictions", str(with_tie),
                 "--predictions-no-tie", str(no_tie), "--format", "omnireward", stdout=text)
    assert "(from judge_preferences.json, no-tie run)" in text.getvalue()
    with pytest.raises(CommandError, match="omnireward format only"):
        call_command("evaluate_judge", "--release", "omni-bench@1.0.0", "--predictions", str(with_tie),
                     "--predictions-no-tie", str(no_tie), "--format", "mmrb2", stdout=StringIO())


def test_an_overlap_below_1_is_refused_before_anything_is_created(tmp_path):
    path = write_jsonl(tmp_path / "t2t.jsonl", omni_text_rows()[:1])
    code, out = run_import(path, "--campaign", "zero", "--format", "omnireward", "--task", "text-to-text",
                           "--overlap", "0", "--json")
    assert code == 1
    assert json.loads(out)["errors"][0]["message"] == "overlap must be a whole number from 1 to 50, got 0"
    with pytest.raises(CommandError, match="from 1 to 50, got -2"):
        call_command("import_pairs", str(path), "--campaign", "zero", "--format", "omnireward", "--task",
                     "text-to-text", "--overlap", "-2", stdout=StringIO(), stderr=StringIO())
    assert not Campaign.objects.filter(slug="zero").exists() and not Pair.objects.exists()


def test_a_curator_can_settle_an_omni_pair_as_a_tie_and_it_ships_as_one(omni_release, client):
    from curation.services.consensus import pair_adjudicate
    from curation.services.curator_actions import pair_send_to_adjudication
    from curation.services.releases import release_gold, release_publish
    from tests.factories import CuratorFactory

    curator = CuratorFactory()
    pair = Pair.objects.get(external_id="t2t-0")
    pair_send_to_adjudication(pair_id=pair.pk, actor=curator, note="both answers are fine")
    client.force_login(curator)
    page = client.get(f"/console/pairs/{pair.pk}/").content.decode()
    assert '<option value="tie">Keep: a tie</option>' in page
    pair_adjudicate(pair_id=pair.pk, curator=curator, chosen="tie", note="Equivalent under the criterion")
    release = release_publish(name="omni-bench", version="1.1.0", campaign_slugs=["omni-t2t"])
    assert {g.id: g.chosen for g in release_gold(release=release)}["t2t-0"] == "tie"
