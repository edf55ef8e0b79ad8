"""Pages of the demo restaurant."""

from django.urls import path

from . import views

app_name = "skills"

urlpatterns = [
    path("menu/", views.menu, name="menu"),
]
