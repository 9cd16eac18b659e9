from django.conf import settings
from django.db import models


class PairComment(models.Model):
    """One message of a pair's discussion: curators, and the pair's raters once a curator invited them.

    Internal: never part of a release, an agreement figure or a consensus (``curation.services.threads``).
    """

    pair = models.ForeignKey("annotation.Pair", on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="pair_comments")
    body = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["pair", "created_at"], name="paircomment_pair_time")]

    def __str__(self) -> str:
        return f"message {self.pk} on pair {self.pair_id}"


class PairThreadInvite(models.Model):
    """A rater of the pair whom a curator invited into its discussion."""

    pair = models.ForeignKey("annotation.Pair", on_delete=models.CASCADE, related_name="thread_invites")
    rater = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="thread_invites")
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["pair", "rater"], name="threadinvite_pair_rater_unique")]

    def __str__(self) -> str:
        return f"rater {self.rater_id} invited to pair {self.pair_id}"
