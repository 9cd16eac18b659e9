"""Builders shared by the assignment tests: a campaign with members and pairs, and valid answers."""

from annotation.catalogue import schemas
from annotation.catalogue.models import Campaign, Pair
from annotation.workqueue.services.assignments import annotation_submit
from tests.factories import CampaignFactory, PairFactory, RatingSchemaFactory, UserFactory

AB_TIE_ANSWER = {"preference": "A"}


def ab_tie_campaign(*, overlap: int = 3, pairs: int = 5, members: int = 3, **fields) -> tuple[Campaign, list, list[Pair]]:
    """A campaign asking one oriented A/B/tie question, its member annotators and its queued pairs."""
    schema = RatingSchemaFactory(preset="ab-tie", definition=schemas.preset("ab-tie", "text-to-text"))
    campaign = CampaignFactory(rating_schema=schema, overlap=overlap, max_overlap=max(overlap, 5), kind="text-to-text", **fields)
    annotators = [UserFactory() for _ in range(members)]
    campaign.members.add(*annotators)
    made = [PairFactory(campaign=campaign) for _ in range(pairs)]
    return campaign, annotators, made


def submit(assignment, values=None, key=None, **kwargs):
    """Submit ``assignment`` as its annotator (AB_TIE_ANSWER and a key of its own unless given)."""
    return annotation_submit(
        assignment=assignment,
        annotator=assignment.annotator,
        values=values or AB_TIE_ANSWER,
        time_on_item_ms=kwargs.pop("time_on_item_ms", 1000),
        idempotency_key=key or f"key-{assignment.pk}",
        **kwargs,
    )


def plan_nodes(node):
    """Every node of an EXPLAIN (FORMAT JSON) plan, depth first."""
    yield node
    for child in node.get("Plans", []):
        yield from plan_nodes(child)
