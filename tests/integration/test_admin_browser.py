"""The API-key pages of the admin in a real headless browser (Debian's Chromium, driven by
Playwright): a site owner issues a key, sees it once, never again, and revokes it.

Screenshots go to ``A2A_SCREENSHOTS`` when it names a folder (docs/screenshots holds the
committed ones), else to the test's temporary folder. Without Chromium the tests skip on a
developer machine and fail in CI (.ci/run installs it).
"""

from __future__ import annotations

import json
import re

import pytest
import requests

from tests.integration.conftest import STAFF_PASSWORD, sign_in

KEY_PATTERN = re.compile(r"a2a_[0-9a-f]{8}_[A-Za-z0-9_-]{20,}")

pytestmark = pytest.mark.integration


def call(live_server, key: str) -> int:
    body = {"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}}
    response = requests.post(
        f"{live_server.url}/a2a/jsonrpc",
        data=json.dumps(body),
        headers={"Content-Type": "application/json", "X-API-Key": key},
        timeout=10,
    )
    return response.status_code


@pytest.mark.django_db(transaction=True)
def test_a_key_is_issued_shown_once_and_revoked(live_server, browser_page, shots) -> None:
    from django.contrib.auth.models import User

    from a2a_app.models import ApiKey

    User.objects.create_superuser("owner", "owner@example.com", STAFF_PASSWORD)
    agent = User.objects.create_user("partner-agent")
    page = browser_page

    sign_in(page, live_server.url, "owner", "/admin/a2a_app/apikey/add/")
    page.fill("#id_name", "Booking partner")
    page.select_option("#id_user", str(agent.pk))
    page.fill("#id_scopes", '["operation:SendMessage", "operation:GetTask"]')
    page.click("input[name=_save]")

    message = page.locator(".messagelist").inner_text()
    found = KEY_PATTERN.search(message)
    assert found, message
    key = found.group(0)
    page.screenshot(path=str(shots / "admin-api-key-issued.png"), full_page=True)

    issued = ApiKey.objects.get()
    assert key.startswith(issued.prefix) and key not in (issued.digest, issued.prefix)
    assert issued.scopes == ["operation:SendMessage", "operation:GetTask"]
    # The key works, within its scopes.
    assert call(live_server, key) == 403  # ListTasks is not among them
    body = {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "nope"}}
    answer = requests.post(
        f"{live_server.url}/a2a/jsonrpc",
        data=json.dumps(body),
        headers={"Content-Type": "application/json", "X-API-Key": key},
        timeout=10,
    )
    assert answer.json()["error"]["code"] == -32001  # authenticated: the task is unknown

    # Never shown again: not in the list, not on the key's page.
    page.goto(f"{live_server.url}/admin/a2a_app/apikey/")
    assert issued.prefix in page.content() and key not in page.content()
    page.goto(f"{live_server.url}/admin/a2a_app/apikey/{issued.pk}/change/")
    assert key not in page.content() and issued.digest not in page.content()
    page.screenshot(path=str(shots / "admin-api-key-change.png"), full_page=True)

    # Revoked from the list: the key stops working at once.
    page.goto(f"{live_server.url}/admin/a2a_app/apikey/")
    page.check(f"input[name=_selected_action][value='{issued.pk}']")
    page.select_option("select[name=action]", "revoke")
    page.click("button[name=index]")
    assert "Revoked 1 key" in page.locator(".messagelist").inner_text()
    page.screenshot(path=str(shots / "admin-api-key-revoked.png"), full_page=True)
    assert call(live_server, key) == 401
