"""API routes of the model leaderboard (curators and admins only)."""

from django.urls import path

from curation.api import leaderboard

urlpatterns = [
    path("leaderboard/models/", leaderboard.ModelLeaderboardApi.as_view(), name="api-model-leaderboard"),
    path("leaderboard/models/csv/", leaderboard.ModelLeaderboardCsvApi.as_view(), name="api-model-leaderboard-csv"),
]
