"""Skill rows follow the code (issue 14, item 2).

A registered handler gets its row without a manual step (``migrate``, or the first read of
the skills), enabled as ``NEW_SKILLS_ENABLED`` says; what the code declares reaches the
card unless the owner edited that field in the admin (``Skill.edited_fields``); the admin
can hand a field back to the code; ``check`` warns about a handler without a row.
"""

from __future__ import annotations

import threading
from importlib import import_module
from io import StringIO
from types import SimpleNamespace
from typing import Any

import pytest
from django.apps import apps as django_apps
from django.core.management import call_command
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from a2a_app import checks
from a2a_app.models import CODE_FIELDS, Skill
from a2a_app.skills import catalogue, sync
from a2a_app.skills.registry import SkillSpec, registered
from tests.support import send

pytestmark = pytest.mark.django_db

CARD_URL = "/.well-known/agent-card.json"


def _handler(ctx):
    return ctx.complete("done")


def spec(**changes: Any) -> SkillSpec:
    """The ``menu`` skill as its code declares it; ``changes`` are a later code edit."""
    values = {
        "key": "menu",
        "handler": _handler,
        "name": "Menu",
        "description": "Today's menu.",
        "tags": ("menu", "food"),
        "examples": ("What is on the menu?",),
    }
    return SkillSpec(**values | changes)


def card_skills(client) -> dict[str, dict[str, Any]]:
    response = client.get(CARD_URL)
    assert response.status_code == 200
    return {s["id"]: s for s in response.json()["skills"]}


@pytest.fixture
def staff_client(client, django_user_model, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    client.force_login(django_user_model.objects.create_superuser("boss", "b@example.com", "pw"))
    return client


def change_form(row: Skill, **changes: Any) -> dict[str, Any]:
    """The admin's change form for ``row`` as the browser posts it, with ``changes``."""
    form = {
        "id": row.id,
        "handler": row.handler,
        "name": row.name,
        "description": row.description,
        "tags": "\n".join(row.tags),  # lists are edited one item per line
        "examples": "\n".join(row.examples),
        "input_modes": "\n".join(row.input_modes),
        "output_modes": "\n".join(row.output_modes),
        "enabled": "on" if row.enabled else "",
        "access": row.access,
        "permission": row.permission,
        "execution": row.execution,
        "order": str(row.order),
    }
    form.update(changes)
    return {k: v for k, v in form.items() if v != "" or k in {"permission", "execution"}}


# --- rows made without a manual step ------------------------------------------------------


class TestRowsAreMade:
    def test_migrate_makes_the_row_of_a_registered_handler(self):
        with registered(spec()):
            out = StringIO()
            call_command("migrate", verbosity=1, stdout=out)
            row = Skill.objects.get(pk="menu")
        assert "Created Skill rows: menu" in out.getvalue()
        assert (row.handler, row.name, row.description) == ("menu", "Menu", "Today's menu.")
        assert row.tags == ["menu", "food"] and row.examples == ["What is on the menu?"]
        assert row.enabled is True and row.edited_fields == []

    def test_migrate_leaves_out_the_conformance_skill(self):
        conformance = SkillSpec("conformance", _handler, "Conformance", "Built in")
        with registered(conformance):
            call_command("migrate", verbosity=0)
        assert not Skill.objects.filter(handler="conformance").exists()

    def test_the_first_read_of_the_skills_makes_the_row(self, client):
        # A deploy with a new handler, before anyone ran migrate: served at once.
        with registered(spec()):
            assert card_skills(client)["menu"]["description"] == "Today's menu."
            assert Skill.objects.get(pk="menu").edited_fields == []

    def test_new_rows_are_disabled_when_the_setting_says_so(self, client, settings):
        settings.A2A_APP = {**settings.A2A_APP, "NEW_SKILLS_ENABLED": False}
        with registered(spec()):
            assert "menu" not in card_skills(client)
            assert Skill.objects.get(pk="menu").enabled is False
            call_command("migrate", verbosity=0)  # migrate keeps the owner's choice
            Skill.objects.filter(pk="menu").update(enabled=True)
            catalogue.mark_changed()
            assert "menu" in card_skills(client)

    def test_a_row_deleted_on_purpose_stays_deleted_in_this_process(self, client):
        with registered(spec()):
            card_skills(client)
            Skill.objects.filter(pk="menu").delete()
            catalogue.mark_changed()
            assert "menu" not in card_skills(client)
            assert not Skill.objects.filter(pk="menu").exists()

    def test_another_handler_s_row_on_the_id_is_left_alone(self, client):
        with registered(spec()):
            Skill.objects.create(id="menu", handler="other", name="Kept", description="-")
            card_skills(client)
            call_command("migrate", verbosity=0)
            assert list(Skill.objects.values_list("id", "handler", "name")) == [
                ("menu", "other", "Kept")
            ]

    def test_two_processes_making_the_same_rows_do_not_clash(self):
        with registered(spec(), spec(key="book", name="Book")):
            # Both read the rows before either wrote: both try to insert the same two.
            missing = sync.missing_specs([])
            first = sync.create_rows(missing)
            second = sync.create_rows(missing)
        assert first == second == ["book", "menu"]
        assert sorted(Skill.objects.values_list("id", flat=True)) == ["book", "menu"]

    def test_a_database_that_refuses_the_insert_is_logged_not_raised(
        self, client, monkeypatch, caplog
    ):
        from django.db import DatabaseError
        from django.db.models.query import QuerySet

        def refuse(*args: Any, **kwargs: Any) -> None:
            raise DatabaseError("read-only")

        monkeypatch.setattr(QuerySet, "bulk_create", refuse)
        with registered(spec()):
            assert "menu" not in card_skills(client)
        assert "Could not create Skill rows for menu" in caplog.text


@pytest.mark.django_db(transaction=True)
def test_concurrent_creation_from_threads_is_safe():
    """Several processes starting at once (threads with their own connections here)."""
    if connection.vendor == "sqlite":
        pytest.skip("SQLite serializes writers: the race needs PostgreSQL")
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []

    def start() -> None:
        try:
            missing = sync.missing_specs(Skill.objects.values_list("id", "handler"))
            barrier.wait(5)
            sync.create_rows(missing)
        except BaseException as exc:  # noqa: BLE001  (reported below)
            errors.append(exc)
        finally:
            connections.close_all()

    with registered(spec(), spec(key="book", name="Book")):
        threads = [threading.Thread(target=start) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
    assert errors == []
    assert sorted(Skill.objects.values_list("id", flat=True)) == ["book", "menu"]


# --- the code's values reach the card unless the owner edited them ----------------------------


class TestCodeAndOwner:
    def test_a_code_change_reaches_the_card_and_its_etag(self, client):
        with registered(spec()):
            call_command("migrate", verbosity=0)
            before = client.get(CARD_URL)
            assert before.json()["skills"][0]["description"] == "Today's menu."
        # The next deploy, without migrate: the card follows the code it runs.
        with registered(spec(description="Lunch and dinner.", tags=("menu",))):
            after = client.get(CARD_URL)
            shown = after.json()["skills"][0]
            assert (shown["description"], shown["tags"]) == ("Lunch and dinner.", ["menu"])
            assert after["ETag"] != before["ETag"]
            # migrate writes it into the row, so the admin shows what the card shows.
            out = StringIO()
            call_command("migrate", verbosity=1, stdout=out)
            assert "Updated Skill rows from the code: menu" in out.getvalue()
            row = Skill.objects.get(pk="menu")
            assert (row.description, row.tags) == ("Lunch and dinner.", ["menu"])

    def test_the_owner_s_edit_wins_and_the_rest_follows_the_code(self, client, staff_client):
        with registered(spec()):
            call_command("migrate", verbosity=0)
            row = Skill.objects.get(pk="menu")
            url = f"/admin/a2a_app/skill/{row.pk}/change/"
            response = staff_client.post(url, change_form(row, description="Our menu, fresh."))
            assert response.status_code == 302, response.content
            assert Skill.objects.get(pk="menu").edited_fields == ["description"]
        with registered(spec(name="Menu of the day", description="Code wording.")):
            shown = card_skills(client)["menu"]
            assert shown["description"] == "Our menu, fresh."  # the owner's
            assert shown["name"] == "Menu of the day"  # the code's
            call_command("migrate", verbosity=0)
            row = Skill.objects.get(pk="menu")
            assert (row.name, row.description) == ("Menu of the day", "Our menu, fresh.")

    def test_setting_a_field_back_to_the_code_s_value_follows_the_code(self, staff_client):
        with registered(spec()):
            call_command("migrate", verbosity=0)
            row = Skill.objects.get(pk="menu")
            url = f"/admin/a2a_app/skill/{row.pk}/change/"
            staff_client.post(url, change_form(row, name="Ours"))
            assert Skill.objects.get(pk="menu").edited_fields == ["name"]
            staff_client.post(url, change_form(Skill.objects.get(pk="menu"), name="Menu"))
            assert Skill.objects.get(pk="menu").edited_fields == []

    def test_saving_other_fields_edits_none_of_the_code_s(self, staff_client):
        with registered(spec()):
            call_command("migrate", verbosity=0)
            row = Skill.objects.get(pk="menu")
            staff_client.post(f"/admin/a2a_app/skill/{row.pk}/change/", change_form(row, order="7"))
            row = Skill.objects.get(pk="menu")
            assert (row.order, row.edited_fields) == (7, [])

    def test_the_admin_shows_the_code_s_current_values(self, staff_client):
        with registered(spec()):
            call_command("migrate", verbosity=0)
        with registered(spec(description="Newer wording.")):
            page = staff_client.get("/admin/a2a_app/skill/menu/change/")
            form = page.context["adminform"].form
            assert form.initial["description"] == "Newer wording."
            assert "the code&#x27;s" in page.content.decode()

    def test_an_access_edit_keeps_access_and_permission_together(self, client, staff_client):
        with registered(spec(access="authenticated")):
            call_command("migrate", verbosity=0)
            row = Skill.objects.get(pk="menu")
            staff_client.post(
                f"/admin/a2a_app/skill/{row.pk}/change/", change_form(row, access="public")
            )
            assert Skill.objects.get(pk="menu").edited_fields == ["access", "permission"]
        # The code asks for a permission later: the owner's "public" stands, and the
        # code's permission does not pair with it.
        with registered(spec(access="permission", permission="restaurant.view_menu")):
            assert "menu" in card_skills(client)
            info = catalogue.get_catalogue().get("menu")
            assert (info.access, info.permission) == ("public", "")

    def test_a_code_change_to_access_reaches_rows_the_owner_left_alone(self, client):
        with registered(spec()):
            call_command("migrate", verbosity=0)
            assert "menu" in card_skills(client)
        with registered(spec(access="authenticated")):
            assert "menu" not in card_skills(client)  # tightened in code: hidden now

    def test_rows_written_in_code_keep_their_values(self, client):
        # Skill.objects.create (a fixture, a data migration) owns every field it writes.
        with registered(spec()):
            Skill.objects.create(id="menu", handler="menu", name="Written", description="x")
            assert Skill.objects.get(pk="menu").edited_fields == list(CODE_FIELDS)
            assert card_skills(client)["menu"]["name"] == "Written"

    def test_adding_a_row_in_the_admin_owns_what_differs_from_the_code(self, staff_client):
        with registered(spec()):
            form = change_form(Skill(id="lunch", handler="menu", name="Lunch"))
            form |= {"description": "Today's menu.", "tags": "menu\nfood"}
            response = staff_client.post("/admin/a2a_app/skill/add/", form)
            assert response.status_code == 302, response.content
            assert Skill.objects.get(pk="lunch").edited_fields == ["name", "examples"]


class TestAdminActions:
    def test_use_the_code_s_wording_again(self, client, staff_client):
        with registered(spec()):
            call_command("migrate", verbosity=0)
            Skill.objects.filter(pk="menu").update(
                name="Ours", access="authenticated", edited_fields=["name", "access"]
            )
            catalogue.mark_changed()
            assert "menu" not in card_skills(client)
            response = staff_client.post(
                "/admin/a2a_app/skill/",
                {"action": "use_code_wording", "_selected_action": ["menu"]},
                follow=True,
            )
            assert "Following the code again: menu" in response.content.decode()
            row = Skill.objects.get(pk="menu")
            assert row.name == "Menu"
            assert row.edited_fields == ["access"]  # the access rule is released apart
            staff_client.post(
                "/admin/a2a_app/skill/",
                {"action": "use_code_access", "_selected_action": ["menu"]},
            )
            row = Skill.objects.get(pk="menu")
            assert (row.access, row.edited_fields) == ("public", [])
            assert card_skills(client)["menu"]["name"] == "Menu"

    def test_the_row_of_a_registered_handler_is_disabled_not_deleted(self, staff_client):
        with registered(spec()):
            call_command("migrate", verbosity=0)
            Skill.objects.create(id="gone", handler="gone", name="Gone", description="-")
            page = staff_client.get("/admin/a2a_app/skill/menu/delete/")
            assert page.status_code == 403
            change_page = staff_client.get("/admin/a2a_app/skill/menu/change/")
            assert "deletelink" not in change_page.content.decode()
            bulk = {"action": "delete_selected", "post": "yes"}
            response = staff_client.post(
                "/admin/a2a_app/skill/", bulk | {"_selected_action": ["menu", "gone"]}
            )
            assert response.status_code == 403
            # A row whose handler is gone is the owner's to delete.
            staff_client.post("/admin/a2a_app/skill/", bulk | {"_selected_action": ["gone"]})
            assert list(Skill.objects.values_list("id", flat=True)) == ["menu"]


# --- the card's cache, the steady state ---------------------------------------------------


def test_send_message_reads_no_skill_rows_once_warm(rpc):
    with registered(spec()):
        send(rpc, "what is on the menu?")  # the first read makes the row and caches it
        with CaptureQueriesContext(connection) as captured:
            body = send(rpc, "what is on the menu?")
        assert body["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    touched = [q["sql"] for q in captured if "a2a_app_skill" in q["sql"]]
    touched += [q["sql"] for q in captured if "a2a_app_catalogchange" in q["sql"]]
    assert touched == []


# --- system checks and the command ----------------------------------------------------------


class TestChecks:
    def test_a_handler_without_a_row_is_w080(self):
        with registered(spec()):
            problems = checks.check_skill_handlers(databases=["default"])
        assert [p.id for p in problems] == ["a2a_app.W080"]
        assert "'menu'" in problems[0].msg and "migrate" in problems[0].hint

    def test_a_handler_whose_id_is_taken_is_w081(self):
        with registered(spec()):
            Skill.objects.create(id="menu", handler="other", name="-", description="-")
            ids = [p.id for p in checks.check_skill_handlers(databases=["default"])]
        assert ids == ["a2a_app.E010", "a2a_app.W081"]

    def test_a_row_whose_handler_is_gone_is_still_e010(self):
        Skill.objects.create(id="menu", handler="menu", name="-", description="-")
        assert [p.id for p in checks.check_skill_handlers(databases=["default"])] == [
            "a2a_app.E010"
        ]

    def test_handlers_with_rows_pass(self):
        with registered(spec()):
            call_command("migrate", verbosity=0)
            assert checks.check_skill_handlers(databases=["default"]) == []

    def test_no_database_to_read_says_nothing_of_rows(self):
        with registered(spec()):
            assert checks.check_skill_handlers(databases=[]) == []

    def test_check_command_warns(self):
        with registered(spec()):
            err = StringIO()
            call_command("check", "--database", "default", stdout=StringIO(), stderr=err)
        assert "a2a_app.W080" in err.getvalue()


def test_a2a_skills_sync_creates_and_updates(settings):
    with registered(spec()):
        call_command("a2a_skills", "--sync", stdout=StringIO())
    with registered(spec(description="New wording.")):
        out = StringIO()
        call_command("a2a_skills", "--sync", stdout=out)
        assert "updated Skill row 'menu'" in out.getvalue()
        assert Skill.objects.get(pk="menu").description == "New wording."
        listing = StringIO()
        call_command("a2a_skills", stdout=listing)
        assert "menu" in listing.getvalue() and "enabled" in listing.getvalue()


def test_the_migration_keeps_what_differs_from_the_code_as_the_owner_s():
    migration = import_module("a2a_app.migrations.0006_rows")
    with registered(spec(access="authenticated")):
        Skill.objects.create(
            id="menu",
            handler="menu",
            name="Menu",
            description="Typed by the owner.",
            tags=["menu", "food"],
            examples=["What is on the menu?"],
            access="authenticated",
        )
        Skill.objects.create(id="gone", handler="gone", name="Gone", description="-")
        editor = SimpleNamespace(connection=connection)
        migration.mark_edited_fields(django_apps, editor)
    assert Skill.objects.get(pk="menu").edited_fields == ["description"]
    assert Skill.objects.get(pk="gone").edited_fields == list(CODE_FIELDS)
