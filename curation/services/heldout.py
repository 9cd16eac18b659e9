"""Held-out submissions: team tokens issued by curators, predictions scored on a release's private labels within a
daily allowance, and results a team chooses to publish.

A token is shown once, when issued; Concord keeps its sha256 only. A submission is scored by the same code as
``evaluate_judge`` (``predictions_score``) against the labels kept in ``HeldoutPair``, and a team sees aggregate
figures only (``heldout.aggregate``). Every submission is a row: its team, time, file sha256, score or refusal.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.utils import timezone

from core.errors import ApplicationError
from curation.models import HeldoutPair, Release, Submission, SubmissionTeam
from curation.releases import heldout, scoring
from curation.services.releases import predictions_score

if TYPE_CHECKING:
    from annotation.accounts.models import User

TOKEN_PREFIX = "cst_"
WINDOW = timedelta(hours=24)
DEFAULT_DAILY_LIMIT = 5
MAX_DAILY_LIMIT = 1_000


def _token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _refuse_without_split(release: Release) -> None:
    if release.status != Release.Status.PUBLISHED:
        raise ApplicationError(f"{release} is {release.status}; submissions are scored on published releases only",
                               code="release_not_published", status_code=409)
    if not (release.summary or {}).get("heldout"):
        raise ApplicationError(f"{release} has no private split; publish a version with --private-split FRACTION",
                               code="release_no_private_split", status_code=409)


def submission_team_issue(*, release: Release, name: str, daily_limit: int | None = None, rotate: bool = False,
                          created_by: User | None = None) -> tuple[SubmissionTeam, str | None]:
    """A team of a release with a private split and its new token (returned once, kept only as a hash).

    A team that exists gets a new token only with ``rotate`` (its old token stops working); ``daily_limit`` (scored
    submissions in any 24 hours, default 5) is set when given, and for an existing team without ``rotate`` it is all
    that changes (the token returned is None).
    """
    _refuse_without_split(release)
    name = (name or "").strip()
    if not name or len(name) > 100:
        raise ApplicationError("name the team (1 to 100 characters)", code="team_bad_name")
    if daily_limit is not None and (isinstance(daily_limit, bool) or not 1 <= daily_limit <= MAX_DAILY_LIMIT):
        raise ApplicationError(f"the daily limit must be between 1 and {MAX_DAILY_LIMIT}, got {daily_limit!r}",
                               code="team_bad_limit")
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    now = timezone.now()
    with transaction.atomic():
        team = SubmissionTeam.objects.select_for_update().filter(release=release, name=name).first()
        if team is not None and not rotate and daily_limit is not None:
            team.daily_limit = daily_limit
            team.save(update_fields=["daily_limit"])
            return team, None
        if team is not None and not rotate:
            raise ApplicationError(f"team {name!r} already has a token for {release}; rotate it to issue a new one (the "
                                   "old one then stops working)", code="team_exists", status_code=409)
        if team is None:
            try:
                with transaction.atomic():
                    team = SubmissionTeam.objects.create(
                        release=release, name=name, token_sha256=_token_digest(token), token_issued_at=now,
                        daily_limit=daily_limit or DEFAULT_DAILY_LIMIT, created_by=created_by)
            except IntegrityError as exc:
                raise ApplicationError(f"team {name!r} was just created for {release}", code="team_exists",
                                       status_code=409) from exc
            return team, token
        team.token_sha256, team.token_issued_at = _token_digest(token), now
        if daily_limit is not None:
            team.daily_limit = daily_limit
        team.save(update_fields=["token_sha256", "token_issued_at", "daily_limit"])
    return team, token


WWW_AUTHENTICATE = 'Bearer realm="concord-submissions"'


def token_missing() -> ApplicationError:
    """The refusal of a submission sent without a team token (401)."""
    return ApplicationError("send your team's submission token: Authorization: Bearer cst_…",
                            code="submission_token_missing", status_code=401,
                            headers={"WWW-Authenticate": WWW_AUTHENTICATE})


def submission_team_authenticate(*, release: Release, token: str | None) -> SubmissionTeam:
    """The team a token belongs to: ApplicationError 401 without a token, 403 for one that is not a team's of this
    release (wrong, rotated, or another release's)."""
    if not token:
        raise token_missing()
    team = SubmissionTeam.objects.filter(token_sha256=_token_digest(token), release=release).first()
    if team is None:
        raise ApplicationError(f"this token is not a submission token of {release}", code="submission_token_invalid",
                               status_code=403)
    return team


def release_private_gold(*, release: Release) -> list[scoring.GoldPair]:
    """Every item of the release's private split with its task, source and label, in the order ``release_gold``
    reads the public ones (by task, then as built): the bootstrap intervals resample the same pairs."""
    return [scoring.GoldPair(*values) for values in HeldoutPair.objects.filter(release=release).order_by("task", "id")
            .values_list("item_id", "task", "source", "chosen").iterator(chunk_size=5_000)]


def _refuse_past_limit(team: SubmissionTeam, now) -> None:
    recent = list(Submission.objects.filter(team=team, status=Submission.Status.SCORED, created_at__gt=now - WINDOW)
                  .order_by("created_at").values_list("created_at", flat=True))
    if len(recent) < team.daily_limit:
        return
    # Allowed again once enough of the window's submissions are older than 24 hours (more than one if the limit fell).
    next_at = recent[len(recent) - team.daily_limit] + WINDOW
    wait = max(1, int((next_at - now).total_seconds()) + 1)
    raise ApplicationError(
        f"team {team.name!r} has used its {team.daily_limit} scored submissions of the last 24 hours; the next is "
        f"allowed at {next_at.isoformat()} (in {wait} s)", code="submission_limit", status_code=429,
        headers={"Retry-After": str(wait)},
        extra={"daily_limit": team.daily_limit, "next_allowed_at": next_at.isoformat(), "retry_after": wait},
    )


def submission_create(*, release: Release, team: SubmissionTeam, predictions: bytes, format: str, judge_name: str = "",
                      file_name: str = "", predictions_no_tie: bytes | None = None,
                      no_tie_file_name: str = "") -> Submission:
    """Score a team's predictions on the release's private labels, within its daily allowance.

    Precondition: ``team`` is authenticated for ``release``. Over the allowance: ApplicationError 429 with the time
    the next is allowed, nothing scored. Predictions that cannot be scored are kept as an ``invalid`` submission
    (not counted) and refused with the error.
    """
    _refuse_without_split(release)
    judge_name = (judge_name or "").strip() or team.name
    if len(judge_name) > 200:
        raise ApplicationError("the judge name has at most 200 characters", code="judge_bad_name")
    audit = {"release": release, "team": team, "judge_name": judge_name, "format": str(format)[:32],
             "file_name": file_name[:200], "predictions_sha256": hashlib.sha256(predictions).hexdigest(),
             "no_tie_sha256": "" if predictions_no_tie is None else hashlib.sha256(predictions_no_tie).hexdigest()}
    with transaction.atomic():
        SubmissionTeam.objects.select_for_update().filter(pk=team.pk).first()  # one submission of a team at a time
        _refuse_past_limit(team, timezone.now())
        try:
            scores = predictions_score(gold=lambda: release_private_gold(release=release), predictions=predictions,
                                       format=format, predictions_no_tie=predictions_no_tie, file_name=file_name,
                                       no_tie_file_name=no_tie_file_name)
        except ApplicationError as exc:
            Submission.objects.create(**audit, status=Submission.Status.INVALID, error=exc.message[:10_000])
            refusal = exc
        else:
            return Submission.objects.create(**audit, status=Submission.Status.SCORED,
                                             scores=heldout.aggregate(scores))
    raise refusal


def submission_publish(*, team: SubmissionTeam, submission_id: int, judge_name: str = "") -> Submission:
    """Put one of the team's scored submissions on the release's leaderboard (``judge_name`` renames it there)."""
    submission = Submission.objects.filter(pk=submission_id, team=team).first()
    if submission is None:
        raise ApplicationError(f"team {team.name!r} has no submission {submission_id}", code="submission_not_found",
                               status_code=404)
    if submission.status != Submission.Status.SCORED:
        raise ApplicationError(f"submission {submission_id} was not scored ({submission.error[:200]}); only a score can "
                               "be published", code="submission_not_scored", status_code=409)
    judge_name = (judge_name or "").strip()
    if len(judge_name) > 200:
        raise ApplicationError("the judge name has at most 200 characters", code="judge_bad_name")
    submission.judge_name = judge_name or submission.judge_name
    if not submission.published:
        submission.published, submission.published_at = True, timezone.now()
    submission.save(update_fields=["judge_name", "published", "published_at"])
    return submission
