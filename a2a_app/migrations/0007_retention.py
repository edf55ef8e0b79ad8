"""Retention: an index that finds the tasks that ended (or stopped waiting) before a date."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("a2a_app", "0006_rows"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="task",
            index=models.Index(fields=["state", "status_timestamp"], name="a2a_task_state_ended"),
        ),
    ]
