"""What the admin's activity page shows: tasks per day by skill and outcome, handler times,
who is waiting, how webhooks fare, and the latest errors.

Every figure is one SQL aggregate over an indexed time range (``Task.created_at``,
``Delivery.created_at``): the page runs the same few queries whether the site holds a
hundred tasks or millions, and reads only the rows of the days shown. The SVG geometry
of the charts is computed here; ``admin/a2a_app/activity.html`` draws it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from django.db import connection
from django.db.models import BooleanField, Count, ExpressionWrapper, Q
from django.db.models.functions import TruncDate
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from a2a_app.models import Delivery, Task
from a2a_app.protocol.types import TaskState

#: The ranges the page offers, in days.
RANGES = (7, 14, 30, 90)
#: How many of the latest failed tasks and failed webhook deliveries the page lists.
LATEST_ERRORS = 10

#: The outcomes a task's state (and, for WORKING, its lease) falls into, in the charts'
#: order, each with its label and the CSS modifier of its colour.
OUTCOMES: dict[str, tuple[Any, str]] = {
    "completed": (_("completed"), "done"),
    "failed": (_("failed"), "bad"),
    "rejected": (_("rejected"), "rejected"),
    "canceled": (_("canceled"), "off"),
    "staff": (_("waiting for staff"), "us"),
    "caller": (_("waiting for the caller"), "caller"),
    "running": (_("submitted or running"), "queued"),
}


def outcome_of(state: str, held: bool) -> str:
    """The outcome of a task in ``state``; ``held``: a worker holds its lease."""
    match state:
        case TaskState.COMPLETED:
            return "completed"
        case TaskState.FAILED:
            return "failed"
        case TaskState.REJECTED:
            return "rejected"
        case TaskState.CANCELED:
            return "canceled"
        case TaskState.INPUT_REQUIRED | TaskState.AUTH_REQUIRED:
            return "caller"
        case TaskState.WORKING if not held:
            # A handler said "keep working" and site code (or the staff) finishes it.
            return "staff"
    return "running"


# --- the page's figures ---------------------------------------------------------------------


@dataclass
class Segment:
    outcome: str
    label: Any
    tone: str
    count: int
    y: float = 0.0
    height: float = 0.0


@dataclass
class DayBar:
    day: date
    total: int
    segments: list[Segment]
    x: float = 0.0
    center_x: float = 0.0
    label_y: float = 0.0


@dataclass
class SkillRow:
    skill: str
    total: int
    counts: list[tuple[str, int]]  # (outcome, count) in OUTCOMES' order


@dataclass
class Timing:
    skill: str
    runs: int
    p50_ms: float
    p95_ms: float
    y: float = 0.0
    p50_width: float = 0.0
    p95_width: float = 0.0
    label_x: float = 0.0


@dataclass
class Activity:
    days: int
    since: datetime
    skill: str  # the skill the daily chart shows ("" for all)
    bars: list[DayBar]
    chart: dict[str, float]
    skills: list[SkillRow]
    totals: list[tuple[str, int]]
    total: int
    timings: list[Timing]
    timing_chart: dict[str, float]
    overall_timing: Timing | None
    waiting_staff: int
    waiting_caller: int
    webhooks: dict[str, Any]
    failed_tasks: list[dict[str, Any]]
    failed_deliveries: list[dict[str, Any]]
    outcomes: list[tuple[str, Any, str]] = field(
        default_factory=lambda: [(key, label, tone) for key, (label, tone) in OUTCOMES.items()]
    )


def activity(days: int = 14, skill: str = "", now: datetime | None = None) -> Activity:
    """The figures of the last ``days`` days (today included, in the current time zone)."""
    now = now or timezone.now()
    today = timezone.localdate(now)
    first_day = today - timedelta(days=days - 1)
    since = timezone.make_aware(datetime.combine(first_day, datetime.min.time()))
    per_day, per_skill = _counts(since)
    day_list = [first_day + timedelta(days=n) for n in range(days)]
    bars, chart = _day_bars(day_list, per_day.get(skill or None, {}))
    skills = [
        SkillRow(name, sum(counts.values()), [(key, counts.get(key, 0)) for key in OUTCOMES])
        for name, counts in sorted(per_skill.items(), key=lambda item: -sum(item[1].values()))
        if name
    ]
    all_counts = _sum_counts(per_skill)
    timings, overall = _timings(since)
    timing_chart = _timing_geometry(timings)
    # The staff's queue, whenever its tasks were made (index a2a_task_working_lease); tasks
    # waiting for a caller who may never answer are counted in the range only.
    waiting_staff = Task.objects.filter(
        state=TaskState.WORKING, lease_expires_at__isnull=True
    ).count()
    return Activity(
        days=days,
        since=since,
        skill=skill,
        bars=bars,
        chart=chart,
        skills=skills,
        totals=[(key, all_counts.get(key, 0)) for key in OUTCOMES],
        total=sum(all_counts.values()),
        timings=timings,
        timing_chart=timing_chart,
        overall_timing=overall,
        waiting_staff=waiting_staff,
        waiting_caller=all_counts.get("caller", 0),
        webhooks=_webhooks(since),
        failed_tasks=_failed_tasks(since),
        failed_deliveries=_failed_deliveries(since),
    )


def _counts(since: datetime) -> tuple[dict[str | None, dict], dict[str, dict[str, int]]]:
    """One GROUP BY over the range: per skill (None: every skill) → day → outcome → count,
    and per skill → outcome → count."""
    rows = (
        Task.objects.filter(created_at__gte=since)
        .annotate(day=TruncDate("created_at", tzinfo=timezone.get_current_timezone()))
        .values(
            "day",
            "skill_id",
            "state",
            held=ExpressionWrapper(Q(lease_expires_at__isnull=False), BooleanField()),
        )
        .annotate(count=Count("pk"))
        .order_by()
    )
    per_day: dict[str | None, dict[date, dict[str, int]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(int))
    )
    per_skill: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for row in rows:
        outcome = outcome_of(row["state"], bool(row["held"]))
        for skill in (None, row["skill_id"]):
            per_day[skill][row["day"]][outcome] += row["count"]
        per_skill[row["skill_id"] or "—"][outcome] += row["count"]
    return per_day, per_skill


def _sum_counts(per_skill: dict[str, dict[str, int]]) -> dict[str, int]:
    total: dict[str, int] = defaultdict(int)
    for counts in per_skill.values():
        for outcome, count in counts.items():
            total[outcome] += count
    return total


# The daily chart's frame, in SVG user units (it scales to the page's width).
# About the admin's content width at 1280 pixels, so that text is drawn near its size.
CHART_WIDTH, CHART_HEIGHT = 1100.0, 240.0
PLOT_LEFT, PLOT_TOP, PLOT_BOTTOM = 40.0, 18.0, 210.0


def _day_bars(
    days: list[date], counts: dict[date, dict[str, int]]
) -> tuple[list[DayBar], dict[str, float]]:
    highest = max((sum(counts.get(day, {}).values()) for day in days), default=0)
    scale_max = _nice_ceiling(highest)
    plot_height = PLOT_BOTTOM - PLOT_TOP
    slot = (CHART_WIDTH - PLOT_LEFT) / max(len(days), 1)
    bar_width = max(slot * 0.7, 1.0)
    bars = []
    for index, day in enumerate(days):
        day_counts = counts.get(day, {})
        y = PLOT_BOTTOM
        segments = []
        for key, (label, tone) in OUTCOMES.items():
            count = day_counts.get(key, 0)
            if not count:
                continue
            height = plot_height * count / scale_max
            y -= height
            segments.append(Segment(key, label, tone, count, round(y, 2), round(height, 2)))
        bars.append(
            DayBar(
                day,
                sum(day_counts.values()),
                segments,
                x=round(PLOT_LEFT + index * slot + (slot - bar_width) / 2, 2),
                center_x=round(PLOT_LEFT + index * slot + slot / 2, 2),
                label_y=round(y - 3, 2),
            )
        )
    chart = {
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        "left": PLOT_LEFT,
        "top": PLOT_TOP,
        "bottom": PLOT_BOTTOM,
        "bar_width": round(bar_width, 2),
        "max": scale_max,
        "mid": scale_max // 2,
        "mid_y": (PLOT_TOP + PLOT_BOTTOM) / 2,
        # Every day's date under a narrow bar would overlap: label about eight of them.
        "label_every": max(1, len(days) // 8 + (1 if len(days) % 8 else 0)),
    }
    return bars, chart


def _nice_ceiling(value: int) -> int:
    """The scale's top: ``value`` rounded up to 1, 2 or 5 times a power of ten (at least 2,
    so that the middle line has a whole number)."""
    magnitude = 1
    while True:
        for step in (1, 2, 5):
            if step * magnitude >= max(value, 2):
                return step * magnitude
        magnitude *= 10


# --- handler times ---------------------------------------------------------------------------

_RUN_MS = {
    "postgresql": "EXTRACT(EPOCH FROM ({end} - COALESCE({start}, {created}))) * 1000",
    "sqlite": "(JULIANDAY({end}) - JULIANDAY(COALESCE({start}, {created}))) * 86400000",
}

# Nearest-rank percentiles with window functions (PostgreSQL and SQLite alike): the
# smallest time whose cumulative share reaches the percentile. One pass over the range's
# runs, ranked twice: per skill, and over all (the rows whose skill is NULL).
_TIMINGS_SQL = """
WITH runs AS (
    SELECT {skill} AS skill, {ms} AS ms FROM {table}
    WHERE {created} >= %s AND {end} IS NOT NULL
), ranked AS (
    SELECT skill, ms, CUME_DIST() OVER (PARTITION BY skill ORDER BY ms) AS share FROM runs
    UNION ALL
    SELECT NULL, ms, CUME_DIST() OVER (ORDER BY ms) FROM runs
)
SELECT skill, COUNT(*), MIN(CASE WHEN share >= 0.5 THEN ms END),
       MIN(CASE WHEN share >= 0.95 THEN ms END)
FROM ranked GROUP BY skill
"""


def _timings(since: datetime) -> tuple[list[Timing], Timing | None]:
    """p50 and p95 of the latest handler run of the tasks made in the range, per skill and
    over all (one query); none where the database has no window functions."""
    template = _RUN_MS.get(connection.vendor)
    if template is None:
        return [], None
    quote = connection.ops.quote_name
    columns = {
        name: quote(Task._meta.get_field(name).column)
        for name in ("started_at", "finished_at", "created_at", "skill_id")
    }
    sql = _TIMINGS_SQL.format(
        skill=columns["skill_id"],
        ms=template.format(
            end=columns["finished_at"], start=columns["started_at"], created=columns["created_at"]
        ),
        table=quote(Task._meta.db_table),
        created=columns["created_at"],
        end=columns["finished_at"],
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [since])
        rows = cursor.fetchall()
    per_skill, overall = [], None
    for skill, runs, p50, p95 in rows:
        timing = Timing(skill or "—", runs, max(float(p50), 0.0), max(float(p95), 0.0))
        if skill is None:
            overall = timing
        else:
            per_skill.append(timing)
    per_skill.sort(key=lambda timing: -timing.p95_ms)
    return per_skill, overall


TIMING_LEFT, TIMING_WIDTH, TIMING_ROW = 190.0, 1100.0, 26.0


def _timing_geometry(timings: list[Timing]) -> dict[str, float]:
    """Horizontal bars, one row per skill: p95 behind, p50 in front."""
    longest = max((t.p95_ms for t in timings), default=0.0) or 1.0
    span = TIMING_WIDTH - TIMING_LEFT - 210  # room for the values after the bar
    for index, timing in enumerate(timings):
        timing.y = 8 + index * TIMING_ROW
        timing.p95_width = round(max(span * timing.p95_ms / longest, 1.0), 2)
        timing.p50_width = round(max(span * timing.p50_ms / longest, 1.0), 2)
        timing.label_x = round(TIMING_LEFT + timing.p95_width + 6, 2)
    return {
        "width": TIMING_WIDTH,
        "height": 16 + len(timings) * TIMING_ROW,
        "left": TIMING_LEFT,
        "row": TIMING_ROW,
    }


# --- webhooks and errors ---------------------------------------------------------------------


def _webhooks(since: datetime) -> dict[str, Any]:
    counts = Delivery.objects.filter(created_at__gte=since).aggregate(
        delivered=Count("pk", filter=Q(status=Delivery.Status.DELIVERED)),
        failed=Count("pk", filter=Q(status=Delivery.Status.FAILED)),
        pending=Count("pk", filter=Q(status=Delivery.Status.PENDING)),
    )
    settled = counts["delivered"] + counts["failed"]
    total = settled + counts["pending"]
    rate = counts["delivered"] / settled if settled else None
    width = CHART_WIDTH
    bar = []
    x = 0.0
    for key, tone in (("delivered", "done"), ("failed", "bad"), ("pending", "queued")):
        part = width * counts[key] / total if total else 0.0
        bar.append({"key": key, "tone": tone, "count": counts[key], "x": x, "width": part})
        x += part
    return {
        **counts,
        "total": total,
        "rate": None if rate is None else round(rate * 100, 1),
        "bar": bar,
        "width": width,
    }


def _status_text(status_message: Any) -> str:
    if not isinstance(status_message, dict):
        return ""
    texts = [part["text"] for part in status_message.get("parts", []) if "text" in part]
    return " ".join(" ".join(texts).split())[:300]


def _failed_tasks(since: datetime) -> list[dict[str, Any]]:
    rows = (
        Task.objects.filter(created_at__gte=since, state=TaskState.FAILED)
        .order_by("-created_at")
        .values("pk", "skill_id", "status_message", "status_timestamp", "summary")[:LATEST_ERRORS]
    )
    return [{**row, "error": _status_text(row["status_message"])} for row in rows]


def _failed_deliveries(since: datetime) -> list[dict[str, Any]]:
    return list(
        Delivery.objects.filter(created_at__gte=since, status=Delivery.Status.FAILED)
        .order_by("-created_at")
        .values("pk", "task_id", "attempts", "last_status_code", "last_error", "updated_at")[
            :LATEST_ERRORS
        ]
    )
