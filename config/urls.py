"""Every route: pages, the REST API under /api/v1/, its schema and docs, media, admin."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

from annotation.workqueue.views import MediaView

handler404 = "core.api.exceptions.api_not_found"
# A database fault raised in a middleware (the session and its user, read or written) is a 503, not a 500.
handler500 = "core.db_faults.server_error"

urlpatterns = [
    # The work queue first: its claim and submit are most of the requests, and Django tries routes in order.
    path("api/v1/", include("annotation.workqueue.api.urls")),
    path("api/v1/", include("annotation.catalogue.api.urls")),
    path("api/v1/imports/", include("annotation.importers.api")),
    path("api/v1/", include("annotation.jobs.urls")),
    path("api/v1/", include("curation.api.urls")),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Swagger UI's settings come as a script file (?script), ReDoc's page without web fonts: no inline script, no CDN.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="api-schema", template_name="frontend/redoc.html"),
         name="api-redoc"),
    path("media/<str:name>", MediaView.as_view(), name="media"),
    path("media/<str:name>/<str:variant>", MediaView.as_view(), name="media-rendition"),
    path("", include("frontend.urls")),
]
