"""API routes of the curator's queue of raters' reports on pairs (curators and admins only)."""

from django.urls import path

from curation.api import reports

urlpatterns = [
    path("reports/", reports.PairReportListApi.as_view(), name="api-reports"),
    path("reports/<int:report_id>/answer/", reports.PairReportAnswerApi.as_view(), name="api-report-answer"),
]
