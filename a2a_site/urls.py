"""URLs of the demo site: the admin, the restaurant's pages, and a2a_app at the root.

The home page is a2a_app's agent page (branded by templates/a2a_app/agent.html): the
restaurant's website is its agent. ``a2a_app.pages.urls`` adds /agent/ and /llms.txt.
"""

from django.contrib import admin
from django.urls import include, path

from a2a_app.pages.views import agent_page

urlpatterns = [
    path("", agent_page, name="home"),
    path("admin/", admin.site.urls),
    path("", include("a2a_app.urls")),
    path("", include("a2a_app.pages.urls")),
    path("", include("skills.urls")),
    # Prometheus scrapes here (404 unless A2A_METRICS_ENABLED; docs/observability.md).
    path("metrics", include("a2a_app.metrics.urls")),
]
