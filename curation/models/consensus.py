from django.db import models


class ConsensusRecord(models.Model):
    """The decision a consensus policy took for one pair: kept with a chosen side (or a tie), or dropped with a
    reason.

    A record describes the pair as it was decided: ``stale_reason`` names the curator action that changed
    the pair since (empty while the record is current), and ``basis_annotations`` the pair's annotation
    count then (a different count now means new annotations since). Releases take current records only.
    For a criteria question each criterion is decided on its own (``criteria``); ``chosen`` then sums up
    the kept criteria, and a release publishes each kept criterion with its own label.
    """

    class Decision(models.TextChoices):
        KEPT = "kept", "Kept"
        DROPPED = "dropped", "Dropped"
        DISPUTED = "disputed", "Disputed"

    pair = models.OneToOneField("annotation.Pair", on_delete=models.CASCADE, related_name="consensus")
    policy = models.CharField(max_length=64)
    params = models.JSONField(default=dict, blank=True)
    decision = models.CharField(max_length=16, choices=Decision.choices)
    chosen = models.CharField(max_length=8, blank=True, help_text="A, B or tie when kept.")
    reason = models.CharField(max_length=64, blank=True, help_text="Reason code for a drop or dispute.")
    details = models.JSONField(default=dict, blank=True)
    criteria = models.JSONField(
        default=list, blank=True,
        help_text="Criteria questions: each criterion's own decision, chosen side and reason, in the pair's order "
                  "(empty for other questions, and for a curator's decision, which holds for every criterion).",
    )
    stale_reason = models.CharField(
        max_length=64, blank=True, help_text="The curator action that changed the pair since; empty while current."
    )
    basis_annotations = models.PositiveIntegerField(
        null=True, blank=True, help_text="The pair's annotation count when decided (unknown for older records)."
    )
    decided_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(decision="kept") | models.Q(chosen__in=["A", "B", "tie"]), name="consensus_kept_has_side"
            )
        ]
        # The pair browser's "disputed" filter starts from the few disputed records, not from every pair.
        indexes = [models.Index(fields=["pair"], condition=models.Q(decision="disputed"), name="consensus_disputed_idx")]

    def __str__(self):
        return f"{self.pair_id}: {self.decision} {self.chosen or self.reason}"
