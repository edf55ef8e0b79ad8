from django.urls import include, path

urlpatterns = [path("", include("a2a_app.urls"))]
