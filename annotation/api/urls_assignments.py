"""Routes of the annotator's work queue."""

from django.urls import path

from annotation.api import assignments

urlpatterns = [
    path("campaigns/<slug:slug>/claim/", assignments.AssignmentClaimApi.as_view(), name="api-assignment-claim"),
    path("assignments/<int:assignment_id>/submit/", assignments.AnnotationSubmitApi.as_view(), name="api-assignment-submit"),
    path("assignments/<int:assignment_id>/", assignments.AssignmentDetailApi.as_view(), name="api-assignment-detail"),
    path("assignments/<int:assignment_id>/draft/", assignments.AssignmentDraftApi.as_view(), name="api-assignment-draft"),
    path("assignments/<int:assignment_id>/skip/", assignments.AssignmentSkipApi.as_view(), name="api-assignment-skip"),
    path("me/stats/", assignments.MyStatsApi.as_view(), name="api-my-stats"),
]
