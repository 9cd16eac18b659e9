"""Campaigns, their rating schemas and their members."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.db import transaction

from annotation import schemas
from annotation.errors import ApplicationError
from annotation.models import Campaign, RatingSchema, Role, TaskKind

if TYPE_CHECKING:
    from collections.abc import Iterable

    from annotation.models import User

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
    """The stored schema for a built-in preset and task kind, created on first use."""
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


@transaction.atomic
def campaign_create(
    *,
    slug: str,
    kind: str,
    preset: str | None = None,
    name: str = "",
    overlap: int = 3,
    instructions: str = "",
    requires_prefilter: bool = False,
) -> Campaign:
    if kind not in TaskKind.values:
        raise ApplicationError(
            f"unknown task kind {kind!r}; expected one of {', '.join(TaskKind.values)}", code="unknown_task_kind"
        )
    _check_overlap(overlap)
    if Campaign.objects.filter(slug=slug).exists():
        raise ApplicationError(f"campaign {slug!r} already exists", code="campaign_exists", status_code=409)
    preset = preset or DEFAULT_PRESET_BY_KIND.get(kind, "ab-tie")
    schema = rating_schema_for_preset(preset=preset, kind=kind)
    return Campaign.objects.create(
        slug=slug,
        name=name or slug.replace("-", " ").title(),
        kind=kind,
        rating_schema=schema,
        overlap=overlap,
        max_overlap=max(overlap + 2, 5),
        instructions=instructions,
        requires_prefilter=requires_prefilter,
        consensus_policy=DEFAULT_POLICY_BY_PRESET.get(preset, "majority"),
    )


def _check_overlap(overlap) -> None:
    if not isinstance(overlap, int) or isinstance(overlap, bool) or overlap < 1:
        raise ApplicationError(f"overlap is the number of ratings each pair needs, at least 1; got {overlap!r}",
                               code="invalid_overlap")


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
            f"campaign {slug!r} does not exist; pass --task KIND (and --schema PRESET) to create it",
            code="campaign_not_found",
            status_code=404,
        )
    return campaign_create(slug=slug, kind=kind, preset=preset, overlap=3 if overlap is None else overlap), True


def campaign_add_members(*, campaign: Campaign, users: Iterable[User]) -> None:
    campaign.members.add(*users)


def user_create(*, username: str, password: str, role: str = Role.ANNOTATOR, email: str = "") -> User:
    if role not in Role.values:
        raise ApplicationError(f"unknown role {role!r}", code="unknown_role")
    user = get_user_model()(username=username, email=email, role=role)
    user.is_staff = role == Role.ADMIN
    user.is_superuser = role == Role.ADMIN
    user.set_password(password)
    user.save()
    return user
