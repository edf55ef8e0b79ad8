"""Writing a task row and its new child rows in one round trip.

A :class:`~a2a_app.core.updates.TaskUpdate` writes the task (insert or update) and new
history messages, artifacts and events. Through the ORM that is a query each, and on a
SendMessage the Python that builds and binds them costs more than everything else the
request does. On PostgreSQL :func:`write` sends one statement instead: data-modifying
CTEs ahead of the last INSERT, each table's rows passed as one JSON array that
``jsonb_populate_recordset`` turns into rows of that table::

    WITH w0 AS (INSERT INTO task (...) SELECT ... FROM jsonb_populate_recordset(NULL::task, %s)),
         w1 AS (INSERT INTO taskmessage (...) SELECT ... FROM jsonb_populate_recordset(...))
    INSERT INTO taskevent (...) SELECT ... FROM jsonb_populate_recordset(...) RETURNING id

One parameter per table keeps the binding cheap (one ``json.dumps``, no per-value
quoting). The parts of one statement run against one snapshot in an unspecified order;
that is safe here because no part reads another's rows and Django creates PostgreSQL
foreign keys ``DEFERRABLE INITIALLY DEFERRED`` (checked at commit). The task's values
go through each field's ``pre_save`` and ``get_prep_value`` (but values those would return
unchanged, such as a ``str`` for a ``CharField``); the new rows are given as
plain dicts of attribute values (no model instances: building five of them cost as much
as the statement), JSON-ready but for datetimes, UUIDs and Decimals, which are written as
strings. PostgreSQL's input functions read them back from the JSON text.
On PostgreSQL, as with ``bulk_create``, no ``pre_save``/``post_save`` model signals are
sent for these rows, the task's included: a2a_app's own signals (``a2a_app.signals``) say
what happened to a task.

Other databases get the ORM's ``save`` and ``bulk_create`` (SQLite is in-process: a query
there costs no round trip).
"""

from __future__ import annotations

import datetime
import decimal
import json
import uuid
from collections.abc import Sequence
from functools import cache
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections, models
from django.db.models import Field

from a2a_app.db import statement_cursor

_ABSENT = object()

#: libpq's PQTransactionStatus for "no transaction open" (psycopg 3 and psycopg2 alike).
_IDLE = 0

#: New rows of one model, as ``{attname: value}`` dicts; fields left out get their default.
Rows = tuple[type[models.Model], Sequence[dict[str, Any]]]


def write(
    instance: models.Model,
    *,
    is_new: bool,
    update_fields: Sequence[str],
    tables: Sequence[Rows],
    notify: tuple[str, str] | None = None,
) -> list[Any]:
    """Insert (or update ``update_fields`` of) ``instance``, then the rows of each table.

    Returns the primary keys of the last table's new rows, in order (what a following
    write may refer to); none when that table has no rows. ``notify`` (channel, payload):
    on PostgreSQL, the same statement calls ``pg_notify``, which PostgreSQL sends when
    the transaction commits (and never if it rolls back); ignored elsewhere.
    """
    wants_keys = bool(tables) and bool(tables[-1][1])
    tables = [(model, rows) for model, rows in tables if rows]
    connection = connections[DEFAULT_DB_ALIAS]  # the wrapper itself, not the proxy
    if connection.vendor != "postgresql":
        if is_new:
            instance.save(force_insert=True)
        else:
            instance.save(update_fields=update_fields)
        created: list[models.Model] = []
        for model, rows in tables:
            created = model.objects.bulk_create([model(**row) for row in rows])
        return [obj.pk for obj in created] if wants_keys else []
    parts = [_insert_instance(instance) if is_new else _update(instance, update_fields)]
    parts.extend(_insert_rows(model, rows) for model, rows in tables)
    *ctes, (sql, main_params) = parts
    if notify is not None and tables:
        # A SELECT in a CTE runs only if the statement reads it: joined to the last
        # INSERT's rows, it runs (at least once: those rows are never empty; PostgreSQL
        # folds identical notifications of one transaction into one).
        sql += " CROSS JOIN (SELECT pg_notify(%s, %s)) AS notified"
        main_params = [*main_params, *notify]
    pk = tables[-1][0]._meta.pk if wants_keys else None
    returning = pk is not None and pk.db_returning
    if returning:
        sql += f" RETURNING {_quote(pk.column)}"
    params: list[Any] = []
    if ctes:
        sql = "WITH " + ", ".join(f"w{i} AS ({s})" for i, (s, _) in enumerate(ctes)) + " " + sql
        for _, cte_params in ctes:
            params.extend(cte_params)
    params.extend(main_params)
    with statement_cursor(connection) as cursor:
        cursor.execute(sql, params)
        # PostgreSQL returns the rows of one INSERT ... SELECT in insertion order
        # (bulk_create relies on this too).
        keys = [value for (value,) in cursor.fetchall()] if returning else []
    instance._state.adding = False
    instance._state.db = connection.alias
    return keys


def writes_in_one_statement(using: str = DEFAULT_DB_ALIAS) -> bool:
    """Does :func:`write` send one statement (PostgreSQL) rather than a query per table?"""
    return connections[using].vendor == "postgresql"


def transaction_is_empty(using: str = DEFAULT_DB_ALIAS) -> bool:
    """In an atomic block that has sent PostgreSQL nothing yet and has no on-commit hooks?

    psycopg sends BEGIN with a transaction's first statement and no COMMIT for one that
    sent none, so such a block costs no round trip, and one statement issued after it
    is a transaction of its own: it saves the BEGIN and COMMIT round trips (on a new
    inline task, ~0.2 ms of ~1.3 of wall time in the request).
    """
    connection = connections[using]
    if (
        connection.vendor != "postgresql"
        or not connection.in_atomic_block
        or connection.run_on_commit
        or connection.connection is None
    ):
        return False
    return connection.connection.info.transaction_status == _IDLE


def _quote(name: str) -> str:
    return connections[DEFAULT_DB_ALIAS].ops.quote_name(name)


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, uuid.UUID | decimal.Decimal):
        return str(value)
    raise TypeError(f"{type(value).__name__} cannot be written as JSON")


#: Made once: json.dumps with options makes a new encoder per call.
_ENCODER = json.JSONEncoder(default=_json_default, separators=(",", ":"))


def encode_json(value: Any) -> str:
    """``value`` as the statements write JSON (compact, ASCII, dates in ISO 8601)."""
    return _ENCODER.encode(value)


@cache
def _insert_sql(model: type[models.Model], with_pk: bool) -> tuple[tuple[Field, ...], str]:
    """The fields an INSERT writes (a database-made key only if given) and its SQL."""
    fields = tuple(
        f for f in model._meta.concrete_fields if with_pk or not (f.primary_key and f.db_returning)
    )
    table = _quote(model._meta.db_table)
    columns = ", ".join(_quote(f.column) for f in fields)
    sql = (
        f"INSERT INTO {table} ({columns}) SELECT {columns} "
        f"FROM jsonb_populate_recordset(NULL::{table}, %s::jsonb)"
    )
    return fields, sql


#: Field classes whose ``pre_save`` and ``get_prep_value`` hand back a value of these
#: types unchanged (exact classes: a subclass may convert). Naive datetimes excepted.
_KEPT_TYPES: dict[type[Field], frozenset[type]] = {
    models.CharField: frozenset({str}),
    models.TextField: frozenset({str}),
    models.BooleanField: frozenset({bool}),
    models.IntegerField: frozenset({int}),
    models.PositiveIntegerField: frozenset({int}),
    models.PositiveSmallIntegerField: frozenset({int}),
    models.BigIntegerField: frozenset({int}),
    models.UUIDField: frozenset({uuid.UUID}),
    models.DateTimeField: frozenset({datetime.datetime}),
    models.JSONField: frozenset({dict, list}),
}


def _kept_types(field: Field) -> frozenset[type] | None:
    """The value types ``field`` writes as they are; None: every value is prepared
    (an ``auto_now`` field sets its own)."""
    if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
        return None
    return _KEPT_TYPES.get(type(field), frozenset())


@cache
def _instance_plan(
    model: type[models.Model], with_pk: bool
) -> tuple[str, tuple[tuple[Field, str, str, frozenset[type] | None], ...]]:
    """:func:`_insert_sql`'s statement, and for each field: attname, column, kept types."""
    fields, sql = _insert_sql(model, with_pk)
    return sql, tuple((f, f.attname, f.column, _kept_types(f)) for f in fields)


def _insert_instance(obj: models.Model) -> tuple[str, list[Any]]:
    pk = obj._meta.pk
    sql, plan = _instance_plan(type(obj), not (pk.db_returning and obj.pk is None))
    values = obj.__dict__
    row = {}
    for field, attname, column, kept in plan:
        # Each field's pre_save and get_prep_value, skipped for values they would
        # return unchanged: for a new task they were a third of this module's Python.
        value = values.get(attname, _ABSENT)
        if (
            kept is None
            or value is _ABSENT
            or (value is not None and type(value) not in kept)
            or (type(value) is datetime.datetime and value.tzinfo is None)
        ):
            value = field.get_prep_value(field.pre_save(obj, True))
        if type(value) is datetime.datetime:
            value = value.isoformat()  # as _json_default would, without the call back
        row[column] = value
    return sql, [encode_json([row])]


def _insert_rows(
    model: type[models.Model], rows: Sequence[dict[str, Any]]
) -> tuple[str, list[Any]]:
    fields, sql = _insert_sql(model, False)
    values = [
        {f.column: row[f.attname] if f.attname in row else f.get_default() for f in fields}
        for row in rows
    ]
    return sql, [encode_json(values)]


def _update(obj: models.Model, field_names: Sequence[str]) -> tuple[str, list[Any]]:
    meta = obj._meta
    fields = [meta.get_field(name) for name in field_names]
    table = _quote(meta.db_table)
    assignments = ", ".join(f"{_quote(f.column)} = new.{_quote(f.column)}" for f in fields)
    sql = (
        f"UPDATE {table} SET {assignments} "
        f"FROM jsonb_populate_recordset(NULL::{table}, %s::jsonb) AS new "
        f"WHERE {table}.{_quote(meta.pk.column)} = %s"
    )
    row = {f.column: f.get_prep_value(f.pre_save(obj, False)) for f in fields}
    return sql, [encode_json([row]), str(obj.pk)]
