"""Campaigns, their rating schemas and their members."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.db import transaction

from annotation.catalogue import schemas
from annotation.catalogue.models import Campaign, Pair, RatingSchema, TaskKind
from annotation.catalogue.playback import PLAYED_KINDS, sides_played
from annotation.catalogue.services.pair_status import pairs_overlap_apply
from core.errors import ApplicationError

if TYPE_CHECKING:
    from collections.abc import Iterable

    from annotation.accounts.models import User

DEFAULT_PRESET_BY_KIND = {
    TaskKind.TEXT_TO_IMAGE: "mmrb2-generation",
    TaskKind.IMAGE_EDITING: "mmrb2-generation",
    TaskKind.INTERLEAVED: "mmrb2-generation",
    TaskKind.REASONING: "mmrb2-reasoning",
}
DEFAULT_POLICY_BY_PRESET = {
    "mmrb2-generation": "mmrb2-generation",
    "mmrb2-reasoning": "mmrb2-reasoning",
}


def rating_schema_for_preset(*, preset: str, kind: str) -> RatingSchema:
    """The stored schema for a built-in preset and task kind, created on first use; a preset whose questions do not
    fit the kind (picture rubrics for text answers) is refused."""
    try:
        schemas.check_preset_fits(preset, kind)
    except schemas.SchemaError as exc:
        raise ApplicationError(str(exc), code="preset_kind_mismatch") from exc
    try:
        definition = schemas.preset(preset, kind)
    except schemas.SchemaError as exc:
        raise ApplicationError(str(exc), code="unknown_schema") from exc
    slug = f"{preset}-{kind}"
    current = RatingSchema.objects.filter(slug=slug).order_by("-version").first()
    if current is not None and current.definition == definition:
        return current
    version = current.version + 1 if current else 1
    return RatingSchema.objects.create(slug=slug, version=version, preset=preset, definition=definition)


def rating_schema_create(*, slug: str, definition: dict) -> RatingSchema:
    """A new version of a custom schema; earlier versions stay as they were for their campaigns."""
    try:
        schemas.validate_schema(definition)
    except schemas.SchemaError as exc:
        raise ApplicationError(f"invalid rating schema: {exc}", code="invalid_schema") from exc
    current = RatingSchema.objects.filter(slug=slug).order_by("-version").first()
    return RatingSchema.objects.create(slug=slug, version=(current.version + 1) if current else 1, definition=definition)


STATUS_MOVES: dict[str, set[str]] = {
    Campaign.Status.DRAFT: {Campaign.Status.ACTIVE, Campaign.Status.ARCHIVED},
    Campaign.Status.ACTIVE: {Campaign.Status.PAUSED, Campaign.Status.ARCHIVED},
    Campaign.Status.PAUSED: {Campaign.Status.ACTIVE, Campaign.Status.ARCHIVED},
    Campaign.Status.ARCHIVED: set(),
}
SLUG = re.compile(r"^[-a-zA-Z0-9_]{1,100}$")
MAX_LEASE_MINUTES = 7 * 24 * 60


def _check_overlap(overlap) -> None:
    if isinstance(overlap, bool) or not isinstance(overlap, int) or not 1 <= overlap <= 50:
        raise ApplicationError(f"overlap must be a whole number from 1 to 50, got {overlap!r}", code="invalid_overlap")


def _check_settings(*, overlap: int, gold_rate: float, lease_minutes: int, lease_max_minutes: int | None = None) -> None:
    _check_overlap(overlap)
    if isinstance(gold_rate, bool) or not isinstance(gold_rate, (int, float)) or not 0 <= gold_rate <= 1:
        raise ApplicationError(f"gold rate must be a share from 0 to 1, got {gold_rate!r}", code="invalid_gold_rate")
    if isinstance(lease_minutes, bool) or not isinstance(lease_minutes, int) or not 1 <= lease_minutes <= MAX_LEASE_MINUTES:
        raise ApplicationError(
            f"lease minutes must be a whole number from 1 to {MAX_LEASE_MINUTES}, got {lease_minutes!r}",
            code="invalid_lease_minutes",
        )
    if lease_max_minutes is not None and (
            isinstance(lease_max_minutes, bool) or not isinstance(lease_max_minutes, int)
            or not lease_minutes <= lease_max_minutes <= MAX_LEASE_MINUTES):
        raise ApplicationError(
            f"the longest lease must be a whole number of minutes from the lease time ({lease_minutes}) to "
            f"{MAX_LEASE_MINUTES}, or empty for 4 × the lease time; got {lease_max_minutes!r}",
            code="invalid_lease_max_minutes",
        )


# The pre-filter rule belongs to curation, which applies it: curation registers how a rule is read and checked
# (``prefilter_rule_reader_register``, from its app's ``ready()``), so a campaign stores only rules it will apply.
_prefilter_rule_reader: Callable[[dict], dict] | None = None


def prefilter_rule_reader_register(reader: Callable[[dict], dict]) -> None:
    """``reader(rule)`` returns the rule in its stored form or raises ValueError with a message for the curator."""
    global _prefilter_rule_reader
    _prefilter_rule_reader = reader


def _checked_rule(rule: dict | None) -> dict:
    """A pre-filter rule in its stored form, read by the reader curation registered."""
    if not rule:
        return {}
    if _prefilter_rule_reader is None:
        raise ApplicationError("no pre-filter is installed to apply this rule", code="invalid_prefilter_rule")
    try:
        return _prefilter_rule_reader(rule)
    except ValueError as exc:
        raise ApplicationError(str(exc), code="invalid_prefilter_rule") from exc


def _schema_for(*, slug: str, kind: str, preset: str | None, schema_definition: dict | None) -> tuple[RatingSchema, str]:
    if schema_definition is not None:
        if preset:
            raise ApplicationError("give a schema preset or a custom schema, not both", code="schema_conflict")
        current = RatingSchema.objects.filter(slug=f"{slug}-custom").order_by("-version").first()
        if current is not None and current.definition == schema_definition:
            return current, "majority"
        return rating_schema_create(slug=f"{slug}-custom", definition=schema_definition), "majority"
    preset = preset or DEFAULT_PRESET_BY_KIND.get(kind, "ab-tie")
    return rating_schema_for_preset(preset=preset, kind=kind), DEFAULT_POLICY_BY_PRESET.get(preset, "majority")


@transaction.atomic
def campaign_create(
    *,
    slug: str,
    kind: str,
    preset: str | None = None,
    schema_definition: dict | None = None,
    name: str = "",
    overlap: int = 3,
    gold_rate: float = 0.0,
    lease_minutes: int = 30,
    lease_max_minutes: int | None = None,
    instructions: str = "",
    requires_prefilter: bool = False,
    prefilter_rule: dict | None = None,
    status: str = Campaign.Status.ACTIVE,
    requires_full_playback: bool = False,
) -> Campaign:
    """A new campaign with a preset or a custom rating schema; every setting is checked before anything is written."""
    if not isinstance(slug, str) or not SLUG.match(slug):
        raise ApplicationError(
            f"campaign slug {slug!r} must be 1–100 letters, digits, - or _", code="invalid_slug"
        )
    if kind not in TaskKind.values:
        raise ApplicationError(
            f"unknown task kind {kind!r}; expected one of {', '.join(TaskKind.values)}", code="unknown_task_kind"
        )
    if status not in Campaign.Status.values:
        raise ApplicationError(
            f"unknown status {status!r}; expected one of {', '.join(Campaign.Status.values)}", code="invalid_status"
        )
    _check_settings(overlap=overlap, gold_rate=gold_rate, lease_minutes=lease_minutes,
                    lease_max_minutes=lease_max_minutes)
    _check_full_playback(kind, requires_full_playback)
    rule = _checked_rule(prefilter_rule)
    if Campaign.objects.filter(slug=slug).exists():
        raise ApplicationError(f"campaign {slug!r} already exists", code="campaign_exists", status_code=409)
    schema, policy = _schema_for(slug=slug, kind=kind, preset=preset, schema_definition=schema_definition)
    return Campaign.objects.create(
        slug=slug,
        name=(name or slug.replace("-", " ").title())[:200],
        kind=kind,
        rating_schema=schema,
        overlap=overlap,
        max_overlap=max(overlap + 2, 5),
        gold_rate=float(gold_rate),
        lease_minutes=lease_minutes,
        lease_max_minutes=lease_max_minutes,
        instructions=instructions,
        requires_prefilter=requires_prefilter,
        requires_full_playback=requires_full_playback,
        prefilter_rule=rule,
        status=status,
        consensus_policy=policy,
    )


def _check_full_playback(kind: str, required: bool) -> None:
    if required and not sides_played(kind):
        raise ApplicationError(
            f"full playback can be required only of a campaign with audio or video ({', '.join(sorted(PLAYED_KINDS))}); "
            f"{kind} has none", code="invalid_full_playback",
        )


def _check_schema_unused(campaign: Campaign) -> None:
    """Ratings are stored by question id without their schema's version: once there is one (or a pair was claimed,
    so a draft may exist), the campaign's questions are fixed."""
    # Through the reverse relations the work queue's models declare (``assignments``, ``annotations``).
    if campaign.assignments.exists() or Pair.objects.filter(campaign=campaign, annotations__isnull=False).exists():
        raise ApplicationError(
            f"campaign {campaign.slug!r} already has ratings or claimed pairs under schema {campaign.rating_schema}; "
            "its questions can no longer change (create a new campaign for new questions)",
            code="schema_in_use", status_code=409,
        )


EDITABLE = ("name", "overlap", "gold_rate", "lease_minutes", "lease_max_minutes", "instructions", "requires_prefilter",
            "requires_full_playback")


@transaction.atomic
def campaign_update(*, campaign: Campaign, schema_definition: dict | None = None, preset: str | None = None,
                    prefilter_rule: dict | None = None, status: str | None = None, apply_to_existing: bool = False,
                    **changes: Any) -> Campaign:
    """Change a campaign's settings. A new schema is a new version, allowed until the first claim or rating.

    The kind is fixed once the campaign exists. A status moves draft → active ⇄ paused → archived. A new overlap
    is for pairs imported from now on; with ``apply_to_existing`` the pairs already there follow it too
    (``pair_status.pairs_overlap_apply``: a complete pair asked for more goes back to the queue, a queued one
    asked for no more than it holds is complete); with the overlap unchanged, that brings the pairs asking for
    fewer (left behind by an earlier change) up to it.
    """
    unknown = sorted(set(changes) - set(EDITABLE))
    if unknown:
        raise ApplicationError(f"cannot change {', '.join(unknown)} of a campaign", code="not_editable")
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    overlap_before = campaign.overlap
    values = {field: changes.get(field, getattr(campaign, field)) for field in EDITABLE}
    _check_settings(overlap=values["overlap"], gold_rate=values["gold_rate"], lease_minutes=values["lease_minutes"],
                    lease_max_minutes=values["lease_max_minutes"])
    _check_full_playback(campaign.kind, values["requires_full_playback"])
    if status is not None and status != campaign.status:
        if status not in Campaign.Status.values:
            raise ApplicationError(
                f"unknown status {status!r}; expected one of {', '.join(Campaign.Status.values)}", code="invalid_status"
            )
        if status not in STATUS_MOVES[campaign.status]:
            raise ApplicationError(
                f"a campaign that is {campaign.status} cannot become {status}", code="invalid_status_move", status_code=409
            )
        campaign.status = status
    if prefilter_rule is not None:
        campaign.prefilter_rule = _checked_rule(prefilter_rule)
    if schema_definition is not None or preset:
        schema, _policy = _schema_for(slug=campaign.slug, kind=campaign.kind, preset=preset,
                                      schema_definition=schema_definition)
        if schema.pk != campaign.rating_schema_id:
            _check_schema_unused(campaign)
        campaign.rating_schema = schema
    for field, value in values.items():
        setattr(campaign, field, value)
    campaign.name = (campaign.name or campaign.slug)[:200]
    campaign.max_overlap = max(campaign.max_overlap, campaign.overlap)
    campaign.save()
    if apply_to_existing:
        pairs_overlap_apply(campaign=campaign, before=overlap_before, after=campaign.overlap)
    return campaign


def campaign_get_or_create(*, slug: str, kind: str | None, preset: str | None,
                           overlap: int | None = None) -> tuple[Campaign, bool]:
    """The campaign ``slug``; created (with ``overlap`` ratings per pair, default 3) only when a task kind is given.

    ``overlap`` is for a new campaign: an existing one with another overlap is refused, not changed.
    """
    if overlap is not None:
        _check_overlap(overlap)
    campaign = Campaign.objects.filter(slug=slug).select_related("rating_schema").first()
    if campaign is not None:
        if kind and kind != campaign.kind:
            raise ApplicationError(
                f"campaign {slug!r} is {campaign.kind}, not {kind}", code="campaign_kind_mismatch"
            )
        if overlap is not None and overlap != campaign.overlap:
            raise ApplicationError(
                f"campaign {slug!r} exists with overlap {campaign.overlap}; the overlap of a new campaign cannot "
                f"change an existing one (raise pairs' overlap from the console)", code="campaign_overlap_mismatch"
            )
        return campaign, False
    if not kind:
        raise ApplicationError(
            f"campaign {slug!r} does not exist; give a task kind (and a rating schema) to create it",
            code="campaign_not_found",
            status_code=404,
            # The input that would create it; each interface names it in its own words (an option, a form field).
            extra={"field": "task"},
        )
    return campaign_create(slug=slug, kind=kind, preset=preset, overlap=3 if overlap is None else overlap), True


def campaign_add_members(*, campaign: Campaign, users: Iterable[User]) -> None:
    campaign.members.add(*users)


@dataclass(frozen=True)
class MembersChange:
    added: list[str]
    removed: list[str]
    members: list[str]

    def as_dict(self) -> dict:
        return {"added": self.added, "removed": self.removed, "members": self.members}


@transaction.atomic
def campaign_members_change(*, campaign: Campaign, add: Iterable[str] = (), remove: Iterable[str] = ()) -> MembersChange:
    """Add and remove members by username; an unknown name changes nothing and names every unknown one.

    Removing a member keeps their ratings and ends none of their open leases (they expire as usual).
    """
    add, remove = list(dict.fromkeys(add)), list(dict.fromkeys(remove))
    both = sorted(set(add) & set(remove))
    if both:
        raise ApplicationError(f"cannot both add and remove {', '.join(both)}", code="members_conflict")
    users = {u.username: u for u in get_user_model().objects.filter(username__in=add + remove)}
    unknown = [name for name in add + remove if name not in users]
    if unknown:
        raise ApplicationError(f"unknown user(s): {', '.join(unknown)}; nothing changed", code="unknown_user",
                               status_code=404)
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    current = set(campaign.members.values_list("username", flat=True))
    added = [name for name in add if name not in current]
    removed = [name for name in remove if name in current]
    campaign.members.add(*[users[name] for name in added])
    campaign.members.remove(*[users[name] for name in removed])
    members = sorted((current | set(added)) - set(removed))
    return MembersChange(added=added, removed=removed, members=members)
