"""Pages of the agreement drill-down (curators and admins only)."""

from django.urls import path

from frontend.views import agreement

urlpatterns = [
    path("console/campaigns/<slug:slug>/agreement/", agreement.AgreementView.as_view(), name="console-agreement"),
    path("console/campaigns/<slug:slug>/agreement/<slug:section>.csv", agreement.AgreementCsvView.as_view(),
         name="console-agreement-csv"),
]
