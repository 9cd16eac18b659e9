"""Background jobs under /api/v1/: their live progress, and cancelling one."""

from django.urls import path

from annotation.jobs import api as jobs

urlpatterns = [
    path("jobs/<int:job_id>/", jobs.JobDetailApi.as_view(), name="api-job-detail"),
    path("jobs/<int:job_id>/cancel/", jobs.JobCancelApi.as_view(), name="api-job-cancel"),
]
