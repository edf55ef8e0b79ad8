"""The conversation test set: guests talk to Trattoria Django, one pytest test per case.

The cases are data (``tests/demo/conversations/*.json``, format in that folder's
README.md); ``A2A_CONVERSATIONS_DIR`` points the runner at another folder (the held-out
set is run that way). Each turn goes over JSON-RPC in process (``A2AClient``) to the demo
site with ``load_demo``'s data, at a frozen clock: Tuesday 2026-12-01 14:00
Europe/Berlin (``time-machine``, ticking so that timestamps still move forward).

What is checked, per turn: the skill the task ended up with (``Task.skill_id``; ``null``
means a direct Message and no task), its state, the fields it understood (read from the
answer's data parts and the task's saved form values), words the answer must (not)
contain, and the language of the answer (a stop-word count). At the end, accuracy per
skill (turns), per language and overall (cases) is printed.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.core.management import call_command
from django.test import TestCase

from a2a_app.models import Task
from a2a_app.testing import A2AClient, record_dispatch, reset_caches

pytestmark = pytest.mark.conversations

HERE = Path(__file__).resolve().parent
CASES_DIR = Path(os.environ.get("A2A_CONVERSATIONS_DIR") or HERE / "conversations")
NOW = datetime(2026, 12, 1, 14, 0, tzinfo=ZoneInfo("Europe/Berlin"))  # a Tuesday
SKILLS = {
    "view-menu",
    "make-reservation",
    "opening-hours",
    "location",
    "cancel-reservation",
    "change-reservation",
    "catering-request",
}
STATES = {"completed", "input-required", "rejected", "working", "canceled", "direct"}
WIRE_STATES = {
    "TASK_STATE_COMPLETED": "completed",
    "TASK_STATE_INPUT_REQUIRED": "input-required",
    "TASK_STATE_REJECTED": "rejected",
    "TASK_STATE_WORKING": "working",
    "TASK_STATE_SUBMITTED": "submitted",
    "TASK_STATE_FAILED": "failed",
    "TASK_STATE_CANCELED": "canceled",
    "TASK_STATE_AUTH_REQUIRED": "auth-required",
}
WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
REFERENCE = re.compile(r"\b(?:TD|CT)-[A-Z0-9]{6}\b")
# Names a field may have in a skill's data (catering calls the party size "guests").
ALIASES = {"party_size": ("party_size", "guests"), "contact": ("contact", "email", "phone")}

# --- loading ---------------------------------------------------------------------------


def load_cases(folder: Path = CASES_DIR) -> list[dict[str, Any]]:
    """Every case of every ``*.json`` file in ``folder`` (each file: a list of cases)."""
    cases: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")):
            case["_file"] = path.name
            cases.append(case)
    return cases


def check_case_format(case: dict[str, Any]) -> None:
    """The case is well formed (a typo in a case must not pass silently)."""
    assert {"id", "language", "turns"} <= case.keys(), case
    assert case["language"] in ("en", "de"), case["id"]
    for turn in case["turns"]:
        assert "say" in turn or "data" in turn, (case["id"], turn)
        known = {"say", "data", "metadata", "same_task", "same_context", "expect"}
        assert set(turn) <= known, (case["id"], set(turn) - known)
        expect = turn["expect"]
        extra = set(expect) - {
            "skill",
            "state",
            "fields",
            "says",
            "not_says",
            "answer_language",
        }
        assert not extra, (case["id"], extra)
        for skill in _as_list(expect.get("skill", "-")):
            assert skill in SKILLS or skill is None or skill == "-", (case["id"], skill)
        for state in _as_list(expect.get("state", "direct")):
            assert state in STATES, (case["id"], state)


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


CASES = load_cases()
IDS = [case["id"] for case in CASES]
assert len(IDS) == len(set(IDS)), "case ids must be unique"

# --- expected values -------------------------------------------------------------------


def resolve_date(spec: str, today: date | None = None) -> str:
    """``+1d``, ``sat`` (the next Saturday after today), ``next:fri`` (the Friday of
    next week, Monday-based), or an ISO date, as an ISO date."""
    today = today or NOW.date()
    if m := re.fullmatch(r"\+(\d+)d", spec):
        return (today + timedelta(days=int(m[1]))).isoformat()
    if spec in WEEKDAYS:
        ahead = (WEEKDAYS.index(spec) - today.weekday()) % 7 or 7
        return (today + timedelta(days=ahead)).isoformat()
    if spec.startswith("next:") and spec[5:] in WEEKDAYS:
        monday = today - timedelta(days=today.weekday()) + timedelta(days=7)
        return (monday + timedelta(days=WEEKDAYS.index(spec[5:]))).isoformat()
    return date.fromisoformat(spec).isoformat()


def _normal(name: str, value: Any) -> str:
    text = str(value).strip()
    if name == "date":
        return text[:10]
    if name == "time":
        return text[:5]
    if name == "contact" and not re.search(r"@", text):
        return re.sub(r"\D", "", text.replace("+49", "0"))
    return re.sub(r"\s+", " ", text).casefold()


def field_matches(name: str, expected: Any, actual: Any) -> bool:
    """One understood value against the expected one (or any of a list of them)."""
    for option in _as_list(expected):
        want = resolve_date(option) if name == "date" else option
        if _normal(name, want) == _normal(name, actual):
            return True
    return False


def understood(task: dict[str, Any] | None, row: Task | None) -> dict[str, Any]:
    """What the skill understood: data parts of the answer (artifacts first, then the
    status message), then the task's saved form values, first found wins."""
    found: dict[str, Any] = {}

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(item, dict | list):
                    walk(item)
                elif key not in found and item not in (None, ""):
                    found[key] = item
        elif isinstance(value, list) and all(isinstance(i, dict) for i in value):
            # A list of dishes or problems: not fields of this request.
            return

    if task and "status" in task:
        for art in task.get("artifacts") or []:
            for part in art.get("parts", []):
                walk(part.get("data"))
        message = (task.get("status") or {}).get("message") or {}
        for part in message.get("parts", []):
            walk(part.get("data"))
    if row is not None:
        walk(row.skill_state)
    return found


# --- the answer's language -------------------------------------------------------------

# Frequent function words only (no dish names, no words both languages share, such as
# "an", "am", "in", "so"): a small, honest heuristic, not a language detector.
EN_WORDS = frozenset(
    re.findall(
        r"\S+",
        "the and is are you your we our for with to of at on this that what which would please "
        "have has there it not can could table tables booked under name thank here or from "
        "open opening hours guests people sorry only when",
    )
)
DE_WORDS = frozenset(
    re.findall(
        r"\S+",
        "der die das und ist sind sie ihr ihre wir unser unsere für mit zu von um auf dieser "
        "diese was welche bitte haben hat gibt es nicht können kann tisch tische gebucht unter "
        "danke hier oder uhr geöffnet öffnungszeiten gäste personen leider nur wann noch einen "
        "eine ein den dem ich mir",
    )
)


def answer_language(text: str) -> str:
    """ "de", "en", or "" when the text has too few function words to tell."""
    words = re.findall(r"[a-zäöüß]+", text.casefold())
    en = sum(w in EN_WORDS for w in words)
    de = sum(w in DE_WORDS for w in words)
    if max(en, de) < 2 or en == de:
        return ""
    return "de" if de > en else "en"


# --- talking ---------------------------------------------------------------------------


@dataclass
class Turn:
    """What one turn got back, in the terms the cases use."""

    skill: str | None
    state: str
    text: str
    fields: dict[str, Any]
    task: dict[str, Any] | None
    has_status_message: bool


@dataclass
class Result:
    case: dict[str, Any]
    turns: list[tuple[dict[str, Any], bool]] = field(default_factory=list)  # (expect, ok)
    passed: bool = False


def texts(parts: list[dict[str, Any]]) -> list[str]:
    return [p["text"] for p in parts if isinstance(p.get("text"), str)]


def substitute(value: Any, refs: dict[str, str]) -> Any:
    """``{ref}`` (the last reference the agent gave) inside strings of a turn."""
    if isinstance(value, str):
        return re.sub(r"\{(\w+)\}", lambda m: refs.get(m[1], m[0]), value)
    if isinstance(value, dict):
        return {k: substitute(v, refs) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, refs) for v in value]
    return value


def send(agent: A2AClient, turn: dict[str, Any], previous: dict[str, Any] | None) -> Turn:
    """One guest message; background runs are run here as a worker would."""
    message: dict[str, Any] = {}
    if previous and (turn.get("same_task") or turn.get("same_context")):
        message["contextId"] = previous["contextId"]
        if turn.get("same_task") and previous.get("id"):
            message["taskId"] = previous["id"]
    # The test's transaction never commits: on-commit hooks (which enqueue runs) are run
    # as they are captured, and the runs are done here as a worker would.
    with record_dispatch() as dispatched, TestCase.captureOnCommitCallbacks(execute=True):
        reply = agent.send(
            turn.get("say", ""),
            data=turn.get("data"),
            metadata=turn.get("metadata"),
            configuration={"returnImmediately": True},
            **message,
        )
    while dispatched.runs:
        with TestCase.captureOnCommitCallbacks(execute=True):
            dispatched.run_queued()
    if "message" in reply:
        # A direct reply: a later turn "in the same context" continues its context.
        context = {"contextId": reply["message"].get("contextId"), "id": None}
        text = "\n".join(texts(reply["message"]["parts"]))
        return Turn(None, "direct", text, {}, context if context["contextId"] else None, False)
    task = agent.result("GetTask", {"id": reply["task"]["id"]})
    row = Task.objects.get(pk=task["id"])
    status_message = (task.get("status") or {}).get("message") or {}
    answer = texts(status_message.get("parts", []))
    for art in task.get("artifacts") or []:
        answer += texts(art.get("parts", []))
    return Turn(
        skill=row.skill_id or None,
        state=WIRE_STATES.get(task["status"]["state"], task["status"]["state"]),
        text="\n".join(answer),
        fields=understood(task, row),
        task=task,
        has_status_message=bool(texts(status_message.get("parts", []))),
    )


def judge(expect: dict[str, Any], got: Turn, case_language: str) -> list[str]:
    """What is wrong with one turn's answer (empty: it is right). ``case_language`` is
    empty for a turn without words (a data part alone says nothing of the guest's
    language): only an explicit ``answer_language`` is judged there."""
    wrong: list[str] = []
    if "skill" in expect and got.skill not in _as_list(expect["skill"]):
        wrong.append(f"skill {got.skill!r}, expected {expect['skill']!r}")
    states = _as_list(expect.get("state", "direct" if expect.get("skill", 0) is None else []))
    if states and got.state not in states:
        wrong.append(f"state {got.state!r}, expected {states!r}")
    if got.state == "completed" and not got.has_status_message:
        wrong.append("completed without a status message")
    for name, want in (expect.get("fields") or {}).items():
        actual = next((got.fields[a] for a in ALIASES.get(name, (name,)) if a in got.fields), None)
        if actual is None or not field_matches(name, want, actual):
            wrong.append(f"field {name}={actual!r}, expected {want!r}")
    for pattern in _as_list(expect.get("says", [])):
        if not re.search(pattern, got.text, re.IGNORECASE):
            wrong.append(f"answer lacks /{pattern}/")
    for pattern in _as_list(expect.get("not_says", [])):
        if re.search(pattern, got.text, re.IGNORECASE):
            wrong.append(f"answer contains /{pattern}/")
    language = expect.get("answer_language", case_language)
    if language and (seen := answer_language(got.text)) and seen != language:
        wrong.append(f"answer in {seen!r}, expected {language!r}")
    return wrong


# --- the tests -------------------------------------------------------------------------

RESULTS: list[Result] = []


class Summary:
    """Prints accuracy per skill, per language and overall after the run."""

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not RESULTS:
            return
        write = terminalreporter.write_line
        terminalreporter.section(f"conversations ({CASES_DIR})")
        by_skill: dict[str, list[bool]] = defaultdict(list)
        for result in RESULTS:
            for expect, ok in result.turns:
                for skill in _as_list(expect.get("skill", "(any)")):
                    by_skill[skill or "direct reply"].append(ok)
                    break  # a turn counts once, under its first expected skill
        write("per skill (turns):")
        for skill, oks in sorted(by_skill.items()):
            write(f"  {skill:<20} {_ratio(oks)}")
        by_language: dict[str, list[bool]] = defaultdict(list)
        for result in RESULTS:
            by_language[result.case["language"]].append(result.passed)
        write("per language (cases):")
        for language, oks in sorted(by_language.items()):
            write(f"  {language:<20} {_ratio(oks)}")
        write(f"all cases              {_ratio([r.passed for r in RESULTS])}")
        if path := os.environ.get("A2A_CONVERSATIONS_REPORT"):
            Path(path).write_text(
                json.dumps({r.case["id"]: r.passed for r in RESULTS}, indent=1, ensure_ascii=False),
                encoding="utf-8",
            )


def _ratio(oks: list[bool]) -> str:
    return f"{sum(oks)}/{len(oks)} ({100 * sum(oks) / len(oks):.0f}%)"


@pytest.fixture(scope="session", autouse=True)
def _summary(request: pytest.FixtureRequest) -> None:
    manager = request.config.pluginmanager
    if not manager.has_plugin("conversation-summary"):
        manager.register(Summary(), "conversation-summary")


@pytest.fixture
def restaurant(db: None) -> Any:
    """The demo restaurant as ``load_demo`` makes it, at the frozen clock."""
    with time_machine.travel(NOW, tick=True):
        call_command("load_demo", stdout=io.StringIO())
        reset_caches()
        yield
    reset_caches()


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_conversation(case: dict[str, Any], restaurant: None) -> None:
    check_case_format(case)
    agent = A2AClient()
    result = Result(case)
    RESULTS.append(result)
    refs: dict[str, str] = {}
    previous: dict[str, Any] | None = None
    report: list[str] = []
    for number, turn in enumerate(case["turns"], 1):
        turn = substitute(turn, refs)
        got = send(agent, turn, previous)
        wrong = judge(turn["expect"], got, case["language"] if turn.get("say") else "")
        result.turns.append((turn["expect"], not wrong))
        if found := REFERENCE.findall(got.text):
            refs["ref"] = found[-1]
        if got.task is not None:
            previous = got.task
        said = turn.get("say") or json.dumps(turn.get("data"))
        report.append(
            f"turn {number}: {said!r}\n  -> {got.skill} {got.state}: {got.text[:300]!r}"
            + "".join(f"\n  !! {w}" for w in wrong)
        )
    result.passed = all(ok for _, ok in result.turns)
    print("\n".join(report))  # the conversation, for -rP or -s
    assert result.passed, f"{case['id']} ({case['_file']})\n" + "\n".join(report)


# --- the runner's own helpers (no database) ---------------------------------------------


def test_cases_are_well_formed() -> None:
    assert CASES, f"no cases in {CASES_DIR}"
    for case in CASES:
        check_case_format(case)


def test_relative_dates_against_the_frozen_clock() -> None:
    assert NOW.strftime("%a %Y-%m-%d %H:%M") == "Tue 2026-12-01 14:00"
    assert resolve_date("+0d") == "2026-12-01"
    assert resolve_date("+1d") == "2026-12-02"
    assert resolve_date("sat") == "2026-12-05"
    assert resolve_date("tue") == "2026-12-08"  # a weekday is never today
    assert resolve_date("next:fri") == "2026-12-11"
    assert resolve_date("next:mon") == "2026-12-07"
    assert resolve_date("2026-12-24") == "2026-12-24"


def test_field_comparison() -> None:
    assert field_matches("date", ["fri", "next:fri"], "2026-12-11")
    assert field_matches("time", "19:00", "19:00:00")
    assert field_matches("name", "Tom Lee", "tom  lee")
    assert not field_matches("name", "Tom Lee", "evening")
    assert field_matches("contact", "+49 30 1234567", "030/1234567")
    assert field_matches("contact", "Weber@example.com", "weber@example.com")
    assert field_matches("party_size", 4, "4")


def test_answer_language() -> None:
    assert answer_language("Your table is booked for 2 guests, under the name Tom Lee.") == "en"
    assert answer_language("Ihr Tisch ist für 2 Personen unter dem Namen Weber gebucht.") == "de"
    assert answer_language("Tiramisù – €7.50") == ""
