"""What the import pages read: the latest upload imports."""

from django.db.models import QuerySet

from annotation.jobs.models import Job


def import_jobs_recent(*, limit: int = 20) -> QuerySet[Job]:
    """The latest upload imports, newest first, with their campaign."""
    return Job.objects.filter(kind="import").select_related("campaign", "created_by").order_by("-created_at")[:limit]
