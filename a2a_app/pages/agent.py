"""What the pages say about the agent, read from the public agent card.

Nothing here reads settings or skill rows: the card builder has already applied them
(the agent profile, which skills are enabled and public, the URLs, the security schemes),
so the pages can never show more, or other, than the card.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext as _

from a2a_app.bindings import card as card_binding
from a2a_app.protocol.versions import V1_0


@dataclass(frozen=True, slots=True)
class Agent:
    """The public card, and what people need from it, ready for a template."""

    card: dict[str, Any]
    #: The ETag of the card these facts were read from (it changes with the card).
    etag: str
    card_url: str
    jsonrpc_url: str
    rest_url: str
    openapi_url: str
    #: The agent page's absolute URL, or "" when the site does not include it.
    page_url: str
    #: [{"name": scheme name, "text": what a caller sends}], in the card's order.
    schemes: list[dict[str, str]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return str(self.card.get("name") or "")

    @property
    def description(self) -> str:
        return str(self.card.get("description") or "")

    @property
    def provider(self) -> dict[str, Any]:
        provider = self.card.get("provider")
        return provider if isinstance(provider, dict) else {}

    @property
    def provider_url(self) -> str:
        return web_url(self.provider.get("url"))

    @property
    def documentation_url(self) -> str:
        return web_url(self.card.get("documentationUrl"))

    @property
    def icon_url(self) -> str:
        return web_url(self.card.get("iconUrl"))

    @property
    def skills(self) -> list[dict[str, Any]]:
        return list(self.card.get("skills") or [])

    @property
    def streaming(self) -> bool:
        return bool((self.card.get("capabilities") or {}).get("streaming"))

    @property
    def anonymous_allowed(self) -> bool:
        """No security requirement: a caller without credentials is served."""
        return not self.card.get("securityRequirements")

    @property
    def api_key_header(self) -> str:
        """The header of the first API-key scheme the card declares, or ""."""
        for scheme in (self.card.get("securitySchemes") or {}).values():
            api_key = scheme.get("apiKeySecurityScheme") if isinstance(scheme, dict) else None
            if api_key and api_key.get("location") == "header":
                return str(api_key.get("name") or "")
        return ""


def web_url(value: object) -> str:
    """``value`` if it is an http(s) URL, else "": the profile is edited by people, and a
    ``javascript:`` link on the page would run in the visitor's session."""
    text = str(value or "").strip()
    return text if text.lower().startswith(("https://", "http://")) else ""


def public_card(request: HttpRequest) -> tuple[dict[str, Any], str]:
    """The public card exactly as ``/.well-known/agent-card.json`` serves it, and its ETag."""
    rendered = card_binding.rendered_card(request)
    return json.loads(rendered.body), rendered.etag


def agent_page_url(root: str) -> str:
    """The agent page's absolute URL, or "" when ``a2a_app.pages.urls`` is not included."""
    try:
        return root + reverse("a2a_pages:agent")
    except NoReverseMatch:
        return ""


def describe_scheme(scheme: dict[str, Any]) -> str:
    """A security scheme of the card in words: what a caller sends."""
    if not isinstance(scheme, dict):
        return ""
    if api_key := scheme.get("apiKeySecurityScheme"):
        return _("an API key in the %(location)s “%(name)s”") % {
            "location": api_key.get("location", "header"),
            "name": api_key.get("name", ""),
        }
    if http := scheme.get("httpAuthSecurityScheme"):
        return _("HTTP “%(scheme)s” authentication (Authorization header)") % {
            "scheme": http.get("scheme", "")
        }
    if "oauth2SecurityScheme" in scheme:
        return _("an OAuth 2.0 access token")
    if oidc := scheme.get("openIdConnectSecurityScheme"):
        return _("OpenID Connect (%(url)s)") % {"url": oidc.get("openIdConnectUrl", "")}
    if "mtlsSecurityScheme" in scheme:
        return _("a TLS client certificate")
    return _("a scheme described in the agent card")


def _interface(card: dict[str, Any], binding: str) -> str:
    for interface in card.get("supportedInterfaces") or []:
        if interface.get("protocolBinding") == binding and interface.get("protocolVersion") == V1_0:
            return str(interface.get("url") or "")
    return ""


def read_agent(request: HttpRequest) -> Agent:
    card, etag = public_card(request)
    root = card_binding.base_url(request)
    schemes = [
        {"name": name, "text": describe_scheme(scheme)}
        for name, scheme in (card.get("securitySchemes") or {}).items()
    ]
    return Agent(
        card=card,
        etag=etag,
        card_url=root + reverse("a2a_app:agent-card"),
        jsonrpc_url=_interface(card, "JSONRPC"),
        rest_url=_interface(card, "HTTP+JSON"),
        openapi_url=root + reverse("a2a_app:rest-openapi"),
        page_url=agent_page_url(root),
        schemes=schemes,
    )


def _shell_quote(text: str) -> str:
    """``text`` inside single quotes for a POSIX shell."""
    return "'" + text.replace("'", "'\\''") + "'"


def curl_example(agent: Agent, text: str) -> str:
    """A SendMessage call with ``text`` that runs as pasted (once a key is filled in)."""
    payload = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendMessage",
        "params": {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": text}]}},
    }
    lines = [
        f"curl -s {_shell_quote(agent.jsonrpc_url)}",
        "  -H 'Content-Type: application/json' -H 'A2A-Version: 1.0'",
    ]
    if not agent.anonymous_allowed and agent.api_key_header:
        lines.append(f"  -H {_shell_quote(agent.api_key_header + ': <your key>')}")
    lines.append(f"  -d {_shell_quote(json.dumps(payload, ensure_ascii=False))}")
    return " \\\n".join(lines)
