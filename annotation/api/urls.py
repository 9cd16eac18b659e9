"""Annotation endpoints under /api/v1/."""

from django.urls import include, path

from annotation.api import campaigns, jobs

urlpatterns = [
    path("campaigns/", campaigns.CampaignListApi.as_view(), name="api-campaign-list"),
    path("jobs/<int:job_id>/", jobs.JobDetailApi.as_view(), name="api-job-detail"),
    path("jobs/<int:job_id>/cancel/", jobs.JobCancelApi.as_view(), name="api-job-cancel"),
    path("imports/", include("annotation.api.imports")),
    path("", include("annotation.api.urls_assignments")),
]
