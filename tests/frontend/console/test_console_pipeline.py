"""The campaign overview starts pipeline jobs through their areas' services and shows their results.

The pre-filter runs against the local OpenAI-compatible judge server (tests/curation/judge_server.py);
Celery runs eagerly in these tests, so a run has finished when the page comes back.
"""

import pytest
from django.urls import reverse

from annotation.catalogue.models import Pair
from annotation.jobs.models import Job
from curation.models import AgreementReport, ConsensusRecord, Judge
from tests.curation import prefilter_support as support
from tests.curation.console.world import make_world
from tests.curation.judge_server import JudgeServer, votes_script
from tests.factories import CuratorFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def curator_client(client):
    client.force_login(CuratorFactory(username="pipeline-curator"))
    return client


def run_url(campaign, kind="prefilter"):
    return reverse("console-campaign-run", args=[campaign.slug, kind])


def test_run_prefilter_from_the_overview_moves_pairs_and_shows_the_report(curator_client, django_capture_on_commit_callbacks):
    campaign = support.campaign()
    easy, hard = support.marked_pair(campaign, "easy"), support.marked_pair(campaign, "hard")
    with JudgeServer(votes_script({"j2": {("hard", "swapped"): "B"}})) as server:
        support.chat_judges(server, ["j1", "j2"])
        page = curator_client.get(reverse("console-campaign", args=[campaign.slug])).content.decode()
        assert "Run pre-filter" in page and 'value="j1" checked' in page and "2 awaiting" in page
        with django_capture_on_commit_callbacks(execute=True):
            started = curator_client.post(run_url(campaign), {"judge": ["j1", "j2"]})
        assert started.status_code == 302 and started["Location"] == reverse("console-campaign", args=[campaign.slug])
        assert server.count() == 8
    response = curator_client.get(started["Location"])
    job = Job.objects.get(kind="prefilter", campaign=campaign)
    assert job.status == Job.Status.SUCCEEDED and job.created_by.username == "pipeline-curator"
    html = response.content.decode()
    assert f"Pre-filter run #{job.pk} started." in html
    assert "<strong>1</strong> kept · <strong>1</strong> dropped as easy" in html
    # j2 changed its mind on "hard" when the sides were swapped: 1 of 2 pairs consistent.
    assert '<tr data-judge="j2">' in html and '<td class="num consistency">50%</td>' in html
    assert '<td class="num consistency">100%</td>' in html
    assert "0 awaiting" in html and "1 dropped as easy" in html
    assert Pair.objects.get(pk=easy.pk).status == Pair.Status.DROPPED_EASY
    assert Pair.objects.get(pk=hard.pk).status == Pair.Status.QUEUED


def test_run_prefilter_with_only_the_judges_ticked(curator_client, django_capture_on_commit_callbacks):
    campaign = support.campaign()
    support.marked_pair(campaign, "p")
    with JudgeServer(votes_script({})) as server:
        support.chat_judges(server, ["j1", "j2"])
        with django_capture_on_commit_callbacks(execute=True):
            curator_client.post(run_url(campaign), {"judge": ["j2"]})
        assert {seen.model for seen in server.seen} == {"j2"}
    assert Job.objects.get(kind="prefilter").params["judge_names"] == ["j2"]


def test_without_an_enabled_judge_the_overview_says_so_and_queues_nothing(curator_client):
    campaign = support.campaign()
    support.marked_pair(campaign, "p")
    Judge.objects.create(name="off", backend="openai-chat", settings={"base_url": "http://127.0.0.1:9/v1", "model": "m"},
                         enabled=False)
    page = curator_client.get(reverse("console-campaign", args=[campaign.slug])).content.decode()
    assert "Run pre-filter" not in page and "No enabled judge" in page
    response = curator_client.post(run_url(campaign), follow=True)
    assert "no enabled judges; configure one first" in response.content.decode()
    assert not Job.objects.filter(kind="prefilter").exists()


def test_an_unknown_or_disabled_judge_is_refused_with_its_name(curator_client):
    campaign = support.campaign()
    Judge.objects.create(name="off", backend="openai-chat", settings={"base_url": "http://127.0.0.1:9/v1", "model": "m"},
                         enabled=False)
    unknown = curator_client.post(run_url(campaign), {"judge": "nobody"}, follow=True).content.decode()
    disabled = curator_client.post(run_url(campaign), {"judge": "off"}, follow=True).content.decode()
    assert "unknown judge(s): nobody" in unknown and "disabled judge(s): off" in disabled
    assert not Job.objects.exists()


def test_an_unknown_job_kind_or_campaign_is_404(curator_client):
    campaign = support.campaign()
    assert curator_client.post(run_url(campaign, "reticulate")).status_code == 404
    assert curator_client.post(reverse("console-campaign-run", args=["no-such-campaign", "prefilter"])).status_code == 404


def test_a_run_in_progress_is_followed_live_on_the_overview(curator_client):
    campaign = support.campaign()
    job = Job.objects.create(kind="prefilter", campaign=campaign, status=Job.Status.RUNNING, progress_done=3, progress_total=8)
    html = curator_client.get(reverse("console-campaign", args=[campaign.slug])).content.decode()
    assert f'data-pipeline-job="{job.pk}" data-status="running"' in html
    assert "frontend/console/campaign.js" in html


def test_compute_agreement_and_apply_consensus_from_the_overview_then_adjudicate(client, django_capture_on_commit_callbacks):
    """On the hand-computed world: agreement is stored and shown; consensus sends the split pair to
    adjudication; the curator's decision, with its note, goes through the agreement area's service."""
    world = make_world()
    client.force_login(world.curator)
    before = AgreementReport.objects.filter(campaign=world.campaign).count()
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(run_url(world.campaign, "agreement")).status_code == 302
    job = Job.objects.get(kind="agreement", campaign=world.campaign)
    assert job.status == Job.Status.SUCCEEDED and job.created_by == world.curator
    assert AgreementReport.objects.filter(campaign=world.campaign, job=job, slice_key="").count() == 1
    assert AgreementReport.objects.filter(campaign=world.campaign).count() > before
    html = client.get(reverse("console-campaign", args=[world.campaign.slug])).content.decode()
    assert f"Agreement job #{job.pk} started." in html
    assert f"{job.result['items']} pairs · {job.result['annotations']} annotations" in html
    assert 'data-metric="pairwise_agreement"' in html
    assert "(overall: nominal on A/B (ties excluded))" in html, "the headline names what it measured"

    with django_capture_on_commit_callbacks(execute=True):
        client.post(run_url(world.campaign, "consensus"), {"on_dispute": "adjudicate"})
    run = Job.objects.get(kind="consensus", campaign=world.campaign)
    assert run.status == Job.Status.SUCCEEDED and run.params["on_dispute"] == "adjudicate"
    split = Pair.objects.get(pk=world.pairs["split"].pk)
    assert split.status == Pair.Status.ADJUDICATION
    html = client.get(reverse("console-campaign", args=[world.campaign.slug])).content.decode()
    assert f"{run.result['adjudication']} to adjudication" in html and run.result["adjudication"] >= 1

    detail = client.get(reverse("console-pair", args=[split.pk])).content.decode()
    assert "Record decision" in detail
    action = reverse("console-pair-action", args=[split.pk, "adjudicate"])
    refused = client.post(action, {"chosen": "B", "note": "  "}, follow=True).content.decode()
    assert "write a note that explains the decision" in refused
    assert Pair.objects.get(pk=split.pk).status == Pair.Status.ADJUDICATION
    done = client.post(action, {"chosen": "B", "note": "B follows the prompt; A misses the second object"}, follow=True)
    assert "Adjudicated: B preferred." in done.content.decode()
    record = ConsensusRecord.objects.get(pair=split)
    assert (record.decision, record.chosen, record.policy) == ("kept", "B", "adjudication")
    assert record.details["note"] == "B follows the prompt; A misses the second object"
    assert record.details["curator"] == world.curator.username
    assert Pair.objects.get(pk=split.pk).status == Pair.Status.COMPLETE


def test_adjudicating_a_pair_not_awaiting_it_or_with_a_bad_choice_is_refused(client):
    world = make_world()
    client.force_login(world.curator)
    kept = world.pairs["kept"]
    action = reverse("console-pair-action", args=[kept.pk, "adjudicate"])
    wrong_state = client.post(action, {"chosen": "A", "note": "sure"}, follow=True).content.decode()
    assert f"pair {kept.pk} is not awaiting adjudication (status complete)" in wrong_state
    bad_choice = client.post(action, {"chosen": "C", "note": "sure"}, follow=True).content.decode()
    assert "choose A, B, tie, or drop the pair" in bad_choice
    assert ConsensusRecord.objects.get(pair=kept).policy == "mmrb2-generation"


def test_an_unknown_dispute_rule_is_refused_and_nothing_is_queued(client):
    world = make_world()
    client.force_login(world.curator)
    html = client.post(run_url(world.campaign, "consensus"), {"on_dispute": "coin-flip"}, follow=True).content.decode()
    assert "on a dispute choose one of drop, escalate, adjudicate" in html
    assert not Job.objects.filter(kind="consensus").exists()


def test_the_consensus_result_names_kept_ties_and_the_pairs_not_waiting_for_ratings():
    """A run that kept ties shows them beside A and B; pairs no rating will decide are counted apart, by why."""
    from types import SimpleNamespace

    from django.template.loader import render_to_string

    result = {"decided": 6, "kept": 5, "chosen": {"A": 2, "B": 1, "tie": 2}, "disputed": 0, "dropped": 1,
              "adjudication": 0, "escalated": 0, "pending": 2, "policy": "majority", "on_dispute": "drop",
              "left_out": {"dropped_by_prefilter": 7, "excluded": 3}, "dropped_by_reason": {"no_majority": 1}}
    html = render_to_string("frontend/console/_run_consensus.html", {
        "campaign": SimpleNamespace(slug="omni"), "on_dispute": ["drop"], "run": SimpleNamespace(pk=1, status="succeeded",
                                                                                                  result=result)})
    assert "(A 2, B 1, tie 2)" in html and "2 still being rated" in html
    assert "Not waiting for ratings:\n        dropped_by_prefilter 7, excluded 3" in html
