"""The German catalogues are complete and compiled: no fuzzy or empty entries (but a few
named ones whose German is the English), a .mo that says what the .po says, and
translations that keep every placeholder of their msgid."""

from __future__ import annotations

import ast
import gettext
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import ROOT

CATALOGUES = {
    "a2a_app": ROOT / "a2a_app" / "locale" / "de" / "LC_MESSAGES",
    "skills": ROOT / "skills" / "locale" / "de" / "LC_MESSAGES",
}

#: Entries left empty on purpose: their German is the English, which gettext then returns.
IDENTITY = {
    ("skills", None, "HH:MM"),  # the time field's help text; German writes times the same
    ("skills", None, "l"),  # a date format character (the weekday), not text
    ("skills", None, "Pasta"),  # menu category names that German uses as they are
    ("skills", None, "Pizza"),
}

PLACEHOLDER = re.compile(r"%\([^)]+\)[sdrif]|%[sdrif]|\{[A-Za-z_][A-Za-z0-9_]*\}")


@dataclass
class Entry:
    msgctxt: str | None = None
    msgid: str = ""
    msgid_plural: str | None = None
    msgstr: list[str] = field(default_factory=list)
    fuzzy: bool = False

    @property
    def empty(self) -> bool:
        return not self.msgstr or not all(self.msgstr)


def read_po(path: Path) -> list[Entry]:
    """The entries of a .po file (the header left out); enough of the format for ours."""
    entries: list[Entry] = []
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        entry, key, values = Entry(), "", {}
        for line in block.splitlines():
            if line.startswith("#,"):
                entry.fuzzy = entry.fuzzy or "fuzzy" in line
            elif line.startswith("#") or not line.strip():
                continue
            elif line.startswith('"'):
                values[key] += ast.literal_eval(line)
            else:
                key, _, text = line.partition(" ")
                values[key] = ast.literal_eval(text)
        if values.get("msgid"):
            entry.msgctxt = values.get("msgctxt")
            entry.msgid = values["msgid"]
            entry.msgid_plural = values.get("msgid_plural")
            if entry.msgid_plural is None:
                entry.msgstr = [values.get("msgstr", "")]
            else:
                entry.msgstr = [values.get("msgstr[0]", ""), values.get("msgstr[1]", "")]
            entries.append(entry)
    return entries


def label(entry: Entry) -> str:
    return repr(entry.msgid if entry.msgctxt is None else f"{entry.msgctxt}|{entry.msgid}")


@pytest.fixture(params=sorted(CATALOGUES), scope="module")
def catalogue(request: pytest.FixtureRequest) -> tuple[str, list[Entry]]:
    app = request.param
    return app, read_po(CATALOGUES[app] / "django.po")


def test_no_fuzzy_entries(catalogue: tuple[str, list[Entry]]) -> None:
    app, entries = catalogue
    assert [label(e) for e in entries if e.fuzzy] == [], f"{app}: fuzzy entries"


def test_no_empty_translations_but_the_identity_ones(catalogue: tuple[str, list[Entry]]) -> None:
    app, entries = catalogue
    empty = {(app, e.msgctxt, e.msgid) for e in entries if e.empty}
    assert sorted(map(str, empty - IDENTITY)) == [], f"{app}: untranslated entries"
    # An allow-listed entry that got translated (or went away) leaves the list.
    listed = {key for key in IDENTITY if key[0] == app}
    assert listed <= empty, f"{app}: IDENTITY names entries that are not empty"


def test_the_compiled_catalogue_is_not_stale(catalogue: tuple[str, list[Entry]]) -> None:
    app, entries = catalogue
    with open(CATALOGUES[app] / "django.mo", "rb") as mo:
        compiled = gettext.GNUTranslations(mo)
    stale = []
    for e in (e for e in entries if not e.empty and not e.fuzzy):
        ctx, plural = e.msgctxt, e.msgid_plural
        if plural is not None:
            got = [
                compiled.npgettext(ctx, e.msgid, plural, n)
                if ctx
                else compiled.ngettext(e.msgid, plural, n)
                for n in (1, 2)
            ]
        else:
            got = [compiled.pgettext(ctx, e.msgid) if ctx else compiled.gettext(e.msgid)]
        if got != e.msgstr:
            stale.append(label(e))
    assert stale == [], f"{app}: django.mo is stale, run `manage.py compilemessages -l de`"


def test_translations_keep_their_placeholders(catalogue: tuple[str, list[Entry]]) -> None:
    app, entries = catalogue
    wrong = []
    for e in entries:
        sources = [e.msgid] if e.msgid_plural is None else [e.msgid, e.msgid_plural]
        for source, text in zip(sources, e.msgstr, strict=True):
            if text and sorted(PLACEHOLDER.findall(source)) != sorted(PLACEHOLDER.findall(text)):
                wrong.append(label(e))
    assert wrong == [], f"{app}: placeholders differ between msgid and msgstr"


def unmarked_admin_names() -> list[str]:
    """Model and field names of the installed apps' admin pages (of the catalogues' apps)
    that are not marked for translation: Django derives an unmarked one from the attribute
    name (and adds an English "s" for the plural), which a German admin then shows as
    "Zustellungs" or "context id"."""
    from django.contrib import admin
    from django.utils.functional import Promise

    unmarked = []
    for model in admin.site._registry:
        meta = model._meta
        if meta.app_label not in CATALOGUES:
            continue
        for what in ("verbose_name", "verbose_name_plural"):
            if not isinstance(getattr(meta, what), Promise):
                unmarked.append(f"{meta.label}.{what}")
        own = (f for f in meta.concrete_fields if f.model is model and not f.auto_created)
        unmarked += [
            f"{meta.label}.{f.name}" for f in own if not isinstance(f.verbose_name, Promise)
        ]
    return unmarked


def test_the_admin_names_models_and_fields_in_the_site_language() -> None:
    from django.utils.functional import Promise

    from a2a_app.models import TASK_STATE_CHOICES
    from a2a_app.protocol.states import TaskState

    assert unmarked_admin_names() == []
    assert [value for value, _ in TASK_STATE_CHOICES] == [s.value for s in TaskState][1:]
    assert all(isinstance(name, Promise) for _, name in TASK_STATE_CHOICES)
