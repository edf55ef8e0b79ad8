"""Docs that are generated from the code stay what the code says."""

from __future__ import annotations

from a2a_app.conf import DEFAULTS
from scripts import settings_doc
from tests.conftest import ROOT
from tests.integration.test_fresh_project import readme_extras, readme_snippets


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


def test_the_readme_blocks_that_the_fresh_project_test_applies_are_sound() -> None:
    # tests/integration/test_fresh_project.py applies them in a fresh project; this catches
    # a broken block in the quick run, before that test builds a wheel and a venv.
    snippets = readme_snippets()
    targets = [s.target for s in snippets]
    assert targets[0] == "install" and readme_extras() == "asgi"
    for snippet in snippets:
        if snippet.target.endswith(".py") or snippet.target.endswith(".py append"):
            compile(snippet.body, snippet.target, "exec")  # a SyntaxError fails the test
    for path in ("mysite/settings.py append", "mysite/urls.py", "mysite/asgi.py"):
        assert path in targets
    assert {"mysite/celery.py", "mysite/__init__.py", "clinic/a2a_skills.py"} <= set(targets)
    assert targets.count("request") == 3 and targets.count("request plain-text") == 2
