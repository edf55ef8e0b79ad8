"""ListTasks on PostgreSQL in one prepared statement, with the page's JSON made by the database.

The portable :func:`a2a_app.core.store.list_tasks` costs four ORM queries (the count, the
page, the sizes ``MAX_PAGE_BYTES`` needs, the history; a fifth with artifacts) and fifty
model instances: ~8 ms of the server's CPU for a page of 50, where GetTask costs ~1.
Here one hand-written statement, bound on the server so that PostgreSQL keeps it
prepared (:func:`a2a_app.db.statement_cursor`), returns the ``totalSize`` (from the
kept counts, or a COUNT with ``statusTimestampAfter``, as the portable path) and the page
itself as JSON text: the database writes each task (its status message, metadata,
trimmed history and artifacts as they are stored; the history from the task row when
the row holds all of it, ``Task.short_history``), keeps the tasks that fit
``MAX_PAGE_BYTES`` (measured as the portable path measures them) and says which was the
last, for the page token. The text goes into the answer as it is
(:class:`~a2a_app.protocol.encoding.RawJSON`): the server neither reads it into Python
objects nor writes them out again, which cost a page of 50 more than the statement.

The answer is the portable path's, key for key (tests/test_task_pages.py compares them).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any

from django.db import connection

from a2a_app.caller import Caller
from a2a_app.conf import a2a_settings
from a2a_app.db import statement_cursor
from a2a_app.models import Task, TaskArtifact, TaskCount, TaskMessage
from a2a_app.protocol.encoding import RawJSON
from a2a_app.protocol.params import ListTasksRequest

JSON = dict[str, Any]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

#: A status timestamp as format_timestamp writes it: UTC, milliseconds (truncated), "Z".
_WIRE_TIMESTAMP = (
    "to_char(t.status_timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
)


def applies() -> bool:
    """Does ListTasks take this path (PostgreSQL), rather than the portable one?"""
    return connection.vendor == "postgresql"


def list_tasks(
    request: ListTasksRequest, caller: Caller, cursor: tuple[datetime, Any] | None
) -> JSON:
    """What :func:`a2a_app.core.store.list_tasks` answers, for an allowed caller; its
    ``tasks`` is the page as the database wrote it (a :class:`RawJSON`)."""
    from a2a_app.core.store import page_token  # store imports this module

    context_id = request.context_id or None
    state = None if request.status is None else request.status.value
    after = request.status_timestamp_after
    filters: list[Any] = [caller.scope]
    if context_id:
        filters.append(context_id)
    if state is not None:
        filters.append(state)
    if after is not None:
        filters.append(after)
    if after is None:  # the kept counts, as task_counts.count reads them
        count_params: list[Any] = [bool(context_id), caller.scope, context_id or ""]
        if state is not None:
            count_params.append(state)
    else:
        count_params = list(filters)
    params = [
        request.page_size,
        a2a_settings.MAX_PAGE_BYTES,
        *count_params,
        request.history_length,
        request.history_length,
        *filters,
    ]
    if cursor is not None:
        params.extend(cursor)
    params.append(request.history_length)
    sql = _page_sql(
        bool(context_id),
        state is not None,
        after is not None,
        cursor is not None,
        request.include_artifacts,
        request.page_size + 1,
    )
    with statement_cursor(connection) as db:
        db.execute(sql, params)
        total, fetched, kept, last_id, last_micros, page = db.fetchone()
    token = ""
    # More after this page: a task beyond pageSize, or one left out for MAX_PAGE_BYTES.
    if kept and (fetched > request.page_size or kept < fetched):
        last = _EPOCH + timedelta(microseconds=last_micros)
        token = page_token(last, uuid.UUID(last_id))
    return {
        "tasks": RawJSON(page),
        "nextPageToken": token,
        "pageSize": request.page_size,
        "totalSize": total,
    }


def _present(column: str) -> str:
    """SQL: is the JSON in ``column`` worth writing (Python's truthiness of a dict)?"""
    return f"{column} IS NOT NULL AND {column} NOT IN ('{{}}'::jsonb, 'null'::jsonb)"


@cache
def _page_sql(
    context: bool, state: bool, after: bool, cursor: bool, artifacts: bool, limit: int
) -> str:
    """The statement for one combination of filters: each is its own prepared statement,
    so that PostgreSQL plans each with the index that fits it (no ``x IS NULL OR ...``).

    ``limit`` (pageSize + 1) is written into the statement, not bound: with ``LIMIT $n``
    PostgreSQL's generic plan assumes a tenth of a caller's tasks are read, prefers a
    scan and sort of all of them, and so plans every execution anew (half of what the
    statement cost); with the number, the prepared generic plan walks the index.

    Parameters, in order: pageSize and ``MAX_PAGE_BYTES`` (NULL: no limit), the count's
    (kept counts: per_context, owner, context_id[, state]; else the filters),
    historyLength twice (for the history on the task row), the filters (owner[,
    context_id][, state][, after]), the cursor's (timestamp, id), historyLength (NULL: all).

    One row: the total; how many tasks were read (up to pageSize + 1) and how many of
    them the page keeps (pageSize at most, and no more than fit ``MAX_PAGE_BYTES``, but
    the first: store.fit_in_bytes's rule); the last kept task's id and status timestamp
    in microseconds since the epoch (exact, for the page token); and the kept tasks as
    one JSON array, each task written as ``store.task_to_wire`` writes it.
    """
    quote = connection.ops.quote_name
    task, message, artifact, counts = (
        quote(m._meta.db_table) for m in (Task, TaskMessage, TaskArtifact, TaskCount)
    )
    conditions = ["t.owner = %s"]
    if context:
        conditions.append("t.context_id = %s")
    if state:
        conditions.append("t.state = %s")
    if after:
        conditions.append("t.status_timestamp >= %s")
    where = " AND ".join(conditions)
    if after:  # an instant cannot be counted ahead (task_counts.py)
        total = f"SELECT count(*) AS total FROM {task} t WHERE {where}"
    else:
        total = (
            f"SELECT coalesce(sum(c.tasks), 0)::bigint AS total FROM {counts} c "
            "WHERE c.per_context = %s AND c.owner = %s AND c.context_id = %s"
            + (" AND c.state = %s" if state else "")
        )
    # A row comparison walks the (owner, context_id, -status_timestamp, -id) index
    # straight to the page (store.list_tasks says why).
    keyset = " AND (t.status_timestamp, t.id) < (%s, %s)" if cursor else ""
    # Sizes as store.fit_in_bytes measures them: the stored JSON's text, the newest
    # historyLength messages (LIMIT NULL: all of them) and every artifact. A history
    # the task row holds whole (Task.short_history) and the page wants whole is its
    # array's text less "[", "]" and the ", " between elements: PostgreSQL writes each
    # element as it writes that message's own jsonb, so the sizes are the same.
    artifacts_json, artifacts_size = "''", "0"
    if artifacts:
        artifacts_json = (
            "',\"artifacts\":[' || coalesce((SELECT string_agg(a.body::text, ',' "
            f"ORDER BY a.position) FROM {artifact} a WHERE a.task_id = t.id), '') || ']'"
        )
        artifacts_size = (
            f"(SELECT coalesce(sum(length(a.body::text)), 0) "
            f"FROM {artifact} a WHERE a.task_id = t.id)"
        )
    # The task as store.task_to_wire writes it, key for key: id, contextId, status
    # (state, timestamp, message), artifacts, history (if any), metadata (if any). The
    # stored JSON goes in as PostgreSQL writes jsonb (a space after ':' and ',').
    body = (
        '\'{"id":"\' || t.id || \'","contextId":\' || to_json(t.context_id::text) '
        '|| \',"status":{"state":\' || to_json(t.state::text) '
        f"|| ',\"timestamp\":\"' || {_WIRE_TIMESTAMP} || '\"' "
        f"|| CASE WHEN {_present('t.status_message')} "
        "THEN ',\"message\":' || t.status_message::text ELSE '' END || '}' "
        f"|| {artifacts_json} "
        "|| CASE WHEN t.on_row THEN ',\"history\":' || t.short_history "
        "WHEN h.messages > 0 THEN ',\"history\":[' || h.bodies || ']' ELSE '' END "
        f"|| CASE WHEN {_present('t.metadata')} "
        "THEN ',\"metadata\":' || t.metadata::text ELSE '' END || '}'"
    )
    return (
        "SELECT n.total, count(q.id), count(q.id) FILTER (WHERE q.kept), "
        "(array_agg(q.id ORDER BY q.rn DESC) FILTER (WHERE q.kept))[1], "
        "(array_agg(q.micros ORDER BY q.rn DESC) FILTER (WHERE q.kept))[1], "
        "'[' || coalesce(string_agg(q.body, ',' ORDER BY q.rn) FILTER (WHERE q.kept), '') "
        "|| ']' "
        "FROM (SELECT %s::integer AS page_size, %s::bigint AS budget) k "
        f"CROSS JOIN ({total}) n LEFT JOIN LATERAL ("
        "SELECT s.id, s.micros, s.body, s.rn, s.rn <= k.page_size AND (s.rn = 1 "
        "OR k.budget IS NULL OR s.running <= k.budget) AS kept FROM ("
        "SELECT p.id, p.micros, p.body, row_number() OVER w AS rn, "
        "sum(p.size) OVER w AS running FROM ("
        "SELECT t.id::text AS id, t.status_timestamp, t.id AS uuid, "
        "(extract(epoch FROM t.status_timestamp) * 1000000)::bigint AS micros, "
        "CASE WHEN t.on_row THEN length(t.short_history) - 2 * t.message_count "
        f"ELSE h.size END + {artifacts_size} AS size, {body} AS body "
        "FROM ("
        f"SELECT t.id, t.context_id, t.state, t.status_timestamp, t.status_message, "
        "t.metadata, t.message_count, t.short_history::text AS short_history, "
        "t.short_history IS NOT NULL AND t.message_count > 0 "
        "AND jsonb_array_length(t.short_history) = t.message_count "
        "AND (%s::integer IS NULL OR %s::integer >= t.message_count) AS on_row "
        f"FROM {task} t WHERE {where}{keyset} "
        f"ORDER BY t.status_timestamp DESC, t.id DESC LIMIT {int(limit)}) t "
        # The message rows only for a task whose row does not hold what the page wants:
        # the whole history (as many messages as the task counts; one written around
        # TaskUpdate leaves the row's list short), and no fewer were asked for. A
        # condition on the outer row alone: PostgreSQL skips the probe, not filters it.
        "LEFT JOIN LATERAL ("
        "SELECT count(*) AS messages, string_agg(r.body, ',' ORDER BY r.position) AS bodies, "
        "coalesce(sum(length(r.body)), 0) AS size FROM ("
        f"SELECT m.body::text AS body, m.position FROM {message} m WHERE m.task_id = t.id "
        "ORDER BY m.position DESC LIMIT %s) r WHERE NOT t.on_row) h ON true"
        ") p WINDOW w AS (ORDER BY p.status_timestamp DESC, p.uuid DESC "
        "ROWS UNBOUNDED PRECEDING)"
        ") s) q ON true "
        "GROUP BY n.total"
    )
