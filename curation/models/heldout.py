from django.conf import settings
from django.db import models
from django.db.models import Q


class HeldoutPair(models.Model):
    """The label of one item of a release's private split: kept on the server, never in a published file."""

    release = models.ForeignKey("curation.Release", on_delete=models.CASCADE, related_name="heldout_pairs")
    item_id = models.CharField(max_length=300, help_text="The item's id in the release (a pair, or pair#criterion).")
    task = models.CharField(max_length=32)
    source = models.CharField(max_length=200, blank=True)
    chosen = models.CharField(max_length=8)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["release", "item_id"], name="heldout_pair_release_item")]

    def __str__(self):
        return f"{self.release_id}:{self.item_id}"


class SubmissionTeam(models.Model):
    """A team allowed to score predictions on one release's private split, with a token only its hash is kept of."""

    release = models.ForeignKey("curation.Release", on_delete=models.CASCADE, related_name="submission_teams")
    name = models.CharField(max_length=100)
    token_sha256 = models.CharField(max_length=64, unique=True)
    daily_limit = models.PositiveSmallIntegerField(default=5, help_text="Scored submissions in any 24 hours.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    token_issued_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["release", "name"], name="submission_team_release_name"),
            models.CheckConstraint(condition=Q(daily_limit__gte=1), name="submission_team_limit_positive"),
        ]

    def __str__(self):
        return f"{self.name} on {self.release_id}"


class Submission(models.Model):
    """One predictions file a team sent against a private split: what, when, the score (or why none)."""

    class Status(models.TextChoices):
        SCORED = "scored", "Scored"
        INVALID = "invalid", "Refused: not valid predictions"

    release = models.ForeignKey("curation.Release", on_delete=models.CASCADE, related_name="submissions")
    team = models.ForeignKey(SubmissionTeam, on_delete=models.RESTRICT, related_name="submissions")
    judge_name = models.CharField(max_length=200)
    format = models.CharField(max_length=32)
    status = models.CharField(max_length=16, choices=Status.choices)
    file_name = models.CharField(max_length=200, blank=True)
    predictions_sha256 = models.CharField(max_length=64)
    no_tie_sha256 = models.CharField(max_length=64, blank=True)
    scores = models.JSONField(default=dict, blank=True, help_text="Aggregate figures only (overall and per task).")
    error = models.TextField(blank=True)
    published = models.BooleanField(default=False)
    published_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["team", "status", "-created_at"], name="submission_team_recent_idx")]
        constraints = [
            models.CheckConstraint(condition=Q(published=False) | Q(status="scored", published_at__isnull=False),
                                   name="submission_published_is_scored"),
        ]

    def __str__(self):
        return f"{self.team_id}:{self.judge_name} on {self.release_id}"
