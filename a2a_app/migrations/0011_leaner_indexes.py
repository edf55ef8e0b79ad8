"""Fewer index entries per task write (#16).

* The task foreign keys of messages, artifacts and events lose their own index: each
  table's unique (task, position) or (task, sequence) constraint leads with the task.
* ``context_id`` keeps one plain index (``a2a_task_context``); ``db_index`` had also made
  PostgreSQL a ``varchar_pattern_ops`` one for LIKE, which no query uses.
* The sweep's indexes hold only the tasks it asks about: SUBMITTED ones by
  ``enqueued_at``, WORKING ones by ``lease_expires_at``. A task that ends at once is
  in neither.

A blocking SendMessage that completes writes 6 index entries for its task instead of 9.
The three foreign keys and ``context_id`` change in the migration state only; their old
indexes are found by introspection and dropped, so that neither PostgreSQL re-validates
the foreign keys nor SQLite copies the task tables (what ``AlterField`` would do).
"""

import django.db.models.deletion
from django.db import migrations, models

#: (table, column) pairs whose own single-column index goes.
_UNINDEXED = [
    ("a2a_app_task", "context_id"),
    ("a2a_app_taskmessage", "task_id"),
    ("a2a_app_taskartifact", "task_id"),
    ("a2a_app_taskevent", "task_id"),
]


def drop_single_column_indexes(apps, schema_editor):
    connection = schema_editor.connection
    quote = schema_editor.quote_name
    for table, column in _UNINDEXED:
        with connection.cursor() as cursor:
            constraints = connection.introspection.get_constraints(cursor, table)
        for name, info in constraints.items():
            if (
                info["index"]
                and not info["unique"]
                and not info["primary_key"]
                and info["columns"] == [column]
            ):
                schema_editor.execute(f"DROP INDEX IF EXISTS {quote(name)}")


def create_single_column_indexes(apps, schema_editor):
    quote = schema_editor.quote_name
    for table, column in _UNINDEXED:
        name = quote(f"{table}_{column}_idx")
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {name} ON {quote(table)} ({quote(column)})"
        )


class Migration(migrations.Migration):
    dependencies = [
        ("a2a_app", "0010_labels"),
    ]

    operations = [
        migrations.RunPython(drop_single_column_indexes, create_single_column_indexes),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="task",
                    name="context_id",
                    field=models.CharField(max_length=200, verbose_name="context id"),
                ),
                migrations.AlterField(
                    model_name="taskartifact",
                    name="task",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="artifacts",
                        to="a2a_app.task",
                        verbose_name="task",
                    ),
                ),
                migrations.AlterField(
                    model_name="taskevent",
                    name="task",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="events",
                        to="a2a_app.task",
                        verbose_name="task",
                    ),
                ),
                migrations.AlterField(
                    model_name="taskmessage",
                    name="task",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="messages",
                        to="a2a_app.task",
                        verbose_name="task",
                    ),
                ),
            ],
        ),
        migrations.AddIndex(
            model_name="task",
            index=models.Index(fields=["context_id"], name="a2a_task_context"),
        ),
        migrations.AddIndex(
            model_name="task",
            index=models.Index(
                condition=models.Q(("state", "TASK_STATE_SUBMITTED")),
                fields=["enqueued_at"],
                name="a2a_task_submitted_enqueued",
            ),
        ),
        migrations.AddIndex(
            model_name="task",
            index=models.Index(
                condition=models.Q(("state", "TASK_STATE_WORKING")),
                fields=["lease_expires_at"],
                name="a2a_task_working_lease",
            ),
        ),
        migrations.RemoveIndex(
            model_name="task",
            name="a2a_task_state_enqueued",
        ),
        migrations.RemoveIndex(
            model_name="task",
            name="a2a_task_state_lease",
        ),
    ]
