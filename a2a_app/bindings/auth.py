"""Who is calling, from the HTTP request: the configured DRF authenticators.

Callers are identified by the DRF authentication classes named in
``A2A_APP["AUTHENTICATION_CLASSES"]``; nobody identified means anonymous
(:data:`a2a_app.caller.ANONYMOUS`). Invalid credentials are an error.
"""

from __future__ import annotations

from django.http import HttpRequest
from rest_framework import exceptions
from rest_framework.request import Request

from a2a_app.caller import ANONYMOUS, Caller
from a2a_app.conf import a2a_settings
from a2a_app.protocol.errors import AuthenticationRequiredError


def authenticate(request: HttpRequest) -> Caller:
    """Run the configured authenticators; invalid credentials are an error, none is anonymous."""
    authenticators = a2a_settings.AUTHENTICATION_CLASSES
    if not authenticators:
        return ANONYMOUS
    drf_request = Request(request)
    for authenticator_class in authenticators:
        authenticator = authenticator_class()
        try:
            result = authenticator.authenticate(drf_request)
        except exceptions.AuthenticationFailed as exc:
            challenge = authenticator.authenticate_header(drf_request)
            headers = {"WWW-Authenticate": challenge} if challenge else {}
            raise AuthenticationRequiredError(str(exc.detail), headers=headers) from None
        if result is not None:
            return Caller(user=result[0])
    return ANONYMOUS


def authentication_challenge(request: HttpRequest) -> str:
    """The ``WWW-Authenticate`` challenge of the first authenticator that has one."""
    drf_request = Request(request)
    for authenticator_class in a2a_settings.AUTHENTICATION_CLASSES:
        challenge = authenticator_class().authenticate_header(drf_request)
        if challenge:
            return challenge
    return ""
