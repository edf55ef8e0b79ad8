"""The metrics URL, opt-in: ``path("metrics", include("a2a_app.metrics.urls"))``."""

from django.urls import path

from a2a_app.metrics import views

app_name = "a2a_metrics"

urlpatterns = [path("", views.metrics, name="metrics")]
