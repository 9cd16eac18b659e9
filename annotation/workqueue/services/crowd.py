"""Crowd-platform entry links (Prolific's ``?PROLIFIC_PID=…&STUDY_ID=…&SESSION_ID=…``): a curator makes one for a
campaign; a participant who follows it gets an account bound to their platform id (the same one on every later
visit), joins the campaign, answers its profile, rates, and is sent to the completion URL at the link's quota.

The platform's ids identify a person to whoever runs the study: they are kept here only, never in a username (crowd
accounts are named ``crowd-<random>``) and never in a release."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.accounts.models import Role
from annotation.accounts.services.accounts import user_create
from annotation.catalogue.models import Campaign
from annotation.catalogue.services.campaigns import campaign_members_change
from annotation.workqueue.models import CrowdEntry, CrowdEntryLink, CrowdParticipant
from annotation.workqueue.services.profile import crowd_quota_done
from core.errors import ApplicationError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from annotation.accounts.models import User

ID_PARAMS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")
# What follows a link's address as the study URL pasted into Prolific, which fills in its placeholders.
PROLIFIC_PLACEHOLDERS = "?" + "&".join(f"{name}={{{{%{name}%}}}}" for name in ID_PARAMS)
# Prolific's ids are 24 hexadecimal digits; other platforms use longer or other-shaped ones, so any 1–64 letters,
# digits, - or _ are taken, nothing else (no spaces, quotes, markup or control characters).
PLATFORM_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
QUOTA_MAX = 10_000
URL_MAX = 500


def _id_problem(name: str, value: str) -> str | None:
    if not value:
        return f"{name} is empty"
    if len(value) > 64:
        return f"{name} is {len(value)} characters long; at most 64 are accepted"
    if not PLATFORM_ID.match(value):
        bad = next(c for c in value if not re.match(r"[A-Za-z0-9_-]", c))
        return f"{name} contains {f'U+{ord(bad):04X}' if not bad.isprintable() or not bad.isascii() else repr(bad)}; " \
               "only letters, digits, - and _ are accepted"
    return None


def crowd_ids_check(query: Mapping[str, list[str]]) -> tuple[str, str, str]:
    """(participant, study, session) ids from a query string's values (each name to its list of values), or 400
    ``invalid_crowd_ids`` saying which is missing, repeated or malformed (the value itself is never echoed)."""
    missing = [name for name in ID_PARAMS if not query.get(name)]
    if missing:
        raise ApplicationError(
            f"This entry link needs {', '.join(ID_PARAMS)} in its address; {' and '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} missing. Open it from the study page of the crowd platform.",
            code="invalid_crowd_ids")
    values = []
    for name in ID_PARAMS:
        given = query[name]
        if len(given) > 1:
            raise ApplicationError(f"{name} is given {len(given)} times; give it once.", code="invalid_crowd_ids")
        problem = _id_problem(name, given[0])
        if problem:
            raise ApplicationError(f"{problem}.", code="invalid_crowd_ids")
        values.append(given[0])
    return values[0], values[1], values[2]


def _completion_url_check(url: str) -> str:
    url = (url or "").strip()
    if not url:
        raise ApplicationError("give the completion URL the platform gave you (https://…)", code="invalid_crowd_link")
    if len(url) > URL_MAX:
        raise ApplicationError(f"the completion URL is at most {URL_MAX} characters", code="invalid_crowd_link")
    if any(not c.isprintable() or c.isspace() for c in url):
        raise ApplicationError("the completion URL contains a space or a control character", code="invalid_crowd_link")
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.netloc:
        raise ApplicationError("the completion URL must be an absolute http(s) address", code="invalid_crowd_link")
    return url


def crowd_link_create(*, campaign: Campaign, completion_url: str, quota: int, study_id: str = "",
                      created_by: User | None = None) -> CrowdEntryLink:
    """A new entry link into ``campaign``: each participant submits ``quota`` pairs, then goes to ``completion_url``;
    with ``study_id`` only that study's participants may enter."""
    if isinstance(quota, bool) or not isinstance(quota, int) or not 1 <= quota <= QUOTA_MAX:
        raise ApplicationError(f"the quota is a whole number of pairs from 1 to {QUOTA_MAX}", code="invalid_crowd_link")
    study_id = (study_id or "").strip()
    if study_id:
        problem = _id_problem("the study id", study_id)
        if problem:
            raise ApplicationError(problem, code="invalid_crowd_link")
    return CrowdEntryLink.objects.create(
        campaign=campaign, token=secrets.token_urlsafe(24), study_id=study_id,
        completion_url=_completion_url_check(completion_url), quota=quota, created_by=created_by)


def crowd_link_deactivate(*, link: CrowdEntryLink) -> CrowdEntryLink:
    """Nobody enters by ``link`` any more (those inside keep rating)."""
    link.is_active = False
    link.save(update_fields=["is_active"])
    return link


@dataclass(frozen=True)
class CrowdEntered:
    """Who entered, and whether their quota is done already (then they go to the link's completion URL)."""

    user: User
    entry: CrowdEntry
    quota_done: bool


def _crowd_user() -> User:
    for _ in range(5):
        try:
            return user_create(username=f"crowd-{secrets.token_hex(5)}", role=Role.ANNOTATOR)
        except ApplicationError as exc:
            if exc.code != "user_exists":
                raise
    raise ApplicationError("no free account name for a crowd rater; try again", code="crowd_busy", status_code=503)


@transaction.atomic
def crowd_enter(*, token: str, participant_id: str, study_id: str, session_id: str) -> CrowdEntered:
    """Sign in (creating the first time) the account bound to ``participant_id``, joined to the link's campaign.

    404 for an unknown or deactivated link; 403 for another study than the link's, a deactivated account, or a
    participant a curator removed from the campaign (they are not added back)."""
    link = CrowdEntryLink.objects.select_related("campaign").filter(token=token, is_active=True).first()
    if link is None:
        raise ApplicationError("This entry link does not exist or was closed.", code="not_found", status_code=404)
    if link.study_id and study_id != link.study_id:
        raise ApplicationError("This entry link belongs to another study.", code="wrong_study", status_code=403)
    participant = CrowdParticipant.objects.select_related("user").filter(participant_id=participant_id).first()
    if participant is None:
        try:
            with transaction.atomic():
                participant = CrowdParticipant.objects.create(user=_crowd_user(), participant_id=participant_id)
        except IntegrityError:
            # The same participant entering twice at once (two tabs): the first one's account.
            participant = CrowdParticipant.objects.select_related("user").get(participant_id=participant_id)
    user = participant.user
    if not user.is_active:
        raise ApplicationError("This account was deactivated by the study's curators.", code="account_inactive",
                               status_code=403)
    now = timezone.now()
    entry = CrowdEntry.objects.filter(link=link, participant=participant).first()
    if entry is None:
        entry = CrowdEntry.objects.create(link=link, participant=participant, study_id=study_id, session_id=session_id,
                                          entered_at=now)
        campaign_members_change(campaign=link.campaign, add=[user.username])
    else:
        if not link.campaign.members.filter(pk=user.pk).exists():
            raise ApplicationError("You were removed from this study by its curators.", code="not_a_member",
                                   status_code=403)
        entry.study_id, entry.session_id, entry.entered_at = study_id, session_id, now
        entry.save(update_fields=["study_id", "session_id", "entered_at"])
    entry.link = link
    entry.participant = participant
    return CrowdEntered(user=user, entry=entry, quota_done=crowd_quota_done(entry=entry, campaign_id=link.campaign_id))
