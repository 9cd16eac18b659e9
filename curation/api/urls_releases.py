"""API routes of the releases area."""

from django.urls import path

from curation.api import heldout, releases, training

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
    # Held-out submissions: the NAME@X.Y.Z form, and the NAME/X.Y.Z form of the routes above.
    *[route
      for ref in ("<slug:name>@<str:version>", "<slug:name>/<str:version>")
      for route in (
          path(f"releases/{ref}/submissions/", heldout.SubmissionListApi.as_view(),
               name="api-release-submissions" if "@" in ref else "api-release-submissions-path"),
          path(f"releases/{ref}/submissions/<int:submission_id>/publish/", heldout.SubmissionPublishApi.as_view(),
               name="api-release-submission-publish" if "@" in ref else "api-release-submission-publish-path"),
          path(f"releases/{ref}/teams/", heldout.SubmissionTeamListApi.as_view(),
               name="api-release-teams" if "@" in ref else "api-release-teams-path"),
          path(f"releases/{ref}/heldout/", heldout.HeldoutLeaderboardApi.as_view(),
               name="api-release-heldout" if "@" in ref else "api-release-heldout-path"),
      )],
]
