"""One queued run per background job: the mark that lets senders skip redundant messages
(``a2a_app.core.queued_runs``)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("a2a_app", "0012_time_ordered_task_ids"),
    ]

    operations = [
        migrations.CreateModel(
            name="QueuedRun",
            fields=[
                ("job", models.CharField(max_length=200, primary_key=True, serialize=False)),
                ("until", models.DateTimeField()),
            ],
        ),
    ]
