"""The Prometheus scrape endpoint: the numbers of every process, for whoever may read them.

Who may: a client that sends ``Authorization: Bearer <METRICS_TOKEN>``, a client from
``METRICS_ALLOWED_NETWORKS``, or a signed-in superuser (a look from the browser). Anyone
else gets 401 with ``WWW-Authenticate: Bearer`` (no token sent) or 403. With metrics off
the URL answers 404, as if it were not there.
"""

from __future__ import annotations

import hmac
import ipaddress
import os

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache

from a2a_app.bindings.http import client_address
from a2a_app.conf import a2a_settings


def may_read(request: HttpRequest) -> bool:
    token = a2a_settings.METRICS_TOKEN
    scheme, _, sent = request.headers.get("Authorization", "").partition(" ")
    if token and scheme.lower() == "bearer":
        return hmac.compare_digest(sent.strip().encode(), str(token).encode())
    if a2a_settings.METRICS_ALLOWED_NETWORKS and _from_allowed_network(request):
        return True
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_active and user.is_superuser)


def _from_allowed_network(request: HttpRequest) -> bool:
    try:
        address = ipaddress.ip_address(client_address(request).split("%")[0])
    except ValueError:
        return False
    return any(
        address in ipaddress.ip_network(network, strict=False)
        for network in a2a_settings.METRICS_ALLOWED_NETWORKS
    )


@never_cache
def metrics(request: HttpRequest) -> HttpResponse:
    if not a2a_settings.METRICS_ENABLED:
        raise Http404("Metrics are off (A2A_APP['METRICS_ENABLED'])")
    if not may_read(request):
        if "Authorization" in request.headers:
            return HttpResponse("Forbidden\n", status=403, content_type="text/plain")
        response = HttpResponse("Unauthorized\n", status=401, content_type="text/plain")
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest

    registry = REGISTRY
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # Every process's files, summed: this process's own numbers are among them.
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
