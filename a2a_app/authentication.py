"""DRF authentication classes for calling agents: API keys, and HTTP Basic with a guard.

List them in ``A2A_APP["AUTHENTICATION_CLASSES"]``. The agent card declares each one
(:mod:`a2a_app.bindings.security`), so what the card says is what is checked.

* :class:`ApiKeyAuthentication` reads an :class:`~a2a_app.models.ApiKey` from the header
  ``A2A_APP["API_KEY_HEADER"]`` (``X-API-Key``). Only that header: the card names one
  place for the key, and ``Authorization`` stays free for the Basic or Bearer schemes a
  site adds (a key there would be taken for their credential, or theirs for a key).
* :class:`BasicAuthentication` is DRF's, with a failure counter in Django's cache per
  client address and per user name: after ``BASIC_AUTH_MAX_FAILURES`` failures within
  ``BASIC_AUTH_LOCKOUT_SECONDS`` the next attempt is refused before the password is
  hashed (429 with ``Retry-After``), so guessing is slow and cannot burn the CPU on
  PBKDF2.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.core.cache import cache
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from a2a_app.conf import a2a_settings
from a2a_app.models import ApiKey

JSON = dict[str, Any]


class ApiKeyAuthentication(authentication.BaseAuthentication):
    """``X-API-Key: a2a_…``: the key's user, with the key's scopes (see ``Caller``)."""

    #: The ``WWW-Authenticate`` scheme of the challenge; API keys have no registered HTTP
    #: scheme, so the challenge names the header to send.
    challenge_scheme = "ApiKey"

    @staticmethod
    def header_name() -> str:
        return a2a_settings.API_KEY_HEADER

    def authenticate(self, request: Request) -> tuple[Any, ApiKey] | None:
        # META, not request.headers (which copies every header first).
        raw = request.META.get("HTTP_" + self.header_name().upper().replace("-", "_"))
        if raw is None:
            return None
        raw = raw.strip()
        key = ApiKey.find(raw) if raw else None
        if key is None or not key.is_usable:
            # One message for unknown, revoked and expired keys: which it is helps only
            # whoever holds a key that is not theirs.
            raise exceptions.AuthenticationFailed("Invalid, expired or revoked API key")
        key.touch()
        return key.user, key

    def authenticate_header(self, request: Request) -> str:
        return f'{self.challenge_scheme} realm="a2a", header="{self.header_name()}"'


class BasicAuthentication(authentication.BasicAuthentication):
    """HTTP Basic against Django users, refusing guessers before the password hash."""

    def authenticate_credentials(
        self, userid: str, password: str, request: Request | None = None
    ) -> tuple[Any, None]:
        counters = _failure_counters(userid, request)
        limit = a2a_settings.BASIC_AUTH_MAX_FAILURES
        if limit and any((cache.get(key) or 0) >= limit for key in counters):
            raise exceptions.Throttled(
                wait=a2a_settings.BASIC_AUTH_LOCKOUT_SECONDS,
                detail="Too many failed sign-ins; try again later",
            )
        try:
            return super().authenticate_credentials(userid, password, request)
        except exceptions.AuthenticationFailed:
            for key in counters:
                _count(key)
            raise


def _failure_counters(userid: str, request: Request | None) -> list[str]:
    # The user name is hashed: cache keys must be short and free of odd characters.
    user = hashlib.sha256(userid.encode()).hexdigest()[:32]
    keys = [f"a2a_app:basic-fail:user:{user}"]
    address = request.META.get("REMOTE_ADDR") if request is not None else None
    if address:
        keys.append(f"a2a_app:basic-fail:ip:{address}")
    return keys


def _count(key: str) -> None:
    # The window starts at the first failure and is not extended by later ones.
    timeout = a2a_settings.BASIC_AUTH_LOCKOUT_SECONDS
    if not cache.add(key, 1, timeout):
        try:
            cache.incr(key)
        except ValueError:  # expired between add() and incr()
            cache.add(key, 1, timeout)


# --- what the card declares for a class (a2a_app.bindings.security assembles the card) ----


def scheme_of(authenticator_class: type) -> tuple[str, JSON] | None:
    """The card's ``(name, SecurityScheme)`` for one authentication class, or None."""
    declared = getattr(authenticator_class, "a2a_security_scheme", None)
    if declared is not None:
        return declared() if callable(declared) else tuple(declared)
    if issubclass(authenticator_class, ApiKeyAuthentication):
        header = authenticator_class.header_name()
        return "apiKey", {"apiKeySecurityScheme": {"location": "header", "name": header}}
    if issubclass(authenticator_class, authentication.BasicAuthentication):
        return "basic", {"httpAuthSecurityScheme": {"scheme": "Basic"}}
    if issubclass(authenticator_class, authentication.TokenAuthentication):
        keyword = authenticator_class.keyword
        return keyword.lower(), {"httpAuthSecurityScheme": {"scheme": keyword}}
    return None


def undeclared_classes() -> list[type]:
    """Configured classes the card cannot describe (sessions are left out on purpose)."""
    return [
        cls
        for cls in a2a_settings.AUTHENTICATION_CLASSES
        if scheme_of(cls) is None and not issubclass(cls, authentication.SessionAuthentication)
    ]
