"""The pages for people (a2a_app.pages): the agent page and /llms.txt.

Both are drawn from the public agent card, so they must show exactly its skills: never a
disabled or restricted one, and the owner's latest edits. Owner-edited text is escaped.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

from a2a_app.models import Skill
from a2a_app.pages.llms import agent_section
from a2a_app.skills import catalogue, registry

pytestmark = pytest.mark.django_db

EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)>'


@pytest.fixture(autouse=True)
def _registry() -> Any:
    """The handlers add_skill registers live for one test."""
    with registry.registered():
        yield


def _handler(ctx: Any) -> str:
    return "done"


def add_skill(skill_id: str, **fields: Any) -> Skill:
    """A registered handler and its row (a row without a registered handler is not served)."""
    registry.register(registry.SkillSpec(skill_id, _handler, skill_id, ""))
    defaults = {
        "handler": skill_id,
        "name": skill_id.replace("-", " ").title(),
        "description": f"The {skill_id} skill.",
        "tags": [skill_id],
        "examples": [f"Please {skill_id}"],
    }
    row = Skill.objects.create(id=skill_id, **{**defaults, **fields})
    catalogue.clear_cache()
    return row


def card(client: Client) -> dict[str, Any]:
    response = client.get("/.well-known/agent-card.json")
    assert response.status_code == 200
    return response.json()


def llms_skills(text: str) -> list[tuple[str, str]]:
    """(name, link) of each skill in an llms.txt's Skills section."""
    section = text.split("## Skills", 1)[1]
    return re.findall(r"^- \[((?:[^\]\\]|\\.)*)\]\(([^)]*)\)", section, flags=re.M)


@pytest.fixture
def skills() -> None:
    add_skill("book-table", name="Book a table", examples=["A table for 2 tonight", "Für 4"])
    add_skill("view-menu", name="Show the menu", examples=["Anything vegan?"])
    add_skill("staff-roster", name="Staff roster", access=Skill.Access.AUTHENTICATED)
    add_skill("secret-sauce", name="Secret sauce", enabled=False)


def test_the_page_presents_the_agent_its_public_skills_and_how_to_connect(
    client: Client, skills: None
) -> None:
    response = client.get("/agent/")
    assert response.status_code == 200
    html = response.content.decode()
    assert '<h1 id="a2a-title">a2a_app tests</h1>' in html
    assert "The agent of a2a_app&#x27;s test project." in html
    assert '<a href="https://tests.example.com">a2a_app tests</a>' in html
    for skill in card(client)["skills"]:
        assert f'id="skill-{skill["id"]}"' in html
        assert f">{skill['name']}</h3>" in html
    assert 'data-example="A table for 2 tonight"' in html  # a button fills the console
    assert "Staff roster" not in html and "staff-roster" not in html  # restricted
    assert "Secret sauce" not in html and "secret-sauce" not in html  # disabled
    assert 'href="http://testserver/.well-known/agent-card.json"' in html
    assert "<code>http://testserver/a2a/jsonrpc</code>" in html
    assert "<code>http://testserver/a2a/rest</code>" in html
    assert "an API key in the header “X-API-Key”" in html  # the card's schemes, in words
    # The copyable example runs as pasted: the first example, quoted for the shell.
    curl = re.search(r'<code id="a2a-curl">(.*?)</code>', html, flags=re.S).group(1)
    assert curl.startswith("curl -s &#x27;http://testserver/a2a/jsonrpc&#x27;")
    assert "A table for 2 tonight" in curl
    assert '<script src="/static/a2a_app/agent.js" defer></script>' in html


def test_the_console_is_configured_from_the_card(client: Client, skills: None) -> None:
    html = client.get("/agent/").content.decode()
    config = json.loads(
        re.search(
            r'<script id="a2a-console-config" type="application/json">(.*?)</script>', html
        ).group(1)
    )
    assert config["endpoint"] == "http://testserver/a2a/jsonrpc"
    assert config["streaming"] is False  # the test client is WSGI: the card says no streaming
    assert config["apiKeyHeader"] == "X-API-Key"
    assert config["csrfToken"]
    assert config["strings"]["states"]["TASK_STATE_INPUT_REQUIRED"] == "Waiting for your answer"
    assert 'id="a2a-console-stream"' not in html  # no streaming box without streaming


def test_owner_text_is_escaped(client: Client) -> None:
    add_skill("evil", name=EVIL, description=EVIL, examples=[EVIL, "it's \" quoted"])
    html = client.get("/agent/").content.decode()
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert 'data-example="it&#x27;s &quot; quoted"' in html
    text = client.get("/llms.txt").content.decode()
    # llms.txt is plain text: the name cannot break out of its link, nor a line its item.
    assert llms_skills(text)[0][0] == re.sub(r"([\[\]\\])", r"\\\1", EVIL)


def test_a_javascript_url_in_the_profile_is_not_a_link(client: Client, settings) -> None:
    settings.A2A_APP = {
        **settings.A2A_APP,
        "PROVIDER": {"organization": "Evil Corp", "url": "javascript:alert(1)"},
        "DOCUMENTATION_URL": "javascript:alert(2)",
    }
    html = client.get("/agent/").content.decode()
    assert "Evil Corp" in html
    assert "javascript:" not in html


def test_the_console_can_be_turned_off(client: Client, settings, skills: None) -> None:
    settings.A2A_APP = {**settings.A2A_APP, "AGENT_PAGE_CONSOLE": False}
    html = client.get("/agent/").content.decode()
    assert "a2a-console-config" not in html and 'id="a2a-console-input"' not in html
    assert "“A table for 2 tonight”" in html  # examples stay, as text
    assert 'class="a2a-example"' not in html


def test_a_card_that_requires_credentials_says_so(client: Client, settings, skills: None) -> None:
    settings.A2A_APP = {**settings.A2A_APP, "ALLOW_ANONYMOUS": False}
    html = client.get("/agent/").content.decode()
    assert "Required. Send one of:" in html
    assert "API key (required)" in html
    assert "-H &#x27;X-API-Key: &lt;your key&gt;&#x27;" in html


def test_the_page_is_read_only(client: Client) -> None:
    assert client.post("/agent/").status_code == 405
    assert client.post("/llms.txt").status_code == 405
    assert client.head("/agent/").status_code == 200


def test_llms_txt_follows_the_proposal_and_links_right(client: Client, skills: None) -> None:
    response = client.get("/llms.txt")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    text = response.content.decode()
    lines = text.splitlines()
    assert lines[0] == "# a2a_app tests"
    assert lines[2] == "> The agent of a2a_app's test project."
    assert "[a2a_app tests](https://tests.example.com)" in text
    assert "- [Agent card](http://testserver/.well-known/agent-card.json): " in text
    assert "- [Agent page](http://testserver/agent/): " in text
    assert "- [JSON-RPC endpoint](http://testserver/a2a/jsonrpc): " in text
    assert "(http://testserver/a2a/rest/openapi.json)" in text
    assert text.index("## A2A agent") < text.index("## Skills")
    assert llms_skills(text) == [
        ("Book a table", "http://testserver/agent/#skill-book-table"),
        ("Show the menu", "http://testserver/agent/#skill-view-menu"),
    ]
    assert "Examples: “A table for 2 tonight”; “Für 4”" in text


def test_llms_txt_and_the_card_agree_after_admin_edits(client: Client, skills: None) -> None:
    def names_in_both() -> tuple[list[str], list[str]]:
        catalogue.clear_cache()  # as a web process does after CARD_REVALIDATE_SECONDS
        on_card = [s["name"] for s in card(client)["skills"]]
        in_llms = [name for name, _ in llms_skills(client.get("/llms.txt").content.decode())]
        return on_card, in_llms

    on_card, in_llms = names_in_both()
    assert on_card == in_llms == ["Book a table", "Show the menu"]

    menu = Skill.objects.get(id="view-menu")
    menu.name = "Our menu"
    menu.save()
    booking = Skill.objects.get(id="book-table")
    booking.enabled = False
    booking.save()
    roster = Skill.objects.get(id="staff-roster")
    roster.access = Skill.Access.PUBLIC
    roster.save()

    on_card, in_llms = names_in_both()
    assert on_card == in_llms  # the same skills, in the same order
    assert sorted(on_card) == ["Our menu", "Staff roster"]
    page = client.get("/agent/").content.decode()
    assert "Our menu" in page and "Book a table" not in page and "Staff roster" in page


def test_llms_txt_answers_conditional_requests(client: Client, skills: None) -> None:
    first = client.get("/llms.txt")
    etag = first["ETag"]
    assert client.get("/llms.txt", HTTP_IF_NONE_MATCH=etag).status_code == 304
    skill = Skill.objects.get(id="view-menu")
    skill.description = "Now with desserts."
    skill.save()
    catalogue.clear_cache()
    changed = client.get("/llms.txt", HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and changed["ETag"] != etag
    assert "Now with desserts." in changed.content.decode()


def test_a_site_with_its_own_llms_txt_includes_the_section(rf, skills: None) -> None:
    section = agent_section(rf.get("/llms.txt"), level=3)
    assert section.startswith("### A2A agent\n")
    assert "\n### Skills\n" in section
    assert "- [Show the menu](http://testserver/agent/#skill-view-menu): " in section
    assert "# a2a_app tests" not in section  # the site keeps its own H1


def test_no_skills_is_said_in_words(client: Client) -> None:
    assert "No skill is published at the moment." in client.get("/agent/").content.decode()
    assert "No skill is published at the moment." in client.get("/llms.txt").content.decode()


def test_a_signed_in_visitors_console_calls_pass_the_csrf_check(settings, skills: None) -> None:
    """With SessionAuthentication, the console's calls are session-authenticated: the token
    the page hands to the script lets them through, and a call without it is refused."""
    from django.contrib.auth.models import User

    settings.A2A_APP = {
        **settings.A2A_APP,
        "AUTHENTICATION_CLASSES": [
            "a2a_app.authentication.ApiKeyAuthentication",
            "rest_framework.authentication.SessionAuthentication",
        ],
    }
    User.objects.create_user("visitor", password="a-long-password-1")
    browser = Client(enforce_csrf_checks=True)
    assert browser.login(username="visitor", password="a-long-password-1")
    html = browser.get("/agent/").content.decode()
    config = json.loads(
        re.search(
            r'<script id="a2a-console-config" type="application/json">(.*?)</script>', html
        ).group(1)
    )
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {"pageSize": 1}})
    headers = {"A2A-Version": "1.0", "Origin": "http://testserver"}
    refused = browser.post("/a2a/jsonrpc", body, content_type="application/json", headers=headers)
    assert refused.status_code == 403
    assert refused.json()["error"]["message"].startswith("CSRF Failed")
    allowed = browser.post(
        "/a2a/jsonrpc",
        body,
        content_type="application/json",
        headers={**headers, "X-CSRFToken": config["csrfToken"]},
    )
    assert allowed.status_code == 200, allowed.content
    assert "result" in allowed.json()


def test_a_console_that_cannot_sign_in_is_a_warning(settings) -> None:
    from django.core.checks import run_checks

    def warned() -> bool:
        return any(m.id == "a2a_app.W120" for m in run_checks(tags=["urls"]))

    settings.A2A_APP = {**settings.A2A_APP, "ALLOW_ANONYMOUS": False}
    assert not warned()  # the card declares an API-key header: the console sends it
    settings.A2A_APP = {
        **settings.A2A_APP,
        "AUTHENTICATION_CLASSES": ["a2a_app.authentication.BasicAuthentication"],
    }
    assert warned()
    settings.A2A_APP = {**settings.A2A_APP, "AGENT_PAGE_CONSOLE": False}
    assert not warned()
