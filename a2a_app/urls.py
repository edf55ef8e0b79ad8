"""URLs of a2a_app: ``path("", include("a2a_app.urls"))`` at the site root.

The agent card must live at the host root (``/.well-known/agent-card.json``), with the
keys that verify its signatures beside it (``/.well-known/jwks.json``); sites that
mount the endpoints elsewhere can include ``card_urlpatterns``, ``jsonrpc_urlpatterns``
and ``rest_urlpatterns`` separately (keep the ``a2a_app`` namespace).
"""

from django.urls import path, re_path

from a2a_app.bindings import card, jsonrpc, jwks, openapi, rest, rest_v03

app_name = "a2a_app"

card_urlpatterns = [
    path(".well-known/agent-card.json", card.agent_card, name="agent-card"),
    # The keys that verify the card's signatures (CARD_SIGNING_KEYS).
    path(".well-known/jwks.json", jwks.jwks, name="jwks"),
]

jsonrpc_urlpatterns = [
    re_path(r"^a2a/jsonrpc/?$", jsonrpc.jsonrpc, name="jsonrpc"),
]

rest_urlpatterns = [
    path("a2a/rest", rest.not_found, name="rest"),
    path("a2a/rest/openapi.json", openapi.openapi_view, name="rest-openapi"),
    *rest.patterns("a2a/rest/", rest.ROUTES),
    *rest_v03.patterns("a2a/rest/"),
    # [\s\S], not ".": a path with a newline (%0A) is still the interface's to refuse.
    re_path(r"^a2a/rest/[\s\S]*$", rest.not_found),
]

urlpatterns = card_urlpatterns + jsonrpc_urlpatterns + rest_urlpatterns
