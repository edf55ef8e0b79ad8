"""Task.summary (what was asked, for the admin's task list) and the admin's task actions'
permissions; existing tasks get their summary from their first message."""

from django.db import migrations, models


def fill_summaries(apps, schema_editor):
    # Text parts only, as summary_of reads them; tasks of data-only messages stay empty.
    TaskMessage = apps.get_model("a2a_app", "TaskMessage")
    Task = apps.get_model("a2a_app", "Task")
    first = TaskMessage.objects.filter(position=0, task__summary="").only("task_id", "body")
    batch = []
    for message in first.iterator(chunk_size=500):
        parts = message.body.get("parts", []) if isinstance(message.body, dict) else []
        text = " ".join(
            " ".join(str(p.get("text", "")).split()) for p in parts if isinstance(p, dict)
        ).strip()
        if text:
            summary = text if len(text) <= 200 else text[:199].rstrip() + "…"
            batch.append(Task(pk=message.task_id, summary=summary))
        if len(batch) >= 500:
            Task.objects.bulk_update(batch, ["summary"])
            batch = []
    if batch:
        Task.objects.bulk_update(batch, ["summary"])


class Migration(migrations.Migration):
    dependencies = [
        ("a2a_app", "0004_cardadmin"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="task",
            options={
                "ordering": ("-status_timestamp", "-id"),
                "permissions": [
                    ("cancel_task", "Can cancel tasks (admin action)"),
                    ("answer_task", "Can ask a task's caller for input (admin action)"),
                    ("complete_task", "Can complete tasks (admin action)"),
                    ("reject_task", "Can reject tasks (admin action)"),
                ],
            },
        ),
        migrations.AddField(
            model_name="task",
            name="summary",
            field=models.CharField(blank=True, default="", max_length=200, verbose_name="asked"),
        ),
        migrations.RunPython(fill_summaries, migrations.RunPython.noop),
    ]
