"""Pages of the imports area."""

from django.urls import path

from frontend.views.imports import ImportUploadView

urlpatterns = [path("imports/", ImportUploadView.as_view(), name="imports-upload")]
