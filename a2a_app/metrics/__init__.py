"""Prometheus metrics of the agent (opt-in: ``A2A_APP["METRICS_ENABLED"]``).

The core knows nothing of metrics: it sends signals (:mod:`a2a_app.signals`), and
:func:`install`, called by ``AppConfig.ready`` when metrics are enabled, connects the
receivers of :mod:`a2a_app.metrics.receivers` that count them. ``prometheus_client`` is
imported only then (the ``metrics`` extra). :mod:`a2a_app.metrics.urls` serves the
numbers; docs/observability.md names each metric.
"""

from __future__ import annotations

_installed = False


def install() -> None:
    """Connect the receivers that count (once per process)."""
    global _installed
    if _installed:
        return
    from a2a_app.metrics import receivers

    receivers.connect()
    _installed = True
