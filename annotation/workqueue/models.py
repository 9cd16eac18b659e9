"""The work queue: one annotator's lease on a pair, the rating it ends in, its revisions and its events."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotation.catalogue.models import Campaign, Pair

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
