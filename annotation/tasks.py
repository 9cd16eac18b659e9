"""The app's Celery tasks, by sub-domain; Celery's autodiscovery imports this module."""

from annotation.catalogue.tasks import media_renditions_prepare_task
from annotation.importers.tasks import import_pairs_task
from annotation.jobs.tasks import jobs_reap_task
from annotation.workqueue.tasks import assignments_expire_task

__all__ = ["assignments_expire_task", "import_pairs_task", "jobs_reap_task", "media_renditions_prepare_task"]
