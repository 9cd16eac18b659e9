from django.conf import settings
from django.db import models
from django.db.models import Q


class Release(models.Model):
    """An immutable, versioned benchmark release; visible only once every file and the manifest are stored."""

    class Status(models.TextChoices):
        BUILDING = "building", "Building"
        PUBLISHED = "published", "Published"
        FAILED = "failed", "Failed"

    class Storage(models.TextChoices):
        LOCAL = "local", "Local disk"
        S3 = "s3", "S3-compatible object storage"

    name = models.SlugField(max_length=100)
    version = models.CharField(max_length=32)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.BUILDING)
    campaigns = models.ManyToManyField("annotation.Campaign", related_name="releases")
    params = models.JSONField(default=dict, blank=True, help_text="The frozen policy and parameters.")
    storage = models.CharField(max_length=8, choices=Storage.choices, default=Storage.LOCAL)
    location = models.CharField(max_length=500, blank=True)
    manifest_sha256 = models.CharField(max_length=64, blank=True)
    pairs_count = models.PositiveIntegerField(default=0)
    files_count = models.PositiveIntegerField(default=0)
    summary = models.JSONField(default=dict, blank=True, help_text="Counts and human agreement, as in the manifest.")
    error = models.TextField(blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    job = models.ForeignKey("annotation.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    published_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["name", "version"], name="release_name_version"),
            models.CheckConstraint(
                condition=~Q(status="published") | (~Q(manifest_sha256="") & Q(published_at__isnull=False)),
                name="release_published_has_manifest",
            ),
        ]

    def __str__(self):
        return f"{self.name}@{self.version}"


class ReleaseFile(models.Model):
    class Kind(models.TextChoices):
        DATA = "data", "Data split"
        MEDIA = "media", "Media file"
        CARD = "card", "Dataset card"
        CHANGELOG = "changelog", "Changelog"

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="files")
    path = models.CharField(max_length=500, help_text="Path inside the release.")
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.DATA)
    sha256 = models.CharField(max_length=64)
    size = models.PositiveBigIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["release", "path"], name="release_file_path")]

    def __str__(self):
        return f"{self.release_id}:{self.path}"


class JudgeEvaluation(models.Model):
    """A judge's predictions scored against a release, exactly as the benchmark's paper scores them."""

    class Format(models.TextChoices):
        MMRB2 = "mmrb2", "MMRB2 forward/reverse judgements"
        OMNIREWARD = "omnireward", "Omni-Reward labels"
        SCORES = "scores", "Reward-model scores (one per response)"

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="evaluations")
    judge_name = models.CharField(max_length=200)
    format = models.CharField(max_length=32, choices=Format.choices)
    scores = models.JSONField()
    predictions_sha256 = models.CharField(max_length=64, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["release", "judge_name", "-created_at"], name="judge_evaluation_latest_idx")]

    def __str__(self):
        return f"{self.judge_name} on {self.release_id}"
