"""A small, fully known campaign for the console tests: every number the pages show is computable by hand.

Campaign ``console-t2i`` (MMRB2 generation schema, overall 1..6, overlap 3, max overlap 5, pre-filter on):

- p_kept: 3 annotations 6, 6, 5 (all A) by alice, bob, carol; consensus kept A; judges both A twice.
- p_split: 3 annotations 6, 2, 4 (A, B, tie); consensus disputed; judges split; source "wise".
- p_dropped: pre-filter dropped it (judge-1 and judge-2 say A in both orders); source "wise".
- p_queued: 1 annotation (alice 1 = B); in the queue; gold with expected answer B.
- p_pending: awaiting the pre-filter.
- p_excluded: excluded by a curator.
- p_extra1, p_extra2: 1 annotation each (alice 6 and 5 = A); in the queue.
Alice's times are 2 s each (fast); bob and carol take 40 s. Alice was shown every pair swapped, and
her rating of p_kept was made yesterday.
Model names follow the pattern ``secret-model-*`` so leak checks can search for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone

from annotation.accounts.models import Role, User
from annotation.catalogue.models import Campaign, Pair
from annotation.catalogue.services.campaigns import rating_schema_for_preset
from annotation.workqueue.models import Annotation, Assignment
from curation.models import AgreementReport, ConsensusRecord, Judge, JudgeVerdict
from tests.factories import PairFactory, PromptFactory, ResponseFactory, UserFactory


@dataclass
class World:
    campaign: Campaign
    alice: User
    bob: User
    carol: User
    curator: User
    admin: User
    judges: list
    pairs: dict


def make_pair(campaign, key: str, *, source="oneig", status=Pair.Status.QUEUED, **fields) -> Pair:
    prompt = PromptFactory(campaign=campaign, external_id=f"{campaign.slug}-{key}-prompt", source=source, source_task="t2i")
    a = ResponseFactory(prompt=prompt, model_name=f"secret-model-{key}-a")
    b = ResponseFactory(prompt=prompt, model_name=f"secret-model-{key}-b")
    return PairFactory(
        campaign=campaign, prompt=prompt, response_a=a, response_b=b, external_id=f"{campaign.slug}-{key}", status=status,
        **fields,
    )


def rate(pair: Pair, user: User, overall: int, *, swapped: bool, seconds: float, when=None) -> Annotation:
    now = when or timezone.now()
    assignment = Assignment.objects.create(
        pair=pair, campaign=pair.campaign, annotator=user, status=Assignment.Status.SUBMITTED, swapped=swapped,
        claimed_at=now - timedelta(minutes=1),
        expires_at=now + timedelta(minutes=29), finished_at=now,
    )
    annotation = Annotation.objects.create(
        pair=pair, assignment=assignment, annotator=user, source=Annotation.Source.CONCORD, values={"overall": overall},
        shown_swapped=swapped, rationale=f"rationale by {user.username} on {pair.external_id}",
        time_on_item_ms=int(seconds * 1000),
    )
    Annotation.objects.filter(pk=annotation.pk).update(created_at=now)
    Pair.objects.filter(pk=pair.pk).update(annotations_done=pair.annotations.count())
    return annotation


def verdict(pair: Pair, judge: Judge, order: str, label: str) -> JudgeVerdict:
    return JudgeVerdict.objects.create(
        pair=pair, judge=judge, order=order, verdict=label,
        raw_output=f'{{"better_response": "{label}", "judge": "{judge.name}"}}'
    )


def make_world(slug: str = "console-t2i") -> World:
    schema = rating_schema_for_preset(preset="mmrb2-generation", kind="text-to-image")
    campaign = Campaign.objects.create(
        slug=slug, name=slug.replace("-", " ").title(), kind="text-to-image", rating_schema=schema, overlap=3, max_overlap=5,
        requires_prefilter=True,
    )
    alice, bob, carol = (UserFactory(username=f"{slug}-{n}") for n in ("alice", "bob", "carol"))
    campaign.members.add(alice, bob, carol)
    curator = UserFactory(username=f"{slug}-curator", role=Role.CURATOR)
    admin = UserFactory(username=f"{slug}-admin", role=Role.ADMIN, is_staff=True, is_superuser=True)
    judges = [Judge.objects.get_or_create(name=f"judge-{i}", defaults={"backend": "python"})[0] for i in (1, 2)]
    pairs = {
        "kept": make_pair(campaign, "kept", status=Pair.Status.COMPLETE),
        "split": make_pair(campaign, "split", source="wise", status=Pair.Status.COMPLETE),
        "dropped": make_pair(campaign, "dropped", source="wise", status=Pair.Status.DROPPED_EASY),
        "queued": make_pair(campaign, "queued", is_gold=True, gold_answer={"side": "B"}),
        "pending": make_pair(campaign, "pending", status=Pair.Status.PENDING),
        "excluded": make_pair(campaign, "excluded", status=Pair.Status.EXCLUDED, status_reason="excluded by x: broken"),
        "extra1": make_pair(campaign, "extra1"),
        "extra2": make_pair(campaign, "extra2"),
    }
    yesterday = timezone.now() - timedelta(days=1)
    rate(pairs["kept"], alice, 6, swapped=True, seconds=2, when=yesterday)
    rate(pairs["kept"], bob, 6, swapped=False, seconds=40)
    rate(pairs["kept"], carol, 5, swapped=False, seconds=40)
    rate(pairs["split"], alice, 6, swapped=True, seconds=2)
    rate(pairs["split"], bob, 2, swapped=False, seconds=40)
    rate(pairs["split"], carol, 4, swapped=False, seconds=40)
    rate(pairs["queued"], alice, 1, swapped=True, seconds=2)
    rate(pairs["extra1"], alice, 6, swapped=True, seconds=2)
    rate(pairs["extra2"], alice, 5, swapped=True, seconds=2)
    for judge in judges:
        for order in ("forward", "swapped"):
            verdict(pairs["kept"], judge, order, "A")
            verdict(pairs["dropped"], judge, order, "A")
    verdict(pairs["split"], judges[0], "forward", "A")
    verdict(pairs["split"], judges[0], "swapped", "B")
    verdict(pairs["split"], judges[1], "forward", "B")
    verdict(pairs["split"], judges[1], "swapped", "tie")
    ConsensusRecord.objects.create(pair=pairs["kept"], policy="mmrb2-generation", decision="kept", chosen="A")
    ConsensusRecord.objects.create(pair=pairs["split"], policy="mmrb2-generation", decision="disputed", reason="spread")
    # The shape curation.agreement.report writes: pairwise agreement in percent, alpha per level with 95% intervals.
    for pairwise, alpha, low, high in ((80.0, 0.62, 0.5, 0.74), (85.0, 0.7, 0.6, 0.8)):
        AgreementReport.objects.create(
            campaign=campaign,
            report={"pairwise_agreement_excluding_ties": pairwise, "alpha": {"nominal": 0.4, "ordinal": alpha, "interval": 0.66},
                    "alpha_ci95": {"nominal": [0.3, 0.5], "ordinal": [low, high], "interval": [0.55, 0.77]}},
        )
    for pair in pairs.values():
        pair.refresh_from_db()
    return World(campaign, alice, bob, carol, curator, admin, judges, pairs)
