"""Background jobs (import, pre-filter, agreement, consensus, release) with their live progress."""

from django.conf import settings
from django.db import models


class Job(models.Model):
    """A background job (import, pre-filter, agreement, consensus, release) with its live progress."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        # Finished, with part of the work done: an import that created some rows while others failed.
        PARTIAL = "partial", "Partly succeeded"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    kind = models.CharField(max_length=32)
    campaign = models.ForeignKey("annotation.Campaign", null=True, blank=True, on_delete=models.CASCADE, related_name="jobs")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    params = models.JSONField(default=dict, blank=True)
    progress_done = models.PositiveBigIntegerField(default=0)
    progress_total = models.PositiveBigIntegerField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The dispatch: the Celery task that runs the job and its arguments, so the reaper can send it again.
    task_name = models.CharField(max_length=100, blank=True)
    task_args = models.JSONField(default=list, blank=True)
    task_id = models.CharField(max_length=64, blank=True)
    dispatches = models.PositiveSmallIntegerField(default=0)
    dispatched_at = models.DateTimeField(null=True, blank=True)
    # The last sign of life from the process working on the job (start, progress, a new attempt).
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["campaign", "kind", "-created_at"], name="job_campaign_kind_idx"),
            models.Index(fields=["status"], name="job_unfinished_idx",
                         condition=models.Q(status__in=["queued", "running"])),
        ]

    def __str__(self):
        return f"{self.kind} job {self.pk} ({self.status})"


# A job in one of these ran to its end (a partial import too): a redelivered task or a resume leaves it as it is.
JOB_COMPLETED = (Job.Status.SUCCEEDED, Job.Status.PARTIAL)
# A job in one of these is over: nothing works on it any more, and the pages stop following it.
JOB_FINISHED = (*JOB_COMPLETED, Job.Status.FAILED, Job.Status.CANCELLED)
