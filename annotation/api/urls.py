"""Annotation endpoints under /api/v1/."""

from django.urls import path

from annotation.api import campaigns

urlpatterns = [
    path("campaigns/", campaigns.CampaignListApi.as_view(), name="api-campaign-list"),
]
