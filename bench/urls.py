"""The baseline views under /bench/, then the whole demo site (a2a_app at the root)."""

from django.urls import include, path

from bench.baseline import views

urlpatterns = [
    path("bench/json", views.bare_json),
    path("bench/insert", views.bare_insert),
    path("bench/stats", views.stats),
    path("", include("a2a_site.urls")),
]
