"""Pages of the console area (curators and admins only)."""

from django.urls import path

from frontend.views import console, reports

urlpatterns = [
    path("console/", console.ConsoleHomeView.as_view(), name="console-home"),
    path("console/campaigns/<slug:slug>/", console.CampaignFunnelView.as_view(), name="console-campaign"),
    path("console/campaigns/<slug:slug>/run/<slug:kind>/", console.CampaignRunView.as_view(), name="console-campaign-run"),
    path("console/campaigns/<slug:slug>/pairs/", console.PairBrowserView.as_view(), name="console-pairs"),
    path("console/campaigns/<slug:slug>/qualification/", console.QualificationView.as_view(),
         name="console-qualification"),
    path("console/campaigns/<slug:slug>/pairs/bulk/", console.PairBulkActionView.as_view(), name="console-pairs-bulk"),
    path("console/pairs/<int:pair_id>/", console.PairDetailView.as_view(), name="console-pair"),
    path("console/pairs/<int:pair_id>/<slug:action>/", console.PairActionView.as_view(), name="console-pair-action"),
    path("console/dashboards/", console.DashboardsView.as_view(), name="console-dashboards"),
    path("console/dashboards/<slug:figure>.csv", console.DashboardCsvView.as_view(), name="console-figure-csv"),
    path("console/reports/", reports.PairReportsView.as_view(), name="console-reports"),
    path("console/reports/<int:report_id>/answer/", reports.PairReportAnswerView.as_view(), name="console-report-answer"),
    path("console/annotators/<int:user_id>/", console.AnnotatorView.as_view(), name="console-annotator"),
]
