"""Who is calling, from the HTTP request: the configured DRF authenticators.

Callers are identified by the DRF authentication classes named in
``A2A_APP["AUTHENTICATION_CLASSES"]``. Credentials that do not identify anyone are an
error (401), never a quiet fall back to anonymous: an unknown or revoked key, a wrong
password, and also an ``Authorization`` header that no configured class reads (an
unknown ``Bearer`` token). Nobody identified and nothing presented is the anonymous
caller, when :func:`~a2a_app.bindings.security.anonymous_allowed`; otherwise 401 with a
challenge for every declared scheme.

A caller that came with an API key (any credential whose DRF ``auth`` object has
``caller_scopes()``) carries its scopes.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from rest_framework import exceptions
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import BaseParser
from rest_framework.request import Request

from a2a_app.bindings.headers import header
from a2a_app.bindings.security import anonymous_allowed
from a2a_app.caller import ANONYMOUS, Caller
from a2a_app.conf import a2a_settings
from a2a_app.protocol.errors import (
    AuthenticationRequiredError,
    PermissionDeniedError,
    TooManyAuthenticationFailuresError,
)


class _UnreadBody(BaseParser):
    """What authenticators see of the body: nothing. The binding reads the body, once,
    under its size limit; DRF's CSRF check asks for form data, and gets none, so the
    token must come in the X-CSRFToken header."""

    media_type = "*/*"

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> dict:
        return {}


#: What authenticators' requests are made with: no parser of the body, and DRF's
#: default negotiator (nothing here negotiates); both keep no state, so one each will do.
_PARSERS = (_UnreadBody(),)
_NEGOTIATOR = DefaultContentNegotiation()


def _drf_request(request: HttpRequest) -> Request:
    return Request(request, parsers=_PARSERS, negotiator=_NEGOTIATOR)


def challenge(request: HttpRequest) -> dict[str, str]:
    """``WWW-Authenticate`` for a caller who must sign in: every configured scheme."""
    authenticators = [cls() for cls in a2a_settings.AUTHENTICATION_CLASSES]
    return _challenge_header(authenticators, _drf_request(request))


def authenticate(request: HttpRequest) -> Caller:
    """Run the configured authenticators: the caller, or the error to answer."""
    authenticators = [cls() for cls in a2a_settings.AUTHENTICATION_CLASSES]
    drf_request = _drf_request(request)
    for authenticator in authenticators:
        try:
            result = authenticator.authenticate(drf_request)
        except exceptions.AuthenticationFailed as exc:
            # The scheme the client tried comes first in the challenge.
            tried = [authenticator, *(a for a in authenticators if a is not authenticator)]
            raise _unauthenticated(str(exc.detail), tried, drf_request) from None
        except exceptions.Throttled as exc:
            raise TooManyAuthenticationFailuresError(
                str(exc.detail), retry_after=int(exc.wait or 1)
            ) from None
        except exceptions.PermissionDenied as exc:
            # SessionAuthentication's CSRF check: a signed-in browser's cookie on a
            # request that did not come from our pages.
            raise PermissionDeniedError(str(exc.detail)) from None
        if result is not None:
            user, auth = result
            scopes = getattr(auth, "caller_scopes", None)
            return Caller(user=user, scopes=scopes() if callable(scopes) else None)
    if authenticators and header(request, "Authorization") is not None:
        raise _unauthenticated(
            "The Authorization header carries a credential this agent does not accept",
            authenticators,
            drf_request,
        )
    if not anonymous_allowed():
        raise _unauthenticated("Authentication required", authenticators, drf_request)
    return ANONYMOUS


def _unauthenticated(
    message: str, authenticators: list, request: Request
) -> AuthenticationRequiredError:
    """A 401 whose ``WWW-Authenticate`` offers every configured scheme, in order (one
    challenge each, comma-separated as RFC 9110 11.6.1 allows)."""
    return AuthenticationRequiredError(message, headers=_challenge_header(authenticators, request))


def _challenge_header(authenticators: list, request: Request) -> dict[str, str]:
    challenges = [a.authenticate_header(request) for a in authenticators]
    joined = ", ".join(c for c in challenges if c)
    return {"WWW-Authenticate": joined} if joined else {}
