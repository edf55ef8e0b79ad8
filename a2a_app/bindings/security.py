"""What the card declares about security, generated from what is enforced.

Each class in ``A2A_APP["AUTHENTICATION_CLASSES"]`` becomes one ``securitySchemes``
entry (v1.0 ProtoJSON, ``SecurityScheme`` oneof), so that the card names exactly the
credentials :mod:`a2a_app.bindings.auth` accepts:

* :class:`a2a_app.authentication.ApiKeyAuthentication` → ``apiKey``:
  ``apiKeySecurityScheme`` in the header ``API_KEY_HEADER``;
* DRF ``BasicAuthentication`` (and a2a_app's) → ``basic``: ``httpAuthSecurityScheme`` Basic;
* DRF ``TokenAuthentication`` and its subclasses → ``httpAuthSecurityScheme`` with the
  class's ``keyword`` as the scheme (``Token``, or ``Bearer`` when a site sets it);
* ``SessionAuthentication`` → nothing: a browser's session cookie (with its CSRF token)
  is not a credential another agent can obtain or send;
* any other class declares itself with an ``a2a_security_scheme`` attribute: a
  ``(name, scheme)`` pair, or a callable returning one (OAuth2 / OpenID Connect classes a
  site brings); without it the class is not declared (check ``a2a_app.W030`` says so).

:func:`a2a_app.authentication.scheme_of` maps one class; this module assembles the card's
fields and says whether anonymous calls are served.

``securityRequirements`` lists each scheme as an alternative when anonymous calls are
not allowed, and nothing otherwise (a requirement means "send one of these"). The
settings ``SECURITY_SCHEMES`` / ``SECURITY_REQUIREMENTS`` replace what is generated.
"""

from __future__ import annotations

from typing import Any

from a2a_app.authentication import scheme_of
from a2a_app.conf import a2a_settings

JSON = dict[str, Any]


def security_schemes() -> JSON:
    """The card's ``securitySchemes``: the setting, or one per declarable class."""
    if a2a_settings.SECURITY_SCHEMES is not None:
        return dict(a2a_settings.SECURITY_SCHEMES)
    schemes: JSON = {}
    for cls in a2a_settings.AUTHENTICATION_CLASSES:
        found = scheme_of(cls)
        if found is not None:
            schemes.setdefault(found[0], found[1])
    return schemes


def security_requirements() -> list[JSON]:
    """The card's ``securityRequirements``: the setting, or any one scheme when anonymous
    calls are not allowed."""
    if a2a_settings.SECURITY_REQUIREMENTS is not None:
        return list(a2a_settings.SECURITY_REQUIREMENTS)
    if a2a_settings.ALLOW_ANONYMOUS:
        return []
    return [{"schemes": {name: {"list": []}}} for name in security_schemes()]


def anonymous_allowed() -> bool:
    """Whether a call without credentials is served (as the anonymous caller)."""
    return bool(a2a_settings.ALLOW_ANONYMOUS) and not security_requirements()
