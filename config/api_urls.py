"""The versioned API (``/api/v1/``) and its OpenAPI schema and docs, served without a CDN."""

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

urlpatterns = [
    path("v1/", include(("content.api.urls", "content_api"), namespace="v1")),
    path("schema/", SpectacularAPIView.as_view(api_version="v1"), name="api-schema"),
    # The split view: Swagger UI's start-up script is a file (?script), not inline, for the CSP.
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
]
