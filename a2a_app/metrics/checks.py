"""System checks of the metrics and log settings (ids a2a_app.E180–E189, W180–W189).

Registered whether or not metrics are on, so turning them on without the client
installed is caught at start-up rather than at the first scrape.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import os
from typing import Any

from django.core.checks import Error, Tags, Warning, register

from a2a_app.conf import a2a_settings


@register()
def check_metrics(app_configs: Any = None, **kwargs: Any) -> list:
    errors: list = []
    for network in a2a_settings.METRICS_ALLOWED_NETWORKS:
        try:
            ipaddress.ip_network(str(network), strict=False)
        except ValueError:
            errors.append(
                Error(
                    f"A2A_APP['METRICS_ALLOWED_NETWORKS'] has {network!r}, not a network.",
                    hint='Write networks in CIDR form: "10.0.0.0/8", "127.0.0.1/32", "::1/128".',
                    id="a2a_app.E182",
                )
            )
    if not a2a_settings.METRICS_ENABLED:
        return errors
    if importlib.util.find_spec("prometheus_client") is None:
        errors.append(
            Error(
                "A2A_APP['METRICS_ENABLED'] is on but prometheus_client is not installed.",
                hint='pip install "django-a2a-app[metrics]" (or prometheus-client).',
                id="a2a_app.E180",
            )
        )
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory and not (os.path.isdir(directory) and os.access(directory, os.W_OK)):
        errors.append(
            Error(
                f"PROMETHEUS_MULTIPROC_DIR ({directory}) is not a writable directory.",
                hint="Create it before the processes start (and empty it on each deploy); "
                "every web and worker process writes its numbers there.",
                id="a2a_app.E181",
            )
        )
    return errors


@register(Tags.security, deploy=True)
def check_metrics_access(app_configs: Any = None, **kwargs: Any) -> list:
    if not a2a_settings.METRICS_ENABLED:
        return []
    if a2a_settings.METRICS_TOKEN or a2a_settings.METRICS_ALLOWED_NETWORKS:
        return []
    return [
        Warning(
            "Metrics are on but neither METRICS_TOKEN nor METRICS_ALLOWED_NETWORKS is set: "
            "only signed-in superusers can read them, so Prometheus cannot scrape.",
            hint="Set A2A_APP['METRICS_TOKEN'] (from the environment) and give Prometheus "
            "the same token (docs/observability.md).",
            id="a2a_app.W180",
        )
    ]
