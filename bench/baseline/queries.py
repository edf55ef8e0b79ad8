"""Counting the database queries and the requests of a server process.

* Queries: a wrapper (``connection.execute_wrapper``) is added to each database
  connection when it is opened (``connection_created``), so it sees every thread's
  queries: the ASGI handler's per-request threads, gunicorn's threads, stream threads.
* Requests: ``RequestCounter``, the outermost middleware (sync and async, so it adds no
  thread hop under ASGI), counts every request but ``/bench/stats``.

``/bench/stats`` reads both; the suite divides the differences. ``BENCH_LOG_QUERIES=1``
also prints every query (with its thread) to stderr, to see where a count comes from.
"""

from __future__ import annotations

import sys
import threading

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.db.backends.signals import connection_created

STATS_PATH = "/bench/stats"

_lock = threading.Lock()
_queries = 0
_requests = 0
_log = False


def _count_query(execute, sql, params, many, context):
    global _queries
    with _lock:
        _queries += 1
    if _log:
        print(f"bench query [{threading.current_thread().name}] {sql[:300]}", file=sys.stderr)
    return execute(sql, params, many, context)


def _on_connect(sender, connection, **kwargs) -> None:
    if _count_query not in connection.execute_wrappers:
        connection.execute_wrappers.append(_count_query)


def install(log: bool = False) -> None:
    """Count every query; with ``log``, also print each one to stderr (diagnosis)."""
    global _log
    _log = log
    connection_created.connect(_on_connect, dispatch_uid="bench.count_queries")


def _count_request(request) -> None:
    global _requests
    if request.path != STATS_PATH:
        with _lock:
            _requests += 1


def read() -> dict[str, int]:
    with _lock:
        return {"queries": _queries, "requests": _requests}


class RequestCounter:
    sync_capable = True
    async_capable = True

    def __init__(self, get_response) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request):
        if self.is_async:
            return self._acall(request)
        response = self.get_response(request)
        _count_request(request)
        return response

    async def _acall(self, request):
        response = await self.get_response(request)
        _count_request(request)
        return response
