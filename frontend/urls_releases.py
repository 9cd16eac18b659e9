"""Pages of the releases area."""

from django.urls import path

from frontend.views import releases

urlpatterns = [
    path("releases/", releases.ReleaseListView.as_view(), name="release-list"),
    path("releases/download/<str:token>/", releases.ReleaseDownloadView.as_view(), name="release-download"),
    path("releases/archive/<str:token>/", releases.ReleaseArchiveDownloadView.as_view(), name="release-archive-download"),
    path("releases/<slug:name>/<str:version>/", releases.ReleaseLeaderboardView.as_view(), name="release-leaderboard"),
    path("releases/<slug:name>/<str:version>/heldout/", releases.HeldoutResultsView.as_view(), name="release-heldout"),
    path("releases/<slug:name>/<str:version>/training/", releases.TrainingExportsView.as_view(), name="release-training"),
    path("releases/<slug:name>/<str:version>/training/<str:folder>.zip", releases.TrainingExportArchiveView.as_view(),
         name="release-training-archive"),
]
