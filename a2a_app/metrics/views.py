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
from pathlib import Path

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


def forget_dead_processes(directory: str) -> None:
    """Drop the live gauges of processes that are gone (their streams are closed).

    A process marks itself dead when it exits cleanly where it can (a Celery child;
    a web process at interpreter exit), but uvicorn ends its workers by re-raising
    SIGTERM, and a killed process never gets to. The directory is one host's (one PID
    namespace), so a PID that no longer exists is a process that died.
    """
    from prometheus_client import multiprocess

    for path in Path(directory).glob("gauge_live*_*.db"):
        pid = path.stem.rpartition("_")[2]
        if pid.isdigit() and not _alive(int(pid)):
            multiprocess.mark_process_dead(int(pid), directory)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return True


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

        forget_dead_processes(os.environ["PROMETHEUS_MULTIPROC_DIR"])
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
