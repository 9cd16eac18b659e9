"""Pages of the imports area: the upload page, and each import's report with its errors as CSV or JSON Lines."""

from django.urls import path

from frontend.views.imports import ImportErrorsDownloadView, ImportReportView, ImportUploadView

urlpatterns = [
    path("imports/", ImportUploadView.as_view(), name="imports-upload"),
    path("imports/<int:job_id>/", ImportReportView.as_view(), name="imports-report"),
    path("imports/<int:job_id>/errors.<str:fmt>", ImportErrorsDownloadView.as_view(), name="imports-errors"),
]
