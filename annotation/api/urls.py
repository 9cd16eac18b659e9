"""Annotation endpoints under /api/v1/."""

from django.urls import include, path

from annotation.api import campaigns, jobs

urlpatterns = [
    # The work queue first: claim and submit are most of the API's requests, and Django tries routes in order.
    path("", include("annotation.api.urls_assignments")),
    path("campaigns/", campaigns.CampaignListApi.as_view(), name="api-campaign-list"),
    path("jobs/<int:job_id>/", jobs.JobDetailApi.as_view(), name="api-job-detail"),
    path("jobs/<int:job_id>/cancel/", jobs.JobCancelApi.as_view(), name="api-job-cancel"),
    path("imports/", include("annotation.api.imports")),
]
