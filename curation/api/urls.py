"""Curator endpoints under /api/v1/; each sub-domain keeps its own routes module."""

from django.urls import include, path

urlpatterns = [
    path("", include("curation.api.urls_agreement")),
    path("", include("curation.api.urls_judges")),
    path("", include("curation.api.urls_releases")),
    path("", include("curation.api.urls_console")),
    path("", include("curation.api.urls_leaderboard")),
    path("", include("curation.api.urls_threads")),
]
