"""The task admin in a real headless browser (Debian's Chromium, driven by Playwright): a
site owner finds a task waiting for the site, reads the conversation, asks the caller a
question, and the caller (over JSON-RPC) sees the task waiting for its answer; a German
site's owner reads the list in German.

Screenshots go to ``A2A_SCREENSHOTS`` when it names a folder (docs/screenshots holds the
committed ones: admin-task-list.png, admin-task-conversation.png and their -dark twins,
admin-task-list-de.png), else to the test's temporary folder.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import requests

from tests.integration.conftest import STAFF_PASSWORD, sign_in

pytestmark = pytest.mark.integration


def rpc(live_server: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    response = requests.post(
        f"{live_server.url}/a2a/jsonrpc",
        data=json.dumps(body),
        headers={"Content-Type": "application/json"},
        timeout=10,
    )
    assert response.status_code == 200, response.text
    return response.json()["result"]


def catering(ctx: Any) -> Any:
    """Staff decide on catering requests: the task waits for the site (keep_working)."""
    from django.contrib.auth.models import Group

    from a2a_app.models import attach

    if ctx.is_follow_up:
        return ctx.keep_working("Thank you! We will confirm within the hour.")
    event, _ = Group.objects.get_or_create(name="Friday event, 40 guests")
    attach(ctx.state, event)
    return ctx.keep_working("A person from our team will look at this.")


def some_other_tasks() -> None:
    """A few tasks in other states, so that the list looks like a working day."""
    from datetime import timedelta

    from django.contrib.auth.models import User
    from django.utils import timezone

    from a2a_app.models import Task

    partner = User.objects.create_user("booking-partner")
    now = timezone.now()
    for minutes, state, summary, owner in (
        (3, "TASK_STATE_INPUT_REQUIRED", "A table for two tonight at 8", f"user:{partner.pk}"),
        (25, "TASK_STATE_COMPLETED", "Do you have vegan dishes?", ""),
        (90, "TASK_STATE_REJECTED", "Catering for 300 on Christmas Eve", f"user:{partner.pk}"),
        (200, "TASK_STATE_CANCELED", "Move my booking to Saturday", ""),
    ):
        moment = now - timedelta(minutes=minutes)
        Task.objects.create(
            context_id=f"ctx-{minutes}",
            owner=owner,
            skill_id="catering",
            state=state,
            summary=summary,
            status_timestamp=moment,
            created_at=moment,
        )


@pytest.mark.django_db(transaction=True)
def test_the_owner_answers_a_waiting_task(live_server, browser_page, shots) -> None:  # noqa: F811
    from django.contrib.auth.models import User
    from playwright.sync_api import expect

    from a2a_app.models import Task
    from a2a_app.testing import installed_skill

    User.objects.create_superuser("owner", "owner@example.com", STAFF_PASSWORD)
    page = browser_page
    with installed_skill(catering, "catering", tags=["catering", "events"]):
        some_other_tasks()
        message = {
            "messageId": "m-1",
            "role": "ROLE_USER",
            "parts": [
                {"text": "Catering for 40 people on Friday evening. Vegetarian options?"},
                {"data": {"guests": 40, "day": "Friday", "budget_eur": 1200}},
            ],
        }
        task = rpc(live_server, "SendMessage", {"message": message})["task"]
        assert task["status"]["state"] == "TASK_STATE_WORKING"

        sign_in(page, live_server.url, "owner", "/admin/a2a_app/task/")
        page.wait_for_selector("#result_list")
        assert "Catering for 40 people on Friday evening" in page.content()
        # The retention policy under the list (this site keeps tasks forever).
        expect(page.locator(".a2a-retention")).to_contain_text("are kept forever")
        # The admin's navigation sidebar folded (it stays so): more room for the tasks.
        page.click("#toggle-nav-sidebar")
        page.screenshot(path=str(shots / "admin-task-list.png"), full_page=True)
        page.emulate_media(color_scheme="dark")
        page.screenshot(path=str(shots / "admin-task-list-dark.png"), full_page=True)
        page.emulate_media(color_scheme="light")

        # Only the task that waits for the site is left by the filter.
        page.click("text=Waiting for us")
        page.wait_for_url("**/?waiting=us")
        rows = page.locator("#result_list tbody tr")
        expect(rows).to_have_count(1)
        rows.first.locator("a", has_text="Catering for 40").click()
        page.wait_for_selector(".a2a-chat")

        chat = page.locator(".a2a-chat")
        assert chat.locator(".a2a-msg--user").count() == 1
        assert "budget_eur" in chat.inner_text() and "1200" in chat.inner_text()
        assert page.locator(".a2a-attached a").inner_text() == "group: Friday event, 40 guests"
        assert page.locator("input[name=_save]").count() == 0
        page.fill("textarea[name=answer-text]", "Gladly. How many of the 40 are vegetarian?")
        page.click("input[type=submit][value='Ask the caller']")
        expect(page.locator(".messagelist")).to_contain_text("waits for their answer")
        assert Task.objects.get(pk=task["id"]).state == "TASK_STATE_INPUT_REQUIRED"

        # The caller sees the question and answers it over the protocol.
        got = rpc(live_server, "GetTask", {"id": task["id"]})
        assert got["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        question = got["status"]["message"]["parts"][0]["text"]
        assert question == "Gladly. How many of the 40 are vegetarian?"
        reply = {
            "messageId": "m-2",
            "role": "ROLE_USER",
            "taskId": task["id"],
            "parts": [{"text": "12 vegetarians, two of them vegan."}],
        }
        answered = rpc(live_server, "SendMessage", {"message": reply})["task"]
        assert answered["status"]["state"] == "TASK_STATE_WORKING"

        page.reload()
        expect(page.locator(".a2a-chat .a2a-msg")).to_have_count(5)
        page.screenshot(path=str(shots / "admin-task-conversation.png"), full_page=True)
        page.emulate_media(color_scheme="dark")
        page.screenshot(path=str(shots / "admin-task-conversation-dark.png"), full_page=True)
        page.emulate_media(color_scheme="light")

        page.click(".a2a-verb--complete summary")
        page.fill("textarea[name=complete-text]", "Confirmed: 40 guests on Friday, 12 vegetarian.")
        page.click("input[type=submit][value='Complete']")
        expect(page.locator(".messagelist")).to_contain_text("completed")
        got = rpc(live_server, "GetTask", {"id": task["id"]})
        assert got["status"]["state"] == "TASK_STATE_COMPLETED"
        # An ended task offers no verbs any more.
        expect(page.locator(".a2a-verb")).to_have_count(0)


@pytest.mark.django_db(transaction=True)
def test_a_german_site_owner_reads_the_task_list_in_german(
    live_server, browser_page, shots, settings
) -> None:
    """A site whose LANGUAGE_CODE is German: the task list's titles, filters, column names
    and state names are German (Django's own words and a2a_app's alike)."""
    from django.contrib.auth.models import User
    from playwright.sync_api import expect

    settings.LANGUAGE_CODE = "de"
    User.objects.create_superuser("owner", "owner@example.com", STAFF_PASSWORD)
    some_other_tasks()
    page = browser_page
    sign_in(page, live_server.url, "owner", "/admin/a2a_app/task/")
    page.wait_for_selector("#result_list")
    expect(page.locator("#content h1")).to_have_text("Aufgabe zum Ansehen auswählen")
    expect(page.locator("#changelist-filter")).to_contain_text("Wartet auf den Aufrufer")
    expect(page.locator(".a2a-retention")).to_contain_text("unbegrenzt aufbewahrt")
    states = page.locator("#result_list tbody").inner_text()
    for german in ("wartet auf Eingabe", "erledigt", "abgelehnt", "abgebrochen"):
        assert german in states
    for english in ("input required", "completed", "rejected", "canceled"):
        assert english not in states
    page.click("#toggle-nav-sidebar")
    page.screenshot(path=str(shots / "admin-task-list-de.png"), full_page=True)
