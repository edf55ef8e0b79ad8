"""Skills declared as forms (``@skill(form=...)``): fields collected across turns from data
parts, text (through the interpreter) and the context; INPUT_REQUIRED with the form's
errors, never FAILED; the card's description of the fields; the LLM adapter; the generic
skills."""

from __future__ import annotations

import json
from datetime import date, time
from typing import Any

import pytest
from django import forms
from django.contrib.auth.models import Group, User
from django.utils import translation
from django.utils.translation import gettext_lazy
from rest_framework import serializers as drf

from a2a_app import (
    Canceled,
    Completed,
    InputRequired,
    SkillContext,
    create_skill,
    lookup_skill,
    search_skill,
)
from a2a_app.forms import interpreters
from a2a_app.forms.llm import CallableInterpreter, JSONCompletionInterpreter
from a2a_app.forms.schema import EXTENSION_URI, describe_form, form_schema
from a2a_app.models import ApiKey, Skill, Task
from a2a_app.skills import registry
from a2a_app.skills.catalogue import clear_cache
from a2a_app.testing import A2AClient, SkillConversation, installed_skill, record_dispatch

pytestmark = pytest.mark.django_db

CARD_URL = "/.well-known/agent-card.json"


class BookingForm(forms.Form):
    day = forms.DateField(label="Date")
    time = forms.TimeField(label="Time")
    party_size = forms.IntegerField(label="Party size", min_value=1, max_value=8)
    name = forms.CharField(max_length=100)
    contact = forms.EmailField(help_text="an e-mail address")


class EveryFieldForm(forms.Form):
    """One field of each common type, for the card's JSON Schema."""

    title = forms.CharField(max_length=40, min_length=2, label="Title", help_text="A title")
    email = forms.EmailField()
    website = forms.URLField(required=False, assume_scheme="https")
    count = forms.IntegerField(min_value=1, max_value=8)
    price = forms.DecimalField(min_value=0, required=False)
    when = forms.DateTimeField(required=False)
    day = forms.DateField()
    at = forms.TimeField()
    agree = forms.BooleanField(required=False)
    seating = forms.ChoiceField(choices=[("in", "Inside"), ("out", "Terrace")])
    size = forms.TypedChoiceField(choices=[(1, "Small"), (2, "Large")], coerce=int)
    extras = forms.MultipleChoiceField(choices=[("wine", "Wine"), ("cake", "Cake")], required=False)
    notes = forms.CharField(widget=forms.Textarea, required=False)


def book(ctx: SkillContext):
    """Books a table."""
    data = ctx.cleaned_data
    if data["name"] == "Bob":
        return ctx.invalid("name", "Bob is banned.")
    ctx.state["booked"] = True
    when = f"{data['day']:%Y-%m-%d} {data['time']:%H:%M}"
    return ctx.complete(f"Booked for {data['party_size']} on {when}, {data['name']}")


class FakeInterpreter:
    """Reads ``field=value`` words, and "next monday" as 2026-12-07; records each call."""

    calls: list[dict[str, Any]] = []

    def interpret(self, text, form_class, *, asked=(), known={}, language="", now=None):  # noqa: B006
        FakeInterpreter.calls.append(
            {"text": text, "asked": list(asked), "known": dict(known), "language": language}
        )
        found: dict[str, Any] = {}
        for word in text.split():
            key, sep, value = word.partition("=")
            if sep and key in form_class.base_fields:
                found[key] = int(value) if value.isdigit() else value
        if "next monday" in text.lower():
            found["day"] = "2026-12-07"
        return found


class BrokenInterpreter:
    def interpret(self, text, form_class, **options):
        raise RuntimeError("the model is down")


def interpreter_settings(settings, path: str) -> None:
    settings.A2A_APP = {**settings.A2A_APP, "INTERPRETER": path}


@pytest.fixture
def fake_interpreter(settings):
    FakeInterpreter.calls = []
    interpreter_settings(settings, "tests.test_form_skills.FakeInterpreter")
    return FakeInterpreter


@pytest.fixture
def booking(fake_interpreter):
    with installed_skill(book, "book-table", form=BookingForm):
        yield "book-table"


FULL = {"day": "2026-12-18", "time": "19:30", "party_size": 4, "name": "Ada"}


def status_data(task: dict) -> dict:
    return next(p["data"] for p in task["status"]["message"]["parts"] if "data" in p)


def status_text(task: dict) -> str:
    return next(p["text"] for p in task["status"]["message"]["parts"] if "text" in p)


# --- collecting the fields ----------------------------------------------------------------


def test_fields_are_collected_across_turns_from_data_parts(booking):
    talk = SkillConversation(booking)
    asked = talk.say(data={"day": "2026-12-18", "time": "19:30"})
    assert isinstance(asked, InputRequired)
    assert asked.missing == ["party_size", "name", "contact"]
    assert asked.data == {"missing": ["party_size", "name", "contact"], "errors": {}}
    assert asked.question == ("Please tell me Party size, Name and Contact (an e-mail address).")
    asked = talk.say(data={"party_size": 4, "name": "Ada"})
    assert asked.missing == ["contact"]
    done = talk.say(data={"contact": "ada@example.com", "unknown": "ignored"})
    assert isinstance(done, Completed)
    assert done.artifacts[0].parts[0].content == "Booked for 4 on 2026-12-18 19:30, Ada"
    assert talk.state["a2a_form"]["values"] == {**FULL, "contact": "ada@example.com"}


def test_the_handler_gets_the_bound_form_and_its_cleaned_data(fake_interpreter):
    seen = {}

    def handler(ctx: SkillContext):
        seen.update(form=ctx.form, cleaned=ctx.cleaned_data)
        return ctx.complete("ok")

    with installed_skill(handler, "booking", form=BookingForm):
        SkillConversation("booking").say(data={**FULL, "contact": "a@example.com"})
    assert isinstance(seen["form"], BookingForm) and seen["form"].is_bound
    assert seen["cleaned"]["day"] == date(2026, 12, 18)
    assert seen["cleaned"]["time"] == time(19, 30)
    assert seen["cleaned"]["party_size"] == 4


def test_text_goes_through_the_interpreter_with_what_was_asked(booking):
    talk = SkillConversation(booking, metadata={"language": "en-GB"})
    talk.say("A table next monday time=19:30", data={"party_size": 2})
    done = talk.say("name=Ada contact=ada@example.com")
    assert isinstance(done, Completed)
    first, second = FakeInterpreter.calls
    assert first["asked"] == [] and first["language"] == "en"
    assert first["known"] == {"party_size": 2}
    # The second turn knows what the agent asked for and what is already collected.
    assert second["asked"] == ["name", "contact"]
    assert second["known"]["day"] == "2026-12-07"


def test_a_data_part_wins_over_the_text(booking):
    talk = SkillConversation(booking)
    asked = talk.say("party_size=3", data={"party_size": 5})
    assert talk.state["a2a_form"]["values"]["party_size"] == 5
    assert "party_size" not in asked.missing


def test_a_later_turn_corrects_an_earlier_value(booking):
    talk = SkillConversation(booking)
    talk.say(data={"party_size": 2})
    talk.say("party_size=6")
    assert talk.state["a2a_form"]["values"]["party_size"] == 6


@pytest.mark.parametrize(
    "reply, language",
    [
        ("never mind", "en"),
        ("Oh, forget it, thanks.", "en"),
        ("I've changed my mind", "en"),
        ("Ach, vergiss es", "de"),
        ("Lieber doch nicht, danke", "de"),
        ("Hat sich erledigt.", "de"),
    ],
)
def test_a_reply_that_calls_it_off_ends_the_task(booking, reply, language):
    talk = SkillConversation(booking, metadata={"language": language})
    talk.say(data={"party_size": 2})
    ended = talk.say(reply)
    assert isinstance(ended, Canceled)
    said = {
        "en": "All right, I've stopped here: nothing was done.",
        "de": "In Ordnung, ich breche hier ab: Es wurde nichts erledigt.",
    }
    assert ended.message == said[language]
    assert "booked" not in talk.state  # the handler never ran


@pytest.mark.parametrize(
    "text, data",
    [
        ("never mind the time, party_size=3", None),  # more than calling it off
        ("no thanks", None),  # may answer a yes/no question
        ("cancel", None),  # the answer in a cancelling skill's form
        ("never mind", {"party_size": 3}),  # a value comes with it
        ("well, " * 25 + "never mind", None),  # longer than CALLED_OFF_MAX_CHARS: not tried
    ],
)
def test_only_a_reply_that_does_nothing_but_call_it_off_ends_it(booking, text, data):
    talk = SkillConversation(booking)
    talk.say(data={"party_size": 2})
    assert isinstance(talk.say(text, data=data), InputRequired)


def test_calling_it_off_before_any_question_is_read_as_usual(booking):
    # Only an answer to the form's question: a first message goes to the form as it is.
    assert isinstance(SkillConversation(booking).say("never mind"), InputRequired)


def test_over_json_rpc_the_task_ends_canceled(booking):
    agent = A2AClient()
    task = agent.send(data={"party_size": 2})["task"]
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    ended = agent.send("never mind", taskId=task["id"], contextId=task["contextId"])["task"]
    assert ended["status"]["state"] == "TASK_STATE_CANCELED"
    assert status_text(ended) == "All right, I've stopped here: nothing was done."
    assert Task.objects.get(pk=task["id"]).state == "TASK_STATE_CANCELED"


def called_off(ctx: SkillContext):
    """Any handler may end its task CANCELED when the guest calls it off."""
    return ctx.cancel("Stopped, as you asked.")


def test_a_handler_ends_its_task_canceled_with_ctx_cancel():
    with installed_skill(called_off, "stop"):
        task = A2AClient().send("stop it")["task"]
    assert task["status"]["state"] == "TASK_STATE_CANCELED"
    assert status_text(task) == "Stopped, as you asked."


@pytest.mark.django_db(transaction=True)
def test_in_a_worker_the_task_ends_canceled_too():
    with installed_skill(called_off, "stop", background=True), record_dispatch() as recorder:
        task = A2AClient().send("stop it", configuration={"returnImmediately": True})["task"]
        assert recorder.run_queued() == ["TASK_STATE_CANCELED"]
    stored = Task.objects.get(pk=task["id"])
    assert stored.status_message["parts"][0]["text"] == "Stopped, as you asked."


@pytest.fixture
def booking_and_menu(booking):
    def menu(ctx: SkillContext):
        return ctx.complete("Pasta, pizza, vegan dishes.")

    with installed_skill(menu, "menu"):
        # What the router reads: the row's tags, as the owner sets them in the admin.
        Skill.objects.filter(id="menu").update(tags=["menu", "dishes", "vegan", "food"])
        clear_cache()
        yield


def ask_then(agent: A2AClient, reply: str) -> dict:
    task = agent.send(data={"party_size": 2}, metadata={"skillId": "book-table"})["task"]
    return agent.send(reply, taskId=task["id"], contextId=task["contextId"])["task"]


def test_a_reply_about_another_skill_says_where_it_belongs(booking_and_menu):
    task = ask_then(A2AClient(), "Do you have vegan dishes?")
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert status_text(task) == (
        "That is a question for “Menu”: please ask it in a new message; this request "
        "stays open. Please tell me Date (YYYY-MM-DD), Time (HH:MM), Name and Contact "
        "(an e-mail address)."
    )
    assert status_data(task)["otherSkill"] == "menu"
    stored = Task.objects.get(pk=task["id"])
    assert stored.skill_id == "book-table"
    assert stored.skill_state["a2a_form"]["values"] == {"party_size": 2}


@pytest.mark.parametrize(
    "reply",
    [
        "party_size=3 and is there a vegan menu?",  # it answered something
        "hmm",  # about nothing the router knows
    ],
)
def test_a_reply_that_gives_a_value_or_is_about_nothing_gets_no_note(booking_and_menu, reply):
    task = ask_then(A2AClient(), reply)
    assert status_text(task).startswith("Please tell me")
    assert "otherSkill" not in status_data(task)


# --- invalid input is INPUT_REQUIRED, never FAILED ----------------------------------------------


def test_an_invalid_value_is_dropped_and_its_error_said(booking):
    talk = SkillConversation(booking)
    asked = talk.say(data={**FULL, "party_size": 12, "contact": "not an address"})
    assert isinstance(asked, InputRequired)
    assert asked.missing == ["party_size", "contact"]
    assert asked.data["errors"] == {
        "party_size": ["Ensure this value is less than or equal to 8."],
        "contact": ["Enter a valid email address."],
    }
    assert asked.question.startswith(
        "Party size: Ensure this value is less than or equal to 8. "
        "Contact: Enter a valid email address."
    )
    assert "party_size" not in talk.state["a2a_form"]["values"]
    assert talk.state["a2a_form"]["asked"] == ["party_size", "contact"]
    done = talk.say(data={"party_size": 8, "contact": "ada@example.com"})
    assert isinstance(done, Completed)


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ({"a": 1}, "Enter a single value."),
        ([1, 2], "Enter a single value."),
        (True, "Enter a whole number."),
        ("many", "Enter a whole number."),
    ],
)
def test_a_value_of_the_wrong_json_type_is_an_error_not_a_crash(booking, value, error):
    asked = SkillConversation(booking).say(data={"party_size": value})
    assert isinstance(asked, InputRequired)
    assert asked.data["errors"] == {"party_size": [error]}


def test_a_date_in_words_in_a_data_part_is_read_by_the_interpreter(booking):
    done = SkillConversation(booking).say(
        data={**FULL, "day": "next monday", "contact": "ada@example.com"}
    )
    assert isinstance(done, Completed)
    assert "2026-12-07" in done.artifacts[0].parts[0].content
    assert FakeInterpreter.calls[-1]["asked"] == ["day"]


def test_a_number_for_a_date_is_an_error_not_a_crash(booking):
    asked = SkillConversation(booking).say(data={"day": 5, "time": 1930})
    assert asked.data["errors"] == {"day": ["Enter a valid date."], "time": ["Enter a valid time."]}


def test_over_http_a_date_in_words_and_bad_values_never_fail_the_task(settings):
    # No interpreter can read "next monday" here: the form's own error comes back.
    interpreter_settings(settings, "tests.test_form_skills.BrokenInterpreter")
    agent = A2AClient()
    with installed_skill(book, "book-table", form=BookingForm):
        task = agent.send(data={"day": "next monday", "party_size": 40})["task"]
        assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        assert status_data(task) == {
            "missing": ["day", "time", "party_size", "name", "contact"],
            "errors": {
                "day": ["Enter a valid date."],
                "party_size": ["Ensure this value is less than or equal to 8."],
            },
        }
        assert status_text(task).startswith("Date: Enter a valid date.")
        # Text with a broken interpreter: nothing found, asked again, not FAILED.
        again = agent.send("tomorrow at 7", taskId=task["id"], contextId=task["contextId"])
        assert again["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        done = agent.send(
            data={**FULL, "contact": "ada@example.com"},
            taskId=task["id"],
            contextId=task["contextId"],
        )["task"]
    assert done["status"]["state"] == "TASK_STATE_COMPLETED"


def test_the_handler_sends_one_field_back_with_ctx_invalid(booking):
    talk = SkillConversation(booking)
    asked = talk.say(data={**FULL, "name": "Bob", "contact": "bob@example.com"})
    assert isinstance(asked, InputRequired)
    assert asked.missing == ["name"]
    assert asked.data == {"missing": ["name"], "errors": {"name": ["Bob is banned."]}}
    assert asked.question == "Name: Bob is banned. Please give another one."
    assert "name" not in talk.state["a2a_form"]["values"]
    assert "booked" not in talk.state
    done = talk.say("name=Carol")
    assert isinstance(done, Completed)


def test_errors_come_in_the_callers_language(booking):
    talk = SkillConversation(booking, metadata={"language": "de-DE"})
    asked = talk.say(data={"day": "gestern?"})
    assert asked.data["errors"]["day"] == ["Bitte ein gültiges Datum eingeben."]
    assert FakeInterpreter.calls[-1]["language"] == "de"
    assert asked.question.startswith("Date: Bitte ein gültiges Datum eingeben.")


def test_accept_language_reaches_the_form(booking):
    agent = A2AClient(headers={"Accept-Language": "fr;q=0.5, de-AT, en;q=0.8"})
    task = agent.send(data={"party_size": 0})["task"]
    errors = status_data(task)["errors"]
    assert errors["party_size"] == ["Dieser Wert muss größer oder gleich 1 sein."]


def test_a_form_level_error_is_asked_about(fake_interpreter):
    class Range(forms.Form):
        start = forms.IntegerField()
        end = forms.IntegerField()

        def clean(self):
            data = super().clean()
            if data.get("start", 0) > data.get("end", 0):
                raise forms.ValidationError("The end comes after the start.")
            return data

    with installed_skill(lambda ctx: "ok", "range", form=Range):
        asked = SkillConversation("range").say(data={"start": 5, "end": 2})
    assert asked.missing == []
    assert asked.data["errors"] == {"__all__": ["The end comes after the start."]}
    assert asked.question == "The end comes after the start. Please change your answer."


def test_a_broken_interpreter_finds_nothing_and_is_logged(settings, caplog):
    interpreter_settings(settings, "tests.test_form_skills.BrokenInterpreter")
    with installed_skill(book, "book-table", form=BookingForm):
        asked = SkillConversation("book-table").say("party_size=2")
    assert asked.missing == ["day", "time", "party_size", "name", "contact"]
    assert "interpreter failed on skill=book-table" in caplog.text


def test_the_interpreter_setting_is_resolved_once_and_again_after_a_change(settings):
    interpreter_settings(settings, "tests.test_form_skills.FakeInterpreter")
    first = interpreters.get_interpreter()
    assert isinstance(first, FakeInterpreter) and interpreters.get_interpreter() is first
    interpreter_settings(settings, "tests.test_form_skills.BrokenInterpreter")
    assert isinstance(interpreters.get_interpreter(), BrokenInterpreter)
    settings.A2A_APP = {**settings.A2A_APP, "INTERPRETER": "json.dumps"}
    with pytest.raises(Exception, match="interpret"):
        interpreters.get_interpreter()


def test_a_form_that_is_no_form_fails_at_declaration():
    with pytest.raises(ValueError, match="must be a django.forms.Form"):
        registry.skill("x", form=dict)
    with pytest.raises(ValueError, match="names no field"):
        registry.skill("x", form=BookingForm, context_fields=["nope"])


# --- ModelForm, transactions, attached objects ----------------------------------------------


class UserForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ["username", "email", "first_name"]


@pytest.mark.django_db(transaction=True)
def test_a_crash_after_the_save_rolls_the_object_back(fake_interpreter):
    def handler(ctx: SkillContext):
        ctx.form.save()
        raise RuntimeError("the printer caught fire")

    with installed_skill(handler, "sign-up", form=UserForm):
        task = A2AClient().send(data={"username": "ada", "email": "ada@example.com"})["task"]
    assert task["status"]["state"] == "TASK_STATE_FAILED"
    assert not User.objects.filter(username="ada").exists()


@pytest.mark.django_db(transaction=True)
def test_create_skill_saves_attaches_and_confirms(fake_interpreter):
    def prepare(ctx, user):
        user.is_active = False

    spec_before = dict(registry._registry)
    try:
        create_skill(
            "sign-up",
            form=UserForm,
            confirmation="Welcome {obj.username} ({email}).",
            prepare=prepare,
        )
        spec = registry.get("sign-up")
        with installed_skill(spec.handler, "sign-up", form=UserForm):
            # username alone makes the form valid (User.email and first_name may be blank).
            task = A2AClient().send(data={"username": "ada"})["task"]
    finally:
        registry._registry.clear()
        registry._registry.update(spec_before)
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    user = User.objects.get(username="ada")
    assert user.is_active is False
    [artifact] = task["artifacts"]
    assert artifact["parts"][0]["text"] == "Welcome ada ()."
    assert artifact["parts"][1]["data"]["username"] == "ada"
    row = Task.objects.get(pk=task["id"])
    assert row.skill_state["a2a_attached"] == {
        "app_label": "auth",
        "model": "user",
        "pk": user.pk,
    }
    assert row.attached_object() == user


def test_attached_object_tolerates_deleted_objects_and_unknown_models():
    gone = Task(
        context_id="c",
        skill_state={"a2a_attached": {"app_label": "auth", "model": "group", "pk": 999}},
    )
    unknown = Task(
        context_id="c",
        skill_state={"a2a_attached": {"app_label": "nope", "model": "gone", "pk": 1}},
    )
    assert gone.attached_object() is None and unknown.attached_object() is None


# --- facts known in the context ------------------------------------------------------------


def test_name_and_contact_carry_over_to_the_next_task_of_the_context(booking):
    agent = A2AClient()
    first = agent.send(data={**FULL, "contact": "ada@example.com"})["task"]
    assert first["status"]["state"] == "TASK_STATE_COMPLETED"
    second = agent.send(
        data={"day": "2026-12-19", "time": "20:00", "party_size": 2},
        contextId=first["contextId"],
    )["task"]
    assert second["status"]["state"] == "TASK_STATE_COMPLETED"
    assert second["artifacts"][0]["parts"][0]["text"].endswith(", Ada")
    # The date, time and party size were asked again; they describe one booking.
    third = agent.send(data={"party_size": 3}, contextId=first["contextId"])["task"]
    assert status_data(third)["missing"] == ["day", "time"]


def test_anonymous_callers_share_facts_only_in_a_context_the_agent_generated(booking):
    agent = A2AClient()
    chosen = "session-1"
    first = agent.send(data={**FULL, "contact": "ada@example.com"}, contextId=chosen)["task"]
    assert first["status"]["state"] == "TASK_STATE_COMPLETED"
    # Anyone could send "session-1": the name and e-mail are not handed over.
    other = agent.send(data={"party_size": 2}, contextId=chosen)["task"]
    assert status_data(other)["missing"] == ["day", "time", "name", "contact"]


def test_facts_never_cross_callers(booking, django_user_model):
    ada = django_user_model.objects.create_user("ada")
    eve = django_user_model.objects.create_user("eve")
    _, ada_key = ApiKey.issue(ada, name="ada")
    _, eve_key = ApiKey.issue(eve, name="eve")
    as_ada = A2AClient(headers={"X-API-Key": ada_key})
    as_eve = A2AClient(headers={"X-API-Key": eve_key})
    first = as_ada.send(data={**FULL, "contact": "ada@example.com"}, contextId="shared")["task"]
    assert first["status"]["state"] == "TASK_STATE_COMPLETED"
    eves = as_eve.send(data={"party_size": 2}, contextId="shared")["task"]
    assert status_data(eves)["missing"] == ["day", "time", "name", "contact"]
    adas = as_ada.send(data={"party_size": 2}, contextId="shared")["task"]
    assert status_data(adas)["missing"] == ["day", "time"]


def test_context_fields_name_what_carries_over(fake_interpreter):
    with installed_skill(book, "book-table", form=BookingForm, context_fields=("party_size",)):
        agent = A2AClient()
        first = agent.send(data={**FULL, "contact": "ada@example.com"})["task"]
        second = agent.send(data={"day": "2026-12-19"}, contextId=first["contextId"])["task"]
    assert status_data(second)["missing"] == ["time", "name", "contact"]


# --- the card ----------------------------------------------------------------------------


def card(client, **headers) -> dict:
    return json.loads(client.get(CARD_URL, **headers).content)


def extension_of(card_json: dict) -> dict | None:
    for extension in card_json["capabilities"].get("extensions", []):
        if extension["uri"] == EXTENSION_URI:
            return extension
    return None


def test_the_card_declares_the_fields_of_every_common_type(client, fake_interpreter):
    with installed_skill(lambda ctx: "ok", "every-field", form=EveryFieldForm):
        data = card(client)
    extension = extension_of(data)
    assert extension["required"] is False
    schema = extension["params"]["skills"]["every-field"]
    assert schema == form_schema(EveryFieldForm)
    assert schema["required"] == ["title", "email", "count", "day", "at", "seating", "size"]
    assert schema["additionalProperties"] is False
    p = schema["properties"]
    assert p["title"] == {
        "type": "string",
        "maxLength": 40,
        "minLength": 2,
        "title": "Title",
        "description": "A title",
    }
    assert p["email"] == {"type": "string", "format": "email", "maxLength": 320, "title": "Email"}
    assert p["website"]["format"] == "uri"
    assert p["count"] == {"type": "integer", "minimum": 1, "maximum": 8, "title": "Count"}
    assert p["price"] == {"type": "number", "minimum": 0.0, "title": "Price"}
    assert p["when"]["format"] == "date-time"
    assert p["day"]["format"] == "date"
    assert p["at"]["format"] == "time"
    assert p["agree"]["type"] == "boolean"
    assert p["seating"] == {
        "type": "string",
        "enum": ["in", "out"],
        "oneOf": [{"const": "in", "title": "Inside"}, {"const": "out", "title": "Terrace"}],
        "title": "Seating",
    }
    assert p["size"]["type"] == "integer" and p["size"]["enum"] == [1, 2]
    assert p["extras"]["type"] == "array" and p["extras"]["items"]["enum"] == ["wine", "cake"]
    assert p["notes"] == {"type": "string", "title": "Notes"}


def test_the_skill_description_says_the_fields_in_words(client, fake_interpreter):
    with installed_skill(book, "book-table", form=BookingForm, description="Books a table."):
        [entry] = card(client)["skills"]
    assert entry["description"] == (
        "Books a table.\n\nInput: day (YYYY-MM-DD, required), time (HH:MM, required), "
        "party_size (integer 1–8, required), name (up to 100 characters, required), "
        "contact (e-mail, required; an e-mail address). "
        "Send them as a data part or in plain text."
    )
    assert describe_form(EveryFieldForm).startswith("Input: title (up to 40 characters,")
    assert 'seating (one of: in "Inside", out "Terrace", required)' in describe_form(EveryFieldForm)


class TranslatedForm(forms.Form):
    at = forms.TimeField(label=gettext_lazy("Time"))  # Django's catalog has it: "Zeit"


def test_the_card_is_drawn_in_the_sites_language(client, fake_interpreter):
    # The card is cached and shared: whatever language is active, it is drawn in
    # LANGUAGE_CODE ("en-us" here).
    with installed_skill(lambda ctx: "ok", "at", form=TranslatedForm), translation.override("de"):
        german = card(client)
    assert extension_of(german)["params"]["skills"]["at"]["properties"]["at"]["title"] == "Time"
    assert "Zeit" not in german["skills"][0]["description"]


def test_questions_use_the_callers_language_for_labels(fake_interpreter):
    with installed_skill(lambda ctx: "ok", "at", form=TranslatedForm):
        asked = SkillConversation("at", metadata={"locale": "de_DE"}).say(data={"at": "25:99"})
    assert asked.question.startswith("Zeit: Bitte eine gültige Uhrzeit eingeben.")


def test_a_skill_without_a_form_adds_no_extension(client):
    with installed_skill(lambda ctx: "ok", "plain"):
        data = card(client)
    assert extension_of(data) is None
    assert data["skills"][0]["description"] == "The plain skill"


def test_the_setting_turns_the_description_off(client, settings, fake_interpreter):
    settings.A2A_APP = {**settings.A2A_APP, "CARD_FORM_INPUT": False}
    with installed_skill(book, "book-table", form=BookingForm):
        data = card(client)
    assert extension_of(data) is None
    assert "Input:" not in data["skills"][0]["description"]


def test_only_skills_the_caller_may_see_are_described(client, django_user_model):
    user = django_user_model.objects.create_user("ada")
    _, raw_key = ApiKey.issue(user, name="ada")
    with (
        installed_skill(book, "book-table", form=BookingForm),
        installed_skill(lambda ctx: "ok", "members", form=EveryFieldForm, access="authenticated"),
    ):
        public = card(client)
        extended = A2AClient(headers={"X-API-Key": raw_key}).result("GetExtendedAgentCard")
    assert set(extension_of(public)["params"]["skills"]) == {"book-table"}
    assert set(extension_of(extended)["params"]["skills"]) == {"book-table", "members"}


def test_the_card_etag_follows_a_form_skill(client, fake_interpreter):
    first = client.get(CARD_URL)
    with installed_skill(book, "book-table", form=BookingForm):
        second = client.get(CARD_URL)
        again = client.get(CARD_URL, HTTP_IF_NONE_MATCH=second["ETag"])
    assert first["ETag"] != second["ETag"]
    assert again.status_code == 304


def test_the_v03_card_carries_the_extension_too(client, fake_interpreter):
    with installed_skill(book, "book-table", form=BookingForm):
        data = A2AClient(headers={"A2A-Version": "0.3"}).http.get(CARD_URL).json()
    assert extension_of(data) is not None
    assert data["protocolVersion"] == "0.3.0"


def test_the_a2a_sdk_reads_the_card_with_the_extension(client, fake_interpreter):
    from a2a.client.card_resolver import parse_agent_card  # what A2ACardResolver runs

    with installed_skill(book, "book-table", form=BookingForm):
        data = card(client)
    parsed = parse_agent_card(data)
    [extension] = [e for e in parsed.capabilities.extensions if e.uri == EXTENSION_URI]
    assert extension.params["skills"]["book-table"]["properties"]["day"]["format"] == "date"


def test_a_signed_card_with_form_skills_verifies_with_the_sdk(client, settings, fake_interpreter):
    from tests.test_card_signing import new_pem, sdk_verify, served, signing, spec_text_verify

    with (
        installed_skill(lambda ctx: "ok", "every-field", form=EveryFieldForm),
        signing(("k1", new_pem()), INTERPRETER=settings.A2A_APP["INTERPRETER"]),
    ):
        raw, key_set = served(client)
    assert extension_of(raw) is not None
    sdk_verify(raw, key_set)
    assert spec_text_verify(raw, key_set) == "k1"


# --- the LLM adapter -----------------------------------------------------------------------


def test_the_json_completion_interpreter_with_a_fake_model(settings):
    prompts: list[str] = []

    def complete(prompt: str) -> str:
        prompts.append(prompt)
        return (
            "Sure! ```json\n"
            '{"day": "2026-12-18", "party_size": 4, "name": 7, "invented": "x", '
            '"time": null}\n```'
        )

    interpreter = JSONCompletionInterpreter(complete=complete)
    found = interpreter.interpret(
        "Friday for four", BookingForm, asked=["day"], known={"name": "Ada"}, language="en"
    )
    # Unknown keys, nulls and values of the wrong JSON type are dropped.
    assert found == {"day": "2026-12-18", "party_size": 4}
    [prompt] = prompts
    assert '"party_size": {"type": "integer", "minimum": 1, "maximum": 8' in prompt
    assert "Fields the agent just asked for: day." in prompt
    assert '"name": "Ada"' in prompt and prompt.endswith("Friday for four")
    assert interpreter.parse("I cannot help with that.", BookingForm) == {}
    assert interpreter.parse("[1, 2]", BookingForm) == {}
    assert interpreter.parse("{not json}", BookingForm) == {}


LLM = JSONCompletionInterpreter(
    complete=lambda prompt: '{"party_size": 2, "name": "Ada", "contact": "ada@example.com"}'
)


def test_a_configured_llm_interpreter_fills_the_form(settings):
    interpreter_settings(settings, "tests.test_form_skills.LLM")
    with installed_skill(book, "book-table", form=BookingForm):
        talk = SkillConversation("book-table")
        done = talk.say(
            "for two, Ada, ada@example.com", data={"day": "2026-12-18", "time": "19:00"}
        )
    assert isinstance(done, Completed)


def test_the_callable_interpreter_adapts_a_function():
    seen = {}

    def read(text, form_class, **options):
        seen.update(options)
        return {"name": text.title()}

    found = CallableInterpreter(read).interpret("ada", BookingForm, language="de")
    assert found == {"name": "Ada"}
    assert seen["language"] == "de" and seen["asked"] == ()


# --- generic skills ---------------------------------------------------------------------------


@pytest.fixture
def generic_skills():
    """Registers the generic skills for one test; their rows come from sync_rows."""
    from a2a_app.skills import catalogue

    saved = dict(registry._registry)
    yield catalogue
    registry._registry.clear()
    registry._registry.update(saved)
    clear_cache()


def _install(catalogue_module, *keys: str) -> None:
    from a2a_app.models import Skill

    for key in keys:
        spec = registry.get(key)
        Skill.objects.create(id=key, handler=key, name=spec.name, description=spec.description)
    catalogue_module.clear_cache()


def test_search_skill_lists_ranks_and_filters(generic_skills, fake_interpreter):
    for name in ("Vegan bowls", "Vegan cakes", "Steaks", "Cake shop"):
        Group.objects.create(name=name)
    search_skill(
        "view-groups",
        queryset=Group.objects.all(),
        search_fields=["name"],
        filters=["name"],
        display=lambda g: g.name.upper(),
        description="Lists the groups.",
        tags=["groups"],
    )
    _install(generic_skills, "view-groups")
    agent = A2AClient()
    ranked = agent.send("vegane cakes please", metadata={"skillId": "view-groups"})["task"]
    text, data = (p.get("text") or p.get("data") for p in ranked["artifacts"][0]["parts"])
    assert text.splitlines() == ["- VEGAN CAKES", "- VEGAN BOWLS", "- CAKE SHOP"]
    assert data["count"] == 3 and data["results"][0]["name"] == "Vegan cakes"
    # The skill's own words are no search terms: the whole list.
    everything = agent.send("show the groups", metadata={"skillId": "view-groups"})["task"]
    assert everything["artifacts"][0]["parts"][1]["data"]["count"] == 4
    nothing = agent.send("sushi", metadata={"skillId": "view-groups"})["task"]
    assert nothing["artifacts"][0]["parts"][0]["text"].startswith("Nothing matched your words")
    exact = agent.send(data={"name": "Steaks"}, metadata={"skillId": "view-groups"})["task"]
    assert exact["artifacts"][0]["parts"][1]["data"]["count"] == 1
    # The filters are a form: the card describes them.
    described = card(agent.http)["skills"][0]["description"]
    assert "name (up to 150 characters, optional)" in described


def test_search_skill_with_a_filter_form_that_filters_itself(generic_skills, fake_interpreter):
    class Starts(forms.Form):
        prefix = forms.CharField(required=False)

        def filter(self, queryset):
            prefix = self.cleaned_data.get("prefix")
            return queryset.filter(name__startswith=prefix) if prefix else queryset

    for name in ("Alpha", "Beta"):
        Group.objects.create(name=name)
    search_skill("starts", queryset=Group.objects.all(), filters=Starts)
    done = SkillConversation("starts").say(data={"prefix": "Al"})
    assert done.artifacts[0].parts[1].content["count"] == 1
    empty = SkillConversation("starts").say(data={"prefix": "Zz"})
    assert empty.artifacts[0].parts[0].content == "Nothing found."


def test_lookup_skill_needs_the_reference_and_the_verifier(generic_skills, fake_interpreter):
    User.objects.create_user("ada", email="Ada@Example.com")
    lookup_skill(
        "find-user",
        queryset=User.objects.all(),
        reference_field="username",
        verify_field="email",
        display=lambda u: f"{u.username} <{u.email}>",
    )
    talk = SkillConversation("find-user")
    asked = talk.say(data={"username": "ada"})
    assert asked.missing == ["email"]
    wrong = talk.say(data={"email": "eve@example.com"})
    assert isinstance(wrong, InputRequired)
    assert wrong.missing == ["username", "email"]
    assert "Ada" not in wrong.question and talk.state["a2a_form"]["values"] == {}
    unknown = SkillConversation("find-user").say(
        data={"username": "nobody", "email": "eve@example.com"}
    )
    assert unknown.question == wrong.question  # nothing tells them apart
    found = talk.say(data={"username": "ada", "email": "ada@example.com"})
    assert isinstance(found, Completed)
    assert found.artifacts[0].parts[0].content == "ada <Ada@example.com>"


def test_lookup_skill_cancels_what_it_found(generic_skills, fake_interpreter):
    user = User.objects.create_user("ada", email="ada@example.com")
    lookup_skill(
        "close-account",
        queryset=User.objects.all(),
        reference_field="username",
        verify_field="email",
        cancel={"is_active": False},
    )
    talk = SkillConversation("close-account")
    done = talk.say(data={"username": "ada", "email": "ada@example.com"})
    assert isinstance(done, Completed)
    assert done.artifacts[0].parts[0].content == "Canceled: ada."
    user.refresh_from_db()
    assert user.is_active is False
    assert talk.state["a2a_attached"]["pk"] == user.pk


def test_generic_skills_are_exported_from_the_package_root():
    import a2a_app
    from a2a_app.forms import generic

    assert a2a_app.create_skill is generic.create_skill
    assert a2a_app.lookup_skill is generic.lookup_skill
    assert a2a_app.search_skill is generic.search_skill


def test_create_skill_needs_a_model_form():
    with pytest.raises(ValueError, match="needs a ModelForm"):
        create_skill("x", form=BookingForm)


# --- system checks --------------------------------------------------------------------------


def test_the_checks_report_a_bad_interpreter_and_a_form_that_needs_arguments(settings):
    from a2a_app.checks import check_form_skills

    class NeedsUser(forms.Form):
        def __init__(self, *args, user, **kwargs):
            super().__init__(*args, **kwargs)

    settings.A2A_APP = {**settings.A2A_APP, "INTERPRETER": "json.dumps"}
    with registry.registered(
        registry.SkillSpec("fine", book, "Fine", "", form=BookingForm),
        registry.SkillSpec("needy", book, "Needy", "", form=NeedsUser),
    ):
        problems = check_form_skills()
    assert [p.id for p in problems] == ["a2a_app.E090", "a2a_app.E091"]
    assert "Skill 'needy'" in problems[1].msg
    interpreter_settings(settings, "tests.test_form_skills.FakeInterpreter")
    with registry.registered(registry.SkillSpec("fine", book, "Fine", "", form=BookingForm)):
        assert check_form_skills() == []


# --- a DRF serializer as the input ------------------------------------------------------------


class BookingSerializer(drf.Serializer):
    day = drf.DateField()
    party_size = drf.IntegerField(min_value=1, max_value=8, label="Party size")
    seating = drf.ChoiceField(choices=[("in", "Inside"), ("out", "Terrace")])
    email = drf.EmailField(help_text="for the confirmation")
    vip = drf.BooleanField(required=False)
    note = drf.CharField(max_length=20, required=False)
    reference = drf.CharField(read_only=True)

    def validate_note(self, value):
        if "spam" in value:
            raise drf.ValidationError("No spam, please.")
        return value

    def validate(self, attrs):
        if attrs["party_size"] > 6 and attrs["seating"] == "out":
            raise drf.ValidationError("The terrace seats at most 6.")
        return attrs

    def create(self, validated_data):
        return {"saved": True, **validated_data}


def test_a_serializer_is_collected_and_validated_by_itself(fake_interpreter):
    from a2a_app.forms.serializers import serializer_form

    saved = []

    def handler(ctx: SkillContext):
        saved.append(ctx.form.serializer.save())
        return ctx.complete("ok", data={"size": ctx.cleaned_data["party_size"]})

    form = serializer_form(BookingSerializer)
    assert list(form.base_fields) == ["day", "party_size", "seating", "email", "vip", "note"]
    schema = form_schema(form)
    assert schema["required"] == ["day", "party_size", "seating", "email"]
    assert schema["properties"]["party_size"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 8,
        "title": "Party size",
    }
    assert schema["properties"]["email"]["description"] == "for the confirmation"
    with installed_skill(handler, "serialized", form=form):
        talk = SkillConversation("serialized")
        asked = talk.say(data={"day": "2026-12-18", "party_size": 9, "note": "spam spam"})
        assert asked.missing == ["party_size", "seating", "email"]
        assert asked.data["errors"]["party_size"] == [
            "Ensure this value is less than or equal to 8."
        ]
        # The form's own field checks pass: now the serializer's validate_note speaks.
        asked = talk.say(data={"party_size": 8, "seating": "out", "email": "a@example.com"})
        assert asked.data["errors"] == {"note": ["No spam, please."]}
        asked = talk.say(data={"note": "window seat"})
        assert asked.data["errors"] == {"__all__": ["The terrace seats at most 6."]}
        done = talk.say(data={"seating": "in"})
    assert isinstance(done, Completed)
    assert saved[0]["saved"] is True and saved[0]["party_size"] == 8
    assert saved[0]["day"] == date(2026, 12, 18)


def test_a_serializer_field_a_form_cannot_collect_is_refused():
    from a2a_app.forms.serializers import serializer_form

    class Nested(drf.Serializer):
        items = drf.ListField(child=drf.IntegerField())

    with pytest.raises(ValueError, match="'items' \\(ListField\\) cannot be collected"):
        serializer_form(Nested)


def test_questions_are_german_for_a_german_caller(booking):
    asked = SkillConversation(booking, metadata={"language": "de"}).say(data={"party_size": 0})
    assert asked.question == (
        "Party size: Dieser Wert muss größer oder gleich 1 sein. "
        "Bitte nennen Sie mir: Date (YYYY-MM-DD), Time (HH:MM), Party size, Name und "
        "Contact (an e-mail address)."
    )


def test_a_german_site_describes_the_fields_in_german(settings):
    settings.LANGUAGE_CODE = "de"
    assert describe_form(BookingForm).startswith(
        "Eingabe: day (YYYY-MM-DD, Pflicht), time (HH:MM, Pflicht), "
        "party_size (ganze Zahl 1–8, Pflicht)"
    )


# --- the other ways a skill runs: streams and workers ----------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_streamed_form_skill_asks_with_the_errors(fake_interpreter):
    import asyncio

    agent = A2AClient()
    with installed_skill(book, "book-table", form=BookingForm):
        params = agent.send_params(data={"party_size": 99})
        events = asyncio.run(agent.stream("SendStreamingMessage", params))
    final = events[-1]["statusUpdate"]["status"]
    assert final["state"] == "TASK_STATE_INPUT_REQUIRED"
    data = next(p["data"] for p in final["message"]["parts"] if "data" in p)
    assert data["errors"]["party_size"] == ["Ensure this value is less than or equal to 8."]


@pytest.mark.django_db(transaction=True)
def test_a_form_skill_in_a_worker_reuses_the_context_facts(fake_interpreter):
    from a2a_app.testing import record_dispatch

    agent = A2AClient()
    with (
        installed_skill(book, "book-table", form=BookingForm, background=True),
        record_dispatch() as dispatched,
    ):
        first = agent.send(
            data={**FULL, "contact": "ada@example.com"},
            configuration={"returnImmediately": True},
        )["task"]
        assert dispatched.run_queued() == ["TASK_STATE_COMPLETED"]
        agent.send(
            data={"day": "2026-12-19", "time": "20:00", "party_size": 2},
            contextId=first["contextId"],
            configuration={"returnImmediately": True},
        )
        assert dispatched.run_queued() == ["TASK_STATE_COMPLETED"]
    second = Task.objects.exclude(pk=first["id"]).get()
    assert second.skill_state["a2a_form"]["values"]["name"] == "Ada"
