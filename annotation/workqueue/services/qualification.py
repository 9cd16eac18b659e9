"""Who may rate a campaign's real queue: the calibration set, the qualification round and the pause during work.

- ``rater_admission`` is the one gate (the claim statement, ``annotation/workqueue/sql/claim.sql``, reads the same
  rows as ``held``): a rater paused in the campaign is refused with ``paused_recalibrate``; in a campaign with a
  calibration set, one who passed no round of its task kind is refused with ``qualification_required``.
- A round is N calibration pairs of the campaign's set, shown blind as any pair (sides fixed per rater by the
  campaign's seed). Each answer is stored as a ``CalibrationAnswer`` (never an ``Annotation``: agreement, consensus,
  releases and leaderboards read annotations only) and answered with the expected answer, its explanation and the
  differences. The last answer decides the round (``qualification_decision``); a pass counts for every campaign of
  the kind, a failure waits ``qualification_retry_hours`` or a curator's release.
- Each gold answer during work feeds ``pause_decision`` over the rater's last gold answers since their last pause
  was lifted; a pause releases their open lease, and is lifted by a curator or by passing a new round.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.catalogue import content, schemas
from annotation.catalogue.models import CalibrationItem, CalibrationSet, Campaign, Pair
from annotation.workqueue.models import Annotation, Assignment, CalibrationAnswer, QualificationRound, RaterPause
from annotation.workqueue.qualification import answer_comparison, pause_decision, qualification_decision, score
from annotation.workqueue.rules import orientation_swapped
from annotation.workqueue.selectors import pair_display
from annotation.workqueue.services.assignments import TIME_ON_ITEM_MAX_MS, assignments_release
from annotation.workqueue.services.preview import PREVIEW_SECONDS, preview_key
from core.errors import ApplicationError

if TYPE_CHECKING:
    from annotation.accounts.models import User

EXPLANATION_MAX = 2000


# The gate


@dataclass(frozen=True)
class Admission:
    """Whether ``user`` may claim in the campaign; if not, the refusal's ``code`` and ``message``, and what they can
    do: continue or start a round (``can_start_round``), or wait until ``retry_after``."""

    admitted: bool
    code: str
    message: str
    pause: RaterPause | None = None
    round: QualificationRound | None = None
    can_start_round: bool = False
    retry_after: datetime | None = None


def _latest_round(user, kind: str) -> QualificationRound | None:
    return QualificationRound.objects.filter(rater=user, kind=kind).order_by("-started_at", "-pk").first()


def rater_admission(*, user: User, campaign: Campaign, now: datetime | None = None) -> Admission:
    """The one admission check of the real queue (membership aside, which the claim checks itself)."""
    now = now or timezone.now()
    pause = RaterPause.objects.filter(rater=user, campaign=campaign, lifted_at__isnull=True).first()
    # Read from the row, not the instance: a campaign loaded before its set was given must not let a rater through.
    set_id, round_size, pass_mark = Campaign.objects.filter(pk=campaign.pk).values_list(
        "calibration_set_id", "qualification_round_size", "qualification_pass_mark").get()
    has_set = set_id is not None
    if pause is None and not has_set:
        return Admission(True, "admitted", "")
    latest = _latest_round(user, campaign.kind) if has_set else None
    passed = has_set and QualificationRound.objects.filter(
        rater=user, kind=campaign.kind, verdict=QualificationRound.Verdict.PASSED).exists()
    if pause is None and passed:
        return Admission(True, "admitted", "", round=latest)
    retry_after = _retry_after(latest, since=pause.paused_at if pause else None)
    can_start = has_set and (retry_after is None or retry_after <= now)
    if pause is not None:
        how = (" Take a new calibration round to continue, or ask a curator to lift the pause." if has_set
               else " A curator can lift the pause.")
        return Admission(False, "paused_recalibrate", pause.message + how, pause=pause, round=latest,
                         can_start_round=can_start, retry_after=retry_after)
    if latest is not None and latest.verdict == QualificationRound.Verdict.FAILED and not can_start:
        message = (f"You did not pass the calibration round for this task; you can try again after "
                   f"{timezone.localtime(retry_after):%Y-%m-%d %H:%M}, or when a curator releases you.")
    else:
        message = (f"Before your first pair in this campaign, rate up to {round_size} of its calibration pairs: they "
                   f"show the standard expected, and you pass when {pass_mark:.0%} of your overall preferences match.")
    return Admission(False, "qualification_required", message, round=latest, can_start_round=can_start,
                     retry_after=retry_after)


def _retry_after(latest: QualificationRound | None, *, since: datetime | None) -> datetime | None:
    """When a new round may start: never held back without a failed round (after the pause, when paused)."""
    if latest is None or latest.verdict != QualificationRound.Verdict.FAILED or latest.released_at is not None:
        return None
    if since is not None and latest.finished_at is not None and latest.finished_at < since:
        return None  # failed before the pause: the pause asks for a new round now
    return latest.retry_after


def admission_refuse(admission: Admission) -> None:
    """Raise the claim's 403 for a rater not admitted."""
    extra = {"round_after": admission.retry_after.isoformat() if admission.retry_after else None,
             "can_start_round": admission.can_start_round}
    raise ApplicationError(admission.message, code=admission.code, status_code=403, extra=extra)


# The calibration set (curators)


@dataclass(frozen=True)
class CalibrationAdded:
    calibration_set: str
    added: int
    updated: int
    taken_out_of_queue: int

    def as_dict(self) -> dict:
        return asdict(self)


def _pair_of(row: dict, campaign: Campaign, where: str) -> Pair:
    external_id = row.get("pair")
    if not isinstance(external_id, str) or not external_id:
        raise ApplicationError(f"{where}: \"pair\" is the pair's id in its campaign (a string).", code="invalid_row")
    slug = row.get("campaign") or campaign.slug
    if not isinstance(slug, str):
        raise ApplicationError(f"{where}: \"campaign\" is the slug of the pair's campaign.", code="invalid_row")
    pair = Pair.objects.filter(campaign__slug=slug, external_id=external_id).select_related("campaign").first()
    if pair is None:
        raise ApplicationError(f"{where}: no pair {external_id!r} in campaign {slug!r}.", code="pair_not_found")
    if pair.campaign.kind != campaign.kind:
        raise ApplicationError(f"{where}: pair {external_id!r} is {pair.campaign.kind}, not {campaign.kind}.",
                               code="kind_mismatch")
    return pair


def _checked_expected(definition: dict, expected, where: str) -> dict:
    if not isinstance(expected, dict) or not expected:
        raise ApplicationError(f"{where}: \"expected\" is an object of answers by question id.", code="invalid_row")
    preference = schemas.preference_question(definition)
    if preference is None:
        raise ApplicationError("The campaign's rating schema has no overall preference to calibrate on.",
                               code="no_preference_question")
    if expected.get(preference["id"]) is None:
        raise ApplicationError(f"{where}: the expected answer needs the overall preference ({preference['id']!r}).",
                               code="invalid_row")
    errors = {key: message for key, message in schemas.validate_answers(definition, expected).items()
              if key in expected or key.startswith("__")}
    if errors:
        named = "; ".join(f"{key}: {message}" for key, message in errors.items())
        raise ApplicationError(f"{where}: {named}", code="invalid_row", extra={"fields": errors})
    return expected


@transaction.atomic
def calibration_items_add(*, campaign: Campaign, rows: list[dict], set_slug: str | None = None) -> CalibrationAdded:
    """Add (or update) calibration pairs to the campaign's set, made (``set_slug``, else the campaign's slug) when it
    has none. All rows or none: the first bad one is refused with its line. A pair still queued is taken out of the
    real queue (excluded, saying why): a rater who saw its expected answer must not rate it for the data."""
    campaign = Campaign.objects.select_for_update().select_related("rating_schema").get(pk=campaign.pk)
    definition = campaign.rating_schema.definition
    calibration_set = campaign.calibration_set
    if calibration_set is None:
        calibration_set, _ = CalibrationSet.objects.get_or_create(slug=set_slug or campaign.slug,
                                                                  defaults={"kind": campaign.kind})
        _check_set_kind(calibration_set, campaign)
        campaign.calibration_set = calibration_set
        campaign.save(update_fields=["calibration_set"])
    if not rows:
        raise ApplicationError("No calibration pairs given.", code="empty")
    added = updated = taken = 0
    for number, row in enumerate(rows, start=1):
        where = f"line {row.get('_line', number)}" if isinstance(row, dict) else f"line {number}"
        if not isinstance(row, dict):
            raise ApplicationError(f"{where}: a row is a JSON object.", code="invalid_row")
        pair = _pair_of(row, campaign, where)
        expected = _checked_expected(definition, row.get("expected"), where)
        explanation = row.get("explanation")
        if not isinstance(explanation, str) or not explanation.strip():
            raise ApplicationError(f"{where}: \"explanation\" says why (a short text).", code="invalid_row")
        if len(explanation) > EXPLANATION_MAX:
            raise ApplicationError(f"{where}: keep the explanation under {EXPLANATION_MAX} characters.",
                                   code="invalid_row")
        _, created = CalibrationItem.objects.update_or_create(
            calibration_set=calibration_set, pair=pair,
            defaults={"expected": expected, "explanation": explanation.strip()})
        added, updated = added + created, updated + (not created)
        if pair.status == Pair.Status.QUEUED and not pair.assignments.filter(status=Assignment.Status.ACTIVE).exists():
            Pair.objects.filter(pk=pair.pk).update(status=Pair.Status.EXCLUDED,
                                                   status_reason=f"calibration set {calibration_set.slug}")
            taken += 1
    return CalibrationAdded(calibration_set.slug, added, updated, taken)


def _check_set_kind(calibration_set: CalibrationSet, campaign: Campaign) -> None:
    if calibration_set.kind != campaign.kind:
        raise ApplicationError(f"Calibration set {calibration_set.slug!r} is for {calibration_set.kind}, and campaign "
                               f"{campaign.slug!r} is {campaign.kind}.", code="kind_mismatch")


@transaction.atomic
def campaign_qualification_set(*, campaign: Campaign, calibration_set: str | None = None,
                               pass_mark: float | None = None, round_size: int | None = None,
                               retry_hours: int | None = None) -> Campaign:
    """Share an existing calibration set with ``campaign`` (same task kind) and change its qualification settings."""
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    fields = []
    if calibration_set is not None:
        found = CalibrationSet.objects.filter(slug=calibration_set).first()
        if found is None:
            raise ApplicationError(f"No calibration set {calibration_set!r}.", code="not_found", status_code=404)
        _check_set_kind(found, campaign)
        campaign.calibration_set = found
        fields.append("calibration_set")
    if pass_mark is not None:
        if isinstance(pass_mark, bool) or not isinstance(pass_mark, int | float) or not 0 < pass_mark <= 1:
            raise ApplicationError(f"The pass mark is a share above 0 and at most 1, not {pass_mark!r}.",
                                   code="invalid_pass_mark")
        campaign.qualification_pass_mark = float(pass_mark)
        fields.append("qualification_pass_mark")
    if round_size is not None:
        if isinstance(round_size, bool) or not isinstance(round_size, int) or not 1 <= round_size <= 200:
            raise ApplicationError(f"A round has 1 to 200 calibration pairs, not {round_size!r}.",
                                   code="invalid_round_size")
        campaign.qualification_round_size = round_size
        fields.append("qualification_round_size")
    if retry_hours is not None:
        if isinstance(retry_hours, bool) or not isinstance(retry_hours, int) or not 0 <= retry_hours <= 24 * 365:
            raise ApplicationError(f"The retry wait is 0 to 8760 hours, not {retry_hours!r}.", code="invalid_retry")
        campaign.qualification_retry_hours = retry_hours
        fields.append("qualification_retry_hours")
    if fields:
        campaign.save(update_fields=fields)
    return campaign


def calibration_set_items(*, campaign: Campaign) -> list[dict]:
    """The campaign's calibration pairs for curators: pair, where it comes from, expected answer, explanation."""
    if campaign.calibration_set_id is None:
        return []
    items = (CalibrationItem.objects.filter(calibration_set_id=campaign.calibration_set_id)
             .select_related("pair__campaign").order_by("pk"))
    return [{"item": i.pk, "pair": i.pair.external_id, "campaign": i.pair.campaign.slug, "expected": i.expected,
             "explanation": i.explanation} for i in items]


# The round (raters)


def _round_size(campaign: Campaign, available: int) -> int:
    return min(campaign.qualification_round_size, available)


def qualification_round_start(*, user: User, campaign: Campaign, now: datetime | None = None,
                              rng: random.Random | None = None) -> QualificationRound:
    """The rater's open round for the campaign's kind, or a new one when they may start it (403 otherwise): pairs
    they have not answered in an earlier round first, in a random order."""
    now = now or timezone.now()
    campaign = Campaign.objects.get(pk=campaign.pk)  # its settings as they are now
    if not campaign.members.filter(pk=user.pk).exists():
        raise ApplicationError("You are not a member of this campaign.", code="not_a_member", status_code=403)
    current = QualificationRound.objects.filter(rater=user, kind=campaign.kind,
                                                verdict=QualificationRound.Verdict.OPEN).first()
    if current is not None:
        return current
    admission = rater_admission(user=user, campaign=campaign, now=now)
    if admission.admitted:
        raise ApplicationError("You are already admitted to this campaign's queue.", code="already_qualified",
                               status_code=409)
    if not admission.can_start_round:
        admission_refuse(admission)
    calibration_set = campaign.calibration_set
    if calibration_set is None:
        raise ApplicationError("This campaign has no calibration set.", code="no_calibration_set", status_code=409)
    items = list(calibration_set.items.values_list("pk", flat=True).order_by("pk"))
    if not items:
        raise ApplicationError("This campaign's calibration set has no pairs yet; ask a curator.",
                               code="calibration_set_empty", status_code=409)
    seen = set(CalibrationAnswer.objects.filter(round__rater=user, item_id__in=items).values_list("item_id", flat=True))
    draw = rng or random.SystemRandom()
    fresh, again = [i for i in items if i not in seen], [i for i in items if i in seen]
    draw.shuffle(fresh)
    draw.shuffle(again)
    chosen = (fresh + again)[:_round_size(campaign, len(items))]
    try:
        with transaction.atomic():
            return QualificationRound.objects.create(
                rater=user, kind=campaign.kind, campaign=campaign, calibration_set=calibration_set,
                items=chosen, pass_mark=campaign.qualification_pass_mark, started_at=now)
    except IntegrityError:  # a second tab started it at the same moment
        return QualificationRound.objects.get(rater=user, kind=campaign.kind, verdict=QualificationRound.Verdict.OPEN)


def _answered_ids(round_: QualificationRound) -> set[int]:
    return set(round_.answers.values_list("item_id", flat=True))


def calibration_display(*, round_: QualificationRound) -> dict | None:
    """The next calibration pair of the round as the workspace shows any pair (blind, sides fixed per rater), with
    ``calibration``: the round, the item and its position; None when every pair is answered. Lets the rater fetch
    its media for PREVIEW_SECONDS, as a pair shown ahead."""
    answered = _answered_ids(round_)
    remaining = [i for i in round_.items if i not in answered]
    if not remaining:
        return None
    item = CalibrationItem.objects.select_related("pair__prompt", "pair__response_a", "pair__response_b").get(
        pk=remaining[0])
    campaign = Campaign.objects.select_related("rating_schema").get(pk=round_.campaign_id)
    pair = item.pair
    # Never saved: it only orients and blinds the display as a claim would.
    shown = Assignment(pair=pair, campaign=campaign, annotator_id=round_.rater_id, status="calibration", draft={},  # type: ignore[misc]
                       expires_at=None, swapped=orientation_swapped(campaign.orientation_seed, pair.pk, round_.rater_id))
    display = pair_display(assignment=shown)
    digests = {d for blocks in (pair.prompt.content, pair.response_a.content, pair.response_b.content)
               for d in content.media_digests(blocks or [])}
    cache.set_many({preview_key(round_.rater_id, digest): True for digest in digests}, timeout=PREVIEW_SECONDS)
    display["calibration"] = {"round": round_.pk, "item": item.pk, "position": len(answered) + 1,
                              "of": len(round_.items)}
    return display


def _option_text(q: dict, value) -> str:
    labels = {o["value"]: o.get("label", str(o["value"])) for o in q.get("options", [])}
    if isinstance(value, dict):
        return " · ".join(f"{side}: {labels.get(v, v)}" for side, v in sorted(value.items()))
    if isinstance(value, list):
        return " · ".join(f"{i.get('criterion')}: {i.get('label')}" for i in value if isinstance(i, dict))
    if value is None:
        return "no answer"
    return str(labels.get(value, value))


def _feedback(definition: dict, item: CalibrationItem, answer: CalibrationAnswer) -> dict:
    by_id = {q["id"]: q for q in definition["questions"]}
    return {
        "item": item.pk,
        "matched": answer.matched,
        "rubric_distance": answer.rubric_distance,
        "explanation": item.explanation,
        "differences": [
            {**d, "expected_text": _option_text(by_id[d["question"]], d["expected"]),
             "given_text": _option_text(by_id[d["question"]], d["given"])}
            for d in answer.differences if d["question"] in by_id
        ],
    }


def calibration_answer_submit(*, user: User, round_id: int, item_id: int, values: dict,
                              time_on_item_ms: int | None = None, now: datetime | None = None) -> dict:
    """Store the rater's answer (as shown: left is "A") to one pair of their open round, and answer with the expected
    answer (as shown), its explanation and the differences; the round's ``result`` once its last pair is answered.
    A repeat of an answered pair returns its feedback again, storing nothing."""
    now = now or timezone.now()
    with transaction.atomic():
        round_ = (QualificationRound.objects.select_for_update().select_related("campaign__rating_schema")
                  .filter(pk=round_id, rater=user).first())
        if round_ is None:
            raise ApplicationError("No such calibration round.", code="not_found", status_code=404)
        if item_id not in round_.items:
            raise ApplicationError("That pair is not in your calibration round.", code="not_found", status_code=404)
        definition = round_.campaign.rating_schema.definition
        item = CalibrationItem.objects.select_related("pair").get(pk=item_id)
        earlier = CalibrationAnswer.objects.filter(round=round_, item=item).first()
        if earlier is not None:
            return {**_feedback(definition, item, earlier), "round": round_progress(round_=round_)}
        if round_.verdict != QualificationRound.Verdict.OPEN:
            raise ApplicationError("This calibration round is over.", code="round_closed", status_code=409)
        if time_on_item_ms is not None and not (type(time_on_item_ms) is int and 0 <= time_on_item_ms <= TIME_ON_ITEM_MAX_MS):
            raise ApplicationError("time_on_item_ms must be a whole number of milliseconds within a day.",
                                   code="invalid_time_on_item")
        criteria = [c for c in item.pair.criteria or [] if isinstance(c, str)] or None
        errors = schemas.validate_answers(definition, values, criteria=criteria)
        if errors:
            raise ApplicationError("Some answers are missing or invalid.", code="invalid_answers",
                                   extra={"fields": errors})
        swapped = orientation_swapped(round_.campaign.orientation_seed, item.pair_id, user.pk)
        # Compared as shown, so that "A" in the feedback is the response the rater saw on the left.
        expected_shown = schemas.reorient(definition, item.expected, swapped=swapped)
        comparison = answer_comparison(definition, expected_shown, values)
        answer = CalibrationAnswer.objects.create(
            round=round_, item=item, values=schemas.reorient(definition, values, swapped=swapped), swapped=swapped,
            matched=comparison.matched, rubric_distance=comparison.rubric_distance,
            differences=[asdict(d) for d in comparison.differences], time_on_item_ms=time_on_item_ms,
            answered_at=now)
        round_.answered += 1
        round_.correct += int(comparison.matched)
        fields = ["answered", "correct"]
        if round_.answered >= len(round_.items):
            _decide(round_, now=now)
            fields += ["verdict", "finished_at", "lower", "upper", "rubric_distance", "retry_after"]
        round_.save(update_fields=fields)
    return {**_feedback(definition, item, answer), "round": round_progress(round_=round_)}


def _decide(round_: QualificationRound, *, now: datetime) -> None:
    """Precondition: holds the round's row lock; every pair answered."""
    decision = qualification_decision(correct=round_.correct, answered=round_.answered, pass_mark=round_.pass_mark,
                                      min_items=len(round_.items))
    distances = [d for d in round_.answers.values_list("rubric_distance", flat=True) if d is not None]
    round_.verdict = QualificationRound.Verdict.PASSED if decision.verdict == "passed" else QualificationRound.Verdict.FAILED
    round_.finished_at = now
    round_.lower, round_.upper = decision.score.lower, decision.score.upper
    round_.rubric_distance = sum(distances) / len(distances) if distances else None
    if round_.verdict == QualificationRound.Verdict.FAILED:
        round_.retry_after = now + timedelta(hours=round_.campaign.qualification_retry_hours)
    else:
        # Recalibrated: a pause in the campaign the round was taken in ends with it.
        RaterPause.objects.filter(rater_id=round_.rater_id, campaign_id=round_.campaign_id, lifted_at__isnull=True,
                                  paused_at__lte=round_.started_at).update(lifted_at=now, lift_reason="recalibrated")


def round_progress(*, round_: QualificationRound) -> dict:
    """The round's state: how many answered of how many, and once it is over its score against the pass mark, and
    for a failure what to study (the pairs whose overall preference did not match, with their explanations)."""
    out = {"round": round_.pk, "answered": round_.answered, "of": len(round_.items), "verdict": round_.verdict,
           "pass_mark": round_.pass_mark}
    if round_.verdict == QualificationRound.Verdict.OPEN:
        return out
    decision = qualification_decision(correct=round_.correct, answered=round_.answered, pass_mark=round_.pass_mark,
                                      min_items=len(round_.items))
    study = [{"position": round_.items.index(a.item_id) + 1, "explanation": a.item.explanation}
             for a in round_.answers.select_related("item").filter(matched=False)]
    study.sort(key=lambda row: row["position"])
    return {**out, "correct": round_.correct, "share": decision.score.share, "lower": decision.score.lower,
            "upper": decision.score.upper, "rubric_distance": round_.rubric_distance, "message": decision.message,
            "retry_after": round_.retry_after, "study": study if round_.verdict == QualificationRound.Verdict.FAILED else []}


def qualification_state(*, user: User, campaign: Campaign, start: bool) -> dict:
    """What the rater's calibration page shows: their admission, their round (started with ``start`` when they may
    start one) and its next pair's display (None once every pair is answered)."""
    admission = rater_admission(user=user, campaign=campaign)
    round_ = admission.round
    if not admission.admitted and (
            (round_ is not None and round_.verdict == QualificationRound.Verdict.OPEN)
            or (start and admission.can_start_round)):
        round_ = qualification_round_start(user=user, campaign=campaign)
        admission = rater_admission(user=user, campaign=campaign)
    display = (calibration_display(round_=round_) if round_ is not None
               and round_.verdict == QualificationRound.Verdict.OPEN else None)
    return {
        "admission": {"admitted": admission.admitted, "code": admission.code, "message": admission.message,
                      "can_start_round": admission.can_start_round, "retry_after": admission.retry_after},
        "round": None if round_ is None else round_progress(round_=round_),
        "display": display,
    }


@transaction.atomic
def qualification_round_release(*, round_id: int, curator: User, now: datetime | None = None) -> QualificationRound:
    """Let a rater who failed a round try again at once."""
    now = now or timezone.now()
    round_ = QualificationRound.objects.select_for_update().filter(pk=round_id).first()
    if round_ is None:
        raise ApplicationError("No such calibration round.", code="not_found", status_code=404)
    if round_.verdict != QualificationRound.Verdict.FAILED:
        raise ApplicationError("Only a round that was not passed can be released.", code="round_not_failed",
                               status_code=409)
    if round_.released_at is None:
        round_.released_at, round_.released_by = now, curator
        round_.save(update_fields=["released_at", "released_by"])
    return round_


# The pause during work


def _gold_since(annotator, campaign: Campaign) -> datetime | None:
    lifted = (RaterPause.objects.filter(rater=annotator, campaign=campaign, lifted_at__isnull=False)
              .order_by("-lifted_at").values_list("lifted_at", flat=True).first())
    return lifted


def gold_outcomes(*, annotator: User, campaign: Campaign, window: int | None = None) -> list[bool]:
    """The rater's gold answers in the campaign since their last pause was lifted, oldest first (the last ``window``)."""
    since = _gold_since(annotator, campaign)
    answers = Annotation.objects.filter(annotator=annotator, pair__campaign=campaign, gold_correct__isnull=False)
    if since is not None:
        answers = answers.filter(created_at__gt=since)
    recent = list(answers.order_by("-created_at", "-pk").values_list("gold_correct", flat=True)
                  [:window or campaign.gold_pause_window])
    return [bool(outcome) for outcome in recent[::-1]]


def gold_pause_review(*, pair_id: int, annotator: User, now: datetime | None = None) -> RaterPause | None:
    """After a gold answer: pause the rater in the pair's campaign when ``pause_decision`` says so, releasing their
    open lease there. Returns the pause made, if any; running it again changes nothing more."""
    now = now or timezone.now()
    campaign = Campaign.objects.filter(pairs__id=pair_id).first()
    if campaign is None or RaterPause.objects.filter(rater=annotator, campaign=campaign, lifted_at__isnull=True).exists():
        return None
    outcomes = gold_outcomes(annotator=annotator, campaign=campaign)
    decision = pause_decision(outcomes=outcomes, pass_mark=campaign.qualification_pass_mark,
                              window=campaign.gold_pause_window, min_gold=min(campaign.gold_pause_min,
                                                                              campaign.gold_pause_window))
    if decision.verdict != "paused":
        return None
    try:
        with transaction.atomic():
            pause = RaterPause.objects.create(
                rater=annotator, campaign=campaign, paused_at=now, gold_answers=decision.score.n,
                gold_correct=decision.score.correct, upper=decision.score.upper, message=decision.message[:500])
            assignments_release(annotator=annotator, campaign=campaign, reason="paused: gold below the pass mark",
                                now=now)
    except IntegrityError:  # paused by a submission at the same moment
        return None
    return pause


@transaction.atomic
def rater_pause_lift(*, campaign: Campaign, username: str, curator: User, reason: str = "",
                     now: datetime | None = None) -> RaterPause:
    """A curator lets a paused rater back to the campaign's queue; their gold score starts again from here."""
    now = now or timezone.now()
    pause = (RaterPause.objects.select_for_update().filter(campaign=campaign, rater__username=username,
                                                           lifted_at__isnull=True).first())
    if pause is None:
        raise ApplicationError(f"{username!r} is not paused in {campaign.slug!r}.", code="not_paused", status_code=404)
    pause.lifted_at, pause.lifted_by = now, curator
    pause.lift_reason = (reason or "lifted by a curator").strip()[:200]
    pause.save(update_fields=["lifted_at", "lifted_by", "lift_reason"])
    return pause


def _figures(s) -> dict:
    return {"n": s.n, "correct": s.correct, "share": s.share, "lower": s.lower, "upper": s.upper}


def qualification_report(*, campaign: Campaign, now: datetime | None = None) -> dict:
    """For curators: the campaign's calibration settings and, per member, their qualification for its kind (the
    latest round), their gold score since their last pause was lifted, and an open pause."""
    now = now or timezone.now()
    members = list(campaign.members.order_by("username"))
    rounds: dict[int, QualificationRound] = {}
    for r in QualificationRound.objects.filter(rater__in=members, kind=campaign.kind).order_by("started_at", "pk"):
        rounds[r.rater_id] = r
    passed = set(QualificationRound.objects.filter(rater__in=members, kind=campaign.kind,
                                                   verdict=QualificationRound.Verdict.PASSED)
                 .values_list("rater_id", flat=True))
    pauses = {p.rater_id: p for p in RaterPause.objects.filter(campaign=campaign, lifted_at__isnull=True)}
    raters = []
    for member in members:
        latest = rounds.get(member.pk)
        pause = pauses.get(member.pk)
        outcomes = gold_outcomes(annotator=member, campaign=campaign)
        gold = score(correct=sum(outcomes), n=len(outcomes))
        if pause is not None:
            status = "paused"
        elif campaign.calibration_set_id is None or member.pk in passed:
            status = "admitted"
        elif latest is None:
            status = "not started"
        else:
            status = {"open": "in calibration", "failed": "not passed"}.get(latest.verdict, latest.verdict)
        raters.append({
            "username": member.username,
            "status": status,
            "qualified": member.pk in passed,
            "round": None if latest is None else {
                "id": latest.pk, "verdict": latest.verdict, "answered": latest.answered, "of": len(latest.items),
                "correct": latest.correct, "lower": latest.lower, "upper": latest.upper,
                "rubric_distance": latest.rubric_distance, "finished_at": latest.finished_at,
                "retry_after": latest.retry_after, "released": latest.released_at is not None},
            "gold": _figures(gold),
            "pause": None if pause is None else {"paused_at": pause.paused_at, "message": pause.message,
                                                 "gold_answers": pause.gold_answers,
                                                 "gold_correct": pause.gold_correct},
        })
    calibration_set = campaign.calibration_set
    return {
        "campaign": campaign.slug,
        "kind": campaign.kind,
        "calibration_set": None if calibration_set is None else calibration_set.slug,
        "calibration_pairs": 0 if calibration_set is None else calibration_set.items.count(),
        "pass_mark": campaign.qualification_pass_mark,
        "round_size": campaign.qualification_round_size,
        "retry_hours": campaign.qualification_retry_hours,
        "gold_window": campaign.gold_pause_window,
        "gold_min": campaign.gold_pause_min,
        "raters": raters,
    }
