"""Every route: pages, the REST API under /api/v1/, its schema and docs, media, admin."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from annotation.workqueue.views import MediaView
from frontend.views import apidocs

# Concord's pages with the navigation, the API's error shape under /api/ (frontend.views.errors). A database fault
# raised in a middleware (the session and its user, read or written) is a 503, not a 500 (core.db_faults).
handler400 = "frontend.views.errors.bad_request"
handler403 = "frontend.views.errors.permission_denied"
handler404 = "frontend.views.errors.page_not_found"
handler500 = "frontend.views.errors.server_error"

urlpatterns = [
    # The work queue first: its claim and submit are most of the requests, and Django tries routes in order.
    path("api/v1/", include("annotation.workqueue.api.urls")),
    path("api/v1/", include("annotation.catalogue.api.urls")),
    path("api/v1/imports/", include("annotation.importers.api")),
    path("api/v1/", include("annotation.jobs.urls")),
    path("api/v1/", include("curation.api.urls")),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Swagger UI's settings come as a script file (?script), ReDoc's page without web fonts and its bundle without
    # its CDN logo: no inline script, nothing from elsewhere. A signed-out browser is sent to sign in first.
    path("api/docs/", apidocs.SwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/redoc/", apidocs.RedocView.as_view(url_name="api-schema"), name="api-redoc"),
    path("api/redoc/redoc.standalone.js", apidocs.redoc_bundle, name="api-redoc-bundle"),
    path("media/<str:name>", MediaView.as_view(), name="media"),
    path("media/<str:name>/<str:variant>", MediaView.as_view(), name="media-rendition"),
    path("", include("frontend.urls")),
]
