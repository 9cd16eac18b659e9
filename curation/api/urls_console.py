"""API routes of the console area (curators and admins only)."""

from django.urls import path

from curation.api import console

urlpatterns = [
    path("console/campaigns/<slug:slug>/funnel/", console.CampaignFunnelApi.as_view(), name="api-console-funnel"),
    path("console/campaigns/<slug:slug>/pairs/", console.PairBrowseApi.as_view(), name="api-console-pairs"),
    path("console/pairs/<int:pair_id>/", console.PairDetailApi.as_view(), name="api-console-pair"),
    path("console/pairs/<int:pair_id>/extend-overlap/", console.PairExtendOverlapApi.as_view(),
         name="api-console-pair-extend-overlap"),
    path("console/pairs/<int:pair_id>/send-to-adjudication/", console.PairSendToAdjudicationApi.as_view(),
         name="api-console-pair-send-to-adjudication"),
    path("console/pairs/<int:pair_id>/mark-gold/", console.PairMarkGoldApi.as_view(), name="api-console-pair-mark-gold"),
    path("console/pairs/<int:pair_id>/unmark-gold/", console.PairUnmarkGoldApi.as_view(), name="api-console-pair-unmark-gold"),
    path("console/pairs/<int:pair_id>/exclude/", console.PairExcludeApi.as_view(), name="api-console-pair-exclude"),
    path("console/pairs/<int:pair_id>/restore/", console.PairRestoreApi.as_view(), name="api-console-pair-restore"),
    path("console/dashboards/<slug:figure>/", console.DashboardFigureApi.as_view(), name="api-console-figure"),
    path("console/annotators/<int:user_id>/recent/", console.AnnotatorRecentWorkApi.as_view(), name="api-console-annotator"),
]
