"""Routes of the annotator's work queue under /api/v1/: claim, submit, drafts, lease renewals, skips, statistics,
review and correct, reports of broken pairs, rater profiles, hours for payment, crowd entry links, qualification
(calibration rounds, pauses), and an account's active switch (deactivation gives its leases back)."""

from django.urls import path

from annotation.workqueue.api import accounts, assignments, profile, qualification, reports, review

urlpatterns = [
    path("campaigns/<slug:slug>/claim/", assignments.AssignmentClaimApi.as_view(), name="api-assignment-claim"),
    path("assignments/<int:assignment_id>/submit/", assignments.AnnotationSubmitApi.as_view(), name="api-assignment-submit"),
    path("assignments/<int:assignment_id>/", assignments.AssignmentDetailApi.as_view(), name="api-assignment-detail"),
    path("assignments/<int:assignment_id>/draft/", assignments.AssignmentDraftApi.as_view(), name="api-assignment-draft"),
    path("assignments/<int:assignment_id>/renewal/", assignments.AssignmentRenewalApi.as_view(),
         name="api-assignment-renewal"),
    path("assignments/<int:assignment_id>/skip/", assignments.AssignmentSkipApi.as_view(), name="api-assignment-skip"),
    path("assignments/<int:assignment_id>/report/", reports.AssignmentReportApi.as_view(), name="api-assignment-report"),
    path("me/stats/", assignments.MyStatsApi.as_view(), name="api-my-stats"),
    path("me/work/", review.MyWorkApi.as_view(), name="api-my-work"),
    path("campaigns/<slug:slug>/next-preview/", review.NextPairPreviewApi.as_view(), name="api-next-preview"),
    path("assignments/<int:assignment_id>/review/", review.AssignmentReviewApi.as_view(), name="api-assignment-review"),
    path("assignments/<int:assignment_id>/correction/", review.AnnotationCorrectApi.as_view(), name="api-annotation-correct"),
    path("assignments/<int:assignment_id>/withdrawal/", review.AnnotationWithdrawApi.as_view(),
         name="api-annotation-withdraw"),
    path("assignments/<int:assignment_id>/check/", review.AnswersCheckApi.as_view(), name="api-answers-check"),
    path("campaigns/<slug:slug>/profile/", profile.CampaignProfileApi.as_view(), name="api-campaign-profile"),
    path("campaigns/<slug:slug>/profiles/", profile.CampaignProfilesApi.as_view(), name="api-campaign-profiles"),
    path("campaigns/<slug:slug>/hours/", profile.CampaignHoursApi.as_view(), name="api-campaign-hours"),
    path("campaigns/<slug:slug>/crowd-links/", profile.CrowdLinkCreateApi.as_view(), name="api-crowd-links"),
    path("campaigns/<slug:slug>/qualification/", qualification.QualificationStateApi.as_view(),
         name="api-qualification-state"),
    path("calibration-rounds/<int:round_id>/answers/", qualification.CalibrationAnswerApi.as_view(),
         name="api-calibration-answer"),
    path("calibration-rounds/<int:round_id>/release/", qualification.QualificationRoundReleaseApi.as_view(),
         name="api-qualification-release"),
    path("campaigns/<slug:slug>/calibration-set/", qualification.CalibrationSetApi.as_view(), name="api-calibration-set"),
    path("campaigns/<slug:slug>/qualification/report/", qualification.QualificationReportApi.as_view(),
         name="api-qualification-report"),
    path("campaigns/<slug:slug>/pauses/<str:username>/lift/", qualification.RaterPauseLiftApi.as_view(),
         name="api-rater-pause-lift"),
    path("users/<str:username>/active/", accounts.UserActiveApi.as_view(), name="api-user-active"),
]
