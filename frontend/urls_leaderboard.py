"""Pages of the model leaderboard (curators and admins only)."""

from django.urls import path

from frontend.views import leaderboard

urlpatterns = [
    path("console/leaderboard/", leaderboard.ModelLeaderboardView.as_view(), name="console-leaderboard"),
    path("console/leaderboard.csv", leaderboard.ModelLeaderboardCsvView.as_view(), name="console-leaderboard-csv"),
]
