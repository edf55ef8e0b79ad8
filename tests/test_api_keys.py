"""API keys: stored as digests, shown once, scoped, expiring, revocable; issued and
revoked in the admin and with ``manage.py a2a_keys``; the admin's other secrets masked and
its acting actions behind their own permissions."""

from __future__ import annotations

import io
import json
import time
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.models import QuerySet
from django.test import Client
from django.utils import timezone

from a2a_app.models import ApiKey, Delivery, PushConfig, Task, TaskEvent, forget_api_keys
from a2a_app.testing import reset_caches
from tests.conftest import user_message
from tests.support import binding_error, call_binding

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("conformance_mode")]

BINDINGS = ("jsonrpc", "rest")


@pytest.fixture
def alice():
    return get_user_model().objects.create_user("alice", password="alice-pw")


def key_header(raw: str) -> dict[str, str]:
    return {"X-API-Key": raw}


def send(client, binding, headers, text="hello"):
    return call_binding(client, binding, "SendMessage", {"message": user_message(text)}, headers)


class TestTheKey:
    def test_only_the_digest_is_stored(self, alice):
        key, raw = ApiKey.issue(alice, "agent")
        assert raw.startswith(key.prefix + "_") and key.prefix.startswith("a2a_")
        assert len(key.prefix) == 12
        row = ApiKey.objects.values().get(pk=key.pk)
        assert raw not in str(row)
        assert row["digest"] != raw and len(row["digest"]) == 64
        assert ApiKey.find(raw) == key
        assert ApiKey.find(raw + "x") is None

    def test_find_reads_what_the_orm_reads_in_one_query(self, alice, django_assert_num_queries):
        # find() writes its own SQL: every value must come back as the ORM gives it
        # (the JSON list parsed, the datetimes aware), the user loaded with the key.
        expires = timezone.now() + timedelta(days=3)
        key, raw = ApiKey.issue(alice, "agent", scopes=["skill:menu"], expires_at=expires)
        key.touch()
        expected = ApiKey.objects.select_related("user").get(pk=key.pk)
        with django_assert_num_queries(1):
            found = ApiKey.find(raw)
            assert found.user.username == "alice" and found.user.is_active
        for field in ApiKey._meta.concrete_fields:
            assert getattr(found, field.attname) == getattr(expected, field.attname), field.name
        assert found.scopes == ["skill:menu"] and found.expires_at == expires
        assert found.last_used_at is not None and found.last_used_at.tzinfo is not None
        for field in type(alice)._meta.concrete_fields:
            assert getattr(found.user, field.attname) == getattr(expected.user, field.attname)
        assert found._state.adding is False and found.is_usable

    @pytest.mark.skipif(
        connection.vendor != "postgresql", reason="prepared statements are PostgreSQL's"
    )
    def test_find_stays_prepared_on_postgresql(self, alice, settings):
        # Client-bound, the join was planned on every signed-in request (~0.2 ms of the
        # database's CPU); bound on the server, psycopg prepares it (threshold 5 here).
        settings.A2A_APP = {**settings.A2A_APP, "API_KEY_CACHE_SECONDS": 0}  # read each time
        _, raw = ApiKey.issue(alice, "agent")
        for _ in range(8):
            assert ApiKey.find(raw) is not None
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s",
                [f'%{ApiKey._meta.db_table}" k JOIN%'],
            )
            assert cursor.fetchone() == (1,)

    def test_keys_are_random(self, alice):
        raws = {ApiKey.issue(alice, "agent")[1] for _ in range(5)}
        assert len(raws) == 5 and all(len(r) > 40 for r in raws)

    def test_status(self, alice):
        key, _ = ApiKey.issue(alice, "agent")
        assert key.status == "active"
        key.expires_at = timezone.now() - timedelta(seconds=1)
        assert key.status == "expired"
        key.revoke()
        assert key.status == "revoked"

    def test_last_used_is_written_at_most_once_a_minute(self, client, alice):
        key, raw = ApiKey.issue(alice, "agent")
        assert send(client, "jsonrpc", key_header(raw)).status_code == 200
        first = ApiKey.objects.get(pk=key.pk).last_used_at
        assert first is not None
        send(client, "rest", key_header(raw))
        assert ApiKey.objects.get(pk=key.pk).last_used_at == first
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=first - timedelta(minutes=2))
        forget_api_keys()  # two minutes on, the process's copy of the row has expired too
        send(client, "rest", key_header(raw))
        assert ApiKey.objects.get(pk=key.pk).last_used_at > first

    @pytest.mark.parametrize(
        "scopes", [["operation:NoSuchThing"], "operation:SendMessage", [""], ["skill:"], [3]]
    )
    def test_bad_scopes_are_named(self, scopes):
        assert ApiKey.scope_problem(scopes)

    def test_good_scopes(self):
        assert ApiKey.scope_problem(["operation:GetTask", "skill:menu", "shop.book"]) is None


class TestRememberedKeys:
    """A process reuses a key's row for API_KEY_CACHE_SECONDS: changes made through the
    ORM here hold at once, changes made elsewhere once the copy is that old."""

    @pytest.fixture
    def later(self, monkeypatch):
        """Move this process's monotonic clock on by some seconds."""
        real = time.monotonic

        def move(seconds: float) -> None:
            monkeypatch.setattr(time, "monotonic", lambda: real() + seconds)

        return move

    def test_a_key_used_again_is_not_read_again(self, alice, django_assert_num_queries):
        _, raw = ApiKey.issue(alice, "agent", scopes=["skill:menu"])
        with django_assert_num_queries(1):
            first = ApiKey.find(raw)
            second = ApiKey.find(raw)
        # Fresh instances each time: a request changing its key or user changes no other.
        assert second == first and second is not first and second.user is not first.user
        first.scopes.append("skill:booking")
        first.user.first_name = "changed"
        assert second.scopes == ["skill:menu"] and second.user.first_name == ""
        assert ApiKey.find(raw).scopes == ["skill:menu"]

    def test_unknown_keys_are_read_every_time(self, alice, django_assert_num_queries):
        _, raw = ApiKey.issue(alice, "agent")
        with django_assert_num_queries(2):
            assert ApiKey.find(raw[:-4] + "AAAA") is None
            assert ApiKey.find(raw[:-4] + "AAAA") is None

    def test_a_row_read_before_a_change_is_not_kept_after_it(
        self, alice, django_assert_num_queries
    ):
        # A revocation in this process while another request's read is on its way: that
        # request may still use what it read, but must not keep it for the next ones.
        key, raw = ApiKey.issue(alice, "agent")

        def revoke_meanwhile(execute, sql, params, many, context):
            result = execute(sql, params, many, context)
            key.revoke()
            return result

        with connection.execute_wrapper(revoke_meanwhile):
            assert ApiKey.find(raw).revoked_at is None
        with django_assert_num_queries(1):
            assert ApiKey.find(raw).revoked_at is not None

    def test_the_testing_kit_forgets_them(self, alice, django_assert_num_queries):
        # A site's tests that change keys with UPDATE start each test from the database.
        _, raw = ApiKey.issue(alice, "agent")
        with django_assert_num_queries(2):
            ApiKey.find(raw)
            reset_caches()
            ApiKey.find(raw)

    def test_zero_reads_the_key_on_every_request(self, alice, settings, django_assert_num_queries):
        settings.A2A_APP = {**settings.A2A_APP, "API_KEY_CACHE_SECONDS": 0}
        _, raw = ApiKey.issue(alice, "agent")
        with django_assert_num_queries(3):
            for _ in range(3):
                assert ApiKey.find(raw) is not None

    @pytest.mark.parametrize("change", ["revoke", "delete key", "deactivate user", "delete user"])
    def test_a_change_made_in_this_process_holds_at_once(self, client, alice, change):
        key, raw = ApiKey.issue(alice, "agent")
        for _ in range(2):  # the first use writes last_used_at, and so reads the row again
            assert send(client, "jsonrpc", key_header(raw)).status_code == 200
        if change == "revoke":
            key.revoke()
        elif change == "delete key":
            key.delete()
        elif change == "deactivate user":
            alice.is_active = False
            alice.save()
        else:
            Task.objects.all().delete()
            alice.delete()
        binding_error(send(client, "jsonrpc", key_header(raw)), "jsonrpc", 401, "UNAUTHENTICATED")

    def test_a_revocation_made_elsewhere_holds_once_the_copy_is_old(
        self, client, alice, settings, later
    ):
        # An UPDATE sends no signal: what another process's revocation looks like here.
        settings.A2A_APP = {**settings.A2A_APP, "API_KEY_CACHE_SECONDS": 5}
        key, raw = ApiKey.issue(alice, "agent")
        for _ in range(2):  # the first use writes last_used_at, and so reads the row again
            assert send(client, "jsonrpc", key_header(raw)).status_code == 200
        ApiKey.objects.filter(pk=key.pk).update(revoked_at=timezone.now())
        later(4.9)
        assert send(client, "jsonrpc", key_header(raw)).status_code == 200
        later(5.0)
        binding_error(send(client, "jsonrpc", key_header(raw)), "jsonrpc", 401, "UNAUTHENTICATED")

    def test_expiry_is_exact_with_the_row_remembered(self, client, alice, monkeypatch):
        expires = timezone.now() + timedelta(hours=1)
        _, raw = ApiKey.issue(alice, "agent", expires_at=expires)
        assert send(client, "jsonrpc", key_header(raw)).status_code == 200
        monkeypatch.setattr(timezone, "now", lambda: expires)
        binding_error(send(client, "jsonrpc", key_header(raw)), "jsonrpc", 401, "UNAUTHENTICATED")

    def test_last_used_is_still_written_once_a_minute(self, client, alice, monkeypatch):
        key, raw = ApiKey.issue(alice, "agent")
        writes = []
        real_update = QuerySet.update

        def update(queryset, **values):
            if queryset.model is ApiKey:
                writes.append(values)
            return real_update(queryset, **values)

        monkeypatch.setattr(QuerySet, "update", update)
        for _ in range(3):
            assert send(client, "jsonrpc", key_header(raw)).status_code == 200
        assert len(writes) == 1
        first = ApiKey.objects.get(pk=key.pk).last_used_at
        start = timezone.now()
        monkeypatch.setattr(timezone, "now", lambda: start + timedelta(minutes=2))
        for _ in range(3):
            assert send(client, "jsonrpc", key_header(raw)).status_code == 200
        assert len(writes) == 2
        assert first < ApiKey.objects.get(pk=key.pk).last_used_at == start + timedelta(minutes=2)


@pytest.mark.parametrize("binding", BINDINGS)
class TestAuthentication:
    def test_a_key_acts_as_its_user(self, client, alice, binding):
        _, raw = ApiKey.issue(alice, "agent")
        response = send(client, binding, key_header(raw))
        assert response.status_code == 200, response.content
        assert Task.objects.get().owner == f"user:{alice.pk}"

    @pytest.mark.parametrize("state", ["unknown", "revoked", "expired", "inactive user", "empty"])
    def test_unusable_keys_are_401(self, client, alice, binding, state):
        key, raw = ApiKey.issue(alice, "agent")
        if state == "unknown":
            raw = raw[:-4] + "AAAA"
        elif state == "revoked":
            key.revoke()
        elif state == "expired":
            ApiKey.objects.filter(pk=key.pk).update(expires_at=timezone.now())
        elif state == "inactive user":
            alice.is_active = False
            alice.save()
        else:
            raw = ""
        response = send(client, binding, key_header(raw))
        binding_error(response, binding, 401, "UNAUTHENTICATED")
        assert response["WWW-Authenticate"].startswith('ApiKey realm="a2a", header="X-API-Key"')
        assert Task.objects.count() == 0

    def test_operation_scopes_limit_the_key(self, client, alice, binding):
        _, getter = ApiKey.issue(alice, "reader", scopes=["operation:GetTask"])
        response = send(client, binding, key_header(getter))
        error = binding_error(response, binding, 403, "PERMISSION_DENIED")
        assert "SendMessage" in error["message"]
        if binding == "jsonrpc":
            assert error["code"] == -32000
        else:
            assert error["status"] == "PERMISSION_DENIED"
        assert Task.objects.count() == 0
        _, sender = ApiKey.issue(alice, "writer", scopes=["operation:SendMessage"])
        task = send(client, binding, key_header(sender))
        assert task.status_code == 200
        task_id = Task.objects.get().pk
        got = call_binding(client, binding, "GetTask", {"id": str(task_id)}, key_header(getter))
        assert got.status_code == 200, got.content

    def test_non_operation_scopes_do_not_block_operations(self, client, alice, binding):
        _, raw = ApiKey.issue(alice, "agent", scopes=["skill:conformance"])
        assert send(client, binding, key_header(raw)).status_code == 200


def test_the_caller_carries_the_keys_scopes(alice, rf):
    from a2a_app.bindings.auth import authenticate

    _, raw = ApiKey.issue(alice, "agent", scopes=["operation:GetTask", "shop.book"])
    caller = authenticate(rf.post("/a2a/jsonrpc", HTTP_X_API_KEY=raw))
    assert caller.user == alice
    assert caller.scopes == frozenset({"operation:GetTask", "shop.book"})
    assert caller.has_permission("shop.book") and not caller.may_call("SendMessage")
    _, unscoped = ApiKey.issue(alice, "agent")
    assert authenticate(rf.post("/a2a/jsonrpc", HTTP_X_API_KEY=unscoped)).scopes is None


def test_every_operation_has_a_scope_name():
    from a2a_app.bindings.operations import OPERATIONS, V03_JSONRPC, V03_REST
    from a2a_app.protocol.types import OPERATION_NAMES

    assert set(OPERATIONS) == OPERATION_NAMES
    for method in [*OPERATIONS.values(), *(m.operation for m in V03_JSONRPC.values())]:
        assert method.name in OPERATION_NAMES
    assert all(m.operation.name in OPERATION_NAMES for m in V03_REST.values())


# --- the management command -----------------------------------------------------------------


class TestCommand:
    def run(self, *args: str) -> tuple[str, str]:
        out, err = io.StringIO(), io.StringIO()
        call_command("a2a_keys", *args, stdout=out, stderr=err)
        return out.getvalue(), err.getvalue()

    def test_create_list_revoke(self, client, alice):
        out, err = self.run(
            "create", "--user", "alice", "--name", "bot", "--scope", "operation:SendMessage",
            "--expires-in-days", "30",
        )  # fmt: skip
        raw = out.strip()
        key = ApiKey.objects.get()
        assert raw.startswith(key.prefix) and "shown only this once" in err
        assert key.scopes == ["operation:SendMessage"]
        assert timedelta(days=29) < key.expires_at - timezone.now() <= timedelta(days=30)
        assert send(client, "jsonrpc", key_header(raw)).status_code == 200
        listing, _ = self.run("list")
        assert key.prefix in listing and raw not in listing and "active" in listing
        self.run("revoke", key.prefix)
        assert "revoked" in self.run("list")[0]
        binding_error(send(client, "jsonrpc", key_header(raw)), "jsonrpc", 401, "UNAUTHENTICATED")

    @pytest.mark.parametrize(
        "args",
        [
            ["create", "--user", "nobody", "--name", "x"],
            ["create", "--user", "alice", "--name", "x", "--scope", "operation:Nope"],
            ["create", "--user", "alice", "--name", "x", "--expires-in-days", "0"],
            ["revoke", "a2a_00000000"],
        ],
    )
    def test_errors(self, alice, args):
        with pytest.raises(CommandError):
            self.run(*args)
        assert ApiKey.objects.count() == 0


# --- the admin --------------------------------------------------------------------------------


@pytest.fixture
def admin_client(admin_user) -> Client:
    client = Client()
    client.force_login(admin_user)
    return client


class TestAdmin:
    def test_the_key_is_shown_once(self, admin_client, alice):
        response = admin_client.post(
            "/admin/a2a_app/apikey/add/",
            {"name": "bot", "user": alice.pk, "scopes": '["operation:GetTask"]'},
            follow=True,
        )
        assert response.status_code == 200
        key = ApiKey.objects.get()
        shown = [str(m) for m in response.context["messages"]]
        raw = next(word for m in shown for word in m.split() if word.startswith(key.prefix + "_"))
        assert ApiKey.find(raw) == key
        change = admin_client.get(f"/admin/a2a_app/apikey/{key.pk}/change/").content.decode()
        listing = admin_client.get("/admin/a2a_app/apikey/").content.decode()
        for page in (change, listing):
            assert key.prefix in page
            assert raw not in page and key.digest not in page
        assert "operation:GetTask" in listing

    def test_bad_scopes_are_refused(self, admin_client, alice):
        response = admin_client.post(
            "/admin/a2a_app/apikey/add/",
            {"name": "bot", "user": alice.pk, "scopes": '["operation:Nope"]'},
        )
        assert response.status_code == 200 and b"no such operation" in response.content
        assert ApiKey.objects.count() == 0

    def test_revoke_action(self, admin_client, alice):
        key, raw = ApiKey.issue(alice, "bot")
        admin_client.post(
            "/admin/a2a_app/apikey/", {"action": "revoke", "_selected_action": [key.pk]}
        )
        assert ApiKey.objects.get().status == "revoked"

    def test_push_secrets_are_masked(self, admin_client):
        task = Task.objects.create(
            context_id="c", state="TASK_STATE_WORKING", status_timestamp=timezone.now()
        )
        PushConfig.objects.create(
            task=task, config_id="p", url="https://hook.example.com/x?token=sekrit-q",
            token="sekrit-token", auth_scheme="Bearer", credentials="sekrit-cred",
        )  # fmt: skip
        page = admin_client.get(f"/admin/a2a_app/task/{task.pk}/change/").content.decode()
        assert "hook.example.com" in page
        assert "sekrit" not in page
        assert "set (hidden)" in page

    def test_delivery_urls_are_masked(self, admin_client):
        task = Task.objects.create(
            context_id="c", state="TASK_STATE_WORKING", status_timestamp=timezone.now()
        )
        event = TaskEvent.objects.create(task=task, sequence=1, kind="status", body={})
        delivery = Delivery.objects.create(
            task=task, event=event, url="https://u:sekrit-pw@hook.example.com/?k=sekrit-q"
        )
        for path in ("/admin/a2a_app/delivery/", f"/admin/a2a_app/delivery/{delivery.pk}/change/"):
            page = admin_client.get(path).content.decode()
            assert "hook.example.com" in page and "sekrit" not in page


def staff_with(*codenames: str):
    get_user_model().objects.filter(username="staff").delete()
    user = get_user_model().objects.create_user("staff", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    client = Client()
    client.force_login(user)
    return client


def actions_of(client: Client, path: str) -> list[str]:
    form = client.get(path).context["action_form"]
    return [] if form is None else [name for name, _ in form.fields["action"].choices]


def test_cancelling_in_the_admin_needs_the_cancel_permission():
    task = Task.objects.create(
        context_id="c", state="TASK_STATE_WORKING", status_timestamp=timezone.now()
    )
    path, post = "/admin/a2a_app/task/", {"action": "cancel_tasks", "_selected_action": [task.pk]}
    viewer = staff_with("view_task", "change_task")
    assert "cancel_tasks" not in actions_of(viewer, path)
    viewer.post(path, post)
    assert Task.objects.get().state == "TASK_STATE_WORKING"
    canceller = staff_with("view_task", "cancel_task")
    assert "cancel_tasks" in actions_of(canceller, path)
    canceller.post(path, post)
    assert Task.objects.get().state == "TASK_STATE_CANCELED"


def test_redelivering_in_the_admin_needs_the_resend_permission():
    path = "/admin/a2a_app/delivery/"
    assert "redeliver" not in actions_of(staff_with("view_delivery", "change_delivery"), path)
    assert "redeliver" in actions_of(staff_with("view_delivery", "resend_webhook"), path)


def test_scopes_hold_in_the_v03_dialect(client, alice):
    _, raw = ApiKey.issue(alice, "reader", scopes=["operation:GetTask"])
    payload = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/send",
        "params": {
            "message": {"messageId": "m", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}
        },
    }
    response = client.post(
        "/a2a/jsonrpc",
        json.dumps(payload),
        content_type="application/json",
        headers=key_header(raw),
    )
    binding_error(response, "jsonrpc", 403, "PERMISSION_DENIED")
    assert Task.objects.count() == 0
