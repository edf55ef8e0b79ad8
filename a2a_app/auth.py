"""Who is calling: the caller scope that every task operation is checked against.

Callers are identified by the DRF authentication classes named in
``A2A_APP["AUTHENTICATION_CLASSES"]``; nobody identified means anonymous. A task
belongs to the scope that created it. Anonymous tasks are reachable by their
(unguessable) id, but an anonymous ListTasks only sees the context it names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest
from rest_framework import exceptions
from rest_framework.request import Request

from .conf import a2a_settings
from .protocol.errors import AuthenticationRequiredError

ANONYMOUS_SCOPE = ""


@dataclass(frozen=True, slots=True)
class Caller:
    user: Any = None

    @property
    def is_authenticated(self) -> bool:
        return self.user is not None and self.user.is_authenticated

    @property
    def scope(self) -> str:
        """The ``Task.owner`` value of this caller's tasks."""
        return f"user:{self.user.pk}" if self.is_authenticated else ANONYMOUS_SCOPE


ANONYMOUS = Caller()


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
            error = AuthenticationRequiredError(str(exc.detail))
            error.www_authenticate = authenticator.authenticate_header(drf_request)
            raise error from None
        if result is not None:
            return Caller(user=result[0])
    return ANONYMOUS
