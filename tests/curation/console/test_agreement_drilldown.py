"""Agreement you can drill into: per question, per answer, most disputed pairs and per annotator, with intervals and CSV."""

import csv
import io

import pytest
from django.urls import reverse

from curation.models import AgreementReport
from curation.selectors.agreement_drilldown import agreement_drilldown
from curation.services.agreement import agreement_compute
from tests.curation.console.world import make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    world = make_world()
    AgreementReport.objects.filter(campaign=world.campaign).delete()
    agreement_compute(campaign=world.campaign, bootstrap=50, seed=1)
    return world


def test_answers_per_question_count_every_rating_with_a_share_and_an_interval(world):
    """overall was answered 1, 2, 4, 5, 5, 6, 6, 6, 6 (nine ratings): the table says so, in domain order."""
    data = agreement_drilldown(campaign=world.campaign)
    overall = [row for row in data["answers"] if row["question"] == "overall"]
    assert [(row["answer"], row["ratings"]) for row in overall] == [(1, 1), (2, 1), (3, 0), (4, 1), (5, 2), (6, 4)]
    six = overall[-1]
    assert six["share"] == pytest.approx(4 / 9, abs=1e-4)
    assert six["share_low"] < six["share"] < six["share_high"]
    assert data["has_distributions"]


def test_questions_carry_alpha_with_its_bootstrap_interval(world):
    """Every question's alpha row has its interval, and the primary question is MMRB2's overall preference."""
    data = agreement_drilldown(campaign=world.campaign)
    assert data["primary_question"] == "overall"
    ordinal = next(r for r in data["questions"] if r["question"] == "overall" and r["level"] == "ordinal")
    assert ordinal["alpha_low"] is not None and ordinal["alpha_low"] <= ordinal["alpha_high"]
    assert ordinal["ratings"] == 9


def test_the_most_disputed_pair_leads_and_links_to_adjudication(world, client):
    """The split pair (A, B and a tie) is the most disputed; the page links it to its actions."""
    data = agreement_drilldown(campaign=world.campaign)
    assert data["disputed"][0]["external_id"] == "console-t2i-split"
    assert data["disputed"][0]["majority"] is None
    client.force_login(world.curator)
    html = client.get(reverse("console-agreement", args=[world.campaign.slug])).content.decode()
    split = world.pairs["split"].pk
    assert f'href="{reverse("console-pair", args=[split])}#actions"' in html


def test_per_annotator_leave_one_out_agreement_has_an_interval_and_a_username(world):
    """Accounts appear by username (curators see them); each leave-one-out rate lies within its interval."""
    rows = {row["annotator"]: row for row in agreement_drilldown(campaign=world.campaign)["annotators"]}
    assert set(rows) == {"console-t2i-alice", "console-t2i-bob", "console-t2i-carol"}
    bob = rows["console-t2i-bob"]
    assert bob["loo_compared"] > 0
    assert bob["loo_low"] <= bob["loo_agreement"] <= bob["loo_high"]


def test_each_table_downloads_as_csv_for_the_campaign_or_a_slice(world, client):
    """Four CSVs; a slice (here source=wise) has its own report, and an unknown slice is a 404."""
    client.force_login(world.curator)
    for section in ("questions", "answers", "disputed", "annotators"):
        response = client.get(reverse("console-agreement-csv", args=[world.campaign.slug, section]))
        assert response.status_code == 200, section
        rows = list(csv.DictReader(io.StringIO(response.content.decode())))
        assert rows, section
    sliced = client.get(reverse("console-agreement-csv", args=[world.campaign.slug, "answers"]), {"slice": "source=wise"})
    assert sliced["Content-Disposition"] == 'attachment; filename="console-t2i-agreement-answers-source-wise.csv"'
    wise = [r for r in csv.DictReader(io.StringIO(sliced.content.decode())) if r["question"] == "overall"]
    assert sum(int(r["ratings"]) for r in wise) == 3
    page = client.get(reverse("console-agreement", args=[world.campaign.slug]), {"slice": "source=wise"}).content.decode()
    assert 'aria-current="page">source=wise<' in page
    assert client.get(reverse("console-agreement", args=[world.campaign.slug]), {"slice": "nope"}).status_code == 404
    assert client.get(reverse("console-agreement-csv", args=[world.campaign.slug, "nope"])).status_code == 404


def test_a_campaign_without_a_report_says_how_to_get_one(client):
    """Before agreement is computed, the page says so instead of showing empty tables."""
    world = make_world("console-empty")
    AgreementReport.objects.filter(campaign=world.campaign).delete()
    client.force_login(world.curator)
    html = client.get(reverse("console-agreement", args=[world.campaign.slug])).content.decode()
    assert 'id="no-report"' in html
    assert client.get(reverse("console-agreement-csv", args=[world.campaign.slug, "answers"])).status_code == 404
