"""URLs of a2a_app: ``path("", include("a2a_app.urls"))`` at the site root.

The agent card must live at the host root (``/.well-known/agent-card.json``); sites that
mount the endpoints elsewhere can include ``card_urlpatterns`` and ``jsonrpc_urlpatterns``
separately.
"""

from django.urls import path, re_path

from . import views

app_name = "a2a_app"

card_urlpatterns = [
    path(".well-known/agent-card.json", views.agent_card, name="agent-card"),
]

jsonrpc_urlpatterns = [
    re_path(r"^a2a/jsonrpc/?$", views.jsonrpc, name="jsonrpc"),
]

urlpatterns = card_urlpatterns + jsonrpc_urlpatterns
