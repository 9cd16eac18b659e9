"""API routes of the releases area."""

from django.urls import path

from curation.api import releases, training

urlpatterns = [
    path("releases/", releases.ReleaseListApi.as_view(), name="api-release-list"),
    path("releases/<slug:name>/<str:version>/", releases.ReleaseDetailApi.as_view(), name="api-release-detail"),
    path("releases/<slug:name>/<str:version>/discard/", releases.ReleaseDiscardApi.as_view(), name="api-release-discard"),
    path("releases/<slug:name>/<str:version>/verify/", releases.ReleaseVerifyApi.as_view(), name="api-release-verify"),
    path("releases/<slug:name>/<str:version>/download/", releases.ReleaseDownloadApi.as_view(), name="api-release-download"),
    path("releases/<slug:name>/<str:version>/archive/", releases.ReleaseArchiveApi.as_view(), name="api-release-archive"),
    path("releases/<slug:name>/<str:version>/evaluations/", releases.ReleaseEvaluationApi.as_view(),
         name="api-release-evaluations"),
    path("releases/<slug:name>/<str:version>/leaderboard/", releases.ReleaseLeaderboardApi.as_view(),
         name="api-release-leaderboard"),
    path("releases/<slug:name>/<str:version>/training-exports/", training.TrainingExportListApi.as_view(),
         name="api-release-training"),
    path("releases/<slug:name>/<str:version>/training-exports/<str:folder>/archive/",
         training.TrainingExportArchiveApi.as_view(), name="api-release-training-archive"),
]
