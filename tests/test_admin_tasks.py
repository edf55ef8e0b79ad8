"""The admin as the place a site owner runs the agent: the task list (what was asked,
skill, state, caller, age; "waiting for us" filters; a fixed number of queries), the task
page (the conversation as a conversation, artifacts, the attached object), the owner's
verbs (answer, complete, reject, cancel: each its own permission, each through the
service layer with its events and webhooks), no Save button on what cannot be saved, and
the skill form's list fields.
"""

from __future__ import annotations

import base64
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from a2a_app import api
from a2a_app.admin import SkillForm
from a2a_app.models import (
    ATTACHED_KEY,
    SUMMARY_LENGTH,
    Delivery,
    PushConfig,
    Skill,
    Task,
    TaskEvent,
    attach,
    summary_of,
)
from a2a_app.protocol.types import Message, Part, Role
from tests.support import new_task

WORKING = "TASK_STATE_WORKING"
INPUT_REQUIRED = "TASK_STATE_INPUT_REQUIRED"
COMPLETED = "TASK_STATE_COMPLETED"
REJECTED = "TASK_STATE_REJECTED"
CANCELED = "TASK_STATE_CANCELED"
LIST = "/admin/a2a_app/task/"

pytestmark = pytest.mark.django_db


def page_url(task_id: Any) -> str:
    return f"/admin/a2a_app/task/{task_id}/change/"


def act_url(task_id: Any, verb: str) -> str:
    return f"/admin/a2a_app/task/{task_id}/act/{verb}/"


@pytest.fixture
def boss(django_user_model, settings) -> Client:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    client = Client()
    client.force_login(django_user_model.objects.create_superuser("boss", "b@example.com", "pw"))
    return client


def staff_with(*codenames: str) -> Client:
    user = get_user_model().objects.create_user(f"staff-{'-'.join(codenames)}", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def manual(install) -> str:
    """A skill whose handler leaves the task WORKING for the site to finish."""
    return install(lambda ctx: ctx.keep_working("A person will look at this."), key="catering")


@pytest.fixture
def waiting(rpc, manual) -> str:
    """A task waiting for us (keep_working), sent by an anonymous caller."""
    return new_task(rpc, "Catering for 40 people on Friday, please")["id"]


def make_task(state: str = WORKING, **fields: Any) -> Task:
    values = {
        "context_id": "ctx",
        "state": state,
        "status_timestamp": timezone.now(),
        "skill_id": "catering",
    }
    return Task.objects.create(**values | fields)


# --- what was asked --------------------------------------------------------------------------


class TestSummary:
    def test_the_first_text_is_stored_with_the_task(self, waiting):
        assert Task.objects.get(pk=waiting).summary == "Catering for 40 people on Friday, please"

    def test_a_follow_up_does_not_change_it(self, rpc, install):
        install(lambda ctx: ctx.ask("Which day?") if not ctx.is_follow_up else "ok", key="ask")
        task = new_task(rpc, "Book a table")
        rpc(
            "SendMessage",
            {"message": {"messageId": "m2", "role": "ROLE_USER", "taskId": task["id"],
                         "parts": [{"text": "Friday"}]}},
        )  # fmt: skip
        row = Task.objects.get(pk=task["id"])
        assert (row.state, row.summary) == (COMPLETED, "Book a table")

    def test_one_line_cut_with_an_ellipsis(self):
        long = "word " * 100
        summary = summary_of(
            Message("m", Role.USER, [Part.text_part("a\n  b\tc"), Part.text_part(long)])
        )
        assert summary.startswith("a b c word") and summary.endswith("…")
        assert len(summary) == SUMMARY_LENGTH

    def test_without_text_the_data_or_the_file_name(self):
        data = Message("m", Role.USER, [Part.data_part({"day": "friday", "guests": 4})])
        assert summary_of(data) == '{"day":"friday","guests":4}'
        file = Message("m", Role.USER, [Part("raw", "aGk=", "text/plain", "menu.txt")])
        assert summary_of(file) == "menu.txt"


# --- the task list ------------------------------------------------------------------------------


class TestTaskList:
    def test_columns(self, boss, waiting, django_user_model):
        alice = django_user_model.objects.create_user("alice")
        make_task(INPUT_REQUIRED, owner=f"user:{alice.pk}", summary="Table for two")
        make_task(COMPLETED, owner="user:999999", summary="Old one")
        page = boss.get(LIST).content.decode()
        assert "Catering for 40 people on Friday, please" in page
        assert "Table for two" in page
        # State as a coloured, human label; the caller by name; the age in words.
        assert '<span class="a2a-state a2a-state--us">working</span>' in page
        assert '<span class="a2a-state a2a-state--caller">input required</span>' in page
        assert '<span class="a2a-state a2a-state--done">completed</span>' in page
        rows = boss.get(LIST).context["cl"].result_list
        assert {t.caller_label for t in rows} == {
            "anonymous",
            "alice",
            "user:999999 (no such user)",
        }
        assert "just now" in page
        assert "catering" in page
        assert ".a2a-state--us" in page  # the styles came along

    def filtered(self, client: Client, **params: str) -> set[str]:
        response = client.get(LIST, params)
        assert response.status_code == 200
        return {t.summary for t in response.context["cl"].result_list}

    def test_waiting_filters(self, boss):
        make_task(WORKING, summary="left for us")
        make_task(WORKING, summary="a worker runs it", lease_expires_at=timezone.now())
        make_task(INPUT_REQUIRED, summary="asked the caller")
        make_task("TASK_STATE_AUTH_REQUIRED", summary="needs sign-in")
        make_task(COMPLETED, summary="done")
        assert self.filtered(boss, waiting="us") == {"left for us"}
        assert self.filtered(boss, waiting="caller") == {"asked the caller", "needs sign-in"}
        assert self.filtered(boss, state__exact=COMPLETED) == {"done"}
        page = boss.get(LIST).content.decode()
        assert "Waiting for us" in page and "Waiting for the caller" in page

    def test_filter_by_skill(self, boss, manual):
        Skill.objects.create(id="menu", handler="menu", name="Menu", description="d")
        make_task(summary="for catering")
        make_task(summary="for the menu", skill_id="menu")
        assert self.filtered(boss, skill="menu") == {"for the menu"}
        assert "Menu (menu)" in boss.get(LIST).content.decode()

    def test_search_by_id_context_and_text(self, boss):
        one = make_task(summary="vegan menu for a wedding", context_id="ctx-one")
        make_task(summary="a table tonight", context_id="ctx-two")
        assert self.filtered(boss, q=str(one.pk)) == {"vegan menu for a wedding"}
        assert self.filtered(boss, q="ctx-two") == {"a table tonight"}
        assert self.filtered(boss, q="wedding") == {"vegan menu for a wedding"}
        assert self.filtered(boss, q="no-such-thing") == set()

    def test_a_fixed_number_of_queries(self, boss, django_user_model):
        def count() -> int:
            boss.get(LIST)  # warm: content types, sessions
            with CaptureQueriesContext(connection) as queries:
                response = boss.get(LIST)
            assert response.status_code == 200
            return len(queries)

        user = django_user_model.objects.create_user("u0")
        make_task(owner=f"user:{user.pk}")
        few = count()
        for i in range(1, 30):
            user = django_user_model.objects.create_user(f"u{i}")
            make_task(owner=f"user:{user.pk}", summary=f"task {i}")
        make_task(owner="")
        assert count() == few
        # session, user, page count, the page, its users, the skill filter's choices
        assert few == 6


# --- the task page ------------------------------------------------------------------------------


class TestTaskPage:
    def test_the_conversation_as_a_conversation(self, boss, waiting):
        api.ask(waiting, "How many vegans?", data={"guests": 40, "day": "Friday"})
        page = boss.get(page_url(waiting)).content.decode()
        chat = page[page.index('class="a2a-chat"') : page.index("</ol>")]
        bubbles = re.findall(r'class="a2a-msg a2a-msg--(user|agent)', chat)
        assert bubbles == ["user", "agent", "agent"]
        first, keep, ask = (chat.index(t) for t in (
            "Catering for 40 people", "A person will look at this.", "How many vegans?"
        ))  # fmt: skip
        assert first < keep < ask
        # The question's data part as a key/value table, not JSON.
        assert '<th scope="row">guests</th><td>40</td>' in chat
        assert '<th scope="row">day</th><td>Friday</td>' in chat
        assert "a2a-msg--status" in chat  # the current status message is marked

    def test_parts_of_every_kind(self, boss):
        task = make_task()
        from a2a_app.models import TaskArtifact, TaskMessage

        raw = base64.b64encode(b"x" * 2048).decode()
        TaskMessage.objects.create(task=task, position=0, message_id="m1", role="ROLE_USER", body={
            "messageId": "m1", "role": "ROLE_USER", "parts": [
                {"text": "<b>bold?</b>"},
                {"data": {"nested": {"a": [1, {"b": 2}]}}},
                {"url": "https://files.example.com/menu.pdf", "mediaType": "application/pdf"},
                {"url": "javascript:alert(1)", "filename": "evil"},
                {"raw": raw, "filename": "notes.txt", "mediaType": "text/plain"},
            ],
        })  # fmt: skip
        TaskArtifact.objects.create(task=task, position=0, artifact_id="a1", name="quote", body={
            "artifactId": "a1", "name": "quote", "description": "What it costs",
            "parts": [{"text": "EUR 1,200"}, {"data": {"total": 1200, "currency": "EUR"}}],
        })  # fmt: skip
        page = boss.get(page_url(task.pk)).content.decode()
        assert "&lt;b&gt;bold?&lt;/b&gt;" in page and "<b>bold?</b>" not in page
        assert '<pre class="a2a-json">{\n  &quot;nested&quot;' in page
        assert '<a href="https://files.example.com/menu.pdf"' in page and "menu.pdf</a>" in page
        assert 'href="javascript:' not in page and "evil" in page
        assert "notes.txt" in page and "2.0\xa0KB" in page
        artifacts = page[page.index('id="a2a-artifacts"') :]
        assert "<h3>quote</h3>" in artifacts and "What it costs" in artifacts
        assert "EUR 1,200" in artifacts and '<th scope="row">currency</th><td>EUR</td>' in artifacts

    def test_the_facts_are_compact(self, boss, waiting):
        page = boss.get(page_url(waiting)).content.decode()
        row = Task.objects.get(pk=waiting)
        side = page[page.index('class="a2a-task__side"') :]
        assert row.context_id in side and "anonymous" in side and "catering" in side
        assert "waiting for us" in side

    def test_no_save_button(self, boss, waiting):
        page = boss.get(page_url(waiting)).content.decode()
        assert 'name="_save"' not in page and 'name="_continue"' not in page
        # Posting the model form anyway changes nothing.
        boss.post(page_url(waiting), {"state": COMPLETED})
        assert Task.objects.get(pk=waiting).state == WORKING

    def test_no_save_button_on_deliveries(self, boss):
        task = make_task()
        event = TaskEvent.objects.create(task=task, sequence=1, kind="status", body={})
        delivery = Delivery.objects.create(task=task, event=event, url="https://h.example.com/")
        page = boss.get(f"/admin/a2a_app/delivery/{delivery.pk}/change/").content.decode()
        assert 'name="_save"' not in page

    def test_the_attached_object_is_linked(self, boss, django_user_model):
        guest = django_user_model.objects.create_user("guest")
        state: dict[str, Any] = {}
        attach(state, guest)
        assert state[ATTACHED_KEY] == {"app_label": "auth", "model": "user", "pk": guest.pk}
        task = make_task(skill_state=state)
        assert task.attached_object() == guest
        page = boss.get(page_url(task.pk)).content.decode()
        assert f'<a href="/admin/auth/user/{guest.pk}/change/">user: guest</a>' in page

    @pytest.mark.parametrize(
        "reference",
        [
            {"app_label": "auth", "model": "user", "pk": 987654},
            {"app_label": "nope", "model": "thing", "pk": 1},
            {"app_label": "auth", "model": "user", "pk": "not-a-number"},
            "garbage",
        ],
    )
    def test_a_bad_or_stale_attachment_is_harmless(self, boss, reference):
        task = make_task(skill_state={ATTACHED_KEY: reference})
        assert task.attached_object() is None
        assert boss.get(page_url(task.pk)).status_code == 200


# --- the owner's verbs ------------------------------------------------------------------------


VERB_PERMISSIONS = {
    "answer": "answer_task",
    "complete": "complete_task",
    "reject": "reject_task",
    "cancel": "cancel_task",
}
ENDS_IN = {"answer": INPUT_REQUIRED, "complete": COMPLETED, "reject": REJECTED, "cancel": CANCELED}


def post_verb(client: Client, task_id: str, verb: str, text: str = "Done, see you then."):
    data = {} if verb == "cancel" else {f"{verb}-text": text}
    return client.post(act_url(task_id, verb), data, follow=True)


def shown(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


class TestVerbs:
    @pytest.mark.parametrize("verb", list(VERB_PERMISSIONS))
    def test_each_verb_needs_its_permission(self, waiting, verb):
        others = [p for v, p in VERB_PERMISSIONS.items() if v != verb]
        without = staff_with("view_task", "change_task", *others)
        assert without.post(act_url(waiting, verb), {f"{verb}-text": "x"}).status_code == 403
        assert Task.objects.get(pk=waiting).state == WORKING
        page = without.get(page_url(waiting)).content.decode()
        assert f"a2a-verb--{verb}" not in page

        allowed = staff_with("view_task", VERB_PERMISSIONS[verb])
        page = allowed.get(page_url(waiting)).content.decode()
        assert f'action="{act_url(waiting, verb)}"' in page and "csrfmiddlewaretoken" in page
        response = post_verb(allowed, waiting, verb)
        assert response.status_code == 200
        assert Task.objects.get(pk=waiting).state == ENDS_IN[verb]
        assert len(shown(response)) == 1

    def test_answer_asks_the_caller_through_the_service(
        self, rpc, boss, waiting, dispatched, django_capture_on_commit_callbacks
    ):
        events_before = TaskEvent.objects.filter(task_id=waiting).count()
        with django_capture_on_commit_callbacks(execute=True):
            response = post_verb(boss, waiting, "answer", "Any allergies we should know of?")
        assert shown(response) == ["Sent to the caller; the task now waits for their answer."]
        got = rpc("GetTask", {"id": waiting})["result"]
        assert got["status"]["state"] == INPUT_REQUIRED
        assert got["status"]["message"]["parts"][0] == {"text": "Any allergies we should know of?"}
        assert got["status"]["message"]["role"] == "ROLE_AGENT"
        event = TaskEvent.objects.filter(task_id=waiting).order_by("-sequence").first()
        assert TaskEvent.objects.filter(task_id=waiting).count() == events_before + 1
        assert event.body["statusUpdate"]["status"]["state"] == INPUT_REQUIRED
        assert dispatched.published == [waiting]  # streams are woken
        # And the caller answers, as the protocol lets it.
        reply = rpc("SendMessage", {"message": {
            "messageId": "m-answer", "role": "ROLE_USER", "taskId": waiting,
            "parts": [{"text": "Two vegans"}]}})  # fmt: skip
        assert reply["result"]["task"]["status"]["state"] == WORKING

    def test_complete_and_reject_write_what_the_api_writes(self, rpc, boss, manual):
        done = new_task(rpc, "cater please")["id"]
        post_verb(boss, done, "complete", "Confirmed: 40 people, Friday 7pm.")
        got = rpc("GetTask", {"id": done})["result"]
        assert got["status"]["state"] == COMPLETED
        assert got["artifacts"][0]["parts"] == [{"text": "Confirmed: 40 people, Friday 7pm."}]
        refused = new_task(rpc, "cater again")["id"]
        post_verb(boss, refused, "reject", "We are fully booked.")
        got = rpc("GetTask", {"id": refused})["result"]
        assert got["status"]["state"] == REJECTED
        assert got["status"]["message"]["parts"] == [{"text": "We are fully booked."}]

    def test_a_webhook_delivery_is_queued_as_for_a_protocol_call(
        self, boss, waiting, dispatched, django_capture_on_commit_callbacks
    ):
        config = PushConfig.objects.create(
            task_id=waiting, config_id="hook", url="https://hook.example.com/a2a"
        )
        Task.objects.filter(pk=waiting).update(push_config_count=1)
        with django_capture_on_commit_callbacks(execute=True):
            post_verb(boss, waiting, "complete", "All set.")
        queued = Delivery.objects.filter(config=config).select_related("event")
        kinds = sorted(d.event.kind for d in queued)
        assert kinds == ["artifact", "status"]  # the result, then COMPLETED
        assert {d.status for d in queued} == {Delivery.Status.PENDING}
        assert dispatched.deliveries == [([config.pk], 0)]

    def test_the_verbs_read_in_german(self, boss, waiting):
        from django.utils import translation

        with translation.override("de"):
            page = boss.get(page_url(waiting)).content.decode()
        for button in ("Aufrufer fragen", "Abschließen", "Ablehnen", "Aufgabe abbrechen"):
            assert f'value="{button}"' in page
        assert " task" not in page.split('id="a2a-act"')[1]

    def test_cancel_goes_through_cancel_task(
        self, boss, waiting, django_capture_on_commit_callbacks
    ):
        from a2a_app.signals import task_status_changed

        seen = []

        def receiver(sender, task, previous_state, state, **kwargs):
            seen.append((str(task.pk), state.value))

        task_status_changed.connect(receiver)
        try:
            with django_capture_on_commit_callbacks(execute=True):
                response = post_verb(boss, waiting, "cancel")
        finally:
            task_status_changed.disconnect(receiver)
        assert shown(response) == ["The task is canceled."]
        assert seen == [(waiting, CANCELED)]

    @pytest.mark.parametrize("owner", ["user:424242", "user:not-a-key"])
    def test_a_task_of_a_deleted_user_can_still_be_canceled(self, boss, owner):
        task = make_task(owner=owner)
        post_verb(boss, str(task.pk), "cancel")
        assert Task.objects.get(pk=task.pk).state == CANCELED

    @pytest.mark.parametrize("verb", list(VERB_PERMISSIONS))
    def test_a_task_that_ended_says_so(self, boss, waiting, verb):
        api.reject(waiting, "no")
        events = TaskEvent.objects.filter(task_id=waiting).count()
        response = post_verb(boss, waiting, verb)
        assert shown(response) == ["Nothing was sent: this task already ended (rejected)."]
        assert Task.objects.get(pk=waiting).state == REJECTED
        assert TaskEvent.objects.filter(task_id=waiting).count() == events
        # And an ended task's page offers no verbs.
        assert "a2a-verb--" not in boss.get(page_url(waiting)).content.decode()

    def test_a_task_deleted_meanwhile_is_a_message(self, boss, waiting, monkeypatch):
        from a2a_app import admin_tasks
        from a2a_app.exceptions import TaskNotFound

        def gone(verb, task, text):
            raise TaskNotFound(task.pk)

        monkeypatch.setattr(admin_tasks, "perform", gone)
        response = post_verb(boss, waiting, "complete")
        assert response.redirect_chain[-1][0] == LIST
        assert shown(response) == ["This task no longer exists."]

    def test_an_empty_text_is_refused(self, boss, waiting):
        response = post_verb(boss, waiting, "answer", "   ")
        assert shown(response) == ["Write the text to send, then try again."]
        assert Task.objects.get(pk=waiting).state == WORKING

    def test_get_and_unknown_verbs(self, boss, waiting):
        assert boss.get(act_url(waiting, "answer")).status_code == 405
        assert boss.post(act_url(waiting, "explode"), {}).status_code == 404
        missing = "00000000-0000-0000-0000-000000000000"
        assert boss.post(act_url(missing, "answer"), {"answer-text": "x"}).status_code == 404

    def test_csrf_is_required(self, django_user_model, waiting):
        client = Client(enforce_csrf_checks=True)
        client.force_login(django_user_model.objects.create_superuser("c", "c@example.com", "pw"))
        assert client.post(act_url(waiting, "answer"), {"answer-text": "x"}).status_code == 403
        assert Task.objects.get(pk=waiting).state == WORKING

    def test_the_action_is_in_the_history(self, boss, waiting):
        from django.contrib.admin.models import LogEntry

        post_verb(boss, waiting, "answer", "Which menu?")
        entry = LogEntry.objects.get(object_id=waiting)
        assert entry.get_change_message() == "answer: Which menu?"


# --- the skill form --------------------------------------------------------------------------


def skill_post(**changes: str) -> dict[str, str]:
    form = {
        "id": "catering",
        "handler": "catering",
        "name": "Catering",
        "description": "Food for events",
        "tags": "catering\nevents",
        "examples": "Catering for 40 on Friday\nA buffet for a wedding",
        "input_modes": "",
        "output_modes": "text/plain\napplication/json",
        "enabled": "on",
        "access": "public",
        "permission": "",
        "execution": "",
        "order": "0",
    }
    return form | changes


class TestSkillForm:
    URL = "/admin/a2a_app/skill/catering/change/"

    @pytest.fixture
    def row(self, manual) -> Skill:
        row = Skill.objects.get(pk="catering")
        row.tags, row.examples = ["catering", "events"], ["Catering for 40 on Friday"]
        row.save()
        return row

    def test_lists_are_edited_one_per_line(self, boss, row):
        page = boss.get(self.URL).content.decode()
        assert "catering\nevents</textarea>" in page
        assert "the router" in page.lower()  # the help says what routing does with them
        response = boss.post(self.URL, skill_post(tags="catering, events\n\n  buffet  \n"))
        assert response.status_code == 302, response.context["adminform"].form.errors
        row.refresh_from_db()
        assert row.tags == ["catering", "events", "buffet"]
        assert row.examples == ["Catering for 40 on Friday", "A buffet for a wedding"]
        assert (row.input_modes, row.output_modes) == ([], ["text/plain", "application/json"])

    def test_changed_data_counts_real_changes_only(self, row):
        initial = {"tags": row.tags, "examples": row.examples, "input_modes": [],
                   "output_modes": ["text/plain", "application/json"]}  # fmt: skip
        same = SkillForm(
            skill_post(
                tags="catering\r\nevents\r\n",
                examples="Catering for 40 on Friday",
                output_modes="text/plain\napplication/json",
            ),
            instance=row,
            initial=initial,
        )
        assert same.is_valid(), same.errors
        assert not {"tags", "examples", "input_modes", "output_modes"} & set(same.changed_data)
        other = SkillForm(skill_post(tags="catering"), instance=row, initial=initial)
        assert other.is_valid(), other.errors
        assert "tags" in other.changed_data and "examples" in other.changed_data

    def test_a_bad_media_type_is_refused(self, boss, row):
        response = boss.post(self.URL, skill_post(input_modes="text/plain\nnot a type"))
        assert response.status_code == 200
        assert "input_modes" in response.context["adminform"].form.errors


class TestRejectSelected:
    def post(self, client: Client, *tasks: Task, **extra: str):
        data = {"action": "reject_tasks", "_selected_action": [t.pk for t in tasks]}
        return client.post(LIST, data | extra, follow=True)

    def test_asks_for_the_reason_then_rejects_the_live_ones(self, boss):
        live, other, ended = make_task(), make_task(INPUT_REQUIRED), make_task(COMPLETED)
        page = self.post(boss, live, other, ended)
        assert page.templates[0].name == "admin/a2a_app/task/reject_selected.html"
        assert "These 2 tasks will be rejected" in page.content.decode()
        assert Task.objects.get(pk=live.pk).state == WORKING
        done = self.post(boss, live, other, ended, apply="1", **{"reject-text": "Spam."})
        assert shown(done) == ["Rejected 2 task(s)."]
        states = {t.pk: t.state for t in Task.objects.all()}
        assert states == {live.pk: REJECTED, other.pk: REJECTED, ended.pk: COMPLETED}
        reason = Task.objects.get(pk=live.pk).status_message["parts"][0]["text"]
        assert reason == "Spam."

    def test_an_empty_reason_asks_again(self, boss):
        live = make_task()
        page = self.post(boss, live, apply="1", **{"reject-text": ""})
        assert page.templates[0].name == "admin/a2a_app/task/reject_selected.html"
        assert Task.objects.get(pk=live.pk).state == WORKING

    def test_needs_the_reject_permission(self):
        live = make_task()
        viewer = staff_with("view_task", "cancel_task", "complete_task", "answer_task")
        choices = viewer.get(LIST).context["action_form"].fields["action"].choices
        assert "cancel_tasks" in [name for name, _ in choices]
        assert "reject_tasks" not in [name for name, _ in choices]
        self.post(viewer, live, apply="1", **{"reject-text": "no"})
        assert Task.objects.get(pk=live.pk).state == WORKING
        rejecter = staff_with("view_task", "reject_task")
        choices = rejecter.get(LIST).context["action_form"].fields["action"].choices
        assert "reject_tasks" in [name for name, _ in choices]
        self.post(rejecter, live, apply="1", **{"reject-text": "no"})
        assert Task.objects.get(pk=live.pk).state == REJECTED
