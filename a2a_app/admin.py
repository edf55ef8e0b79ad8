"""Admin: skills are the owner's to edit; tasks are protocol state, read-only with safe actions.

Secrets stay secret here: an API key is shown once, in the message after it is issued,
and never again (only its prefix); webhook tokens and credentials are never shown, and
webhook URLs are shown without their password or query values. Actions that act
(cancel a task, POST a webhook again) need their own permissions, not just "change".
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html_join
from django.utils.translation import gettext_lazy as _

from a2a_app.caller import Caller
from a2a_app.core import service
from a2a_app.models import (
    CODE_FIELDS,
    ApiKey,
    Delivery,
    PushConfig,
    Skill,
    Task,
    TaskArtifact,
    TaskMessage,
)
from a2a_app.protocol.errors import A2AError
from a2a_app.protocol.params import TaskIdRequest
from a2a_app.protocol.types import TERMINAL_STATES
from a2a_app.push import delivery
from a2a_app.skills import registry, sync


class SkillForm(forms.ModelForm):
    """``handler`` is chosen from the skills registered in code."""

    handler = forms.ChoiceField(choices=())

    class Meta:
        model = Skill
        fields = (
            "id",
            "handler",
            "name",
            "description",
            "tags",
            "examples",
            "input_modes",
            "output_modes",
            "enabled",
            "access",
            "permission",
            "execution",
            "order",
        )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [
            (key, f"{key} ({spec.name})") for key, spec in sorted(registry.all_skills().items())
        ]
        current = self.initial.get("handler")
        if current and current not in registry.all_skills():
            choices.insert(0, (current, _("%s (not registered!)") % current))
        self.fields["handler"].choices = choices


#: What "Use the code's wording again" releases; access is released on its own.
WORDING_FIELDS = ("name", "description", "tags", "examples", "input_modes", "output_modes")
ACCESS_FIELDS = ("access", "permission")


@admin.register(Skill)
class SkillAdmin(admin.ModelAdmin):
    form = SkillForm
    list_display = (
        "id",
        "name",
        "handler",
        "enabled",
        "access",
        "permission",
        "execution",
        "order",
        "updated_at",
    )
    list_editable = ("enabled", "order")
    list_filter = ("enabled", "access", "execution")
    readonly_fields = ("from_the_code",)
    fieldsets = (
        (None, {"fields": ("id", "handler", "name", "description")}),
        (
            _("Who may use it"),
            {
                "fields": ("enabled", "access", "permission"),
                "description": _(
                    "Callers who may not use a skill do not find it in the agent card or "
                    "the extended card, are never routed to it and cannot name it. A "
                    "signed-in caller who names it anyway is told it lacks the permission; "
                    "an anonymous caller is answered as if the skill did not exist."
                ),
            },
        ),
        (
            _("In the agent card"),
            {"fields": ("tags", "examples", "input_modes", "output_modes", "order")},
        ),
        (_("Running"), {"fields": ("execution",)}),
        (
            _("Code or admin"),
            {
                "fields": ("from_the_code",),
                "description": _(
                    "The handler declares a name, description, tags, examples, modes and "
                    "who may use the skill. What you change here wins; what you leave "
                    "follows the code, also when a developer changes it later. Set a field "
                    "back to the code's value, or use the actions \"Use the code's wording "
                    'again" and "Use the code\'s access rule again", to follow the code.'
                ),
            },
        ),
    )
    search_fields = ("id", "name", "description")
    actions = ("enable", "disable", "use_code_wording", "use_code_access")

    def get_object(self, request: HttpRequest, object_id: str, from_field: Any = None) -> Any:
        """The row as the card shows it: the code's values where the owner edited none."""
        row = super().get_object(request, object_id, from_field)
        if row is not None:
            for field, value in sync.shown_values(row).items():
                setattr(row, field, value)
        return row

    def save_model(self, request: HttpRequest, obj: Skill, form: Any, change: bool) -> None:
        """Record which of the code's fields the owner set (``edited_fields``)."""
        changed = {
            field: form.cleaned_data[field]
            for field in form.changed_data
            if field in CODE_FIELDS and field in form.cleaned_data
        }
        obj.edited_fields = sync.edited_after_save(
            obj.edited_fields, changed, registry.get(obj.handler), adding=not change
        )
        super().save_model(request, obj, form, change)

    @admin.display(description=_("from the code"))
    def from_the_code(self, obj: Skill | None) -> str:
        if obj is None or obj._state.adding:
            return _("Shown once the skill is saved.")
        spec = registry.get(obj.handler)
        if spec is None:
            return _("The handler is not registered: every value is this row's.")
        owned = sync.owned_fields(obj.edited_fields)
        code = sync.code_values(spec)
        return format_html_join(
            "\n",
            "<div><b>{}</b>: {} <span class='help'>({})</span></div>",
            (
                (
                    field.replace("_", " "),
                    _("yours") if field in owned else _("the code's"),
                    _("the code says %(value)r") % {"value": code[field]},
                )
                for field in CODE_FIELDS
            ),
        )

    def _release(self, request: HttpRequest, queryset: QuerySet[Skill], fields: tuple) -> None:
        released, unknown = [], []
        for row in queryset:
            spec = registry.get(row.handler)
            if spec is None:
                unknown.append(row.id)
                continue
            row.edited_fields = [f for f in row.edited_fields or () if f not in fields]
            code = sync.code_values(spec)
            for field in fields:
                setattr(row, field, code[field])
            # Saved one by one so that the change signals move the card's marker.
            row.save(update_fields=[*fields, "edited_fields", "updated_at"])
            released.append(row.id)
        if released:
            self.message_user(
                request, _("Following the code again: %s.") % ", ".join(released), messages.SUCCESS
            )
        if unknown:
            self.message_user(
                request,
                _("Not registered, so there is no code to follow: %s.") % ", ".join(unknown),
                messages.WARNING,
            )

    @admin.action(
        description=_("Use the code's wording again (name, description, tags, examples, modes)")
    )
    def use_code_wording(self, request: HttpRequest, queryset: QuerySet[Skill]) -> None:
        self._release(request, queryset, WORDING_FIELDS)

    @admin.action(description=_("Use the code's access rule again"))
    def use_code_access(self, request: HttpRequest, queryset: QuerySet[Skill]) -> None:
        self._release(request, queryset, ACCESS_FIELDS)

    def has_delete_permission(self, request: HttpRequest, obj: Skill | None = None) -> bool:
        # The row of a registered handler comes back at the next start or migrate:
        # disabling it is what withdraws the skill. (A bulk delete that includes one is
        # refused as a whole, as Django does for any object one may not delete.)
        if obj is not None and _made_for_code(obj):
            return False
        return super().has_delete_permission(request, obj)

    @admin.action(description=_("Enable selected skills"))
    def enable(self, request: HttpRequest, queryset: QuerySet[Skill]) -> None:
        # Saved one by one so that the change signals move the card's marker.
        for row in queryset:
            row.enabled = True
            row.save(update_fields=["enabled", "updated_at"])

    @admin.action(description=_("Disable selected skills"))
    def disable(self, request: HttpRequest, queryset: QuerySet[Skill]) -> None:
        for row in queryset:
            row.enabled = False
            row.save(update_fields=["enabled", "updated_at"])


def _made_for_code(row: Skill) -> bool:
    """The row a registered handler gets by itself (its id is the handler's key)."""
    return row.id == row.handler and registry.get(row.handler) is not None


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class TaskMessageInline(ReadOnlyInline):
    model = TaskMessage
    fields = ("position", "role", "message_id", "text", "created_at")
    readonly_fields = fields

    @admin.display(description=_("text"))
    def text(self, obj: TaskMessage) -> str:
        return "\n".join(p.get("text", "") for p in obj.body.get("parts", []) if "text" in p)


class TaskArtifactInline(ReadOnlyInline):
    model = TaskArtifact
    fields = ("position", "artifact_id", "name", "body", "created_at")
    readonly_fields = fields


def mask_url(url: str) -> str:
    """A webhook URL without what may be its secret: the password, the query values."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(invalid URL)"
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        netloc = f"{userinfo.split(':', 1)[0]}:•••@{host}" if ":" in userinfo else netloc
    query = "&".join(
        f"{pair.split('=', 1)[0]}=•••" if "=" in pair else pair
        for pair in parts.query.split("&")
        if pair
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def _is_set(value: str) -> str:
    return _("set (hidden)") if value else "—"


class PushConfigInline(ReadOnlyInline):
    model = PushConfig
    # The token and credentials are never shown; the admin says only whether they exist.
    fields = (
        "config_id",
        "masked_url",
        "auth_scheme",
        "token_state",
        "credentials_state",
        "protocol_version",
        "created_at",
    )
    readonly_fields = fields

    @admin.display(description=_("URL"))
    def masked_url(self, obj: PushConfig) -> str:
        return mask_url(obj.url)

    @admin.display(description=_("token"))
    def token_state(self, obj: PushConfig) -> str:
        return _is_set(obj.token)

    @admin.display(description=_("credentials"))
    def credentials_state(self, obj: PushConfig) -> str:
        return _is_set(obj.credentials)


@admin.register(Task)
class TaskAdmin(admin.ModelAdmin):
    list_display = ("id", "state", "skill_id", "context_id", "owner", "status_timestamp")
    list_filter = ("state", "skill_id")
    search_fields = ("=id", "context_id", "owner")
    date_hierarchy = "status_timestamp"
    readonly_fields = (
        "id",
        "context_id",
        "owner",
        "skill_id",
        "state",
        "status_text",
        "status_timestamp",
        "metadata",
        "skill_state",
        "protocol_version",
        "created_at",
        "background",
        "run_attempts",
        "enqueued_at",
        "lease_expires_at",
    )
    fields = readonly_fields
    inlines = (TaskMessageInline, TaskArtifactInline, PushConfigInline)
    actions = ("cancel_tasks",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.method == "GET" and super().has_view_permission(request, obj)

    @admin.display(description=_("status message"))
    def status_text(self, obj: Task) -> str:
        parts = (obj.status_message or {}).get("parts", [])
        return format_html_join(
            "\n", "<p>{}</p>", ((p.get("text", ""),) for p in parts if "text" in p)
        )

    def has_cancel_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("a2a_app.cancel_task")

    @admin.action(description=_("Cancel selected tasks"), permissions=["cancel"])
    def cancel_tasks(self, request: HttpRequest, queryset: QuerySet[Task]) -> None:
        canceled = 0
        for task in queryset.exclude(state__in=[s.value for s in TERMINAL_STATES]):
            # Through the service, as the task's owner, so signals and rules apply.
            owner = Caller(user=_owner_user(task))
            try:
                service.cancel_task(TaskIdRequest(id=str(task.pk)), owner)
                canceled += 1
            except A2AError as exc:
                self.message_user(request, f"{task.pk}: {exc.message}", messages.WARNING)
        self.message_user(request, _("Canceled %d task(s).") % canceled, messages.SUCCESS)


def _owner_user(task: Task) -> Any:
    if not task.owner.startswith("user:"):
        return None
    from django.contrib.auth import get_user_model

    return get_user_model().objects.filter(pk=task.owner.removeprefix("user:")).first()


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    """The webhook delivery log: every event to every webhook, with its last attempt."""

    list_display = (
        "id",
        "task",
        "event_sequence",
        "masked_url",
        "status",
        "attempts",
        "last_status_code",
        "next_attempt_at",
        "delivered_at",
    )
    list_filter = ("status",)
    search_fields = ("=task__id", "url")
    list_select_related = ("event",)
    readonly_fields = (
        "task",
        "config",
        "event",
        "masked_url",
        "status",
        "attempts",
        "last_status_code",
        "last_error",
        "next_attempt_at",
        "delivered_at",
        "created_at",
        "updated_at",
    )
    fields = readonly_fields
    actions = ("redeliver",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description=_("event"), ordering="event__sequence")
    def event_sequence(self, obj: Delivery) -> int:
        return obj.event.sequence

    @admin.display(description=_("URL"), ordering="url")
    def masked_url(self, obj: Delivery) -> str:
        return mask_url(obj.url)

    def has_resend_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("a2a_app.resend_webhook")

    @admin.action(description=_("Redeliver selected events"), permissions=["resend"])
    def redeliver(self, request: HttpRequest, queryset: QuerySet[Delivery]) -> None:
        count = delivery.redeliver(queryset)
        self.message_user(request, _("Queued %d delivery(ies) again.") % count, messages.SUCCESS)


class ApiKeyForm(forms.ModelForm):
    class Meta:
        model = ApiKey
        fields = ("name", "user", "scopes", "expires_at")

    def clean_scopes(self) -> list[str]:
        scopes = self.cleaned_data.get("scopes") or []
        problem = ApiKey.scope_problem(scopes)
        if problem:
            raise forms.ValidationError(problem)
        return scopes


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    """Keys are issued here (the key is shown once, in a message) and revoked; the digest
    and the key itself are never shown."""

    form = ApiKeyForm
    list_display = (
        "prefix",
        "name",
        "user",
        "scope_list",
        "expires_at",
        "last_used_at",
        "status",
    )
    list_filter = ("revoked_at",)
    search_fields = ("prefix", "name", "user__username")
    list_select_related = ("user",)
    readonly_fields = ("prefix", "status", "created_at", "last_used_at", "revoked_at")
    actions = ("revoke",)

    def get_readonly_fields(self, request: HttpRequest, obj: ApiKey | None = None) -> tuple:
        # A key's user is fixed once issued: moving a key would hand its holder someone else.
        return self.readonly_fields + (("user",) if obj is not None else ())

    def get_fields(self, request: HttpRequest, obj: ApiKey | None = None) -> tuple:
        if obj is None:
            return ("name", "user", "scopes", "expires_at")
        return ("prefix", "name", "user", "scopes", "expires_at", *self.readonly_fields[1:])

    @admin.display(description=_("scopes"))
    def scope_list(self, obj: ApiKey) -> str:
        return ", ".join(obj.scopes) or _("(all the user may do)")

    def save_model(self, request: HttpRequest, obj: ApiKey, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        raw = obj.set_new_secret()
        self.message_user(
            request,
            _("API key %(prefix)s issued. Copy it now, it will not be shown again: %(key)s")
            % {"prefix": obj.prefix, "key": raw},
            messages.WARNING,
        )

    @admin.action(description=_("Revoke selected keys"), permissions=["change"])
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
        revoked = 0
        for key in queryset.filter(revoked_at__isnull=True):
            key.revoke()
            revoked += 1
        self.message_user(request, _("Revoked %d key(s).") % revoked, messages.SUCCESS)
