"""URLs of a2a_app: ``path("", include("a2a_app.urls"))`` at the site root.

The agent card must live at the host root (``/.well-known/agent-card.json``); sites that
mount the endpoints elsewhere can include ``card_urlpatterns``, ``jsonrpc_urlpatterns``
and ``rest_urlpatterns`` separately (keep the ``a2a_app`` namespace).
"""

from django.urls import path, re_path

from a2a_app.bindings import card, jsonrpc, openapi, rest, rest_v03

app_name = "a2a_app"

card_urlpatterns = [
    path(".well-known/agent-card.json", card.agent_card, name="agent-card"),
]

jsonrpc_urlpatterns = [
    re_path(r"^a2a/jsonrpc/?$", jsonrpc.jsonrpc, name="jsonrpc"),
]

TASK = r"(?P<id>[^/:]+)"
TASK_ID = r"(?P<task_id>[^/:]+)"
CONFIG = r"(?P<id>[^/]+)"

# v0.3 HTTP+JSON (the v0.3 proto's paths under the same interface URL); unnamed, so that
# the named REST routes stay the v1.0 ones the OpenAPI document lists.
rest_v03_urlpatterns = [
    re_path(r"^a2a/rest/v1/message:send$", rest_v03.send_message),
    re_path(r"^a2a/rest/v1/message:stream$", rest_v03.send_streaming_message),
    re_path(rf"^a2a/rest/v1/tasks/{TASK}:cancel$", rest_v03.cancel_task),
    re_path(rf"^a2a/rest/v1/tasks/{TASK}:subscribe$", rest_v03.subscribe_to_task),
    re_path(rf"^a2a/rest/v1/tasks/{TASK}$", rest_v03.get_task),
    re_path(rf"^a2a/rest/v1/tasks/{TASK_ID}/pushNotificationConfigs$", rest_v03.push_configs),
    re_path(
        rf"^a2a/rest/v1/tasks/{TASK_ID}/pushNotificationConfigs/{CONFIG}$", rest_v03.push_config
    ),
    re_path(r"^a2a/rest/v1/card$", rest_v03.agent_card),
]

rest_urlpatterns = [
    path("a2a/rest", rest.not_found, name="rest"),
    path("a2a/rest/openapi.json", openapi.openapi_view, name="rest-openapi"),
    re_path(r"^a2a/rest/message:send$", rest.send_message, name="rest-send"),
    re_path(r"^a2a/rest/message:stream$", rest.send_streaming_message, name="rest-stream"),
    re_path(r"^a2a/rest/tasks$", rest.list_tasks, name="rest-tasks"),
    re_path(rf"^a2a/rest/tasks/{TASK}:cancel$", rest.cancel_task, name="rest-cancel"),
    re_path(rf"^a2a/rest/tasks/{TASK}:subscribe$", rest.subscribe_to_task, name="rest-subscribe"),
    re_path(rf"^a2a/rest/tasks/{TASK}$", rest.get_task, name="rest-task"),
    re_path(
        rf"^a2a/rest/tasks/{TASK_ID}/pushNotificationConfigs$",
        rest.push_configs,
        name="rest-push-configs",
    ),
    re_path(
        rf"^a2a/rest/tasks/{TASK_ID}/pushNotificationConfigs/{CONFIG}$",
        rest.push_config,
        name="rest-push-config",
    ),
    re_path(r"^a2a/rest/extendedAgentCard$", rest.extended_agent_card, name="rest-extended-card"),
    *rest_v03_urlpatterns,
    re_path(r"^a2a/rest/.*$", rest.not_found),
]

urlpatterns = card_urlpatterns + jsonrpc_urlpatterns + rest_urlpatterns
