"""API routes of pair discussions: curators under console/pairs/, invited raters under assignments/."""

from django.urls import path

from curation.api import threads

urlpatterns = [
    path("console/pairs/<int:pair_id>/thread/", threads.PairThreadApi.as_view(), name="api-console-pair-thread"),
    path("console/pairs/<int:pair_id>/thread/invite/", threads.PairThreadInviteApi.as_view(),
         name="api-console-pair-thread-invite"),
    path("assignments/<int:assignment_id>/thread/", threads.AssignmentThreadApi.as_view(), name="api-assignment-thread"),
]
