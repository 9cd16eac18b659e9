"""Rater profiles: a curator's questionnaire, the campaigns that ask it, a rater's answers, and the gate the claim
passes first (the profile answered; for a crowd rater, their quota not yet done)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import Exists, OuterRef, Subquery
from django.utils import timezone
from django.utils.text import slugify

from annotation.catalogue.models import Campaign
from annotation.workqueue.models import (
    Assignment,
    CampaignQuestionnaire,
    CrowdEntry,
    ProfileAnswer,
    Questionnaire,
)
from annotation.workqueue.profile import ProfileError, answers_clean, questions_check
from core.errors import ApplicationError

if TYPE_CHECKING:
    from annotation.accounts.models import User

TITLE_MAX = 200
INTRO_MAX = 5000


def _checked_questions(questions) -> list[dict]:
    try:
        return questions_check(questions)
    except ProfileError as exc:
        raise ApplicationError(f"invalid questionnaire: {exc}", code="invalid_questionnaire") from exc


def questionnaire_create(*, slug: str, title: str, questions: object, intro: str = "",
                         created_by: User | None = None) -> Questionnaire:
    """A new questionnaire; ``slug`` names it for reuse by other campaigns (409 when taken)."""
    slug = (slug or "").strip()
    if not slug or slugify(slug) != slug or len(slug) > 80:
        raise ApplicationError(f"the questionnaire's name {slug[:80]!r} must be lowercase letters, digits and hyphens "
                               "(at most 80)", code="invalid_questionnaire")
    title = (title or "").strip()
    if not title or len(title) > TITLE_MAX:
        raise ApplicationError(f"the title is 1–{TITLE_MAX} characters", code="invalid_questionnaire")
    if len(intro or "") > INTRO_MAX:
        raise ApplicationError(f"the introduction is at most {INTRO_MAX} characters", code="invalid_questionnaire")
    checked = _checked_questions(questions)
    if Questionnaire.objects.filter(slug=slug).exists():
        raise ApplicationError(f"a questionnaire named {slug!r} exists already; reuse it or choose another name",
                               code="questionnaire_exists", status_code=409)
    return Questionnaire.objects.create(slug=slug, title=title, intro=intro or "", questions=checked,
                                        created_by=created_by)


def questionnaire_update(*, questionnaire: Questionnaire, title: str, questions: object, intro: str = "") -> Questionnaire:
    """New wording or questions; answers already given stay as they were (a new required question is asked of
    nobody who answered already)."""
    title = (title or "").strip()
    if not title or len(title) > TITLE_MAX:
        raise ApplicationError(f"the title is 1–{TITLE_MAX} characters", code="invalid_questionnaire")
    questionnaire.title, questionnaire.intro = title, intro or ""
    questionnaire.questions = _checked_questions(questions)
    questionnaire.save(update_fields=["title", "intro", "questions"])
    return questionnaire


@transaction.atomic
def campaign_questionnaire_set(*, campaign: Campaign, questionnaire: Questionnaire | None) -> None:
    """Ask ``questionnaire`` of the campaign's raters before their first pair (None: ask none)."""
    if questionnaire is None:
        CampaignQuestionnaire.objects.filter(campaign=campaign).delete()
        return
    CampaignQuestionnaire.objects.update_or_create(campaign=campaign, defaults={"questionnaire": questionnaire})


def profile_answer_save(*, user: User, questionnaire: Questionnaire, raw: dict) -> ProfileAnswer:
    """Keep ``user``'s answers (cleaned by ``profile.answers_clean``); answering again replaces them."""
    try:
        answers = answers_clean(questionnaire.questions, raw)
    except ProfileError as exc:
        raise ApplicationError(str(exc), code="invalid_profile") from exc
    now = timezone.now()
    answer, created = ProfileAnswer.objects.get_or_create(
        questionnaire=questionnaire, user=user, defaults={"answers": answers, "answered_at": now, "updated_at": now})
    if not created:
        answer.answers, answer.updated_at = answers, now
        answer.save(update_fields=["answers", "updated_at"])
    return answer


def profile_required(*, user: User, campaign: Campaign | str) -> None:
    """The claim's first gate (``campaign`` an instance or a slug), in one statement: 403 ``profile_required`` while
    the campaign asks a questionnaire ``user`` has not answered; for a crowd rater who entered by one of its links,
    403 ``quota_done`` (with ``completion_url``) once they submitted its quota. Nothing for a campaign that does not
    exist or for a non-member: the claim refuses them itself (404, 403 ``not_a_member``).

    The claim reads the same two facts with its membership read (``store.claim_read``; on PostgreSQL in
    ``claim.sql``: ``profile_missing``, ``crowd_entry_id``) and hands them to ``entry_gate``."""
    found = Campaign.objects.filter(slug=campaign) if isinstance(campaign, str) else Campaign.objects.filter(pk=campaign.pk)
    member = Campaign.members.through.objects.filter(campaign_id=OuterRef("pk"), user_id=user.pk)
    row = found.values_list("pk", Exists(member), *entry_gate_facts(user=user, campaign=OuterRef("pk"))).first()
    if row is None or not row[1]:
        return
    campaign_id, _, missing, entry_id = row
    entry_gate(campaign_id=campaign_id, profile_missing=missing, crowd_entry_id=entry_id)


def entry_gate_facts(*, user: User, campaign: OuterRef) -> tuple[Exists, Subquery]:
    """The entry gate's two facts as expressions of an outer query whose ``campaign`` column is given: whether the
    campaign asks a questionnaire ``user`` has not answered, and the crowd entry they came in by (its id, or None)."""
    unanswered = CampaignQuestionnaire.objects.filter(campaign_id=campaign).filter(
        ~Exists(ProfileAnswer.objects.filter(questionnaire_id=OuterRef("questionnaire_id"), user_id=user.pk)))
    entry = CrowdEntry.objects.filter(link__campaign_id=campaign, participant__user_id=user.pk).order_by("-entered_at")
    return Exists(unanswered), Subquery(entry.values("pk")[:1])


def entry_gate(*, campaign_id: int, profile_missing: bool, crowd_entry_id: int | None) -> None:
    """The entry gate's refusals for a member, from what was read of them: 403 ``profile_required``, then the crowd
    entry's quota (``crowd_quota_check``)."""
    if profile_missing:
        raise ApplicationError("Answer this campaign's rater profile before your first pair.", code="profile_required",
                               status_code=403)
    if crowd_entry_id is not None:
        entry_row = CrowdEntry.objects.select_related("link", "participant").get(pk=crowd_entry_id)
        crowd_quota_check(entry=entry_row, campaign_id=campaign_id)


def crowd_quota_done(*, entry: CrowdEntry, campaign_id: int) -> bool:
    """Whether the entry's participant submitted the link's quota of pairs in its campaign."""
    submitted = Assignment.objects.filter(campaign_id=campaign_id, annotator_id=entry.participant.user_id,
                                          status=Assignment.Status.SUBMITTED).count()
    return submitted >= entry.link.quota


def crowd_quota_check(*, entry: CrowdEntry, campaign_id: int) -> None:
    """403 ``quota_done`` with the completion URL once the participant's quota is done (recorded the first time)."""
    if not crowd_quota_done(entry=entry, campaign_id=campaign_id):
        return
    if entry.completed_at is None:
        CrowdEntry.objects.filter(pk=entry.pk, completed_at__isnull=True).update(completed_at=timezone.now())
    raise ApplicationError(
        f"You have rated the {entry.link.quota} pairs of this study: thank you! Go on to the completion page.",
        code="quota_done", status_code=403, extra={"completion_url": entry.link.completion_url})
