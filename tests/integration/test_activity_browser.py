"""The admin's activity page in a real headless browser (Debian's Chromium, driven by
Playwright): a staff member with only the view permissions opens it from the task list,
reads the charts in light and dark mode, and follows an error to its task.

Screenshots go to ``A2A_SCREENSHOTS`` when it names a folder (docs/screenshots holds the
committed ones: admin-activity.png and admin-activity-dark.png), else to the test's
temporary folder.
"""

from __future__ import annotations

import random
from datetime import datetime, time, timedelta
from typing import Any

import pytest

from tests.integration.conftest import STAFF_PASSWORD, sign_in

pytestmark = pytest.mark.integration

SKILLS = {
    # skill: (tasks a day, share failed, handler time in ms: typical)
    "restaurant.book_table": (9, 0.05, 180),
    "restaurant.menu": (14, 0.01, 25),
    "catering": (3, 0.1, 900),
    "opening-hours": (6, 0.0, 12),
}


def a_fortnight_of_tasks() -> None:
    """Two weeks (and a day) of a small restaurant's agent, the same on every run (a fixed
    seed)."""
    from django.utils import timezone

    from a2a_app.models import Delivery, PushConfig, Task, TaskEvent

    chance = random.Random(17)
    now = timezone.now()
    tasks = []
    # A 15th day: tasks older than the page's 14-day range, whatever the time of day (the
    # range starts at midnight 13 days ago; without it, after 10:00 every task was in it).
    for day in range(15):
        for skill, (per_day, failing, typical_ms) in SKILLS.items():
            for _ in range(chance.randint(per_day // 2, per_day + per_day // 2)):
                created = now - timedelta(days=day, minutes=chance.randint(5, 600))
                roll = chance.random()
                if roll < failing:
                    state = "TASK_STATE_FAILED"
                elif skill == "catering" and roll < 0.3:
                    state = "TASK_STATE_WORKING" if day < 2 else "TASK_STATE_REJECTED"
                elif skill == "restaurant.book_table" and roll < 0.15:
                    state = "TASK_STATE_INPUT_REQUIRED" if day < 1 else "TASK_STATE_CANCELED"
                else:
                    state = "TASK_STATE_COMPLETED"
                run_ms = chance.lognormvariate(0, 0.6) * typical_ms
                tasks.append(
                    Task(
                        context_id=f"ctx-{len(tasks)}",
                        skill_id=skill,
                        state=state,
                        summary=f"{skill} request {len(tasks)}",
                        status_timestamp=created + timedelta(seconds=1),
                        status_message={
                            "role": "ROLE_AGENT",
                            "parts": [{"text": "The booking system did not answer."}],
                        }
                        if state == "TASK_STATE_FAILED"
                        else None,
                        created_at=created,
                        started_at=created,
                        finished_at=created + timedelta(milliseconds=run_ms),
                    )
                )
    Task.objects.bulk_create(tasks)
    for n, task in enumerate(tasks[:60]):
        config = PushConfig.objects.create(
            task=task, config_id="hook", url="https://93.184.216.34/"
        )
        event = TaskEvent.objects.create(task=task, sequence=1, kind="status", body={})
        failed = n % 12 == 0
        Delivery.objects.create(
            task=task,
            config=config,
            event=event,
            status="failed" if failed else "delivered",
            attempts=8 if failed else 1,
            last_status_code=503 if failed else 200,
            last_error="HTTP 503" if failed else "",
        )


@pytest.mark.django_db(transaction=True)
def test_the_activity_page_in_light_and_dark(live_server, browser_page, shots) -> None:
    from django.contrib.auth.models import Permission, User
    from django.utils import timezone
    from playwright.sync_api import expect

    from a2a_app.models import Task

    a_fortnight_of_tasks()
    clerk = User.objects.create_user("clerk", password=STAFF_PASSWORD, is_staff=True)
    clerk.user_permissions.set(
        Permission.objects.filter(codename__in=["view_task", "view_activity"])
    )
    page = browser_page
    sign_in(page, live_server.url, "clerk", "/admin/a2a_app/task/")
    page.wait_for_selector("#result_list")
    page.click(".object-tools a:has-text('Activity')")
    page.wait_for_url("**/admin/a2a_app/activity/")

    # The daily chart: one group per day, each segment a titled rectangle.
    days = page.locator("#per-day svg g.a2a-day")
    expect(days).to_have_count(14)
    chart = page.locator("#per-day svg")
    assert chart.get_attribute("role") == "img"
    assert page.locator("#per-day-title").text_content() == "Tasks per day by outcome"
    assert chart.bounding_box()["width"] > 600  # drawn, at the page's width
    segment = page.locator("#per-day rect.a2a-fill--done").first
    assert "completed" in segment.locator("title").text_content()
    # The range starts at midnight 13 days ago (local time): the tasks made since.
    first_day = timezone.localdate() - timedelta(days=13)
    since = timezone.make_aware(datetime.combine(first_day, time.min))
    in_range = Task.objects.filter(created_at__gte=since).count()
    assert 0 < in_range < Task.objects.count()
    assert int(page.locator("#tile-total .a2a-tile__value").inner_text()) == in_range
    assert page.locator("#tile-staff a").inner_text() == str(
        Task.objects.filter(state="TASK_STATE_WORKING").count()
    )
    expect(page.locator("#handler-times svg g[data-skill]")).to_have_count(len(SKILLS))
    assert page.locator("#tile-webhooks .a2a-tile__value").inner_text().startswith("91")
    page.click("#toggle-nav-sidebar")
    page.screenshot(path=str(shots / "admin-activity.png"), full_page=True)

    # Dark mode: the admin's dark colours, and the charts' own dark palette.
    light_fill = segment.evaluate("e => getComputedStyle(e).fill")
    light_text = page.locator("#per-day svg text").first.evaluate("e => getComputedStyle(e).fill")
    page.emulate_media(color_scheme="dark")
    dark_fill = segment.evaluate("e => getComputedStyle(e).fill")
    dark_text = page.locator("#per-day svg text").first.evaluate("e => getComputedStyle(e).fill")
    assert light_fill != dark_fill and light_text != dark_text
    page.screenshot(path=str(shots / "admin-activity-dark.png"), full_page=True)
    page.emulate_media(color_scheme="light")

    # A skill's row narrows the daily chart to it.
    page.click("#per-skill a:has-text('catering')")
    page.wait_for_url("**skill=catering")
    expect(page.locator("#per-day h2")).to_contain_text("catering")

    # An error leads to its task's page.
    first_error = page.locator("#failed-tasks tbody tr a").first
    short_id = first_error.inner_text()
    first_error.click()
    page.wait_for_selector(".a2a-chat, #content-main")
    assert f"/admin/a2a_app/task/{short_id}" in page.url
    task = Task.objects.get(pk=page.url.rstrip("/").split("/")[-2])
    assert task.state == "TASK_STATE_FAILED"
    assert task.summary in page.title()


def test_screenshot_names_match_the_docs() -> None:
    from tests.conftest import ROOT

    admin_doc: Any = (ROOT / "docs" / "admin.md").read_text()
    assert "screenshots/admin-activity.png" in admin_doc
    assert "screenshots/admin-activity-dark.png" in admin_doc
