"""ListTasks on PostgreSQL in one prepared statement, with the page's JSON made by the database.

The portable :func:`a2a_app.core.store.list_tasks` costs four ORM queries (the count, the
page, the sizes ``MAX_PAGE_BYTES`` needs, the history; a fifth with artifacts) and fifty
model instances: ~8 ms of the server's CPU for a page of 50, where GetTask costs ~1.
Here one hand-written statement, bound on the server so that PostgreSQL keeps it
prepared (:func:`a2a_app.core.rows.statement_cursor`), returns the ``totalSize`` (from the
kept counts, or a COUNT with ``statusTimestampAfter``, as the portable path) and the page:
each task's id and status timestamp (for the page token), the bytes its history and
artifacts take (measured as the portable path measures them), and one JSON array holding
its status message, metadata, trimmed history and artifacts, read with one ``json.loads``.

The answer is the portable path's, key for key (tests/test_task_pages.py compares them).
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any

from django.db import connection

from a2a_app.caller import Caller
from a2a_app.conf import a2a_settings
from a2a_app.core import rows
from a2a_app.models import Task, TaskArtifact, TaskCount, TaskMessage
from a2a_app.protocol.params import ListTasksRequest

JSON = dict[str, Any]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

#: A status timestamp as format_timestamp writes it: UTC, milliseconds (truncated), "Z".
_WIRE_TIMESTAMP = (
    "to_char(p.status_timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
)


def applies() -> bool:
    """Does ListTasks take this path (PostgreSQL), rather than the portable one?"""
    return connection.vendor == "postgresql"


def list_tasks(
    request: ListTasksRequest, caller: Caller, cursor: tuple[datetime, Any] | None
) -> JSON:
    """What :func:`a2a_app.core.store.list_tasks` answers, for an allowed caller."""
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
    params = [*count_params, *filters]
    if cursor is not None:
        params.extend(cursor)
    params.extend([request.page_size + 1, request.history_length])
    sql = _page_sql(
        bool(context_id),
        state is not None,
        after is not None,
        cursor is not None,
        request.include_artifacts,
    )
    with rows.statement_cursor(connection) as db:
        db.execute(sql, params)
        total, page_json = db.fetchone()
    page = json.loads(page_json)
    has_more = len(page) > request.page_size
    page = page[: request.page_size]
    keep = _fitting(page, request.history_length, request.include_artifacts)
    if keep < len(page):
        page, has_more = page[:keep], True
    tasks = []
    for (
        task_id,
        context,
        state_name,
        timestamp,
        _,
        _,
        message,
        metadata,
        history,
        artifacts,
    ) in page:
        status: JSON = {"state": state_name, "timestamp": timestamp}
        if message:
            status["message"] = message
        out: JSON = {"id": task_id, "contextId": context, "status": status}
        if request.include_artifacts:
            out["artifacts"] = artifacts
        if history:
            out["history"] = history
        if metadata:
            out["metadata"] = metadata
        tasks.append(out)
    token = ""
    if has_more and page:
        last_id, last_micros = page[-1][0], page[-1][4]
        token = page_token(_EPOCH + timedelta(microseconds=last_micros), uuid.UUID(last_id))
    return {
        "tasks": tasks,
        "nextPageToken": token,
        "pageSize": request.page_size,
        "totalSize": total,
    }


def _fitting(page: list[tuple], history_length: int | None, artifacts: bool) -> int:
    """How many of ``page``'s first tasks fit ``MAX_PAGE_BYTES`` (store.fit_in_bytes's rule)."""
    budget = a2a_settings.MAX_PAGE_BYTES
    if budget is None or len(page) < 2 or (history_length == 0 and not artifacts):
        return len(page)
    used = 0
    for index, row in enumerate(page):
        used += row[5]
        if used > budget and index:
            return index
    return len(page)


@cache
def _page_sql(context: bool, state: bool, after: bool, cursor: bool, artifacts: bool) -> str:
    """The statement for one combination of filters: each is its own prepared statement,
    so that PostgreSQL plans each with the index that fits it (no ``x IS NULL OR ...``).

    Parameters, in order: the count's (kept counts: per_context, owner, context_id[,
    state]; else the filters), the filters (owner[, context_id][, state][, after]), the
    cursor's (timestamp, id), the limit (pageSize + 1), historyLength (NULL: all).
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
    # historyLength messages (LIMIT NULL: all of them) and every artifact.
    artifacts_json, artifacts_size = "NULL", "0"
    if artifacts:
        artifacts_json = (
            f"(SELECT coalesce(json_agg(a.body ORDER BY a.position), '[]') "
            f"FROM {artifact} a WHERE a.task_id = p.id)"
        )
        artifacts_size = (
            f"(SELECT coalesce(sum(length(a.body::text)), 0) "
            f"FROM {artifact} a WHERE a.task_id = p.id)"
        )
    # One row: the total and the page as one JSON array of one array per task, [id,
    # contextId, state, wire timestamp, timestamp in µs since the epoch (exact, for the page
    # token), bytes, status message, metadata, history, artifacts], read with one
    # json.loads; p.id is NULL on an empty page (the LEFT JOIN keeps the total).
    return (
        f"SELECT n.total, coalesce(json_agg(json_build_array("
        f"p.id, p.context_id, p.state, {_WIRE_TIMESTAMP}, "
        f"(extract(epoch FROM p.status_timestamp) * 1000000)::bigint, "
        f"h.size + {artifacts_size}, p.status_message, p.metadata, h.bodies, {artifacts_json}"
        f") ORDER BY p.status_timestamp DESC, p.id DESC) FILTER (WHERE p.id IS NOT NULL), "
        f"'[]')::text "
        f"FROM ({total}) n LEFT JOIN LATERAL ("
        f"SELECT t.id, t.context_id, t.state, t.status_timestamp, t.status_message, "
        f"t.metadata FROM {task} t WHERE {where}{keyset} "
        f"ORDER BY t.status_timestamp DESC, t.id DESC LIMIT %s) p ON true "
        f"LEFT JOIN LATERAL ("
        f"SELECT coalesce(json_agg(r.body ORDER BY r.position), '[]') AS bodies, "
        f"coalesce(sum(length(r.body::text)), 0) AS size FROM ("
        f"SELECT m.body, m.position FROM {message} m WHERE m.task_id = p.id "
        f"ORDER BY m.position DESC LIMIT %s) r) h ON true "
        f"GROUP BY n.total"
    )
