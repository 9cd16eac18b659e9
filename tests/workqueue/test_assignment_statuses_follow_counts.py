"""No stranded pair, ever: whatever curators, raters and imports do, a queued pair misses a rating anyone may
claim, a complete one misses none, and the funnel's counts are the pairs' counts.

Hypothesis drives extend / a new overlap applied to the pairs / withdraw / exclude / restore / an import with
ratings / a claim and submit by a new rater / consensus with escalation, and checks after every step.
"""

import tempfile
from pathlib import Path

import pytest
from django.db.models import Count
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from annotation.catalogue.models import Pair
from annotation.catalogue.services.campaigns import campaign_update
from annotation.catalogue.services.pair_status import ADJUDICATED
from annotation.workqueue.models import Assignment
from annotation.workqueue.services.assignments import assignment_claim
from annotation.workqueue.services.review import annotation_withdraw
from core.errors import ApplicationError
from curation.selectors.console import campaign_funnel
from curation.services.consensus import consensus_apply
from curation.services.curator_actions import pair_exclude, pair_extend_overlap, pair_restore
from tests.catalogue.import_helpers import concord_pair, run_import_json, write_jsonl
from tests.factories import UserFactory
from tests.workqueue.assignment_helpers import ab_tie_campaign, submit

IN_ANNOTATION = ("queued", "complete", "adjudication")


def refused_only(action, codes: set[str]):
    """The action's result, or None when it was refused with one of ``codes`` (any other refusal fails)."""
    try:
        return action()
    except ApplicationError as refused:
        assert refused.code in codes, f"refused with {refused.code}: {refused.message}"
        return None


class PairStatuses(RuleBasedStateMachine):
    """One campaign of two or three pairs at overlap 1 or 2 (at most 5), raters arriving one at a time."""

    @initialize(overlap=st.integers(1, 2), pairs=st.integers(2, 3))
    def start(self, overlap, pairs):
        self.campaign, _, _ = ab_tie_campaign(overlap=overlap, pairs=pairs, members=0)
        self.files = Path(tempfile.mkdtemp(prefix="stranded-"))
        self.imported = 0

    def _pair(self, nth: int) -> Pair:
        pairs = list(Pair.objects.filter(campaign=self.campaign).order_by("pk"))
        return pairs[nth % len(pairs)]

    @rule(nth=st.integers(0, 9), by=st.integers(1, 2))
    def extend(self, nth, by):
        refused_only(lambda: pair_extend_overlap(pair_id=self._pair(nth).pk, by=by),
                     {"invalid_status", "overlap_above_max"})

    @rule(overlap=st.integers(1, 4))
    def overlap_applied(self, overlap):
        self.campaign = campaign_update(campaign=self.campaign, overlap=overlap, apply_to_existing=True)

    @rule(nth=st.integers(0, 9))
    def withdraw(self, nth):
        submitted = list(Assignment.objects.filter(campaign=self.campaign, status="submitted").order_by("pk"))
        if submitted:
            chosen = submitted[nth % len(submitted)]
            refused_only(lambda: annotation_withdraw(assignment_id=chosen.pk, annotator=chosen.annotator),
                         {"pair_decided"})

    @rule(nth=st.integers(0, 9))
    def exclude(self, nth):
        refused_only(lambda: pair_exclude(pair_id=self._pair(nth).pk, reason="off-topic"), {"invalid_status"})

    @rule(nth=st.integers(0, 9))
    def restore(self, nth):
        refused_only(lambda: pair_restore(pair_id=self._pair(nth).pk), {"invalid_status"})

    @rule(ratings=st.lists(st.sampled_from(["A", "B", "tie"]), max_size=4))
    def import_rated_pair(self, ratings):
        self.imported += 1
        record = concord_pair(self.imported, annotations=[
            {"rater": f"imported-{n}", "values": {"preference": answer}} for n, answer in enumerate(ratings)])
        record["id"] = f"imported-{self.imported}"
        path = write_jsonl(self.files / f"{self.imported}.jsonl", [record])
        code, summary = run_import_json(path, "--campaign", self.campaign.slug, "--format", "concord",
                                        "--with-annotations")
        assert (code, summary["created"], summary["annotations_imported"]) == (0, 1, len(ratings)), summary

    @rule(answer=st.sampled_from(["A", "B", "tie"]))
    def new_rater_claims_and_submits(self, answer):
        rater = UserFactory()
        self.campaign.members.add(rater)
        open_slots = [p.pk for p in Pair.objects.filter(campaign=self.campaign, status="queued")
                      if p.annotations_done + p.active_claims < p.required_annotations]
        lease = assignment_claim(campaign=self.campaign, annotator=rater)
        assert (lease is not None) == bool(open_slots), f"claimed {lease}, open slots on {open_slots}"
        if lease is not None:
            submit(lease, values={"preference": answer})

    @rule()
    def consensus_escalates(self):
        consensus_apply(campaign=self.campaign, policy="majority", on_dispute="escalate")

    @invariant()
    def no_pair_is_stranded_and_the_funnel_counts_the_pairs(self):
        if not hasattr(self, "campaign"):
            return
        pairs = list(Pair.objects.filter(campaign=self.campaign).annotate(stored=Count("annotations")))
        for pair in pairs:
            assert pair.annotations_done == pair.stored, f"pair {pair.pk} counts what it holds"
            assert pair.active_claims == 0, "every claim in this machine is submitted in its step"
            if pair.status == "queued":
                assert pair.annotations_done < pair.required_annotations, f"pair {pair.pk} is stranded"
            if pair.status == "complete" and pair.status_reason != ADJUDICATED:
                assert pair.annotations_done >= pair.required_annotations, f"pair {pair.pk} is complete too soon"
        annotation = campaign_funnel(campaign=self.campaign)["annotation"]
        counted = [p for p in pairs if p.status in IN_ANNOTATION]
        assert annotation["pairs"] == len(counted)
        assert annotation["complete"] == sum(p.status != "queued" for p in counted)
        assert annotation["annotations_required"] == sum(p.required_annotations for p in counted)
        assert annotation["annotations_done"] == sum(min(p.annotations_done, p.required_annotations) for p in counted)
        missing = annotation["annotations_required"] - annotation["annotations_done"]
        claimable = sum(p.required_annotations - p.annotations_done for p in counted if p.status == "queued")
        held_by_curators = sum(max(0, p.required_annotations - p.annotations_done) for p in counted
                               if p.status == "adjudication" or p.status_reason == ADJUDICATED)
        assert missing == claimable + held_by_curators, "every missing rating can be claimed, or waits for a curator"


@pytest.mark.django_db(transaction=True)
def test_no_pair_is_ever_queued_with_all_its_ratings_whatever_happens():
    run_state_machine_as_test(PairStatuses, settings=settings(
        max_examples=25, stateful_step_count=20, deadline=None, derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]))
