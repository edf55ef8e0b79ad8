"""The views of the pages for people: the agent page and ``/llms.txt``.

Both read the public agent card (:mod:`a2a_app.pages.agent`), which is cached per
process and keyed by the skills' change marker; llms.txt is cached beside it, keyed by
the card's ETag, and answers conditional requests with 304.
"""

from __future__ import annotations

import hashlib
import threading

from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from a2a_app.conf import a2a_settings
from a2a_app.pages.agent import curl_example, read_agent
from a2a_app.pages.llms import render_document

_llms_cache: dict[tuple[str, str, str], tuple[bytes, str]] = {}
_llms_lock = threading.Lock()


def console_strings() -> dict[str, object]:
    """The console's words, translated here so the script needs no catalogue of its own."""
    return {
        "you": _("You"),
        "agent": _("Agent"),
        "artifact": _("Result"),
        "error": _("Error"),
        "sending": _("Sending…"),
        "waiting": _("Waiting for the agent…"),
        "ready": _("Ready"),
        "replied": _("The agent replied"),
        "empty": _("Type a message first."),
        "newConversation": _("New conversation started."),
        "httpError": _("The agent answered with HTTP status %(status)s."),
        "network": _("The agent could not be reached."),
        "file": _("File"),
        "data": _("Data"),
        "states": {
            "TASK_STATE_SUBMITTED": _("Submitted"),
            "TASK_STATE_WORKING": _("Working"),
            "TASK_STATE_INPUT_REQUIRED": _("Waiting for your answer"),
            "TASK_STATE_AUTH_REQUIRED": _("Needs authentication"),
            "TASK_STATE_COMPLETED": _("Completed"),
            "TASK_STATE_CANCELED": _("Canceled"),
            "TASK_STATE_FAILED": _("Failed"),
            "TASK_STATE_REJECTED": _("Rejected"),
        },
    }


@require_safe
def agent_page(request: HttpRequest) -> HttpResponse:
    """The agent, for people: what it does, how to connect, and a console to try it."""
    agent = read_agent(request)
    examples = [e for skill in agent.skills for e in skill.get("examples") or []]
    console = None
    if a2a_settings.AGENT_PAGE_CONSOLE and agent.jsonrpc_url:
        console = {
            "endpoint": agent.jsonrpc_url,
            "streaming": agent.streaming,
            # Sent as X-CSRFToken: needed only when the site signs the console's calls in
            # by session (SessionAuthentication); harmless otherwise.
            "csrfToken": get_token(request),
            "apiKeyHeader": agent.api_key_header,
            "strings": console_strings(),
        }
    context = {
        "agent": agent,
        "card": agent.card,
        "skills": agent.skills,
        "curl": curl_example(agent, examples[0] if examples else _("Hello! What can you do?")),
        "console": console,
    }
    return render(request, "a2a_app/agent.html", context)


@require_safe
def llms_txt(request: HttpRequest) -> HttpResponse:
    """``/llms.txt``: the agent for language models, from the same card."""
    agent = read_agent(request)
    key = (agent.etag, agent.page_url, get_language() or "")
    cached = _llms_cache.get(key)
    if cached is None:
        body = render_document(agent).encode()
        cached = (body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"')
        with _llms_lock:
            if len(_llms_cache) > 64:  # many Host headers or languages: don't grow forever
                _llms_cache.clear()
            _llms_cache[key] = cached
    body, etag = cached
    if_none_match = request.META.get("HTTP_IF_NONE_MATCH", "")
    if etag in (tag.strip().removeprefix("W/") for tag in if_none_match.split(",")):
        response: HttpResponse = HttpResponseNotModified()
    else:
        response = HttpResponse(body, content_type="text/plain; charset=utf-8")
    response["ETag"] = etag
    response["Cache-Control"] = f"public, max-age={a2a_settings.CARD_MAX_AGE}"
    if not a2a_settings.PUBLIC_URL:
        response["Vary"] = "Host"  # the links follow the Host, as the card's do
    return response


def clear_cache() -> None:
    """Forget the rendered llms.txt documents (tests)."""
    _llms_cache.clear()
