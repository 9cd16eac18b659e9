"""Builders shared by the assignment tests: a campaign with members and pairs, and valid answers."""

from annotation import schemas
from annotation.models import Campaign, Pair
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
