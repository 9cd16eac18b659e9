"""Read queries of the work queue: an annotator's lease and its display (blind to models), their statistics and their
submitted work, and whether a campaign has work for them."""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Exists, F, OuterRef, Q
from django.utils import timezone

from annotation.catalogue import content, schemas, self_identification
from annotation.catalogue.masking import Mask
from annotation.catalogue.models import Campaign, Media, Pair
from annotation.catalogue.selectors import media_sources
from annotation.workqueue import consistency
from annotation.workqueue.models import Annotation, Assignment, PairReport
from annotation.workqueue.rules import median_or_none
from annotation.workqueue.store import store
from core.errors import ApplicationError

if TYPE_CHECKING:
    from collections.abc import Iterable
    from datetime import datetime

    from annotation.accounts.models import User
    from annotation.workqueue.models import Questionnaire


def media_visible_to(*, user: User, digest: str) -> Media | None:
    """The media ``digest`` when ``user`` may see it: curators always, annotators through a pair they hold or were
    shown ahead of their next claim (``annotation.workqueue.services.preview``)."""
    media = Media.objects.filter(sha256=digest).first()
    if media is None or user.is_curator:
        return media
    if Assignment.objects.filter(annotator=user, pair__media=media).exists():
        return media
    from annotation.workqueue.services.preview import preview_key

    return media if cache.get(preview_key(user.pk, digest)) else None


# A lease is its holder's only while they are a member of its campaign: one removed loses it (404, as for a
# lease that is not theirs) for reading, drafting, skipping and submitting alike. The hand-written statements
# (annotation/workqueue/sql/*.sql) state the same condition.


def still_member() -> Exists:
    """The assignment's annotator is a member of its campaign."""
    return Exists(Campaign.members.through.objects.filter(campaign_id=OuterRef("campaign_id"),
                                                          user_id=OuterRef("annotator_id")))


def assignment_for_annotator(*, assignment_id: int, annotator: User, for_display: bool = True) -> Assignment:
    """The annotator's own assignment in a campaign they are still a member of; 404 otherwise, as for a missing one.

    With ``for_display`` its campaign, schema, pair, prompt and responses come in the same query, as
    ``pair_display`` needs them; without, only the assignment row is read (enough to hand to a service).
    """
    if for_display:
        # The store's read: on PostgreSQL one hand-written statement (display.sql), no ORM compilation.
        return store().display_read(assignment_id=assignment_id, annotator=annotator)
    assignment = Assignment.objects.filter(still_member(), pk=assignment_id, annotator_id=annotator.pk).first()
    if assignment is None:
        raise ApplicationError("No such assignment.", code="not_found", status_code=404)
    return assignment


@dataclass(frozen=True, slots=True)
class Shown:
    """What an annotator's display (``pair_display``) is built from: the lease, its campaign's text and schema, and
    the pair's prompt and responses with what must be hidden of them.

    ``Shown.of`` reads it off an assignment whose relations are loaded (``assignment_for_annotator``); the claim
    builds it from its own statement's row (``Shown.read``), so the one answer every rater waits for builds no
    pair, prompt, response or schema instance, and ``Assignment.shown`` carries it to ``pair_display``.
    """

    assignment: int
    pair: int
    annotator: int
    swapped: bool
    draft: dict
    status: str
    expires_at: datetime
    campaign: str
    kind: str
    instructions: str
    schema: dict
    criteria: list
    pair_external_id: str
    self_identification: list
    prompt: list
    prompt_external_id: str
    response_a: list
    model_a: str
    response_b: list
    model_b: str

    @classmethod
    def of(cls, assignment: Assignment) -> Shown:
        pair, campaign = assignment.pair, assignment.campaign
        return cls(
            assignment=assignment.pk, pair=assignment.pair_id, annotator=assignment.annotator_id,
            swapped=assignment.swapped, draft=assignment.draft, status=assignment.status,
            expires_at=assignment.expires_at, campaign=campaign.slug, kind=campaign.kind,
            instructions=campaign.instructions, schema=campaign.rating_schema.definition,
            criteria=pair.criteria or [], pair_external_id=pair.external_id,
            self_identification=pair.self_identification or [], prompt=pair.prompt.content or [],
            prompt_external_id=pair.prompt.external_id, response_a=pair.response_a.content or [],
            model_a=pair.response_a.model_name, response_b=pair.response_b.content or [],
            model_b=pair.response_b.model_name,
        )

    @classmethod
    def read(cls, lease: dict[str, Any], campaign: dict[str, Any], columns: dict[str, dict[str, Any]]) -> Shown:
        """From the lease's and the campaign's values (by attname) and ``columns``, the row's
        ``sql.parts("claim_display")`` by alias (``core.rows.values``)."""
        pair, prompt, a, b = columns["p"], columns["q"], columns["ra"], columns["rb"]
        return cls(
            assignment=lease["id"], pair=lease["pair_id"], annotator=lease["annotator_id"], swapped=lease["swapped"],
            draft=lease["draft"], status=lease["status"], expires_at=lease["expires_at"], campaign=campaign["slug"],
            kind=campaign["kind"], instructions=campaign["instructions"], schema=columns["s"]["definition"],
            criteria=pair["criteria"] or [], pair_external_id=pair["external_id"],
            self_identification=pair["self_identification"] or [], prompt=prompt["content"] or [],
            prompt_external_id=prompt["external_id"], response_a=a["content"] or [], model_a=a["model_name"],
            response_b=b["content"] or [], model_b=b["model_name"],
        )


_FILE_NAME = re.compile(r"[\\/]|\.[A-Za-z0-9]{2,5}$")


def _blind_patterns(shown: Shown) -> Mask:
    """What must never reach an annotator: model names and external ids (which often contain model names), and the
    self-identifications found at import; each matched as a reader sees it (``annotation.catalogue.masking``)."""
    candidates = {shown.model_a, shown.model_b, shown.pair_external_id, shown.prompt_external_id}
    secrets = [c for c in candidates if c and len(c) >= 3]
    # The hits stored at import and the scan run again: a pair imported before the scan knew a phrasing (or before
    # ``scan_self_identification`` was run) is masked as well.
    again = self_identification.scan_responses(a=(shown.model_a, shown.response_a), b=(shown.model_b, shown.response_b))
    return Mask(secrets, self_identification.masked_terms([*shown.self_identification, *again]))


def blind_mask(assignment: Assignment) -> Mask:
    """What must be hidden from the assignment's annotator in any text shown to them (model names, external ids,
    self-identifications); the assignment's pair, prompt and responses must be loaded."""
    return _blind_patterns(Shown.of(assignment))


def _blind_value(value, hidden: Mask):
    if isinstance(value, str):
        return hidden.redact(value)
    if isinstance(value, list):
        return [_blind_value(v, hidden) for v in value]
    if isinstance(value, dict):
        return {hidden.redact(k): _blind_value(v, hidden) for k, v in value.items()}
    return value


def _display_blocks(blocks: list[dict], sources: dict[str, dict], hidden: Mask) -> list[dict]:
    out = []
    for block in blocks:
        kind = block.get("type")
        if kind in content.MEDIA_TYPES:
            alt = block.get("alt", "")
            # An importer may have put the original file name in alt; a name can carry the model's.
            alt = "" if _FILE_NAME.search(alt) else hidden.redact(alt)
            out.append({"type": kind, "media": block["media"], "url": "", "alt": alt, **sources.get(block["media"], {})})
        elif kind == "tool_call":
            out.append(
                {
                    "type": kind,
                    "name": hidden.redact(block["name"]),
                    "arguments": _blind_value(block.get("arguments", {}), hidden),
                    "result": _display_blocks(block.get("result", []), sources, hidden),
                }
            )
        elif kind == "reasoning":
            out.append({"type": kind, "blocks": _display_blocks(block.get("blocks", []), sources, hidden)})
        else:
            out.append(_blind_value(block, hidden))
    return out


def pair_key(pair_id: int, annotator_id: int) -> str:
    """An opaque name of a pair for one annotator, the same in the next pair's preview and in the claim's display: a
    page prepared ahead knows that the claim gave it the pair it shows. Without the site's secret it names nothing."""
    return hmac.digest(_pair_key_secret(settings.SECRET_KEY), f"{pair_id}:{annotator_id}".encode(), "sha256").hex()[:20]


@functools.lru_cache(maxsize=4)
def _pair_key_secret(secret: str) -> bytes:
    """pair_key's HMAC key under the site's ``secret``, derived once per secret (as Django's salted_hmac derives its
    key from a salt and the secret, on every call: the claim's one HMAC cost ~30 µs that way)."""
    return hashlib.sha256(b"concord.workqueue.pair_key" + secret.encode()).digest()


def pair_display(*, assignment: Assignment) -> dict:
    """What the annotator sees, blind: sides in the order shown, media as digest URLs, no model name or external id.

    Precondition: ``assignment`` comes from a claim (``assignment.shown``) or from ``assignment_for_annotator`` (its
    pair, prompt, responses and campaign are loaded); this adds one query for the media file extensions when the
    pair has media.
    """
    shown = assignment.shown or Shown.of(assignment)
    left, right = (shown.response_b, shown.response_a) if shown.swapped else (shown.response_a, shown.response_b)
    parts = [shown.prompt, left, right]
    digests = {d for blocks in parts for d in content.media_digests(blocks)}
    # Text-only pairs (most of them) need no media lookup at all.
    sources = media_sources(
        Media.objects.filter(sha256__in=digests).values_list("sha256", "file", "kind", "mime_type", "width", "render_error")
    ) if digests else {}
    hidden = _blind_patterns(shown)
    return {
        "assignment": shown.assignment,
        "pair_key": pair_key(shown.pair, shown.annotator),
        "campaign": shown.campaign,
        "kind": shown.kind,
        "instructions": shown.instructions,
        "prompt": _display_blocks(parts[0], sources, hidden),
        "left": _display_blocks(parts[1], sources, hidden),
        "right": _display_blocks(parts[2], sources, hidden),
        "criteria": _blind_value(list(shown.criteria), hidden),
        "schema": shown.schema,
        "draft": shown.draft,
        "status": shown.status,
        "expires_at": shown.expires_at,
    }


def annotator_stats(*, annotator: User, campaign: Campaign | None = None, now: datetime | None = None) -> dict:
    """What the annotator did today (in the site's time zone) and overall, and their progress per campaign."""
    now = now or timezone.now()
    day_start = timezone.localtime(now).replace(hour=0, minute=0, second=0, microsecond=0)
    finished = Assignment.objects.filter(
        annotator=annotator, status__in=[Assignment.Status.SUBMITTED, Assignment.Status.SKIPPED]
    )
    annotations = Annotation.objects.filter(annotator=annotator, source=Annotation.Source.CONCORD)
    campaigns = annotator.campaigns.order_by("slug")
    if campaign is not None:
        finished = finished.filter(campaign=campaign)
        annotations = annotations.filter(pair__campaign=campaign)
        campaigns = campaigns.filter(pk=campaign.pk)
    counts = {
        (row["campaign_id"], row["status"]): row
        for row in finished.values("campaign_id", "status").annotate(
            total=Count("pk"), today=Count("pk", filter=Q(finished_at__gte=day_start))
        )
    }
    times = list(annotations.exclude(time_on_item_ms=None).values_list("created_at", "time_on_item_ms"))
    active = set(
        Assignment.objects.filter(annotator=annotator, status=Assignment.Status.ACTIVE, expires_at__gt=now).values_list(
            "campaign_id", flat=True
        )
    )
    campaigns = list(campaigns)
    # One grouped count per request; the annotator's page is not on the claim path.
    progress = {
        row["campaign_id"]: row
        for row in Pair.objects.filter(campaign__in=campaigns)
        .values("campaign_id")
        .annotate(total=Count("pk"), complete=Count("pk", filter=Q(status=Pair.Status.COMPLETE)))
    }

    def count(status: str, period: str, campaign_id: int | None = None) -> int:
        return sum(
            row[period] for (cid, st), row in counts.items() if st == status and (campaign_id is None or cid == campaign_id)
        )

    return {
        "today": {
            "submitted": count(Assignment.Status.SUBMITTED, "today"),
            "skipped": count(Assignment.Status.SKIPPED, "today"),
            "median_time_on_item_ms": median_or_none([ms for at, ms in times if at >= day_start]),
        },
        "overall": {
            "submitted": count(Assignment.Status.SUBMITTED, "total"),
            "skipped": count(Assignment.Status.SKIPPED, "total"),
            "median_time_on_item_ms": median_or_none([ms for _, ms in times]),
        },
        "campaigns": [
            {
                "slug": c.slug,
                "name": c.name,
                "kind": c.kind,
                "status": c.status,
                "submitted": count(Assignment.Status.SUBMITTED, "total", c.pk),
                "submitted_today": count(Assignment.Status.SUBMITTED, "today", c.pk),
                "skipped": count(Assignment.Status.SKIPPED, "total", c.pk),
                "has_open_assignment": c.pk in active,
                "pairs_total": progress.get(c.pk, {}).get("total", 0),
                "pairs_complete": progress.get(c.pk, {}).get("complete", 0),
            }
            for c in campaigns
        ],
    }


# Review and correct (annotation.workqueue.services.review): the annotator's own submitted work, never the pair's identity.

REVIEWABLE = (Assignment.Status.SUBMITTED, Assignment.Status.WITHDRAWN)
PROMPT_EXCERPT = 120  # characters of a prompt's text in the annotator's list of their work


def _shown_answer_label(definition: dict, shown: dict) -> str:
    """The overall preference as the annotator gave it (their left = A), by its option's label."""
    question = schemas.preference_question(definition)
    if question is None or shown.get(question["id"]) is None:
        return ""
    value = shown[question["id"]]
    labels = {o["value"]: o.get("label", str(o["value"])) for o in question.get("options", [])}
    return labels.get(value, str(value))


def my_work(*, annotator: User, limit: int = 200) -> list[dict]:
    """The annotator's submitted and withdrawn pairs, newest first (one query): when, in which campaign, the start of
    its prompt (blind, as the pair was shown), their overall answer as they saw it, how many times they changed it,
    and whether it can still be changed (its pair has not gone into consensus)."""
    decided = Pair.objects.filter(pk=OuterRef("pair_id"), consensus__isnull=False)
    assignments = (
        Assignment.objects.filter(annotator=annotator, status__in=REVIEWABLE)
        .select_related("campaign__rating_schema", "annotation", "pair__prompt", "pair__response_a", "pair__response_b")
        .annotate(corrections=Count("revisions", filter=Q(revisions__kind="corrected")), decided=Exists(decided))
        .order_by("-finished_at", "-id")[:limit]
    )
    out = []
    for assignment in assignments:
        annotation = getattr(assignment, "annotation", None)
        definition = assignment.campaign.rating_schema.definition
        shown = schemas.reorient(definition, annotation.values, swapped=assignment.swapped) if annotation else {}
        out.append({
            "assignment": assignment.pk,
            "campaign": assignment.campaign.slug,
            "campaign_name": assignment.campaign.name,
            # Masked whole, then cut: a cut never leaves part of a model's name.
            "prompt": _blind_patterns(Shown.of(assignment)).redact(content.plain_text(assignment.pair.prompt.content or []))[
                :PROMPT_EXCERPT],
            "status": assignment.status,
            "submitted_at": assignment.finished_at,
            "answer": _shown_answer_label(definition, shown),
            "corrections": assignment.corrections,
            "can_change": assignment.status == Assignment.Status.SUBMITTED and not assignment.decided,
        })
    return out



def my_reports(*, annotator: User, limit: int = 200) -> list[dict]:
    """The pairs the annotator reported, newest first (one query): when, in which campaign, the start of the prompt
    (blind, as the pair was shown), their reason and note, and the curator's answer and action once given."""
    reports = (
        PairReport.objects.filter(reporter=annotator)
        .select_related("campaign__rating_schema", "assignment", "pair__prompt", "pair__response_a", "pair__response_b")
        .order_by("-created_at", "-id")[:limit]
    )
    out = []
    for report in reports:
        assignment = report.assignment
        assignment.pair, assignment.campaign = report.pair, report.campaign
        out.append({
            "report": report.pk,
            "campaign": report.campaign.slug,
            "campaign_name": report.campaign.name,
            "prompt": _blind_patterns(Shown.of(assignment)).redact(content.plain_text(report.pair.prompt.content or []))[
                :PROMPT_EXCERPT],
            "reason": report.reason,
            "reason_label": report.get_reason_display(),
            "note": report.note,
            "status": report.status,
            "answer": report.answer,
            "action": report.action,
            "action_label": report.get_action_display(),
            "created_at": report.created_at,
            "answered_at": report.answered_at,
        })
    return out

def review_display(*, assignment: Assignment) -> dict:
    """``pair_display`` of a submitted (or withdrawn) assignment with the latest answer in the orientation shown
    (as ``draft``, which the form fills in), its revisions, whether it can still be changed, and the soft warnings
    for the answer as it stands, and those confirmed at submit; 409 for one not submitted yet. The assignment is
    the annotator's own, as ``assignment_for_annotator`` reads it (404 for anyone else's)."""
    if assignment.status not in REVIEWABLE:
        raise ApplicationError("Only a submitted answer can be reviewed.", code="assignment_not_submitted", status_code=409)
    display = pair_display(assignment=assignment)
    definition = assignment.campaign.rating_schema.definition
    annotation = Annotation.objects.filter(assignment_id=assignment.pk).only("values", "confirmed_warnings").first()
    shown = schemas.reorient(definition, annotation.values, swapped=assignment.swapped) if annotation else {}
    decided = Pair.objects.filter(pk=assignment.pair_id, consensus__isnull=False).exists()
    return {
        **display,
        "draft": shown,
        "revisions": list(assignment.revisions.order_by("at", "id").values("kind", "at")),
        "submitted_at": assignment.finished_at,
        "can_change": assignment.status == Assignment.Status.SUBMITTED and not decided,
        "decided": decided,
        "warnings": consistency.warnings(definition, shown),
        "confirmed_warnings": (annotation.confirmed_warnings or []) if annotation else [],
    }


def answers_check(*, assignment_id: int, annotator: User, values: dict) -> list[consistency.Contradiction]:
    """The contradictions in ``values`` (as shown) under the schema of the annotator's own assignment; 404 for anyone
    else's, as for a missing one. One query."""
    assignment = (
        Assignment.objects.select_related("campaign__rating_schema")
        .filter(still_member(), pk=assignment_id, annotator_id=annotator.pk)
        .first()
    )
    if assignment is None:
        raise ApplicationError("No such assignment.", code="not_found", status_code=404)
    return consistency.contradictions(assignment.campaign.rating_schema.definition, values)


def campaign_has_work_for(*, campaign: Campaign, annotator: User) -> bool:
    """Whether ``annotator`` may find a pair to rate in ``campaign``: it is active and a queued pair they never held
    still needs ratings (its slots may all be leased to others right now; a claim then finds nothing yet)."""
    if campaign.status != Campaign.Status.ACTIVE:
        return False
    held = Assignment.objects.filter(pair=OuterRef("pk"), annotator=annotator)
    return (
        Pair.objects.filter(campaign=campaign, status=Pair.Status.QUEUED, annotations_done__lt=F("required_annotations"))
        .filter(~Exists(held))
        .exists()
    )


def campaign_questionnaire(*, campaign: Campaign) -> Questionnaire | None:
    """The questionnaire ``campaign`` asks before a rater's first pair, or None."""
    from annotation.workqueue.models import Questionnaire

    return Questionnaire.objects.filter(campaign_links__campaign=campaign).first()


def profile_answers(*, questionnaire: Questionnaire, users: Iterable[User] | None = None) -> dict[int, dict]:
    """User id → their answers to ``questionnaire`` (only ``users``' when given)."""
    from annotation.workqueue.models import ProfileAnswer

    found = ProfileAnswer.objects.filter(questionnaire=questionnaire)
    if users is not None:
        found = found.filter(user__in=users)
    return dict(found.values_list("user_id", "answers"))


def campaign_hours(*, campaign: Campaign, idle_minutes: float) -> list[dict]:
    """Per rater of ``campaign`` (its members and anyone with events in it), for paying them: the active time from
    their events (``annotation.workqueue.hours``), pairs submitted and skipped, and their gold answers. Crowd raters
    carry their platform id, which payment needs; the list is for curators only."""
    from datetime import timedelta

    from django.contrib.auth import get_user_model

    from annotation.workqueue.hours import active_time
    from annotation.workqueue.models import AssignmentEvent, CrowdParticipant

    idle = timedelta(minutes=idle_minutes)
    events: dict[int, list] = {}
    stream = (AssignmentEvent.objects.filter(campaign=campaign).exclude(kind=AssignmentEvent.Kind.EXPIRE)
              .order_by("annotator_id", "at").values_list("annotator_id", "at", "assignment_id"))
    for annotator_id, at, assignment_id in stream.iterator(chunk_size=5000):
        events.setdefault(annotator_id, []).append((at, assignment_id))
    done = dict(Assignment.objects.filter(campaign=campaign, status=Assignment.Status.SUBMITTED)
                .values("annotator_id").annotate(n=Count("pk")).values_list("annotator_id", "n").order_by())
    skipped = dict(Assignment.objects.filter(campaign=campaign, status=Assignment.Status.SKIPPED)
                   .values("annotator_id").annotate(n=Count("pk")).values_list("annotator_id", "n").order_by())
    gold = {row["annotator_id"]: row for row in Annotation.objects.filter(
        pair__campaign=campaign, annotator__isnull=False, gold_correct__isnull=False, source=Annotation.Source.CONCORD,
    ).values("annotator_id").annotate(answered=Count("pk"), correct=Count("pk", filter=Q(gold_correct=True))).order_by()}
    ids = set(events) | set(done) | set(campaign.members.values_list("pk", flat=True))
    users = dict(get_user_model().objects.filter(pk__in=ids).values_list("pk", "username"))
    crowd = dict(CrowdParticipant.objects.filter(user_id__in=ids).values_list("user_id", "participant_id"))
    out = []
    for user_id in sorted(ids, key=lambda pk: users.get(pk, "")):
        seen = events.get(user_id, [])
        seconds = active_time(seen, idle=idle).total_seconds()
        g = gold.get(user_id, {"answered": 0, "correct": 0})
        out.append({
            "username": users.get(user_id, ""), "crowd_id": crowd.get(user_id, ""),
            "active_seconds": round(seconds), "active_hours": round(seconds / 3600, 3),
            "pairs_submitted": done.get(user_id, 0), "pairs_skipped": skipped.get(user_id, 0),
            "gold_answered": g["answered"], "gold_correct": g["correct"],
            "gold_score": round(g["correct"] / g["answered"], 4) if g["answered"] else None,
            "first_activity": min(seen)[0] if seen else None, "last_activity": max(seen)[0] if seen else None,
        })
    return out


def release_profile_answers(*, campaign_ids: list[int], pair_ids: list[int]) -> list[dict]:
    """Per questionnaire the campaigns ask (by slug), ``profile.profile_summary`` of the answers of the raters with a
    Concord rating of one of ``pair_ids``: counts only, for a release card."""
    from annotation.workqueue.models import ProfileAnswer, Questionnaire
    from annotation.workqueue.profile import profile_summary

    raters = (Annotation.objects.filter(pair_id__in=pair_ids, source=Annotation.Source.CONCORD,
                                        annotator__isnull=False).values("annotator_id").distinct())
    out = []
    for questionnaire in Questionnaire.objects.filter(campaign_links__campaign_id__in=campaign_ids).distinct().order_by("slug"):
        answers = list(ProfileAnswer.objects.filter(questionnaire=questionnaire, user_id__in=raters)
                       .values_list("answers", flat=True))
        out.append({"questionnaire": questionnaire.title, **profile_summary(questionnaire.questions, answers)})
    return out
