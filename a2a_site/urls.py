"""URLs of the demo site: the admin, the restaurant pages, and a2a_app at the root."""

from django.contrib import admin
from django.urls import include, path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("admin/", admin.site.urls),
    path("", include("a2a_app.urls")),
    path("", include("skills.urls")),
]
