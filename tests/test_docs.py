"""Docs that are generated from the code stay what the code says."""

from __future__ import annotations

from a2a_app.conf import DEFAULTS
from scripts import settings_doc
from tests.conftest import ROOT


def test_settings_page_is_generated_from_conf() -> None:
    page = (ROOT / "docs" / "settings.md").read_text()
    fresh = settings_doc.render(settings_doc.read_sections(settings_doc.CONF.read_text()))
    assert page == fresh, "docs/settings.md is stale: run `python -m scripts.settings_doc`"


def test_every_setting_is_documented() -> None:
    sections = settings_doc.read_sections(settings_doc.CONF.read_text())
    documented = [s.key for section in sections for s in section.settings]
    assert documented == list(DEFAULTS)
    # A key shares the comment of the key above only when it has none of its own.
    assert all(s.comment for section in sections for s in section.settings[:1])


def test_a_changed_comment_is_noticed() -> None:
    source = settings_doc.CONF.read_text().replace(
        "# Larger request bodies are refused", "# Bigger request bodies are refused"
    )
    changed = settings_doc.render(settings_doc.read_sections(source))
    assert changed != (ROOT / "docs" / "settings.md").read_text()
    assert "Bigger request bodies are refused" in changed
