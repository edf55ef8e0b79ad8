"""Admin: the agent profile (who the agent says it is) and the "Agent card" page.

The profile is one row: its admin opens the row directly (no list of one), and an empty
field shows the setting it falls back to. The "Agent card" page shows the card as agents
get it: drawn by the same code that serves it (``bindings.card``, the one admin module
that reaches into the bindings, so that what the owner sees is what agents are served),
its JSON, the extended card as the signed-in admin would get it, and whether each is a
valid v1.0 ``AgentCard`` (:mod:`a2a_app.card_schema`).
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db import models
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from a2a_app.bindings import card as card_view
from a2a_app.caller import Caller
from a2a_app.card_schema import validate_card
from a2a_app.card_signing import SigningKeyError
from a2a_app.conf import SETTING_NAME, a2a_settings
from a2a_app.models import PROFILE_SETTINGS, AgentCard, AgentProfile, Skill, agent_identity
from a2a_app.protocol.card_payload import CardPayloadError
from a2a_app.protocol.errors import A2AError
from a2a_app.skills.catalogue import get_catalogue, get_profile

JSON = dict[str, Any]

#: Profile form field → the setting its empty value falls back to.
_FIELD_SETTINGS = {
    "name": "NAME",
    "description": "DESCRIPTION",
    "version": "VERSION",
    "documentation_url": "DOCUMENTATION_URL",
    "icon_url": "ICON_URL",
}


def _formfield(field: models.Field, **kwargs: Any) -> forms.Field | None:
    if isinstance(field, models.URLField):
        kwargs["assume_scheme"] = "https"  # a typed "example.com" is https://example.com
    return field.formfield(**kwargs)


class AgentProfileForm(forms.ModelForm):
    """Each empty field shows, as its placeholder, what the card says instead."""

    class Meta:
        model = AgentProfile
        formfield_callback = _formfield
        fields = (
            "name",
            "description",
            "version",
            "provider_organization",
            "provider_url",
            "documentation_url",
            "icon_url",
        )
        widgets = {"description": forms.Textarea(attrs={"rows": 4})}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        defaults = {field: getattr(a2a_settings, s) for field, s in _FIELD_SETTINGS.items()}
        provider = a2a_settings.PROVIDER if isinstance(a2a_settings.PROVIDER, dict) else {}
        defaults["provider_organization"] = provider.get("organization")
        defaults["provider_url"] = provider.get("url")
        for name, default in defaults.items():
            setting = _FIELD_SETTINGS.get(name, "PROVIDER")
            field = self.fields[name]
            where = f"{SETTING_NAME}['{setting}']"
            if default:
                field.widget.attrs["placeholder"] = str(default)
                note = gettext("Empty: “%(value)s”, from %(setting)s.") % {
                    "value": default,
                    "setting": where,
                }
            else:
                note = gettext("Empty: not in the card (%(setting)s is not set).") % {
                    "setting": where
                }
            # The admin shows help texts as HTML: the setting's value is text.
            field.help_text = format_html("{} {}", field.help_text, note)


@admin.register(AgentProfile)
class AgentProfileAdmin(admin.ModelAdmin):
    """The one profile row, opened directly; saving it moves the card's change marker."""

    form = AgentProfileForm
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    change_form_template = "admin/a2a_app/agentprofile/change_form.html"
    fieldsets = (
        (
            _("Who the agent is"),
            {
                "fields": ("name", "description", "version"),
                "description": _(
                    "Calling agents read these first, in the agent card, to decide whether "
                    "and how to talk to this agent. An empty field takes its value from the "
                    "site's settings (shown greyed in the field)."
                ),
            },
        ),
        (
            _("Provider"),
            {
                "fields": ("provider_organization", "provider_url"),
                "description": _(
                    "Who runs the agent: the card's provider has both an organization and "
                    "its website, or is left out."
                ),
            },
        ),
        (_("Links"), {"fields": ("documentation_url", "icon_url")}),
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # the one row is opened (and created on its first save) directly

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # emptying the fields gives the settings back

    def get_object(
        self, request: HttpRequest, object_id: str, from_field: str | None = None
    ) -> AgentProfile | None:
        found = super().get_object(request, object_id, from_field)
        if found is None and object_id == "1":
            return AgentProfile(ident=1)  # not saved yet: the settings say everything
        return found

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        return HttpResponseRedirect(reverse("admin:a2a_app_agentprofile_change", args=[1]))

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        context = {
            **(extra_context or {}),
            "title": gettext("Agent profile"),
            "subtitle": None,
            "card_page_url": reverse("admin:a2a_app_agentcard_changelist"),
            "may_view_card": request.user.has_perm("a2a_app.view_agentcard"),
        }
        return super().change_view(request, object_id, form_url, context)


@admin.register(AgentCard)
class AgentCardAdmin(admin.ModelAdmin):
    """The "Agent card" page, in the app's list: the card as agents see it, checked."""

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.has_perm("a2a_app.view_agentcard")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_urls(self) -> list[Any]:
        view = self.admin_site.admin_view(self.changelist_view)
        return [path("", view, name=f"{self.opts.app_label}_{self.opts.model_name}_changelist")]

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            shown = card_page_context(request)
        except (SigningKeyError, CardPayloadError) as exc:
            # Agents get a server error for this card too: say why instead.
            shown = {"draw_error": str(exc), **_links(request)}
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": gettext("Agent card"),
            **shown,
        }
        return TemplateResponse(request, "admin/a2a_app/agent_card.html", context)


# --- what the page shows ------------------------------------------------------------------


def card_page_context(request: HttpRequest) -> dict[str, Any]:
    """Everything the "Agent card" page shows, for ``request``'s host and user."""
    rendered = card_view.rendered_card(request)
    public = json.loads(rendered.body)
    catalogue = get_catalogue()
    identity = agent_identity(get_profile(catalogue))
    extended, extended_error = None, ""
    if catalogue.has_restricted or public["capabilities"].get("extendedAgentCard"):
        try:
            extended = card_view.extended_card(None, Caller(user=request.user), request)
        except A2AError as exc:
            extended_error = exc.message
    public_ids = {skill["id"] for skill in public["skills"]}
    extended_ids = {skill["id"] for skill in (extended or {}).get("skills", [])}
    return {
        "card": public,
        "card_json": json.dumps(public, indent=2, ensure_ascii=False),
        "etag": rendered.etag,
        "problems": validate_card(public),
        "identity": [
            (field, identity[field][0], identity[field][1], PROFILE_SETTINGS[field])
            for field in PROFILE_SETTINGS
            if field in identity
        ],
        "skills": [_skill_row(skill, public_ids, extended_ids) for skill in catalogue.skills],
        "schemes": [_scheme_row(name, scheme) for name, scheme in _schemes(public).items()],
        "requirements": public.get("securityRequirements") or [],
        "extensions": [
            {**ext, "params_json": json.dumps(ext["params"], indent=2, ensure_ascii=False)}
            if "params" in ext
            else ext
            for ext in public["capabilities"].get("extensions", [])
        ],
        "signatures": [_signature_row(s) for s in public.get("signatures", [])],
        "signing_expected": bool(a2a_settings.CARD_SIGNING_KEYS),
        "extended": extended,
        "extended_json": json.dumps(extended, indent=2, ensure_ascii=False) if extended else "",
        "extended_problems": validate_card(extended) if extended else [],
        "extended_error": extended_error,
        **_links(request),
    }


def _links(request: HttpRequest) -> dict[str, Any]:
    return {
        "card_url": reverse("a2a_app:agent-card"),
        "profile_url": reverse("admin:a2a_app_agentprofile_change", args=[1]),
        "may_edit_profile": request.user.has_perm("a2a_app.change_agentprofile"),
    }


def _skill_row(skill: Any, public_ids: set[str], extended_ids: set[str]) -> JSON:
    access = dict(Skill.Access.choices).get(skill.access, skill.access)
    if not skill.enabled:
        where = gettext("in no card: disabled")
    elif skill.id in public_ids:
        where = gettext("public card")
    elif skill.id in extended_ids:
        where = gettext("extended card only")
    else:
        where = gettext("in neither card you see")
    return {
        "info": skill,
        "access": access,
        "where": where,
        "in_public": skill.id in public_ids,
        "change_url": reverse("admin:a2a_app_skill_change", args=[skill.id]),
    }


def _schemes(card: JSON) -> JSON:
    return card.get("securitySchemes") or {}


def _scheme_row(name: str, scheme: JSON) -> JSON:
    """A scheme's v1.0 member (its kind) and its fields, without the v0.3 keys beside it."""
    for member in (
        "apiKeySecurityScheme",
        "httpAuthSecurityScheme",
        "oauth2SecurityScheme",
        "openIdConnectSecurityScheme",
        "mtlsSecurityScheme",
    ):
        if member in scheme:
            details = scheme[member] or {}
            shown = {k: v for k, v in details.items() if k != "description"}
            return {
                "name": name,
                "kind": member.removesuffix("SecurityScheme"),
                "description": details.get("description", ""),
                "details": json.dumps(shown, ensure_ascii=False) if shown else "",
            }
    return {"name": name, "kind": "?", "description": "", "details": json.dumps(scheme)}


def _signature_row(signature: JSON) -> JSON:
    """What a signature's protected header says (key id, algorithm, key set URL)."""
    header: JSON = {}
    protected = str(signature.get("protected", ""))
    try:
        decoded = base64.urlsafe_b64decode(protected + "=" * (-len(protected) % 4))
        header = json.loads(decoded)
    except (binascii.Error, ValueError):
        pass
    return {"kid": header.get("kid", "?"), "alg": header.get("alg", "?"), "jku": header.get("jku")}
