"""The agent card, built from ``A2A_APP``, the agent profile and the skills: the public one
and its view, and the extended card a signed-in caller asks for (GetExtendedAgentCard).

The agent's name, description, version, provider and URLs come from the ``AgentProfile``
row the owner edits in the admin, each empty field from the setting of the same name.
The public card is cached serialized per web process, keyed by the change marker (moved by
skill and profile saves) and the base URL, with a strong ETag (a hash of the exact bytes
served) and Last-Modified (when a skill or the profile last changed). A settings change
clears the cache. With ``CARD_SIGNING_KEYS`` the card is signed when it is rendered
(:mod:`a2a_app.card_signing`).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.core.signals import setting_changed
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.urls import reverse
from django.utils.http import http_date, parse_http_date_safe
from django.views.decorators.csrf import csrf_exempt

from a2a_app.bindings.http import served_by_asgi
from a2a_app.bindings.security import security_requirements, security_schemes
from a2a_app.caller import Caller
from a2a_app.card_signing import sign_card, signing_enabled
from a2a_app.conf import a2a_settings
from a2a_app.core import service
from a2a_app.forms import schema as form_schema
from a2a_app.models import AgentProfile, agent_identity
from a2a_app.protocol.v03.card import card_v03_fields
from a2a_app.protocol.versions import V0_3, V1_0
from a2a_app.skills.catalogue import SkillInfo, get_catalogue, get_profile

# Settings are read at start-up: the card cannot be older than the process serving it.
_STARTED_AT = datetime.now(UTC).replace(microsecond=0)


@dataclass(frozen=True, slots=True)
class RenderedCard:
    body: bytes
    etag: str
    last_modified: datetime
    #: The headers of a 200 (ETag, Last-Modified, caching, CORS, Vary), formatted once:
    #: the card is the most requested URL of a site.
    headers: tuple[tuple[str, str], ...]
    #: The headers of a 304: the same less Last-Modified, which RFC 9110 (15.4.5) leaves
    #: out when there is an ETag.
    not_modified_headers: tuple[tuple[str, str], ...]


_cache: dict[tuple[Any, int, str, bool], RenderedCard] = {}
_lock = threading.Lock()


def base_url(request: HttpRequest) -> str:
    configured = a2a_settings.PUBLIC_URL
    if configured:
        return configured.rstrip("/")
    return f"{request.scheme}://{request.get_host()}"


def interfaces(root: str) -> list[dict[str, str]]:
    """JSON-RPC first (the preferred binding), then HTTP+JSON; v1.0, then v0.3."""
    jsonrpc, rest = root + reverse("a2a_app:jsonrpc"), root + reverse("a2a_app:rest")
    found = []
    for version in (V1_0, V0_3) if a2a_settings.CARD_V03_COMPAT else (V1_0,):
        found.append({"url": jsonrpc, "protocolBinding": "JSONRPC", "protocolVersion": version})
        found.append({"url": rest, "protocolBinding": "HTTP+JSON", "protocolVersion": version})
    return found


def build_card(
    root: str,
    skills: Iterable[SkillInfo],
    *,
    streaming: bool = False,
    extended: bool = False,
    profile: AgentProfile | None = None,
) -> dict[str, Any]:
    """The AgentCard as v1.0 ProtoJSON, listing ``skills``; REQUIRED fields always present.

    ``extended`` is ``capabilities.extendedAgentCard``. Who the agent is comes from
    ``profile``, each field it leaves empty from the settings.
    """
    s = a2a_settings
    identity = {field: value for field, (value, _) in agent_identity(profile).items()}
    skills = list(skills)
    capabilities: dict[str, Any] = {
        "streaming": streaming,
        "pushNotifications": bool(s.PUSH_NOTIFICATIONS),
        "extendedAgentCard": extended,
    }
    extensions = list(s.EXTENSIONS)
    forms = [(skill.id, skill.form) for skill in skills if skill.form is not None]
    form_input = form_schema.card_extension(forms) if s.CARD_FORM_INPUT else None
    if form_input is not None:
        extensions.append(form_input)
    if extensions:
        capabilities["extensions"] = extensions
    card: dict[str, Any] = {
        "name": identity.get("name", ""),
        "description": identity.get("description", ""),
        "supportedInterfaces": interfaces(root),
        "version": identity.get("version", ""),
        "capabilities": capabilities,
        "defaultInputModes": list(s.DEFAULT_INPUT_MODES),
        "defaultOutputModes": list(s.DEFAULT_OUTPUT_MODES),
        "skills": [card_skill(skill) for skill in skills],
    }
    for optional in ("provider", "documentationUrl", "iconUrl"):
        if optional in identity:
            card[optional] = identity[optional]
    schemes, requirements = security_schemes(), security_requirements()
    if schemes:
        card["securitySchemes"] = schemes
    if requirements:
        card["securityRequirements"] = requirements
    return with_v03_fields(card) if s.CARD_V03_COMPAT else card


def card_skill(skill: SkillInfo) -> dict[str, Any]:
    """A skill's card entry; a form skill's description also says its input in words."""
    if a2a_settings.CARD_FORM_INPUT:
        return form_schema.card_skill(skill.to_card(), skill.form)
    return skill.to_card()


def with_v03_fields(card: dict[str, Any]) -> dict[str, Any]:
    """The card with the top-level fields v0.3 clients read (spec reference §6.5, option a)."""
    v1_interfaces = [i for i in card["supportedInterfaces"] if i["protocolVersion"] == V1_0]
    v03_fields = card_v03_fields(
        card, jsonrpc_url=v1_interfaces[0]["url"], extra_interfaces=v1_interfaces
    )
    return {**card, **v03_fields}


def rendered_card(request: HttpRequest) -> RenderedCard:
    catalogue = get_catalogue()
    root = base_url(request)
    streaming = served_by_asgi(request)
    # The rows' marker and the registry's generation: a code change is a change too.
    key = (catalogue.version, catalogue.code_version, root, streaming)
    cached = _cache.get(key)
    if cached is not None:
        return cached
    # The public card lists public skills only, whoever asks: it is cached and shared.
    public = [skill for skill in catalogue.enabled if skill.is_public]
    extended = service.extended_card_declared(catalogue)
    profile = get_profile(catalogue)  # a query only when the marker moved
    card = build_card(root, public, streaming=streaming, extended=extended, profile=profile)
    if signing_enabled():  # signed once per rendering: the signatures are in the ETag
        card = sign_card(card, jwks_url=root + reverse("a2a_app:jwks"))
    body = json.dumps(card, separators=(",", ":")).encode()
    # Settings changes take a restart, so the card is never older than this process; a
    # profile save moves the marker like a skill's.
    last_modified = max(catalogue.version or _STARTED_AT, _STARTED_AT)
    last_modified = last_modified.replace(microsecond=0)
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    not_modified_headers = [
        ("ETag", etag),
        ("Cache-Control", f"public, max-age={a2a_settings.CARD_MAX_AGE}"),
        # The card is public; browser-based agents and inspectors may read it.
        ("Access-Control-Allow-Origin", "*"),
    ]
    if not a2a_settings.PUBLIC_URL:
        not_modified_headers.append(("Vary", "Host"))  # the card's URLs follow the Host
    rendered = RenderedCard(
        body=body,
        etag=etag,
        last_modified=last_modified,
        headers=(("Last-Modified", http_date(last_modified.timestamp())), *not_modified_headers),
        not_modified_headers=tuple(not_modified_headers),
    )
    with _lock:
        if len(_cache) > 64:  # many Host headers: don't grow without bound
            _cache.clear()
        _cache[key] = rendered
    return rendered


def extended_card(params: Any, caller: Caller, request: HttpRequest) -> dict[str, Any]:
    """GetExtendedAgentCard: the card with every skill ``caller`` may use.

    Built for each call and never put in the shared cache: it differs by caller (the
    routes answer it with ``Cache-Control: private``).
    """
    skills = service.extended_card_skills(caller)
    root = base_url(request)
    profile = get_profile(get_catalogue())
    card = build_card(
        root, skills, streaming=served_by_asgi(request), extended=True, profile=profile
    )
    if signing_enabled():
        card = sign_card(card, jwks_url=root + reverse("a2a_app:jwks"))
    return card


def clear_cache(**kwargs: Any) -> None:
    """Forget the rendered cards (a setting changed, tests)."""
    _cache.clear()


setting_changed.connect(clear_cache)


# --- the view -----------------------------------------------------------------------------


def _etag_matches(header: str, etag: str) -> bool:
    if header.strip() == "*":
        return True
    # If-None-Match uses the weak comparison: W/"x" matches "x".
    candidates = (tag.strip().removeprefix("W/") for tag in header.split(","))
    return etag in candidates


@csrf_exempt  # so that a POST gets its 405, not a CSRF 403
def agent_card(request: HttpRequest) -> HttpResponse:
    if request.method not in ("GET", "HEAD"):
        response = HttpResponse(status=405)
        response["Allow"] = "GET, HEAD"
        return response
    card = rendered_card(request)
    # META rather than request.headers, which copies every header on first use.
    if_none_match = request.META.get("HTTP_IF_NONE_MATCH")
    if if_none_match is not None:
        not_modified = _etag_matches(if_none_match, card.etag)
    else:
        since = request.META.get("HTTP_IF_MODIFIED_SINCE")
        since = parse_http_date_safe(since) if since else None
        not_modified = since is not None and int(card.last_modified.timestamp()) <= since
    if not_modified:
        response: HttpResponse = HttpResponseNotModified()  # no Content-Type, no body
        headers = card.not_modified_headers
    else:
        response = HttpResponse(card.body, content_type="application/json")
        headers = card.headers
    for name, value in headers:
        response[name] = value
    return response
