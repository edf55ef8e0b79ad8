"""Which webhook URLs this site may call: the SSRF guard's policy, from settings.

:func:`url_policy` builds the :class:`~a2a_app.push.ssrf.URLPolicy` of ``A2A_APP``
(``WEBHOOK_ALLOW_HTTP``, ``WEBHOOK_ALLOWED_HOSTS``, ``WEBHOOK_ALLOWED_NETWORKS``,
conformance mode); :func:`validate_url` applies it when a config is created.

The policy is built once per process and rebuilt when a setting changes: a worker
delivering hundreds of webhooks a second vets each URL against the same object. Only
the policy is kept; every check still resolves the host anew.
"""

from __future__ import annotations

import functools
import ipaddress
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed

from a2a_app.conf import a2a_settings
from a2a_app.protocol.errors import InvalidParamsError
from a2a_app.push.ssrf import UnresolvableHostError, UnsafeURLError, URLPolicy, check_url


def url_policy() -> URLPolicy:
    """The site's policy (built on first use, again after any setting changes)."""
    return _cached_policy()


@functools.cache
def _cached_policy() -> URLPolicy:
    allow_http = a2a_settings.WEBHOOK_ALLOW_HTTP
    if allow_http is None:
        allow_http = settings.DEBUG
    networks = [ipaddress.ip_network(n) for n in a2a_settings.WEBHOOK_ALLOWED_NETWORKS]
    if a2a_settings.CONFORMANCE_MODE:
        # Conformance suites run their webhook receiver on the same machine.
        networks += [ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128")]
        allow_http = True
    return URLPolicy(
        allow_http=allow_http,
        allowed_hosts=frozenset(h.lower() for h in a2a_settings.WEBHOOK_ALLOWED_HOSTS),
        allowed_networks=tuple(networks),
    )


def _forget_policy(**kwargs: Any) -> None:
    # Any setting, not only A2A_APP: the policy also follows DEBUG.
    _cached_policy.cache_clear()


setting_changed.connect(_forget_policy)


def validate_url(url: str, field: str) -> None:
    """Refuse a webhook URL the server must never call; the error names ``field``.

    A host name that does not resolve now is accepted: DNS may be down or the receiver
    not yet deployed. Every delivery vets the URL again, and one that still does not
    resolve then is a failed attempt, retried with backoff.
    """
    try:
        check_url(url, url_policy())
    except UnresolvableHostError:
        pass
    except UnsafeURLError as exc:
        raise InvalidParamsError.for_field(field, str(exc)) from None
