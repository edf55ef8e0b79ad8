"""The agent page in a real headless browser (Debian's Chromium, driven by Playwright),
against a live uvicorn process: a visitor reads what the agent does, clicks an example,
sends it, answers the agent's question and sees the result, streamed and not, with the
mouse and with the keyboard alone.

The server serves the test project with ``tests.pageskills`` installed: its greeting-card
skill asks who the card is from, then completes with a text and a data artifact; its poem
skill works for three seconds.
Screenshots go to ``A2A_SCREENSHOTS`` when it names a folder (docs/screenshots holds the
committed ones), else to the test's temporary folder.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import start_server

ANSWER_TIMEOUT_MS = 20_000

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def site() -> Iterator[str]:
    """The live server, with the greeting-card skill published and a restricted one."""
    from a2a_app.models import Skill

    Skill.objects.create(
        id="greeting-card",
        handler="greeting-card",
        name="Write a greeting card",
        description="Writes a short greeting card for an occasion; asks who it is from.",
        tags=["card", "greeting"],
        examples=["A birthday card for Anna", "A thank-you card for the team"],
    )
    Skill.objects.create(
        id="poem",
        handler="poem",
        name="Write a poem",
        description="Writes a short poem about a subject; takes a few seconds.",
        tags=["poem", "verse"],
        examples=["A poem about the sea"],
    )
    Skill.objects.create(
        id="staff-roster",
        handler="greeting-card",
        name="Staff roster",
        description="Only for signed-in staff.",
        access=Skill.Access.AUTHENTICATED,
    )
    process, base = start_server({"A2A_TEST_APPS": "tests.pageskills"})
    try:
        yield base
    finally:
        process.terminate()
        process.wait(timeout=10)


def methods_called(page: Any) -> list[str]:
    """The JSON-RPC methods the page calls, in order (filled as it runs)."""
    called: list[str] = []

    def record(request: Any) -> None:
        if request.method == "POST" and request.url.endswith("/a2a/jsonrpc"):
            called.append(json.loads(request.post_data)["method"])

    page.on("request", record)
    return called


def converse(page: Any, example: str, sender: str) -> None:
    """Click ``example``, send it, answer the agent's question with ``sender``."""
    page.get_by_role("button", name=f"“{example}”").click()
    assert page.locator("#a2a-console-input").input_value() == example
    page.get_by_role("button", name="Send", exact=True).click()
    question = page.locator(".a2a-entry--agent").last
    question.get_by_text("Who is the card from?").wait_for(timeout=ANSWER_TIMEOUT_MS)
    state = page.locator("#a2a-console-state")
    assert state.inner_text() == "Waiting for your answer"
    page.fill("#a2a-console-input", sender)
    page.get_by_role("button", name="Send", exact=True).click()
    page.locator("#a2a-console-state[data-state=TASK_STATE_COMPLETED]").wait_for(
        timeout=ANSWER_TIMEOUT_MS
    )
    result = page.locator(".a2a-entry--artifact").filter(has_text="Result: card").last
    assert f"{example}: all the best, and many happy returns! From {sender}." in (
        result.inner_text()
    )
    details = page.locator(".a2a-entry--artifact").filter(has_text="Result: details").last
    assert json.loads(details.locator("pre").inner_text()) == {"occasion": example, "from": sender}


def test_a_visitor_talks_to_the_agent_streamed_and_not(site, browser, shots) -> None:
    from a2a_app.models import Task

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    called = methods_called(page)
    page.goto(f"{site}/agent/")
    assert page.locator("h1").inner_text() == "a2a_app tests"
    assert page.get_by_role("heading", name="Write a greeting card").is_visible()
    assert "Staff roster" not in page.content()  # restricted: not on the public card
    assert page.locator("#a2a-console-stream").is_checked()  # uvicorn: the card says streaming
    assert page.locator("#a2a-curl").inner_text().startswith(f"curl -s '{site}/a2a/jsonrpc'")
    page.screenshot(path=str(shots / "agent-page.png"), full_page=True)

    converse(page, "A birthday card for Anna", "Ben")
    assert called == ["SendStreamingMessage", "SendStreamingMessage"]
    # The progress update came through the stream, between question and result.
    assert page.locator(".a2a-entry--agent").filter(has_text="Writing the card…").count() == 1
    page.screenshot(path=str(shots / "agent-page-console.png"), full_page=True)

    # The same page without streaming: SendMessage, and a new conversation.
    page.get_by_role("button", name="New conversation").click()
    assert page.locator(".a2a-entry").count() == 0
    page.locator("#a2a-console-stream").uncheck()
    converse(page, "A thank-you card for the team", "Carla")
    assert called[2:] == ["SendMessage", "SendMessage"]

    # Each answer continued its task: two tasks, both completed, in two contexts.
    tasks = list(Task.objects.filter(skill_id="greeting-card"))
    assert sorted(t.state for t in tasks) == ["TASK_STATE_COMPLETED"] * 2
    assert len({t.context_id for t in tasks}) == 2

    page.emulate_media(color_scheme="dark")
    page.screenshot(path=str(shots / "agent-page-dark.png"), full_page=True)


def test_the_console_works_with_the_keyboard_alone(site, browser) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844})  # a phone
    called = methods_called(page)
    page.goto(f"{site}/agent/")
    for _ in range(40):  # Tab until the first example has the focus
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('a2a-example')"):
            break
    else:
        pytest.fail("no example button is reachable with Tab")
    page.keyboard.press("Enter")  # fills the box and moves the focus there
    assert page.evaluate("document.activeElement.id") == "a2a-console-input"
    assert page.locator("#a2a-console-input").input_value() == "A birthday card for Anna"
    page.keyboard.press("Enter")  # sends
    page.get_by_text("Who is the card from?").wait_for(timeout=ANSWER_TIMEOUT_MS)
    assert page.evaluate("document.activeElement.id") == "a2a-console-input"
    page.keyboard.type("Dora")
    page.keyboard.press("Enter")
    page.locator("#a2a-console-state[data-state=TASK_STATE_COMPLETED]").wait_for(
        timeout=ANSWER_TIMEOUT_MS
    )
    assert "From Dora." in page.locator(".a2a-entry--artifact").first.inner_text()
    assert called == ["SendStreamingMessage", "SendStreamingMessage"]
    # Nothing is wider than the phone's screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_a_new_conversation_drops_the_answer_still_on_its_way(site, browser) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{site}/agent/")
    page.get_by_role("button", name="“A poem about the sea”").click()
    page.get_by_role("button", name="Send", exact=True).click()
    page.locator("#a2a-console-state[data-state=TASK_STATE_WORKING]").wait_for(
        timeout=ANSWER_TIMEOUT_MS
    )
    assert page.get_by_role("button", name="Send", exact=True).is_disabled()
    page.get_by_role("button", name="New conversation").click()
    assert page.locator(".a2a-entry").count() == 0
    assert page.get_by_role("button", name="Send", exact=True).is_enabled()
    page.wait_for_timeout(4000)  # the poem is done by now; the aborted stream shows nothing
    assert page.locator(".a2a-entry").count() == 0
    assert page.locator("#a2a-console-state").inner_text() == "New conversation started."
    # The console still works.
    converse(page, "A birthday card for Anna", "Ben")
