"""The demo's home page is a2a_app's agent page, in the restaurant's colours; /llms.txt
lists the same skills as the card."""

from __future__ import annotations

import pytest
from django.test import Client


@pytest.mark.usefixtures("demo")
@pytest.mark.django_db
def test_the_home_page_is_the_branded_agent_page() -> None:
    client = Client()
    html = client.get("/").content.decode()
    assert "🍝 Trattoria Django" in html and 'href="/menu/"' in html  # the demo's override
    assert 'id="a2a-console-input"' in html  # the package's page underneath
    card = client.get("/.well-known/agent-card.json").json()
    assert card["skills"]
    for skill in card["skills"]:
        assert f'id="skill-{skill["id"]}"' in html
    llms = client.get("/llms.txt").content.decode()
    assert llms.startswith(f"# {card['name']}\n")
    for skill in card["skills"]:
        assert f"(http://testserver/agent/#skill-{skill['id']})" in llms
