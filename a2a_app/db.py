"""Database helpers every layer may use (the models' queries among them).

:func:`statement_cursor`: a cursor that binds its parameters on the server, so that
PostgreSQL keeps the statements a2a_app sends on every request prepared instead of
planning each one anew.
"""

from __future__ import annotations

from functools import cache
from typing import Any


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
