"""URLs of the pages for people: ``path("", include("a2a_app.pages.urls"))`` serves the
agent page at ``agent/`` and ``llms.txt`` at the root.

A site that wants only one of them includes ``agent_urlpatterns`` or ``llms_urlpatterns``
(keep the ``a2a_pages`` namespace: the pages link to each other by it).
"""

from django.urls import path

from a2a_app.pages import views

app_name = "a2a_pages"

agent_urlpatterns = [path("agent/", views.agent_page, name="agent")]
llms_urlpatterns = [path("llms.txt", views.llms_txt, name="llms-txt")]

urlpatterns = agent_urlpatterns + llms_urlpatterns
