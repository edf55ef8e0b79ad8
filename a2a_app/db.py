"""Database helpers every layer may use (the models' queries among them).

:func:`statement_cursor`: a cursor that binds its parameters on the server, so that
PostgreSQL keeps the statements a2a_app sends on every request prepared instead of
planning each one anew.

:func:`ensure_live_connection`: before an operation runs, trade a connection whose
server has hung up (PostgreSQL restarted or failed over) for a live one, so that the
restart costs no request an error.
"""

from __future__ import annotations

import logging
import select
from functools import cache
from typing import Any

from django.db import OperationalError

logger = logging.getLogger(__name__)

#: How many hung-up connections one call trades in at most: a pool holds up to its
#: ``max_size`` of them after a restart; past this many, the operation meets the error.
MAX_HUNG_UP = 64

# libpq's CONNECTION_OK and PQTRANS_IDLE (psycopg.pq's enums, not imported: a site on
# SQLite alone may have no PostgreSQL driver).
_CONNECTION_OK = 0
_TRANSACTION_IDLE = 0


def statement_cursor(connection: Any) -> Any:
    """A cursor of ``connection`` that binds parameters on the server (PostgreSQL with
    psycopg 3; other databases and drivers get their usual cursor).

    Django's PostgreSQL cursors bind on the client, so PostgreSQL plans every statement
    anew; planning the task write cost more than running it (~0.3 against ~0.25 ms).
    Bound on the server, psycopg prepares a statement once it has run
    ``prepare_threshold`` times on a connection, when the site's ``OPTIONS`` allow
    prepared statements at all (Django turns them off by default, for connection poolers
    such as PgBouncer in transaction mode before 1.21). The cursor is wrapped as Django
    wraps its own, so ``execute_wrapper`` and error translation apply. While queries are
    logged (``DEBUG``, ``CaptureQueriesContext``) it is Django's own cursor: the query log
    can show the SQL of a client-bound statement only.
    """
    if connection.vendor != "postgresql":
        return connection.cursor()
    cursor_class = _server_binding_cursor_class()
    if cursor_class is None or connection.queries_logged:
        return connection.cursor()
    connection.ensure_connection()
    connection.validate_thread_sharing()
    return connection.make_cursor(cursor_class(connection.connection))


@cache
def _server_binding_cursor_class() -> type | None:
    """Django's psycopg 3 server-binding cursor; None with psycopg2 (imported on first use:
    a site on SQLite alone may have no PostgreSQL driver)."""
    from django.db.backends.postgresql.psycopg_any import is_psycopg3

    if not is_psycopg3:
        return None
    from django.db.backends.postgresql.base import ServerBindingCursor

    return ServerBindingCursor


def ensure_live_connection(connection: Any) -> None:
    """Make sure ``connection`` holds a database connection whose server is still there.

    A connection that sat idle in the pool (or, with ``CONN_MAX_AGE``, in the thread)
    while PostgreSQL restarted is found out only when a query fails on it: after a
    restart, each one would answer one request with an internal error, up to the pool's
    size per process. Its socket tells beforehand, for the price of a poll: the server's
    goodbye (an error and end of file) is waiting to be read on a connection that should
    have nothing to read. Such a connection is closed (the pool drops it and opens
    another) and the next one taken. Django's ``CONN_HEALTH_CHECKS`` asks the server
    instead, a round trip on every request.

    Only outside transactions: inside one the connection is in use and must be kept.
    If no live connection can be had (the database is down), the error is Django's.
    """
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return
    for _ in range(MAX_HUNG_UP):
        try:
            connection.ensure_connection()
        except OperationalError:
            # Taking it from the pool failed on a connection already known to be lost
            # (psycopg refuses to use it); hand it back, to be dropped, and go on.
            if connection.connection is None:
                raise
        else:
            if not _hung_up(connection.connection):
                return
        logger.info("Dropped a database connection the server had closed")
        # Closed first: a pool takes back an open connection as a good one.
        connection.connection.close()
        connection.close()
    connection.ensure_connection()


def _hung_up(raw: Any) -> bool:
    """Has the server closed psycopg connection ``raw`` (or is it otherwise unusable)?"""
    pgconn = getattr(raw, "pgconn", None)
    if pgconn is None:  # psycopg2: no cheap look; the first query will tell
        return False
    if raw.closed or raw.broken or pgconn.status != _CONNECTION_OK:
        return True
    if pgconn.transaction_status != _TRANSACTION_IDLE:
        return False
    # An idle connection that is not listening has nothing to read, but for the server's
    # goodbye (an error, then end of file). A rare notice read the same way only costs a
    # new connection.
    readable, _, _ = select.select([raw.fileno()], [], [], 0)
    return bool(readable)
