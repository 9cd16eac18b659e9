from django.db import models


class Release(models.Model):
    """An immutable, versioned benchmark release; visible only once every file and the manifest are stored."""

    class Status(models.TextChoices):
        BUILDING = "building", "Building"
        PUBLISHED = "published", "Published"
        FAILED = "failed", "Failed"

    name = models.SlugField(max_length=100)
    version = models.CharField(max_length=32)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.BUILDING)
    campaigns = models.ManyToManyField("annotation.Campaign", related_name="releases")
    params = models.JSONField(default=dict, blank=True, help_text="The frozen policy and parameters.")
    location = models.CharField(max_length=500, blank=True)
    manifest_sha256 = models.CharField(max_length=64, blank=True)
    pairs_count = models.PositiveIntegerField(default=0)
    files_count = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    job = models.ForeignKey("annotation.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    published_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["name", "version"], name="release_name_version")]

    def __str__(self):
        return f"{self.name}@{self.version}"


class ReleaseFile(models.Model):
    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="files")
    path = models.CharField(max_length=500, help_text="Path inside the release.")
    sha256 = models.CharField(max_length=64)
    size = models.PositiveBigIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["release", "path"], name="release_file_path")]

    def __str__(self):
        return f"{self.release_id}:{self.path}"


class JudgeEvaluation(models.Model):
    """A judge's predictions scored against a release, exactly as the benchmark's paper scores them."""

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="evaluations")
    judge_name = models.CharField(max_length=200)
    format = models.CharField(max_length=32)
    scores = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.judge_name} on {self.release_id}"
