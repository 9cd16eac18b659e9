"""A criteria campaign's release: one item per (pair, criterion), each with its own label, as Omni-RewardBench
publishes it; rating sides and human agreement per criterion."""

import json

import pyarrow.parquet as pq
import pytest
from django.urls import reverse

from annotation.catalogue.services.campaigns import rating_schema_for_preset
from annotation.workqueue.models import Annotation
from curation.services.consensus import consensus_apply
from curation.services.releases import release_gold, release_publish
from tests.factories import CampaignFactory, CuratorFactory, PairFactory, PromptFactory, ResponseFactory, UserFactory

pytestmark = pytest.mark.django_db

ANSWERS, CONCISE, POLITE = "Answers the question", "Is concise", "Is polite"


def text(value: str) -> list[dict]:
    return [{"type": "text", "text": value, "format": "plain"}]


def criteria_pair(campaign, external_id: str, criteria: list[str], labels_by_rater: list[dict], raters) -> None:
    prompt = PromptFactory(campaign=campaign, external_id=f"p-{external_id}", source="concord-demo-omni",
                           content=text(f"Question of {external_id}?"))
    pair = PairFactory(campaign=campaign, prompt=prompt, external_id=external_id, status="complete", criteria=criteria,
                       response_a=ResponseFactory(prompt=prompt, model_name="model-x", content=text("Answer A.")),
                       response_b=ResponseFactory(prompt=prompt, model_name="model-y", content=text("Answer B.")))
    for rater, labels in zip(raters, labels_by_rater, strict=True):
        Annotation.objects.create(pair=pair, annotator=rater, source=Annotation.Source.CONCORD, values={
            "criteria": [{"criterion": c, "label": label} for c, label in labels.items()]})
    pair.annotations_done = len(labels_by_rater)
    pair.save(update_fields=["annotations_done"])


@pytest.fixture
def criteria_release(releases_root):
    """demo-t2t-002 as the demo has it: criterion 1 rated A, A, tie and criterion 2 tie, tie, tie (pooled, 4 of 6
    labels were ties and the whole pair shipped as one tie); demo-t2t-005 names one criterion, rated B, B, A."""
    raters = [UserFactory(username=f"criteria-rater-{i}") for i in range(3)]
    campaign = CampaignFactory(slug="demo-text-to-text", kind="text-to-text", consensus_policy="majority",
                               rating_schema=rating_schema_for_preset(preset="omni-criteria", kind="text-to-text"))
    criteria_pair(campaign, "demo-t2t-002", [ANSWERS, CONCISE],
                  [{ANSWERS: "A", CONCISE: "tie"}, {ANSWERS: "A", CONCISE: "tie"}, {ANSWERS: "tie", CONCISE: "tie"}],
                  raters)
    criteria_pair(campaign, "demo-t2t-005", [POLITE], [{POLITE: "B"}, {POLITE: "B"}, {POLITE: "A"}], raters)
    summary = consensus_apply(campaign=campaign)
    assert summary["criteria"]["chosen"] == {"A": 1, "B": 1, "tie": 1}
    release = release_publish(name="omni-demo", version="1.0.0", campaign_slugs=["demo-text-to-text"])
    return release, releases_root / "omni-demo" / "1.0.0"


def test_each_criterion_of_a_pair_is_one_omni_item_with_its_own_majority_label(criteria_release):
    _, folder = criteria_release
    items = json.loads((folder / "omni" / "text_to_text.json").read_text())
    assert [(i["id"], i["criteria"], i["criteria_preference"]) for i in items] == [
        ("demo-t2t-002#1", ANSWERS, "response1"),
        ("demo-t2t-002#2", CONCISE, "tie"),
        ("demo-t2t-005", POLITE, "response2"),
    ]
    assert items[0]["prompt"] == "Question of demo-t2t-002?" and items[0]["response1"] == "Answer A."


def test_the_dataset_has_one_row_per_kept_criterion_with_each_rating_s_side_on_that_criterion(criteria_release):
    release, folder = criteria_release
    (shard,) = (folder / "data" / "text-to-text").glob("*.parquet")
    table = pq.read_table(shard).to_pylist()
    assert [(r["id"], r["chosen"], r["criteria"]) for r in table] == [
        ("demo-t2t-002#1", "A", [ANSWERS]), ("demo-t2t-002#2", "tie", [CONCISE]), ("demo-t2t-005", "B", [POLITE])]
    assert [[rating["side"] for rating in r["ratings"]] for r in table] == [
        ["A", "A", None], [None, None, None], ["B", "B", "A"]]
    assert [json.loads(r["human_annotations"]) for r in table] == [["A", "A", "tie"], ["tie"] * 3, ["B", "B", "A"]]
    assert [r["agreement"] for r in table] == [1.0, None, pytest.approx(2 / 3)]
    jsonl = [json.loads(line) for line in (folder / "data" / "text-to-text.jsonl").read_text().splitlines()]
    assert [r["id"] for r in jsonl] == [r["id"] for r in table]
    assert {g.id: g.chosen for g in release_gold(release=release)} == {
        "demo-t2t-002#1": "A", "demo-t2t-002#2": "tie", "demo-t2t-005": "B"}


def test_human_agreement_is_measured_over_criteria_and_shown_on_the_release_page(criteria_release, client):
    release, folder = criteria_release
    human = json.loads((folder / "manifest.json").read_text())["agreement"]["human_pairwise"]["text-to-text"]
    # criterion 1: the two A raters agree (1 of 1 rater pair); criterion 2: all ties; demo-t2t-005: B, B, A (1 of 3).
    assert (human["agreeing_pairs"], human["rater_pairs"], human["agreement"]) == (2, 4, 0.5)
    assert human["measured"] == "criteria per criterion: nominal on A/B (ties excluded)"
    client.force_login(CuratorFactory())
    page = client.get(reverse("release-leaderboard", kwargs={"name": "omni-demo", "version": "1.0.0"})).content.decode()
    humans = page.split('<tr class="humans">')[1].split("</tr>")[0]
    assert "50.0%" in humans
