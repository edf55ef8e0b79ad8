"""The test project's URLs: the admin and a2a_app at the root."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("a2a_app.urls")),
]
