"""The work queue: one annotator's lease on a pair, the rating it ends in, its revisions and its events."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotation.catalogue.models import CalibrationItem, CalibrationSet, Campaign, Pair

if TYPE_CHECKING:
    from annotation.workqueue.selectors import Shown


class Assignment(models.Model):
    """One annotator's lease on one pair; the orientation shown is fixed when it is claimed."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        SUBMITTED = "submitted", "Submitted"
        SKIPPED = "skipped", "Skipped"
        EXPIRED = "expired", "Expired"
        WITHDRAWN = "withdrawn", "Withdrawn by the annotator"

    # No index of its own (nor on the other foreign keys below marked so): a composite index starts with it, and
    # every claim and submission would maintain the single-column one for nothing.
    pair = models.ForeignKey(Pair, on_delete=models.CASCADE, related_name="assignments", db_index=False)
    # Neither has a plain index: on the claim's lookups ("had this annotator this pair", "their open lease", "any
    # lease due in the campaign") one would be a second way in, reading every assignment of the annotator or of
    # the campaign, and a plan made while the table was small could keep it (see docs/assignment.md). Their
    # lookups are served by the indexes below, each bounded by its condition or its other column.
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="assignments", db_index=False)
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments", db_index=False
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    swapped = models.BooleanField(help_text="Response B was shown on the left.")
    claimed_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    skip_reason = models.CharField(max_length=500, blank=True)
    draft = models.JSONField(default=dict, blank=True)
    draft_saved_at = models.DateTimeField(null=True, blank=True)

    # Not a column: what the claim read for this lease's display in its own statement (annotation.workqueue.selectors.Shown),
    # which pair_display then uses instead of loading the pair, its prompt, responses and schema. None on an
    # instance the ORM read.
    shown: Shown | None = None

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pair", "annotator"], name="assignment_once_per_annotator"),
            # One lease at a time per annotator and campaign: two racing claims from two tabs cannot both win.
            models.UniqueConstraint(
                fields=["annotator", "campaign"], condition=Q(status="active"), name="assignment_one_active_per_campaign"
            ),
        ]
        indexes = [
            models.Index(fields=["status", "expires_at"], name="assignment_lease_idx"),
            models.Index(
                fields=["campaign", "expires_at"], condition=Q(status="active"), name="assignment_campaign_lease_idx"
            ),
            # An annotator's finished work (their statistics); the condition keeps the claim's lookups off it.
            models.Index(
                fields=["annotator", "finished_at"],
                condition=Q(status__in=["submitted", "skipped"]),
                name="assignment_annotator_done_idx",
            ),
        ]

    def __str__(self):
        return f"{self.annotator_id} on {self.pair_id} ({self.status})"


class Annotation(models.Model):
    """A rating, always stored in the canonical A/B orientation."""

    class Source(models.TextChoices):
        CONCORD = "concord", "Rated in Concord"
        IMPORTED = "imported", "Imported"
        ADJUDICATION = "adjudication", "Curator adjudication"

    pair = models.ForeignKey(Pair, on_delete=models.CASCADE, related_name="annotations", db_index=False)
    assignment = models.OneToOneField(Assignment, null=True, blank=True, on_delete=models.SET_NULL)
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="annotations"
    )
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.CONCORD)
    rater_label = models.CharField(max_length=100, blank=True, help_text="Pseudonymous rater of an imported rating.")
    values = models.JSONField(help_text="Answers keyed by question id, canonical orientation.")
    shown_swapped = models.BooleanField(null=True, blank=True)
    rationale = models.TextField(blank=True)
    time_on_item_ms = models.PositiveIntegerField(null=True, blank=True)
    media_played = models.JSONField(
        null=True, blank=True,
        help_text='Share of each medium heard or watched, canonical orientation, e.g. {"A": 1.0, "B": 0.8}; '
        "empty when the pair has no audio or video.",
    )
    gold_correct = models.BooleanField(
        null=True, blank=True, help_text="On a gold pair: whether the answer matched the expected one; else empty."
    )
    confirmed_warnings = models.JSONField(
        null=True, blank=True,
        help_text="The soft warnings (annotation.workqueue.consistency) the rater was shown before submitting and "
        "confirmed, submitting the answers as they were; worded as shown. Empty when none was shown.",
    )
    idempotency_key = models.CharField(max_length=100, null=True, blank=True, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["pair", "annotator"], condition=Q(annotator__isnull=False), name="annotation_once_per_annotator"
            ),
            models.UniqueConstraint(
                fields=["pair", "rater_label"], condition=~Q(rater_label=""), name="annotation_once_per_imported_rater"
            ),
        ]
        indexes = [models.Index(fields=["pair", "created_at"], name="annotation_pair_idx")]

    def __str__(self):
        return f"annotation {self.pk} on {self.pair_id}"


class AnnotationRevision(models.Model):
    """One version of an annotator's answer to a pair: the first submission, each correction, a withdrawal.

    The annotation holds the latest (agreement and consensus read it); revisions keep every earlier one, so a
    correction never loses what was first answered.
    """

    class Kind(models.TextChoices):
        SUBMITTED = "submitted", "Submitted"
        CORRECTED = "corrected", "Corrected"
        WITHDRAWN = "withdrawn", "Withdrawn"

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="revisions")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    values = models.JSONField(help_text="The answers of this version, canonical orientation; empty on a withdrawal.")
    rationale = models.TextField(blank=True)
    at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["assignment", "at"], name="annotation_revision_idx")]

    def __str__(self):
        return f"{self.kind} of assignment {self.assignment_id} at {self.at:%Y-%m-%d %H:%M:%S}"


class AssignmentEvent(models.Model):
    """One step in an assignment's life, timestamped, so throughput and time on item can be measured."""

    class Kind(models.TextChoices):
        CLAIM = "claim", "Claimed"
        DRAFT = "draft", "Draft saved"
        SUBMIT = "submit", "Submitted"
        SKIP = "skip", "Skipped"
        EXPIRE = "expire", "Lease expired"
        CORRECT = "correct", "Corrected"
        WITHDRAW = "withdraw", "Withdrawn"

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="events")
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="assignment_events", db_index=False)
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignment_events", db_index=False
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    at = models.DateTimeField()
    detail = models.JSONField(default=dict, blank=True, help_text="Skip reason, time on item, gold outcome.")

    class Meta:
        indexes = [
            models.Index(fields=["annotator", "kind", "at"], name="assignment_event_annotator_idx"),
            models.Index(fields=["campaign", "kind", "at"], name="assignment_event_campaign_idx"),
        ]

    def __str__(self):
        return f"{self.kind} of assignment {self.assignment_id} at {self.at:%Y-%m-%d %H:%M:%S}"


class PairReport(models.Model):
    """A rater's word that a pair is broken, and the curator's answer; never a rating (agreement, consensus and
    releases read annotations only)."""

    class Reason(models.TextChoices):
        MEDIA_BROKEN = "media_broken", "An image, video or audio is broken or does not load"
        PROMPT_INVALID = "prompt_invalid", "The prompt is invalid, unanswerable or offensive"
        LEAKS_MODEL = "leaks_model", "A response or the prompt gives away which model made it"
        CANNOT_JUDGE = "cannot_judge", "The pair cannot be judged as asked"
        OTHER = "other", "Something else (say what)"

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        ANSWERED = "answered", "Answered"
        CLOSED = "closed", "Closed"

    class Action(models.TextChoices):
        NONE = "none", "No change to the pair"
        EXCLUDED = "excluded", "Pair excluded"
        FIXED = "fixed", "Marked fixed"

    # One report per lease: the assignment is the rater's one visit to the pair (assignment_once_per_annotator).
    assignment = models.OneToOneField(Assignment, on_delete=models.CASCADE, related_name="report")
    pair = models.ForeignKey(Pair, on_delete=models.CASCADE, related_name="reports")
    # No index of its own: the curator's queue index starts with it.
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="pair_reports", db_index=False)
    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pair_reports")
    reason = models.CharField(max_length=20, choices=Reason.choices)
    note = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    answer = models.TextField(blank=True, help_text="The curator's answer, shown to the rater in My work.")
    action = models.CharField(max_length=10, choices=Action.choices, default=Action.NONE)
    answered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="pair_reports_answered"
    )
    created_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(reason__in=["media_broken", "prompt_invalid", "leaks_model", "cannot_judge", "other"]),
                name="pair_report_known_reason",
            ),
            # Open until a curator answers: an answered or closed report says when.
            models.CheckConstraint(
                condition=Q(status="open", answered_at__isnull=True) | (~Q(status="open") & Q(answered_at__isnull=False)),
                name="pair_report_answered_when_not_open",
            ),
        ]
        indexes = [models.Index(fields=["campaign", "status", "created_at"], name="pair_report_queue_idx")]

    def __str__(self):
        return f"report {self.pk} on {self.pair_id} ({self.status})"


class Questionnaire(models.Model):
    """A rater-profile questionnaire a curator defines; every campaign linked to it asks it before a rater's first
    pair. ``questions`` is validated by ``annotation.workqueue.profile.questions_check``."""

    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    intro = models.TextField(blank=True, help_text="Shown above the questions (Markdown).")
    questions = models.JSONField(help_text='[{"id", "kind": choices|list|number|text, "label", "required", ...}]')
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.slug


class CampaignQuestionnaire(models.Model):
    """The questionnaire a campaign requires before a rater's first pair: one per campaign, reusable by many."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="questionnaire_link")
    questionnaire = models.ForeignKey(Questionnaire, on_delete=models.PROTECT, related_name="campaign_links")

    def __str__(self):
        return f"{self.campaign_id} asks {self.questionnaire_id}"


class ProfileAnswer(models.Model):
    """One rater's answers to one questionnaire, valid for every campaign that asks it."""

    questionnaire = models.ForeignKey(Questionnaire, on_delete=models.CASCADE, related_name="answers")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile_answers")
    answers = models.JSONField(help_text="Answers keyed by question id, as profile.answers_clean keeps them.")
    answered_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["questionnaire", "user"], name="profile_answer_once_per_user"),
        ]

    def __str__(self):
        return f"{self.user_id} answered {self.questionnaire_id}"


class CrowdEntryLink(models.Model):
    """A Prolific-style way into one campaign: its address with ``?PROLIFIC_PID=…&STUDY_ID=…&SESSION_ID=…`` signs a
    crowd rater in (a new account the first time); at ``quota`` submitted pairs they go on to ``completion_url``."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="crowd_links")
    token = models.CharField(max_length=43, unique=True)
    study_id = models.CharField(max_length=64, blank=True, help_text="When set, only this STUDY_ID may enter.")
    completion_url = models.URLField(max_length=500)
    quota = models.PositiveIntegerField(help_text="Pairs each participant submits before being sent to the completion URL.")
    is_active = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(quota__gte=1), name="crowd_link_quota_positive")]

    def __str__(self):
        return f"crowd link {self.pk} into {self.campaign_id}"


class CrowdParticipant(models.Model):
    """A crowd platform's participant id bound to the Concord account it signs in: one account per id."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="crowd_participant")
    participant_id = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"crowd participant of {self.user_id}"


class CrowdEntry(models.Model):
    """A participant's entry through one link: their latest study and session ids, and when their quota was done."""

    link = models.ForeignKey(CrowdEntryLink, on_delete=models.CASCADE, related_name="entries")
    participant = models.ForeignKey(CrowdParticipant, on_delete=models.CASCADE, related_name="entries")
    study_id = models.CharField(max_length=64)
    session_id = models.CharField(max_length=64)
    entered_at = models.DateTimeField()
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["link", "participant"], name="crowd_entry_once_per_link")]

    def __str__(self):
        return f"entry of {self.participant_id} by link {self.link_id}"


class QualificationRound(models.Model):
    """One rater's round of calibration pairs for a task kind: passing it admits them to every campaign of that kind
    with a calibration set. Its answers (CalibrationAnswer) are stored apart from annotations and never counted."""

    class Verdict(models.TextChoices):
        OPEN = "open", "In progress"
        PASSED = "passed", "Passed"
        FAILED = "failed", "Not passed"

    rater = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="qualification_rounds")
    kind = models.CharField(max_length=32)
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="qualification_rounds",
                                 help_text="Where the round was taken (its pass mark and orientation seed).")
    calibration_set = models.ForeignKey(CalibrationSet, on_delete=models.CASCADE, related_name="rounds")
    items = models.JSONField(help_text="CalibrationItem ids in the order shown.")
    pass_mark = models.FloatField()
    verdict = models.CharField(max_length=16, choices=Verdict.choices, default=Verdict.OPEN)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    answered = models.PositiveSmallIntegerField(default=0)
    correct = models.PositiveSmallIntegerField(default=0)
    lower = models.FloatField(null=True, blank=True)
    upper = models.FloatField(null=True, blank=True)
    rubric_distance = models.FloatField(null=True, blank=True, help_text="Mean distance of the rubric answers, 0–1.")
    retry_after = models.DateTimeField(null=True, blank=True)
    released_at = models.DateTimeField(null=True, blank=True, help_text="A curator let the rater retry at once.")
    released_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["rater", "kind"], condition=Q(verdict="open"),
                                    name="qualification_one_open_round_per_kind"),
        ]
        indexes = [models.Index(fields=["rater", "kind", "verdict"], name="qualification_round_idx")]

    def __str__(self):
        return f"{self.rater_id} {self.kind} round ({self.verdict})"


class CalibrationAnswer(models.Model):
    """A rater's answer to a calibration pair, canonical orientation, with how it compares to the expected one."""

    round = models.ForeignKey(QualificationRound, on_delete=models.CASCADE, related_name="answers", db_index=False)
    item = models.ForeignKey(CalibrationItem, on_delete=models.CASCADE, related_name="answers")
    values = models.JSONField()
    swapped = models.BooleanField(help_text="Response B was shown on the left.")
    matched = models.BooleanField(help_text="The overall preference matched the expected one.")
    rubric_distance = models.FloatField(null=True, blank=True)
    differences = models.JSONField(default=list, blank=True, help_text="Per question: expected, given, matched.")
    time_on_item_ms = models.PositiveIntegerField(null=True, blank=True)
    answered_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["round", "item"], name="calibration_answer_once_per_round")]

    def __str__(self):
        return f"answer to {self.item_id} in round {self.round_id}"


class RaterPause(models.Model):
    """A rater taken off a campaign's queue because their recent gold answers fell below the pass mark."""

    rater = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pauses")
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="rater_pauses", db_index=False)
    paused_at = models.DateTimeField()
    gold_answers = models.PositiveSmallIntegerField()
    gold_correct = models.PositiveSmallIntegerField()
    upper = models.FloatField(help_text="Upper end of the interval of the gold share, below the pass mark.")
    message = models.CharField(max_length=500)
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                  related_name="+")
    lift_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "rater"], condition=Q(lifted_at__isnull=True),
                                    name="rater_pause_one_open"),
        ]

    def __str__(self):
        return f"{self.rater_id} paused in {self.campaign_id}"
