"""Measure date/time parsers on phrases guests write (docs/parsing.md has the results).

Run with a Python that has the candidates installed (they are not dependencies):
``python -m bench.date_parsers`` prints a Markdown table. Each column is a library's best
single call on the whole phrase; "ours" is a2a_app's DeterministicInterpreter (needs
Django settings, skipped when it cannot be imported).
"""

from __future__ import annotations

import os
import time as clock
from datetime import datetime
from zoneinfo import ZoneInfo

#: Tue 2026-12-01 14:00 in Berlin, as in the notes.
NOW = datetime(2026, 12, 1, 14, 0, tzinfo=ZoneInfo("Europe/Berlin"))

#: phrase, language, expected "YYYY-MM-DD" and "HH:MM" (None: no time said)
PHRASES: list[tuple[str, str, str, str | None]] = [
    ("tomorrow", "en", "2026-12-02", None),
    ("tomorrow at 7pm", "en", "2026-12-02", "19:00"),
    ("tomorrow evening", "en", "2026-12-02", None),
    ("next Friday at 8pm", "en", "2026-12-04", "20:00"),
    ("on Saturday", "en", "2026-12-05", None),
    ("Saturday 8pm", "en", "2026-12-05", "20:00"),
    ("on December 24 at 6pm", "en", "2026-12-24", "18:00"),
    ("24th of December", "en", "2026-12-24", None),
    ("Dec 24th, 7:30pm", "en", "2026-12-24", "19:30"),
    ("the day after tomorrow at noon", "en", "2026-12-03", "12:00"),
    ("today at 19:30", "en", "2026-12-01", "19:30"),
    ("tonight at 8", "en", "2026-12-01", "20:00"),
    ("in 3 days", "en", "2026-12-04", None),
    ("2026-12-24 20:00", "en", "2026-12-24", "20:00"),
    ("January 5", "en", "2027-01-05", None),
    ("yesterday", "en", "2026-11-30", None),
    ("Book a table for 2 tomorrow at 7pm. My name is Tom Lee", "en", "2026-12-02", "19:00"),
    ("next friday 8pm, anna@example.com", "en", "2026-12-04", "20:00"),
    ("party of six on the 12th at 7", "en", "2026-12-12", "19:00"),
    ("morgen", "de", "2026-12-02", None),
    ("morgen um 20 Uhr", "de", "2026-12-02", "20:00"),
    ("übermorgen", "de", "2026-12-03", None),
    ("am Samstag", "de", "2026-12-05", None),
    ("am Samstag um 19 Uhr", "de", "2026-12-05", "19:00"),
    ("24. Dezember", "de", "2026-12-24", None),
    ("24. Dezember um 18:30", "de", "2026-12-24", "18:30"),
    ("am 24.12. um 19.30 Uhr", "de", "2026-12-24", "19:30"),
    ("nächsten Freitag", "de", "2026-12-04", None),
    ("heute Abend um 8", "de", "2026-12-01", "20:00"),
    ("Freitag um halb acht", "de", "2026-12-04", "19:30"),
    ("gestern", "de", "2026-11-30", None),
    ("in drei Tagen", "de", "2026-12-04", None),
    ("Tisch für 4 Personen am Samstag um 19 Uhr, Name Weber", "de", "2026-12-05", "19:00"),
    ("5.1.2027", "de", "2027-01-05", None),
    ("am 3. Januar um 12 Uhr", "de", "2027-01-03", "12:00"),
]

Result = tuple[str | None, str | None]


def _split(found: datetime | None, timed: bool = True) -> Result:
    if found is None:
        return None, None
    return found.date().isoformat(), (f"{found:%H:%M}" if timed else None)


def run_dateparser(phrase: str, lang: str) -> Result:
    import dateparser
    from dateparser.search import search_dates

    settings = {
        "PREFER_DATES_FROM": "future",
        "RELATIVE_BASE": NOW.replace(tzinfo=None),
        "RETURN_AS_TIMEZONE_AWARE": False,
    }
    found = dateparser.parse(phrase, languages=[lang], settings=settings)
    if found is None:
        hits = search_dates(phrase, languages=[lang], settings=settings) or []
        found = hits[0][1] if hits else None
    return _split(found)


def run_ctparse(phrase: str, lang: str) -> Result:
    from ctparse import ctparse

    parsed = ctparse(phrase, ts=NOW.replace(tzinfo=None), timeout=1)
    if parsed is None or not hasattr(parsed.resolution, "year"):
        return None, None
    res = parsed.resolution
    if res.year is None or res.month is None or res.day is None:
        return None, None
    day = f"{res.year:04d}-{res.month:02d}-{res.day:02d}"
    at = f"{res.hour:02d}:{res.minute or 0:02d}" if res.hour is not None else None
    return day, at


def run_datefinder(phrase: str, lang: str) -> Result:
    import datefinder

    found = next(iter(datefinder.find_dates(phrase, base_date=NOW.replace(tzinfo=None))), None)
    return _split(found)


def run_recognizers(phrase: str, lang: str) -> Result:
    from recognizers_date_time import recognize_datetime
    from recognizers_text import Culture

    if lang != "en":
        return None, None  # the Python port has no German model
    for hit in recognize_datetime(phrase, Culture.English, reference=NOW.replace(tzinfo=None)):
        for value in hit.resolution.get("values", []):
            raw = value.get("value")
            if raw and len(raw) >= 10 and raw[4] == "-":
                day = raw[:10]
                at = raw[11:16] if len(raw) > 11 else None
                return day, at
    return None, None


def run_ours(phrase: str, lang: str) -> Result:
    from django import forms

    from a2a_app.forms.text import DeterministicInterpreter

    class When(forms.Form):
        date = forms.DateField()
        time = forms.TimeField()

    found = DeterministicInterpreter().interpret(phrase, When, language=lang, now=NOW)
    return found.get("date"), found.get("time")


def main() -> None:
    runners = {
        "dateparser": run_dateparser,
        "ctparse": run_ctparse,
        "datefinder": run_datefinder,
        "recognizers-text": run_recognizers,
        "ours": run_ours,
    }
    if "DJANGO_SETTINGS_MODULE" in os.environ:
        import django

        django.setup()
    else:
        runners.pop("ours")
    columns = {}
    for name, run in list(runners.items()):
        try:
            run("tomorrow", "en")
        except ImportError:
            runners.pop(name)
            continue
        columns[name] = [0, 0.0]
    print("| phrase | expected | " + " | ".join(runners) + " |")
    print("|---|---|" + "---|" * len(runners))
    for phrase, lang, day, at in PHRASES:
        cells = []
        for name, run in runners.items():
            start = clock.perf_counter()
            try:
                got = run(phrase, lang)
            except Exception as exc:  # a crash is a miss, and worth seeing
                got = (f"error {type(exc).__name__}", None)
            columns[name][1] += clock.perf_counter() - start
            good = got[0] == day and (at is None or got[1] == at)
            columns[name][0] += good
            shown = " ".join(x for x in got if x) or "–"
            cells.append(("✓ " if good else "✗ ") + shown)
        expected = f"{day} {at or ''}".strip()
        print(f"| {phrase} ({lang}) | {expected} | " + " | ".join(cells) + " |")
    total = len(PHRASES)
    scores = " | ".join(f"**{c[0]}/{total}**" for c in columns.values())
    print(f"| **right** | | {scores} |")
    times = " | ".join(f"{1000 * c[1] / total:.1f} ms" for c in columns.values())
    print(f"| mean time per phrase (warm) | | {times} |")


if __name__ == "__main__":
    main()
