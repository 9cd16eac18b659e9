"""Every route: pages, the REST API under /api/v1/, its schema and docs, media, admin."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from annotation.views import MediaView

urlpatterns = [
    path("api/v1/", include("annotation.api.urls")),  # first: the work queue's claim and submit are most requests
    path("api/v1/", include("curation.api.urls")),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-redoc"),
    path("media/<str:name>", MediaView.as_view(), name="media"),
    path("media/<str:name>/<str:variant>", MediaView.as_view(), name="media-rendition"),
    path("", include("frontend.urls")),
]
