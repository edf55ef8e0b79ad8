"""The admin's activity page (a2a_app.activity, a2a_app.admin_activity): its figures on
known data, who may see it, the handler times the write paths record, and a query count
that does not grow with the data. The page in a real browser, with screenshots, is
tests/integration/test_activity_browser.py.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from a2a_app import activity
from a2a_app.models import Delivery, PushConfig, Task, TaskEvent
from a2a_app.protocol.types import TaskState
from a2a_app.testing import record_dispatch
from tests.conftest import user_message

pytestmark = pytest.mark.django_db

URL = "/admin/a2a_app/activity/"


def make_task(
    state: TaskState = TaskState.COMPLETED,
    skill: str = "menu",
    age: timedelta = timedelta(hours=1),
    run_ms: float | None = None,
    **fields: Any,
) -> Task:
    created = timezone.now() - age
    values: dict[str, Any] = {
        "context_id": "ctx",
        "state": state.value,
        "status_timestamp": created,
        "skill_id": skill,
        "created_at": created,
    }
    if run_ms is not None:
        values["started_at"] = created
        values["finished_at"] = created + timedelta(milliseconds=run_ms)
    return Task.objects.create(**values | fields)


def make_delivery(task: Task, status: str, **fields: Any) -> Delivery:
    sequence = task.event_count = task.event_count + 1
    task.save(update_fields=["event_count"])
    event = TaskEvent.objects.create(task=task, sequence=sequence, kind="status", body={})
    config = PushConfig.objects.filter(task=task).first() or PushConfig.objects.create(
        task=task, config_id="c", url="https://93.184.216.34/hook"
    )
    return Delivery.objects.create(task=task, config=config, event=event, status=status, **fields)


def staff_with(*codenames: str) -> Client:
    user = get_user_model().objects.create_user(f"staff-{'-'.join(codenames)}", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def boss(django_user_model) -> Client:
    client = Client()
    client.force_login(django_user_model.objects.create_superuser("boss", "b@example.com", "pw"))
    return client


# --- the figures ------------------------------------------------------------------------------


def test_outcomes_of_states() -> None:
    assert activity.outcome_of(TaskState.COMPLETED.value, False) == "completed"
    assert activity.outcome_of(TaskState.REJECTED.value, False) == "rejected"
    assert activity.outcome_of(TaskState.INPUT_REQUIRED.value, False) == "caller"
    assert activity.outcome_of(TaskState.AUTH_REQUIRED.value, False) == "caller"
    # WORKING without a worker's lease: a handler kept it working for the staff to finish.
    assert activity.outcome_of(TaskState.WORKING.value, False) == "staff"
    assert activity.outcome_of(TaskState.WORKING.value, True) == "running"
    assert activity.outcome_of(TaskState.SUBMITTED.value, False) == "running"


def test_tasks_per_day_by_skill_and_outcome() -> None:
    for _ in range(3):
        make_task(TaskState.COMPLETED, "menu")
    make_task(TaskState.FAILED, "menu")
    make_task(TaskState.WORKING, "booking")  # waiting for staff
    make_task(TaskState.WORKING, "booking", lease_expires_at=timezone.now())  # running
    make_task(TaskState.CANCELED, "booking", age=timedelta(days=2))
    make_task(TaskState.COMPLETED, "menu", age=timedelta(days=40))  # before the range

    figures = activity.activity(days=14)

    assert figures.total == 7
    rows = {row.skill: dict(row.counts) for row in figures.skills}
    assert rows["menu"] == {**dict.fromkeys(activity.OUTCOMES, 0), "completed": 3, "failed": 1}
    assert rows["booking"]["staff"] == 1
    assert rows["booking"]["running"] == 1
    assert rows["booking"]["canceled"] == 1
    assert len(figures.bars) == 14
    today, two_days_ago = figures.bars[-1], figures.bars[-3]
    assert today.day == timezone.localdate()
    # Tasks made an hour ago may fall on yesterday just after midnight.
    assert figures.bars[-1].total + figures.bars[-2].total == 6
    assert two_days_ago.total + figures.bars[-4].total >= 1
    assert sum(bar.total for bar in figures.bars) == 7
    # The bars stack from the baseline up, within the plot.
    for bar in figures.bars:
        if bar.segments:
            bottom = bar.segments[0].y + bar.segments[0].height
            assert bottom == pytest.approx(activity.PLOT_BOTTOM, abs=0.05)
            assert bar.segments[-1].y >= activity.PLOT_TOP - 0.05

    menu_only = activity.activity(days=14, skill="menu")
    assert sum(bar.total for bar in menu_only.bars) == 4
    assert menu_only.total == 7  # the table by skill still shows them all


def test_handler_time_percentiles_per_skill_and_overall() -> None:
    for ms in range(10, 101, 10):  # 10, 20, ... 100 ms
        make_task(skill="menu", run_ms=ms)
    make_task(skill="booking", run_ms=2000)
    make_task(skill="booking")  # never ran: not counted
    make_task(skill="menu", run_ms=99999, age=timedelta(days=30))  # before the range

    figures = activity.activity(days=7)

    timings = {timing.skill: timing for timing in figures.timings}
    assert timings["menu"].runs == 10
    assert timings["menu"].p50_ms == pytest.approx(50, abs=1)
    assert timings["menu"].p95_ms == pytest.approx(100, abs=1)
    assert timings["booking"].runs == 1
    assert timings["booking"].p50_ms == pytest.approx(2000, abs=1)
    assert figures.overall_timing.runs == 11
    assert figures.overall_timing.p50_ms == pytest.approx(60, abs=1)
    assert figures.overall_timing.p95_ms == pytest.approx(2000, abs=1)
    # The slowest skill first, its p95 bar the longest.
    assert [t.skill for t in figures.timings] == ["booking", "menu"]
    assert figures.timings[0].p95_width > figures.timings[1].p95_width


def test_waiting_counts_webhooks_and_latest_errors() -> None:
    make_task(TaskState.WORKING)  # staff
    make_task(TaskState.WORKING, lease_expires_at=timezone.now())  # a worker has it
    make_task(TaskState.INPUT_REQUIRED)
    make_task(TaskState.AUTH_REQUIRED)
    # Waiting for staff counts at any age; waiting for the caller in the range only.
    make_task(TaskState.WORKING, age=timedelta(days=100))
    make_task(TaskState.INPUT_REQUIRED, age=timedelta(days=100))
    failed = make_task(
        TaskState.FAILED,
        status_message={"role": "ROLE_AGENT", "parts": [{"text": "The kitchen is closed."}]},
    )
    hooked = make_task()
    for _ in range(3):
        make_delivery(hooked, Delivery.Status.DELIVERED)
    make_delivery(hooked, Delivery.Status.FAILED, last_status_code=410, last_error="HTTP 410")
    make_delivery(hooked, Delivery.Status.PENDING)

    figures = activity.activity()

    assert (figures.waiting_staff, figures.waiting_caller) == (2, 2)
    hooks = figures.webhooks
    assert (hooks["delivered"], hooks["failed"], hooks["pending"]) == (3, 1, 1)
    assert hooks["rate"] == 75.0  # of the settled ones
    assert [task["pk"] for task in figures.failed_tasks] == [failed.pk]
    assert figures.failed_tasks[0]["error"] == "The kitchen is closed."
    [delivery] = figures.failed_deliveries
    assert (delivery["task_id"], delivery["last_status_code"]) == (hooked.pk, 410)


# --- the page ---------------------------------------------------------------------------------


def test_the_page_shows_the_figures_with_links_to_the_tasks(boss) -> None:
    failed = make_task(
        TaskState.FAILED,
        skill="booking",
        run_ms=40,
        status_message={"parts": [{"text": "No table free."}]},
    )
    make_task(TaskState.COMPLETED, skill="menu", run_ms=20)
    make_task(TaskState.WORKING, skill="catering")

    page = boss.get(URL).content.decode()

    assert '<svg viewBox="0 0 1100.0 240.0" role="img"' in page
    assert '<title id="per-day-title">Tasks per day by outcome</title>' in page
    assert f'href="/admin/a2a_app/task/{failed.pk}/change/"' in page
    assert "No table free." in page
    assert re.search(
        r'id="tile-staff"><span class="a2a-tile__value"><a href="[^"]+\?waiting=us">1<', page
    )
    assert 'data-skill="booking"' in page and 'data-skill="menu"' in page
    # Every number the charts draw is also text: the day table and the skill table.
    assert 'data-outcome="failed">1</td>' in page


def test_the_chart_dates_are_written_as_the_language_writes_them(boss) -> None:
    from datetime import date

    from django.utils import translation
    from django.utils.formats import date_format

    axis = r'<text x="[^"]+" y="[^"]+" text-anchor="middle" class="quiet">([^<]+)</text>'
    for language, form in (("en", "M j"), ("de", "j. M")):  # "Nov 19", "19. Nov"
        with translation.override(language):
            page = boss.get(URL).content.decode()
            first_day = date.fromisoformat(re.search(r'data-day="([^"]+)"', page)[1])
            assert re.findall(axis, page)[0] == date_format(first_day, form)


def test_chosen_range_and_skill(boss) -> None:
    make_task(skill="menu", age=timedelta(days=20))
    assert activity.activity(days=14).total == 0
    page = boss.get(URL, {"days": "30", "skill": "menu"}).content.decode()
    assert 'href="?days=30&amp;skill=menu" aria-current="page"' in page
    assert page.count('class="a2a-day"') == 30
    # A range the page does not offer falls back to ACTIVITY_DAYS.
    page = boss.get(URL, {"days": "100000"}).content.decode()
    assert page.count('class="a2a-day"') == 14


def test_only_staff_with_the_view_permission(client) -> None:
    assert client.get(URL).status_code == 302  # to the admin's login
    assert staff_with("view_task").get(URL).status_code == 403
    assert staff_with("view_activity").get(URL).status_code == 200


def test_linked_from_the_app_index_and_the_task_list(boss) -> None:
    assert f'href="{URL}"' in boss.get("/admin/a2a_app/").content.decode()
    assert f'href="{URL}"' in boss.get("/admin/a2a_app/task/").content.decode()
    # Staff who may see the tasks but not the activity get no link to it.
    assert (
        f'href="{URL}"' not in staff_with("view_task").get("/admin/a2a_app/task/").content.decode()
    )


def test_the_number_of_queries_does_not_grow_with_the_data(boss) -> None:
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert boss.get(URL).status_code == 200
        return len(captured)

    make_task(TaskState.FAILED, run_ms=5)
    few = queries()
    tasks = [
        Task(
            context_id="ctx",
            state=state.value,
            status_timestamp=timezone.now(),
            skill_id=f"skill-{n % 7}",
            created_at=timezone.now() - timedelta(hours=n % 300),
            started_at=timezone.now() - timedelta(hours=n % 300),
            finished_at=timezone.now() - timedelta(hours=n % 300) + timedelta(milliseconds=n),
        )
        for n, state in enumerate(
            [TaskState.COMPLETED, TaskState.FAILED, TaskState.WORKING, TaskState.REJECTED] * 150
        )
    ]
    Task.objects.bulk_create(tasks)
    for task in tasks[:30]:
        make_delivery(task, Delivery.Status.FAILED, last_error="refused")
    assert queries() == few
    # The figures themselves: the GROUP BY, the handler times, the staff's queue,
    # webhooks, failed tasks and failed deliveries.
    with CaptureQueriesContext(connection) as captured:
        activity.activity()
    assert len(captured) == 6


# --- the handler times the write paths record -------------------------------------------------


def test_an_inline_run_records_when_its_handler_ran(rpc, install) -> None:
    from a2a_app.skills.context import Completed

    skill = install(lambda ctx: Completed(message="done"), "inline-job")
    before = timezone.now()
    body = rpc("SendMessage", {"message": user_message("hi"), "metadata": {"skillId": skill}})
    task = Task.objects.get(pk=body["result"]["task"]["id"])
    assert before <= task.started_at <= task.finished_at <= timezone.now()


def test_a_worker_run_records_when_its_handler_ran(rpc, install) -> None:
    from a2a_app.core import runner
    from a2a_app.skills.context import Completed

    skill = install(lambda ctx: Completed(message="later"), "bg-job", background=True)
    with record_dispatch():
        body = rpc(
            "SendMessage",
            {
                "message": user_message("go"),
                "metadata": {"skillId": skill},
                "configuration": {"returnImmediately": True},
            },
        )
    task_id = body["result"]["task"]["id"]
    assert Task.objects.get(pk=task_id).started_at is None
    before = timezone.now()
    assert runner.execute(task_id) == TaskState.COMPLETED.value
    task = Task.objects.get(pk=task_id)
    assert before <= task.started_at <= task.finished_at <= timezone.now()


@pytest.mark.parametrize("days", [0, -3, 400, "14", True, None])
def test_a_default_range_the_page_cannot_draw_is_a_check_error(settings, days) -> None:
    from a2a_app import checks

    settings.A2A_APP = {**settings.A2A_APP, "ACTIVITY_DAYS": days}
    assert [error.id for error in checks.check_activity()] == ["a2a_app.E200"]
    settings.A2A_APP = {**settings.A2A_APP, "ACTIVITY_DAYS": 21}
    assert checks.check_activity() == []
