from django.db import models


class Judge(models.Model):
    """An AI judge configured by curators; secrets are named environment variables, never stored values."""

    class Backend(models.TextChoices):
        OPENAI_CHAT = "openai-chat", "OpenAI-compatible chat completions"
        REWARD_MODEL = "reward-model", "Reward-model HTTP endpoint"
        PYTHON = "python", "Python callable"

    name = models.SlugField(max_length=100, unique=True)
    backend = models.CharField(max_length=32, choices=Backend.choices)
    settings = models.JSONField(default=dict, blank=True, help_text="Endpoint, model, limits; secrets by env var name.")
    enabled = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.name


class JudgeVerdict(models.Model):
    """One judge call on one pair in one order; unique, so a re-run never duplicates it."""

    class Order(models.TextChoices):
        FORWARD = "forward", "As shown (A, B)"
        SWAPPED = "swapped", "Swapped (B, A)"

    class Verdict(models.TextChoices):
        A = "A", "A"
        B = "B", "B"
        TIE = "tie", "Tie"
        ABSTAIN = "abstain", "Abstained"
        INVALID = "invalid", "Invalid"

    pair = models.ForeignKey("annotation.Pair", on_delete=models.CASCADE, related_name="judge_verdicts")
    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="verdicts")
    order = models.CharField(max_length=8, choices=Order.choices)
    verdict = models.CharField(max_length=8, choices=Verdict.choices, help_text="In canonical orientation.")
    score = models.FloatField(null=True, blank=True)
    confidence = models.FloatField(null=True, blank=True)
    raw_output = models.TextField(blank=True)
    latency_ms = models.PositiveIntegerField(null=True, blank=True)
    prompt_tokens = models.PositiveIntegerField(null=True, blank=True)
    completion_tokens = models.PositiveIntegerField(null=True, blank=True)
    error = models.TextField(blank=True)
    requests = models.PositiveSmallIntegerField(
        default=0, help_text="Requests sent to the judge for this verdict, retries included."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["pair", "judge", "order"], name="verdict_once_per_order")]

    def __str__(self):
        return f"{self.judge_id} on {self.pair_id} ({self.order}): {self.verdict}"
