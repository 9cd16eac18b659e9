"""Consensus through the database: records per pair, disputes escalated or adjudicated, curator decisions."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.catalogue.models import Pair
from annotation.jobs.models import Job
from annotation.workqueue.services.assignments import assignment_claim
from core.errors import ApplicationError
from curation.models import ConsensusRecord
from curation.services.consensus import consensus_apply, consensus_job_create, pair_adjudicate
from tests.curation.agreement.conftest import add_pairs, make_campaign
from tests.factories import CuratorFactory, UserFactory

pytestmark = pytest.mark.django_db

# kept A, kept B, spread 5 (dispute), mean in the tie band, tie majority
RATINGS = [[6, 5, 6], [1, 2, 1], [6, 1, 4], [3, 4, 5], [4, 3, 6]]


def test_apply_consensus_json_counts_kept_dropped_reasons_and_sides():
    campaign = make_campaign(consensus_policy="mmrb2-generation")
    pairs = add_pairs(campaign, RATINGS)
    out = StringIO()
    call_command("apply_consensus", "--campaign", campaign.slug, "--json", stdout=out)
    summary = json.loads(out.getvalue())
    assert {k: summary[k] for k in ("kept", "dropped", "dropped_by_reason", "chosen")} == {
        "kept": 2, "dropped": 3, "chosen": {"A": 1, "B": 1},
        "dropped_by_reason": {"majority_tie": 1, "mean_in_tie_band": 1, "spread_too_wide": 1},
    }
    records = {r.pair_id: r for r in ConsensusRecord.objects.all()}
    assert (records[pairs[0].pk].decision, records[pairs[0].pk].chosen) == ("kept", "A")
    assert records[pairs[2].pk].reason == "spread_too_wide" and records[pairs[2].pk].details["dispute"] is True
    assert records[pairs[3].pk].details["mean"] == pytest.approx(4.0)
    again = StringIO()
    call_command("apply_consensus", "--campaign", campaign.slug, "--json", stdout=again)
    assert json.loads(again.getvalue())["kept"] == 2 and ConsensusRecord.objects.count() == 5


def test_a_different_policy_and_its_parameters_can_be_named():
    campaign = make_campaign(consensus_policy="mmrb2-generation")
    add_pairs(campaign, RATINGS)
    summary = consensus_apply(campaign=campaign, policy="majority", params={"k": 3})
    assert (summary["kept"], summary["chosen"]) == (2, {"A": 1, "B": 1})  # 6, 5, 6 are all A; 1, 2, 1 all B
    assert summary["dropped_by_reason"] == {"no_majority": 3}
    assert set(ConsensusRecord.objects.values_list("policy", flat=True)) == {"majority"}


def test_bad_policy_settings_are_refused_with_the_reason():
    campaign = make_campaign()
    add_pairs(campaign, RATINGS)
    with pytest.raises(ApplicationError, match="unknown consensus policy 'nope'"):
        consensus_apply(campaign=campaign, policy="nope")
    with pytest.raises(ApplicationError, match="has no parameter depth"):
        consensus_apply(campaign=campaign, policy="majority", params={"depth": 2})
    with pytest.raises(ApplicationError, match="on_dispute must be one of"):
        consensus_apply(campaign=campaign, on_dispute="ignore")
    with pytest.raises(ApplicationError, match="needs a per-response scale"):
        consensus_apply(campaign=campaign, policy="mmrb2-reasoning")
    with pytest.raises(CommandError, match="--params must be a JSON object"):
        call_command("apply_consensus", "--campaign", campaign.slug, "--params", "[1]")
    assert not ConsensusRecord.objects.exists()


def test_pairs_still_waiting_for_ratings_are_not_decided():
    campaign = make_campaign()
    done = add_pairs(campaign, [[6, 6, 5]])
    waiting = add_pairs(campaign, [[6, 6]])
    Pair.objects.filter(pk=waiting[0].pk).update(status=Pair.Status.QUEUED)
    excluded = add_pairs(campaign, [[1, 1, 1]], status=Pair.Status.EXCLUDED)
    summary = consensus_apply(campaign=campaign, policy="majority")
    assert (summary["decided"], summary["pending"], summary["left_out"]) == (1, 1, {"excluded": 1})
    assert list(ConsensusRecord.objects.values_list("pair_id", flat=True)) == [done[0].pk]
    assert not ConsensusRecord.objects.filter(pair=excluded[0]).exists()


def test_escalation_raises_the_overlap_until_the_campaign_maximum_then_adjudicates():
    campaign = make_campaign(consensus_policy="mmrb2-generation", overlap=3, max_overlap=4,
                             consensus_params={"on_dispute": "escalate"})
    (disputed,) = add_pairs(campaign, [[6, 1, 5]])
    summary = consensus_apply(campaign=campaign)
    assert (summary["escalated"], summary["disputed"], summary["dropped"]) == (1, 1, 0)
    disputed.refresh_from_db()
    assert (disputed.required_annotations, disputed.status) == (4, Pair.Status.QUEUED)
    record = ConsensusRecord.objects.get(pair=disputed)
    assert (record.decision, record.reason, record.details["escalated_to"]) == ("disputed", "spread_too_wide", 4)
    assert consensus_apply(campaign=campaign)["pending"] == 1  # waits for the fourth rating: nothing more changes
    disputed.refresh_from_db()
    assert disputed.required_annotations == 4
    add_fourth(disputed, 2)
    summary = consensus_apply(campaign=campaign)
    disputed.refresh_from_db()
    assert (summary["adjudication"], disputed.status, disputed.required_annotations) == (1, Pair.Status.ADJUDICATION, 4)


def test_a_disputed_pair_rated_beyond_its_overlap_is_escalated_to_one_rating_more_than_it_holds():
    """Three imported ratings on an overlap of 2: escalating to 3 left it queued with nothing to claim."""
    campaign = make_campaign(consensus_policy="mmrb2-generation", overlap=2, max_overlap=4,
                             consensus_params={"on_dispute": "escalate"})
    (disputed,) = add_pairs(campaign, [[6, 1, 5]])
    rater = UserFactory()
    campaign.members.add(rater)
    assert consensus_apply(campaign=campaign)["escalated"] == 1
    disputed.refresh_from_db()
    assert (disputed.status, disputed.required_annotations, disputed.annotations_done) == (Pair.Status.QUEUED, 4, 3)
    assert ConsensusRecord.objects.get(pair=disputed).details["escalated_to"] == 4
    assert assignment_claim(campaign=campaign, annotator=rater).pair_id == disputed.pk


def test_a_pair_rated_to_the_maximum_is_adjudicated_not_escalated():
    campaign = make_campaign(consensus_policy="mmrb2-generation", overlap=2, max_overlap=3,
                             consensus_params={"on_dispute": "escalate"})
    (disputed,) = add_pairs(campaign, [[6, 1, 5]])
    summary = consensus_apply(campaign=campaign)
    disputed.refresh_from_db()
    assert (summary["escalated"], summary["adjudication"]) == (0, 1)
    assert (disputed.status, disputed.required_annotations) == (Pair.Status.ADJUDICATION, 2)


def add_fourth(pair, value):
    from annotation.workqueue.models import Annotation

    Annotation.objects.create(pair=pair, source=Annotation.Source.IMPORTED, rater_label="rater-3", values={"overall": value})
    Pair.objects.filter(pk=pair.pk).update(status=Pair.Status.COMPLETE)


def test_a_curator_decides_an_adjudicated_pair_with_a_note_and_later_runs_keep_it():
    campaign = make_campaign(consensus_policy="mmrb2-generation", consensus_params={"on_dispute": "adjudicate"})
    (pair,) = add_pairs(campaign, [[6, 1, 5]])
    assert consensus_apply(campaign=campaign)["adjudication"] == 1
    curator = CuratorFactory()
    record = pair_adjudicate(pair_id=pair.pk, curator=curator, chosen="A", note="A follows the instruction; B ignores it.")
    assert (record.policy, record.decision, record.chosen) == ("adjudication", "kept", "A")
    assert record.details["note"].startswith("A follows") and record.details["previous"]["reason"] == "spread_too_wide"
    pair.refresh_from_db()
    assert (pair.status, pair.status_reason) == (Pair.Status.COMPLETE, "adjudicated")
    summary = consensus_apply(campaign=campaign)
    assert summary["decided"] == 0
    assert ConsensusRecord.objects.get(pair=pair).policy == "adjudication"


def test_adjudication_refuses_the_wrong_person_state_or_input():
    campaign = make_campaign(consensus_params={"on_dispute": "adjudicate"}, consensus_policy="mmrb2-generation")
    queued, kept = add_pairs(campaign, [[6, 1, 5], [6, 6, 6]])
    consensus_apply(campaign=campaign)
    curator = CuratorFactory()
    with pytest.raises(ApplicationError, match="only curators"):
        pair_adjudicate(pair_id=queued.pk, curator=UserFactory(), chosen="A", note="x")
    with pytest.raises(ApplicationError, match="write a note"):
        pair_adjudicate(pair_id=queued.pk, curator=curator, chosen="A", note="   ")
    with pytest.raises(ApplicationError, match="chosen must be"):
        pair_adjudicate(pair_id=queued.pk, curator=curator, chosen="C", note="C")
    with pytest.raises(ApplicationError, match="this campaign's rating schema has no tie"):
        pair_adjudicate(pair_id=queued.pk, curator=curator, chosen="tie", note="tie")  # MMRB2's scale has no tie answer
    with pytest.raises(ApplicationError, match="not awaiting adjudication") as refused:
        pair_adjudicate(pair_id=kept.pk, curator=curator, chosen="B", note="override")
    assert refused.value.status_code == 409
    assert ConsensusRecord.objects.get(pair=queued).decision == "disputed"
    dropped = pair_adjudicate(pair_id=queued.pk, curator=curator, chosen=None, note="Both images are broken.")
    assert (dropped.decision, dropped.reason) == ("dropped", "adjudicated_drop")


def test_a_consensus_job_runs_through_the_task(django_capture_on_commit_callbacks):
    campaign = make_campaign(consensus_policy="mmrb2-generation")
    add_pairs(campaign, RATINGS)
    with django_capture_on_commit_callbacks(execute=True):
        job = consensus_job_create(campaign=campaign, policy="unanimous")
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED
    assert job.result["policy"] == "unanimous" and job.result["kept"] == 2  # the sides of 6, 5, 6 are unanimous
    assert job.result["dropped_by_reason"] == {"not_unanimous": 3}
    assert job.progress_done == job.progress_total == 5


def criteria_answer(**by_criterion):
    return [{"criterion": criterion, "label": label} for criterion, label in by_criterion.items()]


DEMO_T2T_002 = [criteria_answer(**{"Answers the question": "A", "Is concise": "tie"}),
                criteria_answer(**{"Answers the question": "A", "Is concise": "tie"}),
                criteria_answer(**{"Answers the question": "tie", "Is concise": "tie"})]


def test_a_criteria_pair_is_decided_criterion_by_criterion_and_records_each():
    """demo-t2t-002: criterion 1 A, A, tie; criterion 2 tie, tie, tie. Pooled it was a tie (4 of 6 labels);
    per criterion, criterion 1 is A (2 of 3) and criterion 2 a tie."""
    campaign = make_campaign(preset="omni-criteria", kind="text-to-text", consensus_policy="majority")
    pair, split = add_pairs(campaign, [DEMO_T2T_002, [criteria_answer(**{"Is concise": side}) for side in "AB"] + [None]],
                            qid="criteria")
    Pair.objects.filter(pk=pair.pk).update(criteria=["Answers the question", "Is concise"])
    summary = consensus_apply(campaign=campaign)
    assert (summary["kept"], summary["chosen"], summary["dropped_by_reason"]) == (1, {"A": 1, "B": 0},
                                                                                  {"no_majority": 1})
    # The split criterion's pair is dropped (no_majority, on_dispute=drop): the criterion is tallied as dropped too,
    # not "disputed" beside a pair-level tally that counts it dropped.
    assert summary["criteria"] == {"decided": 3, "kept": 2, "chosen": {"A": 1, "B": 0, "tie": 1}, "dropped": 1,
                                   "disputed": 0}
    record = ConsensusRecord.objects.get(pair=pair)
    assert (record.decision, record.chosen) == ("kept", "A")
    assert [(c["criterion"], c["decision"], c["chosen"]) for c in record.criteria] == [
        ("Answers the question", "kept", "A"), ("Is concise", "kept", "tie")]
    assert record.criteria[0]["details"]["share"] == pytest.approx(2 / 3)
    assert ConsensusRecord.objects.get(pair=split).criteria[0]["reason"] == "no_majority"


def test_a_disputed_criterion_sends_its_pair_to_adjudication_and_the_curator_decides_every_criterion():
    campaign = make_campaign(preset="omni-criteria", kind="text-to-text", consensus_policy="majority",
                             consensus_params={"on_dispute": "adjudicate"})
    answers = [criteria_answer(tone="A", facts="A"), criteria_answer(tone="B", facts="A"), criteria_answer(facts="A")]
    (pair,) = add_pairs(campaign, [answers], qid="criteria")
    summary = consensus_apply(campaign=campaign)
    assert (summary["adjudication"], summary["kept"]) == (1, 0)
    record = ConsensusRecord.objects.get(pair=pair)
    assert (record.decision, record.reason) == ("disputed", "no_majority")
    assert [(c["criterion"], c["decision"]) for c in record.criteria] == [("facts", "kept"), ("tone", "disputed")]
    decided = pair_adjudicate(pair_id=pair.pk, curator=CuratorFactory(), chosen="B", note="B is right on tone")
    assert (decided.chosen, decided.criteria) == ("B", [])
    assert decided.details["previous"]["criteria"] == record.criteria
