"""Which language a guest's message is in (a2a_app.skills.language): the measured phrase
table of docs/language.md, hints that win, and a conversation that keeps its language."""

from __future__ import annotations

from typing import Any

import pytest
from django import forms
from django.test import override_settings
from django.utils.translation import gettext

from a2a_app.models import Skill, Task
from a2a_app.skills.language import LANGUAGE_STATE_KEY, detect, site_languages
from a2a_app.skills.registry import SkillSpec, registered
from tests.conftest import user_message

# Short guest messages, as docs/language.md measures them (60: 30 English, 30 German).
PHRASES = [
    ("Hello", "en"),
    ("Hi", "en"),
    ("Hi there", "en"),
    ("Good evening", "en"),
    ("Thanks", "en"),
    ("Thank you!", "en"),
    ("Yes", "en"),
    ("No thanks", "en"),
    ("Menu", "en"),
    ("Table for 2 tomorrow", "en"),
    ("Book a table for 4 on Friday at 7pm", "en"),
    ("When are you open?", "en"),
    ("Where are you located?", "en"),
    ("Do you have fish?", "en"),
    ("How much is a Margherita?", "en"),
    ("Is the tiramisu vegetarian?", "en"),
    ("What wine do you have?", "en"),
    ("Where can I park?", "en"),
    ("Cancel my reservation TD-7K2Q", "en"),
    ("I need to change my booking to 8pm", "en"),
    ("tomorrow evening", "en"),
    ("my name is Tom Lee", "en"),
    ("for 3 people", "en"),
    ("Are you open on Sunday?", "en"),
    ("Show me the vegan dishes", "en"),
    ("Catering for 40 people", "en"),
    ("What's the weather like in Berlin?", "en"),
    ("Do you deliver?", "en"),
    ("gluten free options?", "en"),
    ("tonight at 8", "en"),
    ("Hallo", "de"),
    ("Guten Abend", "de"),
    ("Guten Tag", "de"),
    ("Danke", "de"),
    ("Vielen Dank!", "de"),
    ("Ja", "de"),
    ("Nein danke", "de"),
    ("Speisekarte", "de"),
    ("Wo kann ich parken?", "de"),
    ("Wann habt ihr geöffnet?", "de"),
    ("Habt ihr heute offen?", "de"),
    ("Einen Tisch für 2 morgen", "de"),
    ("Ich möchte einen Tisch reservieren", "de"),
    ("Was kostet die Pizza?", "de"),
    ("Gibt es vegane Gerichte?", "de"),
    ("Ist das Tiramisu vegetarisch?", "de"),
    ("Welche Weine habt ihr?", "de"),
    ("Wo seid ihr?", "de"),
    ("morgen Abend", "de"),
    ("Ich heiße Anna Weber", "de"),
    ("für 4 Personen", "de"),
    ("Bitte meine Reservierung stornieren", "de"),
    ("Kann ich die Buchung ändern?", "de"),
    ("Habt ihr glutenfreie Pasta?", "de"),
    ("heute um 19 Uhr", "de"),
    ("Firmenfeier mit 60 Gästen", "de"),
    ("Wie ist das Wetter?", "de"),
    ("Servus", "de"),
    ("Moin", "de"),
    ("Tschüss", "de"),
    # A reference, an e-mail address or a link counts for no language: these references
    # read as the English "a", "me" and "us" when split into letters.
    ("Storniere TD-9V884A, Kontakt falsch@example.com", "de"),
    ("Storniere TD-2E59ME", "de"),
    ("Kontakt: anna@example.com, Buchung TD-FSJ7US", "de"),
    ("Cancel TD-ÄÖÜ9X please", "en"),
]


@pytest.fixture(autouse=True)
def en_de(settings):
    """A site that speaks English and German (as the demo does)."""
    settings.LANGUAGES = [("en", "English"), ("de", "German")]
    settings.LANGUAGE_CODE = "en"


@pytest.mark.parametrize("text, expected", PHRASES)
def test_phrase_table(text, expected):
    assert detect(text) == expected


class TestDetect:
    @pytest.mark.parametrize("text", ["", "2", "19:30", "Tom Lee", "weber@example.com"])
    def test_nothing_tells(self, text):
        assert detect(text) == ""
        assert detect(text, previous="de") == "de"

    def test_hints_win_over_the_text(self):
        assert detect("Hello", hints=["de-AT"]) == "de"
        assert detect("Hallo", hints=["", None, "en_GB"]) == "en"
        assert detect("Hallo", hints=["fr-FR, en;q=0.8"]) == "en"  # Accept-Language's order

    def test_a_hint_the_site_does_not_offer_is_passed_over(self):
        assert detect("Hallo", hints=["fr"]) == "de"

    def test_the_conversation_keeps_its_language_unless_the_guest_clearly_switches(self):
        assert detect("ok", previous="de") == "de"
        assert detect("Table", previous="de") == "de"  # one weak word is no switch
        assert detect("Actually, can we do this in English please?", previous="de") == "en"

    def test_candidates_are_the_site_languages(self):
        assert site_languages() == ("en", "de")
        with override_settings(LANGUAGES=[("de", "Deutsch")], LANGUAGE_CODE="de"):
            assert site_languages() == ("de",)
            assert detect("Hello") == "de"  # the one language the site speaks

    def test_djangos_default_languages_mean_the_site_chose_none(self):
        from django.conf import global_settings

        with override_settings(LANGUAGES=global_settings.LANGUAGES, LANGUAGE_CODE="en-us"):
            assert site_languages() == ("en", "de")


# --- a conversation ---------------------------------------------------------------------------


class PartyForm(forms.Form):
    party_size = forms.IntegerField(min_value=1, max_value=8)


def _handler(ctx):
    # gettext here answers in the guest's language: the handler runs inside it (any string
    # of a2a_app's catalogue will do).
    return ctx.complete(gettext("Cancel task") + f" {ctx.cleaned_data['party_size']}")


@pytest.fixture
def party(db):
    spec = SkillSpec(key="party", handler=_handler, name="Party", description="", form=PartyForm)
    with registered(spec):
        Skill.objects.create(id="party", handler="party", name="Party", tags=["party"])
        yield


def say(rpc, text: str, **fields: Any) -> dict[str, Any]:
    return rpc("SendMessage", {"message": user_message(text, **fields)})["result"]["task"]


@pytest.mark.django_db
class TestConversation:
    def test_a_task_keeps_its_language(self, rpc, party):
        task = say(rpc, "Hallo, eine Feier bitte")
        assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        question = task["status"]["message"]["parts"][0]["text"]
        assert question == gettext_in("de", question)
        assert Task.objects.get().skill_state[LANGUAGE_STATE_KEY] == "de"
        done = say(rpc, "4", taskId=task["id"], contextId=task["contextId"])
        assert done["status"]["state"] == "TASK_STATE_COMPLETED"
        assert done["artifacts"][0]["parts"][0]["text"] == "Aufgabe abbrechen 4"

    def test_english(self, rpc, party):
        task = say(rpc, "A party for 4 people please")
        assert task["artifacts"][0]["parts"][0]["text"] == "Cancel task 4"
        assert Task.objects.get().skill_state[LANGUAGE_STATE_KEY] == "en"

    def test_nothing_tells_then_the_site_language(self, rpc, party):
        task = say(rpc, "party 4")
        assert Task.objects.get(pk=task["id"]).skill_state[LANGUAGE_STATE_KEY] == "en"


def gettext_in(language: str, text: str) -> str:
    """``text`` if it reads as German (a question the form asked in German)."""
    assert detect(text) == language, text
    return text


class TestTurnLanguage:
    """conversation_language: one decision per turn, stored with the task."""

    def turn(self, text: str, state: dict, metadata: Any, caller: Any = None) -> tuple[str, dict]:
        from a2a_app.caller import Caller
        from a2a_app.core.execution import conversation_language
        from a2a_app.protocol.types import Message, Part, Role

        task = Task(context_id="c", skill_state=dict(state))
        message = Message(message_id="m", role=Role.USER, parts=[Part.text_part(text)])
        found = conversation_language(task, message, caller or Caller(), metadata)
        return found, task.skill_state

    def test_decided_and_stored(self):
        assert self.turn("Wo kann ich parken?", {}, {}) == ("de", {LANGUAGE_STATE_KEY: "de"})

    def test_kept_on_a_follow_up(self):
        assert self.turn("19:30", {LANGUAGE_STATE_KEY: "de"}, {})[0] == "de"

    def test_a_worker_keeps_what_send_message_decided_with_the_hints(self):
        # SendMessage stored "de" from Accept-Language; the worker sees no headers.
        stored = {LANGUAGE_STATE_KEY: "de"}
        assert self.turn("Table for two tomorrow please", stored, None)[0] == "de"

    def test_accept_language(self):
        from a2a_app.caller import Caller

        assert self.turn("Table for two", {}, {}, Caller(language="de-DE"))[0] == "de"
