"""Retention: ended tasks are deleted with everything of theirs, in batches, and nothing
still in use is (a2a_app/core/retention.py, ``manage.py a2a_purge``, the sweep)."""

from __future__ import annotations

import uuid
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from a2a_app import checks, jobs
from a2a_app.core import retention
from a2a_app.management.commands.a2a_purge import duration
from a2a_app.models import Delivery, PushConfig, Task, TaskArtifact, TaskEvent, TaskMessage
from a2a_app.protocol.types import TaskState
from tests.support import new_task

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)
CHILD_MODELS = (TaskMessage, TaskArtifact, TaskEvent, PushConfig, Delivery)


def make_task(
    state: TaskState = TaskState.COMPLETED,
    ended: timedelta = 40 * DAY,
    *,
    delivery: str = Delivery.Status.DELIVERED,
    **fields: Any,
) -> Task:
    """A task whose last status is ``ended`` ago, with two messages, an artifact, two
    events, a push config and a delivery of each event."""
    when = timezone.now() - ended
    task = Task.objects.create(
        context_id="ctx",
        state=state.value,
        status_timestamp=when,
        created_at=when,
        message_count=2,
        artifact_count=1,
        event_count=2,
        push_config_count=1,
        **fields,
    )
    for position in range(2):
        TaskMessage.objects.create(
            task=task, position=position, message_id=f"m{position}", role="ROLE_USER", body={}
        )
    TaskArtifact.objects.create(task=task, position=0, artifact_id="a", body={})
    config = PushConfig.objects.create(task=task, config_id="c", url="https://example.com/h")
    for sequence in range(2):
        event = TaskEvent.objects.create(task=task, sequence=sequence, kind="status", body={})
        Delivery.objects.create(
            task=task, config=config, event=event, url=config.url, status=delivery
        )
    return task


def purge(**kwargs: Any) -> retention.PurgeCounts:
    return retention.purge(**{"terminal_after": 30 * DAY, **kwargs})


def orphans() -> int:
    """Rows of the task's tables whose task is gone (a database without enforced foreign
    keys would keep them silently)."""
    with connection.cursor() as cursor:
        total = 0
        for model in CHILD_MODELS:
            cursor.execute(
                f"SELECT COUNT(*) FROM {model._meta.db_table} c "
                f"LEFT JOIN {Task._meta.db_table} t ON t.id = c.task_id WHERE t.id IS NULL"
            )
            total += cursor.fetchone()[0]
        return total


class TestWhatGoes:
    @pytest.mark.parametrize("state", sorted(retention.TERMINAL_STATES))
    def test_an_ended_task_goes_with_all_its_rows(self, state):
        old = make_task(state)
        kept = make_task(state, ended=DAY)
        counts = purge()
        assert not Task.objects.filter(pk=old.pk).exists()
        for model in CHILD_MODELS:
            assert not model.objects.filter(task_id=old.pk).exists(), model
            assert model.objects.filter(task_id=kept.pk).exists(), model
        assert counts.as_dict() == {
            "tasks": 1,
            "messages": 2,
            "artifacts": 1,
            "events": 2,
            "push_configs": 1,
            "deliveries": 2,
            "batches": 1,
        }
        assert orphans() == 0

    def test_the_age_counts_from_the_end_not_the_start(self):
        started_long_ago = make_task(ended=DAY)
        Task.objects.filter(pk=started_long_ago.pk).update(created_at=timezone.now() - 400 * DAY)
        purge()
        assert Task.objects.filter(pk=started_long_ago.pk).exists()

    @pytest.mark.parametrize("state", [TaskState.SUBMITTED, TaskState.WORKING])
    def test_live_tasks_stay_however_old(self, state):
        live = make_task(state, ended=400 * DAY)
        purge(interrupted_after=DAY)
        assert Task.objects.filter(pk=live.pk).exists()

    @pytest.mark.parametrize("state", [TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED])
    def test_interrupted_tasks_have_their_own_limit(self, state):
        waiting = make_task(state, ended=40 * DAY)
        purge()  # no limit for them
        assert Task.objects.filter(pk=waiting.pk).exists()
        counts = purge(interrupted_after=60 * DAY)
        assert counts.tasks == 0
        counts = purge(interrupted_after=20 * DAY)
        assert counts.tasks == 1
        assert not Task.objects.filter(pk=waiting.pk).exists()
        assert orphans() == 0

    def test_none_keeps_terminal_tasks_forever(self):
        old = make_task(ended=4000 * DAY)
        assert purge(terminal_after=None).tasks == 0
        assert Task.objects.filter(pk=old.pk).exists()


class TestInUse:
    def test_a_pending_delivery_keeps_its_task(self):
        pending = make_task(delivery=Delivery.Status.PENDING)
        assert purge().tasks == 0
        Delivery.objects.filter(task=pending).update(status=Delivery.Status.FAILED)
        assert purge().tasks == 1

    def test_a_pending_delivery_without_config_is_no_delivery(self):
        # Its config was deleted: no worker will ever post it.
        stuck = make_task(delivery=Delivery.Status.PENDING)
        PushConfig.objects.filter(task=stuck).delete()
        assert purge().tasks == 1

    def test_a_webhook_being_posted_keeps_its_task(self):
        posting = make_task()
        PushConfig.objects.filter(task=posting).update(
            delivering_until=timezone.now() + timedelta(seconds=60)
        )
        assert purge(dry_run=True).tasks == 0
        assert purge().tasks == 0
        other = make_task()
        assert purge(batch_size=5).tasks == 1
        assert not Task.objects.filter(pk=other.pk).exists()
        assert Task.objects.filter(pk=posting.pk).exists()
        PushConfig.objects.filter(task=posting).update(
            delivering_until=timezone.now() - timedelta(seconds=1)
        )
        assert purge().tasks == 1

    def test_another_tasks_pending_delivery_keeps_only_that_task(self):
        make_task(ended=DAY, delivery=Delivery.Status.PENDING)
        old = make_task()
        assert purge().tasks == 1
        assert not Task.objects.filter(pk=old.pk).exists()

    def test_another_tasks_webhook_being_posted_leaves_the_count_alone(self):
        posting = make_task(ended=DAY)
        PushConfig.objects.filter(task=posting).update(
            delivering_until=timezone.now() + timedelta(seconds=60)
        )
        make_task()
        assert purge(dry_run=True).tasks == 1

    def test_a_task_whose_worker_holds_its_lease_stays(self):
        leased = make_task(lease_expires_at=timezone.now() + timedelta(seconds=15))
        assert purge().tasks == 0
        Task.objects.filter(pk=leased.pk).update(lease_expires_at=timezone.now() - DAY)
        assert purge().tasks == 1

    def test_a_worker_whose_task_was_deleted_drops_its_result(self):
        from a2a_app.core import runner
        from a2a_app.core.execution import Resolution

        gone = str(uuid.uuid4())
        resolution = Resolution(state=TaskState.COMPLETED)
        assert runner.record_result(gone, {}, resolution) == "dropped"
        assert runner._finish(gone, TaskState.FAILED, "lost") == "dropped"


class TestBatches:
    def test_each_batch_is_a_few_statements(self, settings):
        for _ in range(5):
            make_task()
        with CaptureQueriesContext(connection) as queries:
            counts = purge(batch_size=2)
        assert counts.tasks == 5
        assert counts.batches == 3
        deletes = [q["sql"] for q in queries if q["sql"].startswith("DELETE")]
        # Per batch: deliveries, events, push configs, artifacts, messages, tasks.
        assert len(deletes) == 3 * 6
        # No row is loaded to be deleted: per batch one SELECT picks the ids, one finds
        # those whose webhook is being posted.
        selects = [q["sql"] for q in queries if q["sql"].startswith("SELECT")]
        assert len(selects) == 3 * 2
        assert orphans() == 0

    def test_a_batch_is_one_transaction(self):
        make_task()
        with CaptureQueriesContext(connection) as queries:
            purge(batch_size=10)
        sql = [q["sql"] for q in queries]
        if connection.vendor == "postgresql":
            select = next(s for s in sql if s.startswith("SELECT"))
            assert "FOR UPDATE" in select and "SKIP LOCKED" in select
        else:  # SQLite: the whole batch under one write lock
            assert sql[0].startswith(("SAVEPOINT", "BEGIN"))

    def test_a_time_limit_stops_between_batches(self):
        for _ in range(4):
            make_task()
        counts = purge(batch_size=1, max_seconds=0)
        assert counts.tasks == 0
        assert Task.objects.count() == 4

    def test_the_sweep_deletes_by_the_settings(self, settings):
        old, recent = make_task(), make_task(ended=DAY)
        assert "purged_tasks" not in jobs.sweep()  # kept forever by default
        settings.A2A_APP = {**settings.A2A_APP, "RETENTION_DAYS": 30}
        assert jobs.sweep()["purged_tasks"] == 1
        assert list(Task.objects.values_list("pk", flat=True)) == [recent.pk]
        assert not Task.objects.filter(pk=old.pk).exists()

    def test_the_sweep_deletes_unanswered_tasks_by_their_own_setting(self, settings):
        asked, ended = make_task(TaskState.INPUT_REQUIRED), make_task()
        settings.A2A_APP = {**settings.A2A_APP, "RETENTION_INTERRUPTED_DAYS": 30}
        assert jobs.sweep()["purged_tasks"] == 1
        assert list(Task.objects.values_list("pk", flat=True)) == [ended.pk]
        assert not Task.objects.filter(pk=asked.pk).exists()

    def test_the_sweep_keeps_to_its_time(self, settings):
        make_task()
        settings.A2A_APP = {
            **settings.A2A_APP,
            "RETENTION_DAYS": 30,
            "RETENTION_SWEEP_SECONDS": 0,
        }
        assert jobs.sweep()["purged_tasks"] == 0
        assert Task.objects.count() == 1

    def test_unanswered_tasks_go_while_ended_ones_are_kept(self):
        asked, ended = make_task(TaskState.INPUT_REQUIRED), make_task()
        counts = retention.purge(terminal_after=None, interrupted_after=30 * DAY)
        assert counts.tasks == 1
        assert list(Task.objects.values_list("pk", flat=True)) == [ended.pk]
        assert not Task.objects.filter(pk=asked.pk).exists()

    def test_tasks_made_through_the_protocol_go_too(self, rpc, install):
        install(lambda ctx: ctx.complete("done"), key="job")
        task = new_task(
            rpc,
            "hello",
            configuration={"taskPushNotificationConfig": {"url": "https://example.com/h"}},
        )
        assert TaskEvent.objects.filter(task_id=task["id"]).exists()
        later = timezone.now() + DAY
        # Its webhook was not posted yet (no worker here): the task waits for it.
        assert purge(terminal_after=timedelta(0), now=later).tasks == 0
        Delivery.objects.update(status=Delivery.Status.DELIVERED)
        assert purge(terminal_after=timedelta(0), now=later).tasks == 1
        assert Task.objects.count() == 0
        assert sum(model.objects.count() for model in CHILD_MODELS) == 0


class TestDryRunAndCommand:
    def test_a_dry_run_counts_and_deletes_nothing(self):
        make_task()
        make_task()
        make_task(ended=DAY)
        counts = purge(dry_run=True)
        assert (counts.tasks, counts.messages, counts.events, counts.deliveries) == (2, 4, 4, 4)
        assert Task.objects.count() == 3
        assert purge().as_dict() == {**counts.as_dict(), "batches": 1}

    def test_a_dry_run_counts_both_kinds(self):
        make_task()
        make_task(TaskState.AUTH_REQUIRED)
        assert purge(interrupted_after=30 * DAY, dry_run=True).tasks == 2
        assert Task.objects.count() == 2

    def test_the_command_prints_what_it_deleted(self):
        make_task()
        out = StringIO()
        call_command("a2a_purge", "--older-than", "30d", "--dry-run", stdout=out)
        assert out.getvalue().strip() == (
            "Would delete 1 tasks, 2 messages, 1 artifacts, 2 events, 1 push configs, 2 deliveries."
        )
        assert Task.objects.count() == 1
        out = StringIO()
        call_command("a2a_purge", "--older-than", "720h", "--batch-size", "5", stdout=out)
        assert "Deleted 1 tasks" in out.getvalue() and "in 1 batches" in out.getvalue()
        assert Task.objects.count() == 0

    def test_the_command_follows_the_settings(self, settings):
        make_task()
        out = StringIO()
        call_command("a2a_purge", stdout=out)
        assert "kept forever" in out.getvalue()
        settings.A2A_APP = {**settings.A2A_APP, "RETENTION_DAYS": 10}
        call_command("a2a_purge", stdout=StringIO())
        assert Task.objects.count() == 0

    @pytest.mark.parametrize("text", ["soon", "-3d", "3w"])
    def test_a_bad_duration_is_refused(self, text):
        with pytest.raises(CommandError, match="no duration"):
            call_command("a2a_purge", f"--older-than={text}")

    def test_durations(self):
        assert duration("30") == 30 * DAY
        assert duration("1.5d") == 36 * timedelta(hours=1)
        assert duration("90m") == timedelta(minutes=90)


class TestPolicyShown:
    def test_the_task_list_says_how_long_tasks_stay(self, settings):
        user = get_user_model().objects.create_superuser("boss", "b@example.com", "pw")
        client = Client()
        client.force_login(user)
        page = client.get("/admin/a2a_app/task/").content.decode()
        assert "are kept forever" in page
        settings.A2A_APP = {**settings.A2A_APP, "RETENTION_DAYS": 30}
        page = client.get("/admin/a2a_app/task/").content.decode()
        assert "are deleted 30 days after they end" in page
        assert "kept until they end" in page

    @pytest.mark.parametrize(
        ("terminal", "interrupted", "text"),
        [
            (
                None,
                None,
                "Ended tasks (completed, failed, canceled, rejected) are kept forever. "
                "Tasks waiting for the caller's input are kept until they end.",
            ),
            (
                1,
                2,
                "Ended tasks (completed, failed, canceled, rejected) are deleted 1 day after "
                "they end, with their messages, artifacts, events and webhooks. Tasks waiting "
                "for the caller's input are deleted when nobody answered for 2 days.",
            ),
            (
                30.0,
                1,
                "Ended tasks (completed, failed, canceled, rejected) are deleted 30 days after "
                "they end, with their messages, artifacts, events and webhooks. Tasks waiting "
                "for the caller's input are deleted when nobody answered for 1 day.",
            ),
            (
                1.5,
                None,
                "Ended tasks (completed, failed, canceled, rejected) are deleted 1.5 days "
                "after they end, with their messages, artifacts, events and webhooks. Tasks "
                "waiting for the caller's input are kept until they end.",
            ),
        ],
        ids=["forever", "one-day-two-days", "whole-float", "part-of-a-day"],
    )
    def test_the_policy_in_full(self, settings, terminal, interrupted, text):
        settings.A2A_APP = {
            **settings.A2A_APP,
            "RETENTION_DAYS": terminal,
            "RETENTION_INTERRUPTED_DAYS": interrupted,
        }
        assert retention.describe_policy() == text

    def test_the_interrupted_limit_is_shown(self, settings):
        settings.A2A_APP = {**settings.A2A_APP, "RETENTION_INTERRUPTED_DAYS": 1}
        assert "nobody answered for 1 day." in retention.describe_policy()

    def test_part_of_a_day_in_german(self, settings):
        from django.utils import translation

        settings.A2A_APP = {**settings.A2A_APP, "RETENTION_DAYS": 0.5}
        with translation.override("de"):
            # 0.5 picks the plural ("Tage", not "Tag"), written as German writes it.
            assert "werden 0,5 Tage nach ihrem Ende gelöscht" in retention.describe_policy()
        with translation.override("en"):
            assert "are deleted 0.5 days after they end" in retention.describe_policy()


class TestChecks:
    @pytest.mark.parametrize(
        ("values", "ids"),
        [
            ({"RETENTION_DAYS": -1}, ["a2a_app.E170"]),
            ({"RETENTION_INTERRUPTED_DAYS": "7"}, ["a2a_app.E170"]),
            ({"RETENTION_DAYS": True}, ["a2a_app.E170"]),
            ({"RETENTION_BATCH_SIZE": 0}, ["a2a_app.E171"]),
            ({"RETENTION_SWEEP_SECONDS": 0}, ["a2a_app.E172"]),
            ({"RETENTION_DAYS": 0.5, "RETENTION_INTERRUPTED_DAYS": 90}, []),
        ],
    )
    def test_settings(self, settings, values, ids):
        settings.A2A_APP = {**settings.A2A_APP, **values}
        assert [e.id for e in checks.check_retention()] == ids

    def test_deploy_warns_when_tasks_are_kept_forever(self, settings):
        assert [w.id for w in checks.check_retention_deploy()] == ["a2a_app.W170"]
        settings.A2A_APP = {**settings.A2A_APP, "RETENTION_DAYS": 30}
        assert checks.check_retention_deploy() == []


class TestSiteRelations:
    """A site's own model with a foreign key to Task gets its on_delete (here played by
    the delivery log's relation, dressed as a site's)."""

    def relation(self, on_delete: Any) -> Any:
        from types import SimpleNamespace

        from django.db import models

        own = next(r for r in Task._meta.related_objects if r.related_model is Delivery)
        return SimpleNamespace(
            field=own.field, related_model=Delivery, on_delete=getattr(models, on_delete)
        )

    def test_cascade_deletes_the_sites_rows(self, monkeypatch):
        task = make_task()
        monkeypatch.setattr(retention, "_foreign_relations", lambda: [self.relation("CASCADE")])
        assert purge().tasks == 1
        assert not Delivery.objects.filter(task_id=task.pk).exists()

    def test_protect_keeps_the_task(self, monkeypatch):
        protected, free = make_task(), make_task()
        Delivery.objects.filter(task=free).delete()
        monkeypatch.setattr(retention, "_foreign_relations", lambda: [self.relation("PROTECT")])
        assert purge().tasks == 1
        assert Task.objects.filter(pk=protected.pk).exists()
        assert not Task.objects.filter(pk=free.pk).exists()
