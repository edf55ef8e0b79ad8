"""Writing a task row and its new child rows in one round trip.

A :class:`~a2a_app.updates.TaskUpdate` writes the task (insert or update) and new
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
foreign keys ``DEFERRABLE INITIALLY DEFERRED`` (checked at commit). Values go through
each field's ``pre_save`` and ``get_prep_value``, then PostgreSQL's input functions read
them from JSON text (timestamps as ISO 8601, UUIDs as strings, JSON fields as JSON).
Like ``bulk_create``, no ``pre_save``/``post_save`` model signals are sent: a2a_app's own
signals (``a2a_app.signals``) say what happened to a task.

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


def write(
    instance: models.Model,
    *,
    is_new: bool,
    update_fields: Sequence[str],
    batches: Sequence[Sequence[models.Model]],
) -> None:
    """Insert (or update ``update_fields`` of) ``instance``, then insert each batch.

    A batch is new instances of one model. The last batch's instances get their
    database-made primary keys (what a following write may refer to).
    """
    batches = [batch for batch in batches if batch]
    connection = connections[DEFAULT_DB_ALIAS]  # the wrapper itself, not the proxy
    if connection.vendor != "postgresql":
        if is_new:
            instance.save(force_insert=True)
        else:
            instance.save(update_fields=update_fields)
        for batch in batches:
            type(batch[0]).objects.bulk_create(batch)
        return
    parts = [_insert([instance]) if is_new else _update(instance, update_fields)]
    parts.extend(_insert(batch) for batch in batches)
    last = batches[-1] if batches else []
    returning = bool(last) and _makes_its_key(last[0])
    *ctes, (sql, main_params) = parts
    if returning:
        sql += f" RETURNING {_quote(last[0]._meta.pk.column)}"
    params: list[Any] = []
    if ctes:
        sql = "WITH " + ", ".join(f"w{i} AS ({s})" for i, (s, _) in enumerate(ctes)) + " " + sql
        for _, cte_params in ctes:
            params.extend(cte_params)
    params.extend(main_params)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        if returning:
            pk = last[0]._meta.pk
            # PostgreSQL returns the rows of one INSERT ... SELECT in insertion order
            # (bulk_create relies on this too).
            for obj, (value,) in zip(last, cursor.fetchall(), strict=True):
                setattr(obj, pk.attname, value)
    for obj in (instance, *(obj for batch in batches for obj in batch)):
        obj._state.adding = False
        obj._state.db = connection.alias


def _quote(name: str) -> str:
    return connections[DEFAULT_DB_ALIAS].ops.quote_name(name)


def _makes_its_key(obj: models.Model) -> bool:
    """The database makes this instance's primary key (an AutoField not yet set)."""
    pk = obj._meta.pk
    return pk.db_returning and getattr(obj, pk.attname) is None


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, uuid.UUID | decimal.Decimal):
        return str(value)
    raise TypeError(f"{type(value).__name__} cannot be written as JSON")


def _rows_json(objs: Sequence[models.Model], fields: Sequence[Field], add: bool) -> str:
    rows = [{f.column: f.get_prep_value(f.pre_save(obj, add)) for f in fields} for obj in objs]
    return json.dumps(rows, default=_json_default, separators=(",", ":"))


@cache
def _insert_sql(model: type[models.Model], with_pk: bool) -> tuple[list[Field], str]:
    """The fields an INSERT writes (a database-made key only if given) and its SQL."""
    fields = [
        f for f in model._meta.concrete_fields if with_pk or not (f.primary_key and f.db_returning)
    ]
    table = _quote(model._meta.db_table)
    columns = ", ".join(_quote(f.column) for f in fields)
    sql = (
        f"INSERT INTO {table} ({columns}) SELECT {columns} "
        f"FROM jsonb_populate_recordset(NULL::{table}, %s::jsonb)"
    )
    return fields, sql


def _insert(objs: Sequence[models.Model]) -> tuple[str, list[Any]]:
    fields, sql = _insert_sql(type(objs[0]), not _makes_its_key(objs[0]))
    return sql, [_rows_json(objs, fields, add=True)]


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
    return sql, [_rows_json([obj], fields, add=False), str(obj.pk)]
