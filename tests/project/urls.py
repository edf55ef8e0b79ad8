"""The test project's URLs: the admin, a2a_app at the root, and its pages for people."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("a2a_app.urls")),
    path("", include("a2a_app.pages.urls")),
    # 404 unless A2A_APP["METRICS_ENABLED"].
    path("metrics", include("a2a_app.metrics.urls")),
]
