"""New tasks get time-ordered ids (UUID version 7, :mod:`a2a_app.ids`).

Only the field's Python default changes, so only the migration state does: the schema
editor would otherwise rebuild the task table on SQLite (a copy of every row, for a
default the database never sees). Existing ids stay as they are.
"""

from django.db import migrations, models

import a2a_app.ids


class Migration(migrations.Migration):
    dependencies = [
        ("a2a_app", "0011_leaner_indexes"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="task",
                    name="id",
                    field=models.UUIDField(
                        default=a2a_app.ids.uuid7,
                        editable=False,
                        primary_key=True,
                        serialize=False,
                        verbose_name="id",
                    ),
                ),
            ],
            database_operations=[],
        ),
    ]
