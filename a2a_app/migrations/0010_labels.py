"""Field, model and state names for the admin, marked for translation: no schema change
(PostgreSQL and SQLite run no SQL for it)."""

import a2a_app.crypto
import a2a_app.models
import django.core.validators
import django.db.models.deletion
import django.utils.timezone
import uuid
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("a2a_app", "0009_task_counts"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="apikey",
            options={
                "ordering": ("-created_at", "-id"),
                "verbose_name": "API key",
                "verbose_name_plural": "API keys",
            },
        ),
        migrations.AlterModelOptions(
            name="delivery",
            options={
                "ordering": ("-created_at", "-id"),
                "permissions": [("resend_webhook", "Can resend webhook deliveries (admin action)")],
                "verbose_name": "delivery",
                "verbose_name_plural": "deliveries",
            },
        ),
        migrations.AlterModelOptions(
            name="pushconfig",
            options={
                "ordering": ("task", "created_at", "id"),
                "verbose_name": "push notification config",
                "verbose_name_plural": "push notification configs",
            },
        ),
        migrations.AlterModelOptions(
            name="skill",
            options={
                "ordering": ("order", "id"),
                "verbose_name": "skill",
                "verbose_name_plural": "skills",
            },
        ),
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
                "verbose_name": "task",
                "verbose_name_plural": "tasks",
            },
        ),
        migrations.AlterModelOptions(
            name="taskartifact",
            options={
                "ordering": ("task", "position"),
                "verbose_name": "task artifact",
                "verbose_name_plural": "task artifacts",
            },
        ),
        migrations.AlterModelOptions(
            name="taskevent",
            options={
                "ordering": ("task", "sequence"),
                "verbose_name": "task event",
                "verbose_name_plural": "task events",
            },
        ),
        migrations.AlterModelOptions(
            name="taskmessage",
            options={
                "ordering": ("task", "position"),
                "verbose_name": "task message",
                "verbose_name_plural": "task messages",
            },
        ),
        migrations.AlterField(
            model_name="agentprofile",
            name="ident",
            field=models.SmallIntegerField(
                default=1, editable=False, primary_key=True, serialize=False, verbose_name="ident"
            ),
        ),
        migrations.AlterField(
            model_name="agentprofile",
            name="updated_at",
            field=models.DateTimeField(auto_now=True, verbose_name="updated at"),
        ),
        migrations.AlterField(
            model_name="apikey",
            name="created_at",
            field=models.DateTimeField(
                default=django.utils.timezone.now, editable=False, verbose_name="created at"
            ),
        ),
        migrations.AlterField(
            model_name="apikey",
            name="digest",
            field=models.CharField(
                editable=False, max_length=64, unique=True, verbose_name="digest"
            ),
        ),
        migrations.AlterField(
            model_name="apikey",
            name="expires_at",
            field=models.DateTimeField(
                blank=True,
                help_text="Empty: the key does not expire.",
                null=True,
                verbose_name="expires at",
            ),
        ),
        migrations.AlterField(
            model_name="apikey",
            name="last_used_at",
            field=models.DateTimeField(
                blank=True, editable=False, null=True, verbose_name="last used at"
            ),
        ),
        migrations.AlterField(
            model_name="apikey",
            name="name",
            field=models.CharField(
                help_text="What the key is for, e.g. the agent.",
                max_length=200,
                verbose_name="name",
            ),
        ),
        migrations.AlterField(
            model_name="apikey",
            name="prefix",
            field=models.CharField(
                editable=False, max_length=16, unique=True, verbose_name="prefix"
            ),
        ),
        migrations.AlterField(
            model_name="apikey",
            name="revoked_at",
            field=models.DateTimeField(
                blank=True, editable=False, null=True, verbose_name="revoked at"
            ),
        ),
        migrations.AlterField(
            model_name="apikey",
            name="scopes",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text='A list such as ["operation:SendMessage", "skill:menu"]; empty: everything the user may do.',
                verbose_name="scopes",
            ),
        ),
        migrations.AlterField(
            model_name="apikey",
            name="user",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="a2a_api_keys",
                to=settings.AUTH_USER_MODEL,
                verbose_name="user",
            ),
        ),
        migrations.AlterField(
            model_name="delivery",
            name="attempts",
            field=models.PositiveSmallIntegerField(default=0, verbose_name="attempts"),
        ),
        migrations.AlterField(
            model_name="delivery",
            name="config",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="deliveries",
                to="a2a_app.pushconfig",
                verbose_name="config",
            ),
        ),
        migrations.AlterField(
            model_name="delivery",
            name="created_at",
            field=models.DateTimeField(
                default=django.utils.timezone.now, verbose_name="created at"
            ),
        ),
        migrations.AlterField(
            model_name="delivery",
            name="delivered_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="delivered at"),
        ),
        migrations.AlterField(
            model_name="delivery",
            name="event",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="deliveries",
                to="a2a_app.taskevent",
                verbose_name="event",
            ),
        ),
        migrations.AlterField(
            model_name="delivery",
            name="last_error",
            field=models.TextField(blank=True, verbose_name="last error"),
        ),
        migrations.AlterField(
            model_name="delivery",
            name="last_status_code",
            field=models.PositiveSmallIntegerField(
                blank=True, null=True, verbose_name="last status code"
            ),
        ),
        migrations.AlterField(
            model_name="delivery",
            name="next_attempt_at",
            field=models.DateTimeField(
                default=django.utils.timezone.now, verbose_name="next attempt at"
            ),
        ),
        migrations.AlterField(
            model_name="delivery",
            name="status",
            field=models.CharField(
                choices=[
                    ("pending", "pending"),
                    ("delivered", "delivered"),
                    ("failed", "failed"),
                    ("canceled", "canceled"),
                ],
                default="pending",
                max_length=10,
                verbose_name="status",
            ),
        ),
        migrations.AlterField(
            model_name="delivery",
            name="task",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="deliveries",
                to="a2a_app.task",
                verbose_name="task",
            ),
        ),
        migrations.AlterField(
            model_name="delivery",
            name="updated_at",
            field=models.DateTimeField(auto_now=True, verbose_name="updated at"),
        ),
        migrations.AlterField(
            model_name="delivery",
            name="url",
            field=models.URLField(max_length=2048, verbose_name="url"),
        ),
        migrations.AlterField(
            model_name="pushconfig",
            name="auth_scheme",
            field=models.CharField(blank=True, max_length=50, verbose_name="auth scheme"),
        ),
        migrations.AlterField(
            model_name="pushconfig",
            name="config_id",
            field=models.CharField(max_length=200, verbose_name="config id"),
        ),
        migrations.AlterField(
            model_name="pushconfig",
            name="created_at",
            field=models.DateTimeField(
                default=django.utils.timezone.now, verbose_name="created at"
            ),
        ),
        migrations.AlterField(
            model_name="pushconfig",
            name="credentials",
            field=a2a_app.crypto.EncryptedTextField(blank=True, verbose_name="credentials"),
        ),
        migrations.AlterField(
            model_name="pushconfig",
            name="delivering_until",
            field=models.DateTimeField(
                blank=True, editable=False, null=True, verbose_name="delivering until"
            ),
        ),
        migrations.AlterField(
            model_name="pushconfig",
            name="protocol_version",
            field=models.CharField(default="1.0", max_length=10, verbose_name="protocol version"),
        ),
        migrations.AlterField(
            model_name="pushconfig",
            name="task",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="push_configs",
                to="a2a_app.task",
                verbose_name="task",
            ),
        ),
        migrations.AlterField(
            model_name="pushconfig",
            name="token",
            field=a2a_app.crypto.EncryptedTextField(blank=True, verbose_name="token"),
        ),
        migrations.AlterField(
            model_name="pushconfig",
            name="url",
            field=models.URLField(max_length=2048, verbose_name="url"),
        ),
        migrations.AlterField(
            model_name="skill",
            name="access",
            field=models.CharField(
                choices=[
                    ("public", "Anyone, signed in or not"),
                    ("authenticated", "Signed-in callers only"),
                    ("permission", "Callers with a permission"),
                ],
                default="public",
                help_text="Who may see and use this skill. Callers who may not use it do not find it in the card, are never routed to it, and cannot name it in metadata.skillId.",
                max_length=20,
                verbose_name="access",
            ),
        ),
        migrations.AlterField(
            model_name="skill",
            name="description",
            field=models.TextField(verbose_name="description"),
        ),
        migrations.AlterField(
            model_name="skill",
            name="edited_fields",
            field=models.JSONField(
                blank=True,
                default=a2a_app.models.all_code_fields,
                help_text="The fields whose value here wins over the one declared in code; the others follow the code. Set by the admin when a field is changed.",
                verbose_name="edited fields",
            ),
        ),
        migrations.AlterField(
            model_name="skill",
            name="enabled",
            field=models.BooleanField(default=True, verbose_name="enabled"),
        ),
        migrations.AlterField(
            model_name="skill",
            name="examples",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text="Example requests, one string each.",
                verbose_name="examples",
            ),
        ),
        migrations.AlterField(
            model_name="skill",
            name="execution",
            field=models.CharField(
                blank=True,
                choices=[
                    ("", "As the handler declares"),
                    ("inline", "Inline, in the request"),
                    ("background", "In a background worker"),
                ],
                default="",
                help_text="Run long skills in a worker so that no request waits for them.",
                max_length=20,
                verbose_name="execution",
            ),
        ),
        migrations.AlterField(
            model_name="skill",
            name="handler",
            field=models.CharField(
                help_text="The registry key of the code that runs this skill.",
                max_length=200,
                verbose_name="handler",
            ),
        ),
        migrations.AlterField(
            model_name="skill",
            name="id",
            field=models.CharField(
                help_text="The skill id shown in the agent card, e.g. 'make-reservation'.",
                max_length=100,
                primary_key=True,
                serialize=False,
                validators=[django.core.validators.RegexValidator("^[A-Za-z0-9][A-Za-z0-9._-]*$")],
                verbose_name="ID",
            ),
        ),
        migrations.AlterField(
            model_name="skill",
            name="input_modes",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text="Media types; empty means the card's defaults.",
                verbose_name="input modes",
            ),
        ),
        migrations.AlterField(
            model_name="skill",
            name="name",
            field=models.CharField(max_length=200, verbose_name="name"),
        ),
        migrations.AlterField(
            model_name="skill",
            name="order",
            field=models.PositiveIntegerField(
                default=0, help_text="Position in the agent card.", verbose_name="order"
            ),
        ),
        migrations.AlterField(
            model_name="skill",
            name="output_modes",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text="Media types; empty means the card's defaults.",
                verbose_name="output modes",
            ),
        ),
        migrations.AlterField(
            model_name="skill",
            name="permission",
            field=models.CharField(
                blank=True,
                help_text="Only for 'Callers with a permission': a Django permission as 'app_label.codename' (e.g. 'restaurant.view_booking'), held by the user or one of their groups, or an API-key scope (e.g. 'bookings:write') the caller's key must carry. Leave empty for the other access levels.",
                max_length=255,
                verbose_name="permission",
            ),
        ),
        migrations.AlterField(
            model_name="skill",
            name="tags",
            field=models.JSONField(
                blank=True, default=list, help_text="A list of keywords.", verbose_name="tags"
            ),
        ),
        migrations.AlterField(
            model_name="skill",
            name="updated_at",
            field=models.DateTimeField(auto_now=True, verbose_name="updated at"),
        ),
        migrations.AlterField(
            model_name="task",
            name="artifact_count",
            field=models.PositiveIntegerField(default=0, verbose_name="artifact count"),
        ),
        migrations.AlterField(
            model_name="task",
            name="background",
            field=models.BooleanField(default=False, verbose_name="background"),
        ),
        migrations.AlterField(
            model_name="task",
            name="context_id",
            field=models.CharField(db_index=True, max_length=200, verbose_name="context id"),
        ),
        migrations.AlterField(
            model_name="task",
            name="created_at",
            field=models.DateTimeField(
                default=django.utils.timezone.now, verbose_name="created at"
            ),
        ),
        migrations.AlterField(
            model_name="task",
            name="enqueued_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="enqueued at"),
        ),
        migrations.AlterField(
            model_name="task",
            name="event_count",
            field=models.PositiveIntegerField(default=0, verbose_name="event count"),
        ),
        migrations.AlterField(
            model_name="task",
            name="finished_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="finished at"),
        ),
        migrations.AlterField(
            model_name="task",
            name="first_message_id",
            field=models.CharField(
                blank=True, default="", max_length=200, verbose_name="first message id"
            ),
        ),
        migrations.AlterField(
            model_name="task",
            name="id",
            field=models.UUIDField(
                default=uuid.uuid4,
                editable=False,
                primary_key=True,
                serialize=False,
                verbose_name="id",
            ),
        ),
        migrations.AlterField(
            model_name="task",
            name="lease_expires_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="lease expires at"),
        ),
        migrations.AlterField(
            model_name="task",
            name="message_count",
            field=models.PositiveIntegerField(default=0, verbose_name="message count"),
        ),
        migrations.AlterField(
            model_name="task",
            name="metadata",
            field=models.JSONField(blank=True, default=dict, verbose_name="metadata"),
        ),
        migrations.AlterField(
            model_name="task",
            name="owner",
            field=models.CharField(
                blank=True, help_text="Empty for anonymous.", max_length=200, verbose_name="owner"
            ),
        ),
        migrations.AlterField(
            model_name="task",
            name="protocol_version",
            field=models.CharField(default="1.0", max_length=10, verbose_name="protocol version"),
        ),
        migrations.AlterField(
            model_name="task",
            name="push_config_count",
            field=models.PositiveIntegerField(default=0, verbose_name="push config count"),
        ),
        migrations.AlterField(
            model_name="task",
            name="run_attempts",
            field=models.PositiveSmallIntegerField(default=0, verbose_name="run attempts"),
        ),
        migrations.AlterField(
            model_name="task",
            name="skill_id",
            field=models.CharField(blank=True, max_length=100, verbose_name="skill id"),
        ),
        migrations.AlterField(
            model_name="task",
            name="skill_state",
            field=models.JSONField(blank=True, default=dict, verbose_name="skill state"),
        ),
        migrations.AlterField(
            model_name="task",
            name="started_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="started at"),
        ),
        migrations.AlterField(
            model_name="task",
            name="state",
            field=models.CharField(
                choices=[
                    ("TASK_STATE_SUBMITTED", "submitted"),
                    ("TASK_STATE_WORKING", "working"),
                    ("TASK_STATE_COMPLETED", "completed"),
                    ("TASK_STATE_FAILED", "failed"),
                    ("TASK_STATE_CANCELED", "canceled"),
                    ("TASK_STATE_INPUT_REQUIRED", "input required"),
                    ("TASK_STATE_REJECTED", "rejected"),
                    ("TASK_STATE_AUTH_REQUIRED", "auth required"),
                ],
                max_length=32,
                verbose_name="state",
            ),
        ),
        migrations.AlterField(
            model_name="task",
            name="status_message",
            field=models.JSONField(blank=True, null=True, verbose_name="status message"),
        ),
        migrations.AlterField(
            model_name="task",
            name="status_timestamp",
            field=models.DateTimeField(verbose_name="status timestamp"),
        ),
        migrations.AlterField(
            model_name="taskartifact",
            name="artifact_id",
            field=models.CharField(max_length=200, verbose_name="artifact id"),
        ),
        migrations.AlterField(
            model_name="taskartifact",
            name="body",
            field=models.JSONField(
                help_text="The artifact as v1.0 wire JSON.", verbose_name="body"
            ),
        ),
        migrations.AlterField(
            model_name="taskartifact",
            name="created_at",
            field=models.DateTimeField(
                default=django.utils.timezone.now, verbose_name="created at"
            ),
        ),
        migrations.AlterField(
            model_name="taskartifact",
            name="name",
            field=models.CharField(blank=True, max_length=200, verbose_name="name"),
        ),
        migrations.AlterField(
            model_name="taskartifact",
            name="position",
            field=models.PositiveIntegerField(verbose_name="position"),
        ),
        migrations.AlterField(
            model_name="taskartifact",
            name="task",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="artifacts",
                to="a2a_app.task",
                verbose_name="task",
            ),
        ),
        migrations.AlterField(
            model_name="taskevent",
            name="body",
            field=models.JSONField(
                help_text="The event as a v1.0 StreamResponse.", verbose_name="body"
            ),
        ),
        migrations.AlterField(
            model_name="taskevent",
            name="created_at",
            field=models.DateTimeField(
                default=django.utils.timezone.now, verbose_name="created at"
            ),
        ),
        migrations.AlterField(
            model_name="taskevent",
            name="kind",
            field=models.CharField(
                choices=[("status", "status update"), ("artifact", "artifact update")],
                max_length=10,
                verbose_name="kind",
            ),
        ),
        migrations.AlterField(
            model_name="taskevent",
            name="sequence",
            field=models.PositiveIntegerField(verbose_name="sequence"),
        ),
        migrations.AlterField(
            model_name="taskevent",
            name="task",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="events",
                to="a2a_app.task",
                verbose_name="task",
            ),
        ),
        migrations.AlterField(
            model_name="taskmessage",
            name="body",
            field=models.JSONField(help_text="The message as v1.0 wire JSON.", verbose_name="body"),
        ),
        migrations.AlterField(
            model_name="taskmessage",
            name="created_at",
            field=models.DateTimeField(
                default=django.utils.timezone.now, verbose_name="created at"
            ),
        ),
        migrations.AlterField(
            model_name="taskmessage",
            name="message_id",
            field=models.CharField(max_length=200, verbose_name="message id"),
        ),
        migrations.AlterField(
            model_name="taskmessage",
            name="position",
            field=models.PositiveIntegerField(verbose_name="position"),
        ),
        migrations.AlterField(
            model_name="taskmessage",
            name="role",
            field=models.CharField(max_length=20, verbose_name="role"),
        ),
        migrations.AlterField(
            model_name="taskmessage",
            name="task",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="messages",
                to="a2a_app.task",
                verbose_name="task",
            ),
        ),
    ]
