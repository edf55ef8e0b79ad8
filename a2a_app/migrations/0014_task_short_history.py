"""Each task's history on its row while it is short (``Task.short_history``).

A nullable column without a default: PostgreSQL adds it without rewriting the table,
and the tasks already stored keep NULL (their history is read from their messages).
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("a2a_app", "0013_queued_runs"),
    ]

    operations = [
        migrations.AddField(
            model_name="task",
            name="short_history",
            field=models.JSONField(
                blank=True, editable=False, null=True, verbose_name="short history"
            ),
        ),
    ]
