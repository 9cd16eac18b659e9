"""API routes of the agreement area: reports, consensus runs, adjudication."""

from django.urls import path

from curation.api import agreement

urlpatterns = [
    path("campaigns/<slug:slug>/agreement/jobs/", agreement.AgreementJobStartApi.as_view(), name="api-agreement-job-start"),
    path("campaigns/<slug:slug>/agreement/", agreement.AgreementReportLatestApi.as_view(), name="api-agreement-latest"),
    path("campaigns/<slug:slug>/agreement/history/", agreement.AgreementReportHistoryApi.as_view(),
         name="api-agreement-history"),
    path("consensus/policies/", agreement.ConsensusPolicyListApi.as_view(), name="api-consensus-policies"),
    path("campaigns/<slug:slug>/consensus/jobs/", agreement.ConsensusJobStartApi.as_view(), name="api-consensus-job-start"),
    path("campaigns/<slug:slug>/adjudication/", agreement.AdjudicationQueueApi.as_view(), name="api-adjudication-queue"),
    path("pairs/<int:pair_id>/adjudicate/", agreement.PairAdjudicateApi.as_view(), name="api-pair-adjudicate"),
]
