"""System checks of the pages for people (registered by the app's ``ready()``)."""

from __future__ import annotations

from typing import Any

from django.core.checks import Tags, Warning, register
from django.urls import NoReverseMatch, reverse

from a2a_app.bindings.security import anonymous_allowed, security_schemes
from a2a_app.conf import SETTING_NAME, a2a_settings


def _console_can_sign_in() -> bool:
    """The console sends one credential: an API key in a header the card declares."""
    for scheme in security_schemes().values():
        api_key = scheme.get("apiKeySecurityScheme") if isinstance(scheme, dict) else None
        if api_key and api_key.get("location") == "header":
            return True
    return False


@register(Tags.urls)
def check_agent_page(app_configs: Any = None, **kwargs: Any) -> list:
    try:
        reverse("a2a_pages:agent")
    except NoReverseMatch:
        return []  # the page is not included: nothing to check
    if not a2a_settings.AGENT_PAGE_CONSOLE or anonymous_allowed() or _console_can_sign_in():
        return []
    return [
        Warning(
            "The agent page's console cannot call this agent: calls need credentials and "
            "the card declares no API-key header the console could send.",
            hint=f"Add 'a2a_app.authentication.ApiKeyAuthentication' to {SETTING_NAME}"
            f"['AUTHENTICATION_CLASSES'], or set {SETTING_NAME}['AGENT_PAGE_CONSOLE'] = False.",
            id="a2a_app.W120",
        )
    ]
