"""Annotation endpoints under /api/v1/."""

from django.urls import include, path

from annotation.api import campaigns, jobs, review, setup

urlpatterns = [
    # The work queue first: claim and submit are most of the API's requests, and Django tries routes in order.
    path("", include("annotation.api.urls_assignments")),
    path("campaigns/", campaigns.CampaignListApi.as_view(), name="api-campaign-list"),
    path("campaigns/create/", setup.CampaignCreateApi.as_view(), name="api-campaign-create"),
    path("campaigns/<slug:slug>/update/", setup.CampaignUpdateApi.as_view(), name="api-campaign-update"),
    path("campaigns/<slug:slug>/members/", setup.CampaignMembersApi.as_view(), name="api-campaign-members"),
    path("users/create/", setup.UserCreateApi.as_view(), name="api-user-create"),
    path("users/<str:username>/role/", setup.UserRoleApi.as_view(), name="api-user-role"),
    path("users/<str:username>/invite/", setup.UserInviteApi.as_view(), name="api-user-invite"),
    path("invitations/accept/", setup.InvitationAcceptApi.as_view(), name="api-invitation-accept"),
    path("me/work/", review.MyWorkApi.as_view(), name="api-my-work"),
    path("campaigns/<slug:slug>/next-preview/", review.NextPairPreviewApi.as_view(), name="api-next-preview"),
    path("assignments/<int:assignment_id>/review/", review.AssignmentReviewApi.as_view(), name="api-assignment-review"),
    path("assignments/<int:assignment_id>/correction/", review.AnnotationCorrectApi.as_view(), name="api-annotation-correct"),
    path("assignments/<int:assignment_id>/withdrawal/", review.AnnotationWithdrawApi.as_view(),
         name="api-annotation-withdraw"),
    path("assignments/<int:assignment_id>/check/", review.AnswersCheckApi.as_view(), name="api-answers-check"),
    path("jobs/<int:job_id>/", jobs.JobDetailApi.as_view(), name="api-job-detail"),
    path("jobs/<int:job_id>/cancel/", jobs.JobCancelApi.as_view(), name="api-job-cancel"),
    path("imports/", include("annotation.api.imports")),
]
