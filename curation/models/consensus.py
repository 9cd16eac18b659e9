from django.db import models


class ConsensusRecord(models.Model):
    """The decision a consensus policy took for one pair: kept with a chosen side, or dropped with a reason."""

    class Decision(models.TextChoices):
        KEPT = "kept", "Kept"
        DROPPED = "dropped", "Dropped"
        DISPUTED = "disputed", "Disputed"

    pair = models.OneToOneField("annotation.Pair", on_delete=models.CASCADE, related_name="consensus")
    policy = models.CharField(max_length=64)
    params = models.JSONField(default=dict, blank=True)
    decision = models.CharField(max_length=16, choices=Decision.choices)
    chosen = models.CharField(max_length=8, blank=True, help_text="A or B when kept.")
    reason = models.CharField(max_length=64, blank=True, help_text="Reason code for a drop or dispute.")
    details = models.JSONField(default=dict, blank=True)
    decided_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(decision="kept") | models.Q(chosen__in=["A", "B"]), name="consensus_kept_has_side"
            )
        ]

    def __str__(self):
        return f"{self.pair_id}: {self.decision} {self.chosen or self.reason}"
