"""The admin's activity page: when a task's latest handler run began and ended, indexes on
the creation times of tasks and deliveries (the page reads a few days of each), and the
page's proxy model (its permission, ``a2a_app.view_activity``)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("a2a_app", "0007_retention"),
    ]

    operations = [
        migrations.CreateModel(
            name="Activity",
            fields=[],
            options={
                "verbose_name": "activity",
                "verbose_name_plural": "activity",
                "proxy": True,
                "default_permissions": ("view",),
                "indexes": [],
                "constraints": [],
            },
            bases=("a2a_app.task",),
        ),
        migrations.AddField(
            model_name="task",
            name="finished_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="task",
            name="started_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddIndex(
            model_name="delivery",
            index=models.Index(fields=["created_at"], name="a2a_delivery_created"),
        ),
        migrations.AddIndex(
            model_name="task",
            index=models.Index(fields=["created_at"], name="a2a_task_created"),
        ),
    ]
