"""A circuit breaker: after a service failed, skip it for a while instead of waiting on it.

Redis (the stream notifier) and the Celery broker are called after a task's change is
committed; a hung one must not hold each request for its timeout. One failure opens the
breaker for ``OUTAGE_RETRY_SECONDS``: calls are skipped (the callers have a fallback:
the database notifier, the sweep that hands SUBMITTED tasks to the broker again), then
the next call tries the service again.
"""

from __future__ import annotations

import logging
import time

from a2a_app.conf import a2a_settings

logger = logging.getLogger("a2a_app")


class Breaker:
    def __init__(self, service: str) -> None:
        self.service = service
        self._skip_until = 0.0

    @property
    def is_open(self) -> bool:
        """Skip the service now?"""
        return time.monotonic() < self._skip_until

    def failed(self) -> None:
        if not self.is_open:
            logger.warning(
                "%s failed or timed out; skipping it for %s s",
                self.service,
                a2a_settings.OUTAGE_RETRY_SECONDS,
            )
        self._skip_until = time.monotonic() + a2a_settings.OUTAGE_RETRY_SECONDS

    def succeeded(self) -> None:
        self._skip_until = 0.0
