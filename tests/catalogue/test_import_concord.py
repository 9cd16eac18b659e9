"""Importing the concord JSONL format: pairs, media, ratings, re-imports, --strict and --json."""

import json

import pytest

from annotation.catalogue.models import Campaign, Media, Pair, Prompt, Response
from annotation.workqueue.models import Annotation
from tests.catalogue.import_helpers import concord_pair, png_bytes, run_import, run_import_json, write_jsonl
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db

NEW_CAMPAIGN = ("--campaign", "demo-t2i", "--format", "concord", "--task", "text-to-image", "--schema", "mmrb2-generation")


@pytest.fixture
def media_root(tmp_path):
    root = tmp_path / "media"
    (root / "img").mkdir(parents=True)
    for i in range(6):
        (root / "img" / f"{i}.png").write_bytes(png_bytes(i))
    return root


def test_pairs_are_created_with_their_prompt_responses_and_every_media_they_show(tmp_path, media_root):
    path = write_jsonl(tmp_path / "pairs.jsonl", [
        concord_pair(0, a_file="img/0.png", b_file="img/1.png"),
        concord_pair(1, a_file="img/2.png", b_file="img/0.png", priority=5, criteria=["realism"]),
        concord_pair(2),
    ])
    code, summary = run_import_json(path, *NEW_CAMPAIGN, "--media-root", str(media_root))
    assert (code, summary) == (0, {"created": 3, "duplicates": 0, "annotations_imported": 0, "errors": [],
                                   "failed_rows": 0, "rows": 3, "status": "succeeded",
                                   "summary": "3 of 3 rows imported (3 created, 0 already present)"})
    campaign = Campaign.objects.get(slug="demo-t2i")
    assert (campaign.kind, campaign.rating_schema.preset) == ("text-to-image", "mmrb2-generation")
    first = Pair.objects.get(external_id="pair-0")
    assert first.prompt.external_id == "prompt-0" and first.prompt.source == "testbench"
    assert (first.status, first.required_annotations) == (Pair.Status.QUEUED, campaign.overlap)
    assert first.response_a.model_name == "model-x"
    shown = {first.response_a.content[0]["media"], first.response_b.content[0]["media"]}
    assert set(first.media.values_list("sha256", flat=True)) == shown
    second = Pair.objects.get(external_id="pair-1")
    assert (second.priority, second.criteria) == (5, ["realism"])
    assert second.prompt_id == first.prompt_id, "pairs on the same prompt id share one prompt"
    assert Media.objects.count() == 3, "img/0.png is stored once although two pairs show it"
    assert Pair.objects.get(external_id="pair-2").media.count() == 0


def test_importing_the_same_file_again_creates_nothing(tmp_path, media_root):
    path = write_jsonl(tmp_path / "pairs.jsonl", [concord_pair(i, a_file=f"img/{i}.png") for i in range(4)])
    run_import_json(path, *NEW_CAMPAIGN, "--media-root", str(media_root))
    counts = (Pair.objects.count(), Prompt.objects.count(), Response.objects.count(), Media.objects.count())
    code, summary = run_import_json(path, *NEW_CAMPAIGN, "--media-root", str(media_root))
    assert (code, summary["created"], summary["duplicates"]) == (0, 0, 4)
    assert (Pair.objects.count(), Prompt.objects.count(), Response.objects.count(), Media.objects.count()) == counts


def test_ratings_are_imported_only_when_asked_and_a_fully_rated_pair_is_complete(tmp_path):
    ratings = [{"rater": f"r{n}", "values": {"overall": 5, "prompt_valid": True}, "rationale": "A is sharper"}
               for n in range(3)]
    path = write_jsonl(tmp_path / "pairs.jsonl", [
        concord_pair(0, annotations=ratings),
        concord_pair(1, annotations=ratings[:1]),
    ])
    code, summary = run_import_json(path, *NEW_CAMPAIGN)
    assert (code, summary["annotations_imported"]) == (0, 0)
    assert Annotation.objects.count() == 0
    rated = ("--campaign", "rated", "--format", "concord", "--task", "text-to-image")
    code, summary = run_import_json(path, *rated, "--with-annotations")
    assert (code, summary["created"], summary["annotations_imported"]) == (0, 2, 4)
    complete = Pair.objects.get(campaign__slug="rated", external_id="pair-0")
    assert (complete.status, complete.annotations_done) == (Pair.Status.COMPLETE, 3)
    partial = Pair.objects.get(campaign__slug="rated", external_id="pair-1")
    assert (partial.status, partial.annotations_done) == (Pair.Status.QUEUED, 1)
    rating = complete.annotations.get(rater_label="r0")
    assert (rating.source, rating.values, rating.rationale, rating.annotator) == (
        Annotation.Source.IMPORTED, {"overall": 5, "prompt_valid": True}, "A is sharper", None)


def test_pairs_of_a_campaign_with_a_prefilter_wait_for_it(tmp_path):
    CampaignFactory(slug="filtered", requires_prefilter=True)
    path = write_jsonl(tmp_path / "pairs.jsonl", [concord_pair(0)])
    assert run_import_json(path, "--campaign", "filtered", "--format", "concord")[0] == 0
    assert Pair.objects.get().status == Pair.Status.PENDING


def test_ratings_that_do_not_fit_the_schema_fail_their_row(tmp_path):
    path = write_jsonl(tmp_path / "pairs.jsonl", [
        concord_pair(0, annotations=[{"rater": "r1", "values": {"overall": 9}}]),
        concord_pair(1, annotations=[{"rater": "r1", "values": {"colour": "red"}}]),
        concord_pair(2, annotations=[{"rater": "r1", "values": {"overall": 2}}, {"rater": "r1", "values": {"overall": 3}}]),
        concord_pair(3, annotations=[{"rater": "r1", "values": {"overall": 2}}]),
    ])
    code, summary = run_import_json(path, *NEW_CAMPAIGN, "--with-annotations")
    assert code == 2
    assert summary["created"] == 1
    messages = {e["line"]: e["message"] for e in summary["errors"]}
    assert "overall" in messages[1] and "from 1 to 6" in messages[1]
    assert "unknown question 'colour'" in messages[2]
    assert "rater 'r1' appears twice" in messages[3]
    assert list(Pair.objects.values_list("external_id", flat=True)) == ["pair-3"]


def test_response_lines_add_responses_for_build_pairs(tmp_path):
    prompt = {"id": "p1", "source": "testbench", "content": [{"type": "text", "text": "Say hi"}]}
    path = write_jsonl(tmp_path / "responses.jsonl", [
        {"prompt": prompt, "response": {"model": "m1", "content": [{"type": "text", "text": "hi"}]}},
        {"prompt": prompt, "response": {"model": "m2", "content": [{"type": "text", "text": "hello"}]}},
    ])
    code, summary = run_import_json(path, *NEW_CAMPAIGN)
    assert (code, summary["created"], summary["duplicates"]) == (0, 2, 0)
    assert Response.objects.filter(prompt__external_id="p1").count() == 2
    assert Pair.objects.count() == 0
    assert run_import_json(path, *NEW_CAMPAIGN)[1]["duplicates"] == 2


def test_strict_imports_nothing_when_one_row_fails(tmp_path, media_root):
    good = [concord_pair(i, a_file=f"img/{i}.png") for i in range(3)]
    path = write_jsonl(tmp_path / "pairs.jsonl", [*good, concord_pair(9, a_file="img/missing.png")])
    code, summary = run_import_json(path, *NEW_CAMPAIGN, "--media-root", str(media_root), "--strict")
    assert (code, summary["status"]) == (1, "failed"), "nothing was imported"
    assert summary["created"] == 0
    assert summary["errors"] == [{"line": 4, "message": "img/missing.png: file not found under the media root"}]
    assert (Pair.objects.count(), Prompt.objects.count(), Media.objects.count()) == (0, 0, 0)
    clean = write_jsonl(tmp_path / "clean.jsonl", good)
    code, summary = run_import_json(clean, *NEW_CAMPAIGN, "--media-root", str(media_root), "--strict")
    assert (code, summary["created"]) == (0, 3)


def test_without_strict_good_rows_are_kept_and_the_exit_status_is_2(tmp_path, media_root):
    path = write_jsonl(tmp_path / "pairs.jsonl", [concord_pair(0), {"id": 3}, concord_pair(1)])
    code, out = run_import(path, *NEW_CAMPAIGN, "--json")
    assert code == 2
    summary = json.loads(out)
    assert set(summary) == {"created", "duplicates", "annotations_imported", "errors", "failed_rows", "rows", "status",
                            "summary"}
    assert summary["status"] == "partial"
    assert summary["created"] == 2
    assert summary["errors"] == [{"line": 2, "message": "prompt: expected an object, got null"}]
    assert out.count("\n") <= 1, "--json prints exactly one JSON object"


def test_the_human_summary_lists_failed_lines(tmp_path):
    path = write_jsonl(tmp_path / "pairs.jsonl", [concord_pair(0), {"nope": 1}])
    code, out = run_import(path, *NEW_CAMPAIGN)
    assert code == 2
    assert "1 created, 0 already present, 0 annotations imported, 1 row failed." in out
    assert "line 2: unknown field(s): nope" in out


def test_a_missing_campaign_without_a_task_kind_is_a_clear_error(tmp_path):
    path = write_jsonl(tmp_path / "pairs.jsonl", [concord_pair(0)])
    code, summary = run_import_json(path, "--campaign", "nowhere", "--format", "concord")
    assert code == 1
    assert "does not exist; give a task kind" in summary["errors"][0]["message"]
    assert "(pass --task KIND and optionally --schema PRESET)" in summary["errors"][0]["message"]
    assert not Campaign.objects.filter(slug="nowhere").exists()


def test_the_documented_pair_line_imports_as_documented(tmp_path):
    """docs/concord-format.md's example is a specification: it must import, ratings included."""
    from django.conf import settings

    doc = (settings.BASE_DIR / "docs" / "concord-format.md").read_text()
    example = doc[doc.index("A **pair line**"):]
    example = example[example.index("```json") + len("```json"):]
    record = json.loads(example[: example.index("```")])
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "124_a.png").write_bytes(png_bytes(1))
    (tmp_path / "images" / "124_b.png").write_bytes(png_bytes(2))
    path = write_jsonl(tmp_path / "pairs.jsonl", [record])
    code, summary = run_import_json(path, *NEW_CAMPAIGN, "--with-annotations")
    assert (code, summary["created"], summary["annotations_imported"], summary["errors"]) == (0, 1, 2, [])
    pair = Pair.objects.get(external_id="oneig-124-a-b")
    assert (pair.metadata, pair.criteria, pair.media.count()) == ({"chosen": "A"}, ["Is the sign's text spelled correctly?"], 2)


def test_without_copy_the_orm_path_stores_the_same_rows(tmp_path, media_root, monkeypatch):
    """SQLite (the embedded default) has no COPY: the bulk_create path must store exactly the same thing."""
    from annotation.catalogue.services import bulk

    monkeypatch.setattr(bulk, "USE_COPY", False)
    ratings = [{"rater": f"r{n}", "values": {"overall": 2}} for n in range(3)]
    path = write_jsonl(tmp_path / "pairs.jsonl", [concord_pair(0, a_file="img/0.png", annotations=ratings),
                                                  concord_pair(1, b_file="img/1.png")])
    code, summary = run_import_json(path, *NEW_CAMPAIGN, "--media-root", str(media_root), "--with-annotations")
    assert (code, summary["created"], summary["annotations_imported"]) == (0, 2, 3)
    rated = Pair.objects.get(external_id="pair-0")
    assert (rated.status, rated.media.count(), rated.annotations.count()) == (Pair.Status.COMPLETE, 1, 3)
    assert Pair.objects.get(external_id="pair-1").metadata == {}
