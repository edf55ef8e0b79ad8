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
from django.contrib.admin.utils import quote, unquote
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotAllowed,
    HttpResponseRedirect,
)
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.text import Truncator
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from a2a_app import admin_tasks
from a2a_app.admin_fields import LinesField, modes_field
from a2a_app.core import retention, service
from a2a_app.exceptions import TaskClosed, TaskNotFound
from a2a_app.models import (
    CODE_FIELDS,
    ApiKey,
    Delivery,
    PushConfig,
    Skill,
    Task,
)
from a2a_app.protocol.errors import A2AError
from a2a_app.protocol.params import TaskIdRequest
from a2a_app.protocol.types import TERMINAL_STATES, TaskState
from a2a_app.push import delivery
from a2a_app.skills import registry, sync


class SkillForm(forms.ModelForm):
    """``handler`` is chosen from the skills registered in code; tags, examples and modes
    are lists edited one item per line."""

    handler = forms.ChoiceField(choices=())
    tags = LinesField(
        label=_("Tags"),
        commas=True,
        help_text=_(
            "Keywords, one per line (or separated by commas). Shown in the agent card. "
            "The router picks the skill for a new message by the words it shares with "
            "each skill's name, id, tags, examples and form fields; a word only this "
            "skill has counts most, so tag the words callers use when they want this "
            "skill and not another (a long word also matches its beginnings: 'vegan' "
            "finds 'vegane'). E-mail addresses, links, references and numbers in a "
            "message are not read. A message that fits no skill well gets a short "
            "answer saying what the agent can do, and no task."
        ),
    )
    examples = LinesField(
        label=_("Examples"),
        help_text=_(
            "Example requests, one per line, as a caller would write them. Calling agents "
            "see them in the agent card; their words route new messages here too (less "
            "than tags), and the answer to a message that fits no skill quotes one or two "
            "of them, in the caller's language when one is written in it."
        ),
    )
    input_modes = modes_field(_("Input modes"))
    output_modes = modes_field(_("Output modes"))

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
        # A new row: every value the owner gave counts, even one left empty (the form's
        # changed_data compares with empty initial values and would miss an empty list).
        fields = form.changed_data if change else list(form.cleaned_data)
        changed = {
            field: form.cleaned_data[field]
            for field in fields
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


def mask_url(url: str) -> str:
    """A webhook URL without what may be its secret: the password, the query values."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return gettext("(invalid URL)")
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


class TaskChangeList(ChangeList):
    """The task list, whose callers' names are looked up once for the whole page."""

    def get_results(self, request: HttpRequest) -> None:
        super().get_results(request)
        page = list(self.result_list)  # evaluated once; the page renders from this cache
        users = admin_tasks.users_by_scope(task.owner for task in page)
        for task in page:
            task.caller_label = admin_tasks.caller_label(task.owner, users)


@admin.register(Task)
class TaskAdmin(admin.ModelAdmin):
    """Tasks are protocol state: nothing here is saved by a form. The owner acts on a
    live task with the verbs of its page (answer, complete, reject, cancel), each its own
    permission, each through the service layer like a protocol call."""

    list_display = ("short_id", "asked", "skill", "state_badge", "caller", "age")
    list_display_links = ("short_id", "asked")
    list_filter = (admin_tasks.WaitingFilter, "state", admin_tasks.SkillFilter)
    search_fields = ("=id", "=context_id", "summary")
    search_help_text = _("A task id, a context id, or words of what was asked.")
    # Counting a big task table on every page costs more than the number is worth.
    show_full_result_count = False
    readonly_fields = (
        "id",
        "context_id",
        "owner",
        "skill_id",
        "state",
        "status_timestamp",
        "created_at",
        "metadata",
        "skill_state",
        "protocol_version",
        "background",
        "run_attempts",
        "enqueued_at",
        "lease_expires_at",
    )
    fieldsets = (
        (
            _("Protocol details"),
            {"fields": readonly_fields, "classes": ("collapse",)},
        ),
    )
    inlines = (PushConfigInline,)
    actions = ("cancel_tasks", "reject_tasks")

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return TaskChangeList

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        # The retention policy under the list: what the owner sees here does not stay.
        extra = {"a2a_retention": retention.describe_policy(), **(extra_context or {})}
        return super().changelist_view(request, extra)

    def get_inlines(self, request: HttpRequest, obj: Task | None) -> Any:
        # An empty webhook table says nothing: shown only for tasks that have webhooks.
        return self.inlines if obj is not None and obj.push_configs.exists() else ()

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # No form saves a task: the page is read-only (no Save button) and acts through
        # its verbs, which check their own permissions.
        return False

    @admin.display(description=_("task"), ordering="id")
    def short_id(self, obj: Task) -> str:
        return str(obj.pk)[:8]

    @admin.display(description=_("asked"), ordering="summary")
    def asked(self, obj: Task) -> str:
        return Truncator(obj.summary).chars(80) or "—"

    @admin.display(description=_("skill"), ordering="skill_id")
    def skill(self, obj: Task) -> str:
        return obj.skill_id or "—"

    @admin.display(description=_("state"), ordering="state")
    def state_badge(self, obj: Task) -> str:
        return format_html(
            '<span class="a2a-state a2a-state--{}">{}</span>',
            admin_tasks.state_tone(obj.state),
            admin_tasks.state_label(obj.state),
        )

    @admin.display(description=_("caller"), ordering="owner")
    def caller(self, obj: Task) -> str:
        label = getattr(obj, "caller_label", None)
        if label is None:  # outside the list page
            label = admin_tasks.caller_label(obj.owner, admin_tasks.users_by_scope([obj.owner]))
        return label

    @admin.display(description=_("age"), ordering="created_at")
    def age(self, obj: Task) -> str:
        return format_html(
            '<span title="{}">{}</span>', obj.created_at, admin_tasks.age(obj.created_at)
        )

    # --- the task page ----------------------------------------------------------------

    def get_urls(self) -> list[Any]:
        act = self.admin_site.admin_view(self.act_view)
        return [
            path("<path:object_id>/act/<str:verb>/", act, name="a2a_app_task_act"),
            *super().get_urls(),
        ]

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        task = self.get_object(request, unquote(object_id))
        extra: dict[str, Any] = {}
        if task is not None and self.has_view_permission(request, task):
            messages_, earlier = admin_tasks.conversation(task)
            users = admin_tasks.users_by_scope([task.owner])
            extra = {
                "a2a_task": task,
                "a2a_state_label": admin_tasks.state_label(task.state),
                "a2a_state_tone": admin_tasks.state_tone(task.state),
                "a2a_caller": admin_tasks.caller_label(task.owner, users),
                "a2a_messages": messages_,
                "a2a_earlier": earlier,
                "a2a_artifacts": admin_tasks.artifacts(task),
                "a2a_attached": admin_tasks.attached(task, request, self.admin_site),
                "a2a_verbs": admin_tasks.verb_forms(request, task),
                "a2a_waiting_for_us": task.task_state is TaskState.WORKING
                and task.lease_expires_at is None,
                # The page's heading says what was asked rather than the task's UUID.
                "subtitle": task.summary or str(task.pk),
            }
        return super().change_view(request, object_id, form_url, {**extra, **(extra_context or {})})

    def act_view(self, request: HttpRequest, object_id: str, verb: str) -> HttpResponse:
        """POST only: one verb on one task, then back to the task's page with a message."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        action = admin_tasks.VERBS.get(verb)
        task = self.get_object(request, unquote(object_id))
        if action is None or task is None or not self.has_view_permission(request, task):
            raise Http404(_("No such task or action."))
        if not request.user.has_perm(action.perm):
            raise PermissionDenied
        back = reverse(f"{self.admin_site.name}:a2a_app_task_change", args=[quote(task.pk)])
        text = ""
        if action.needs_text:
            form = admin_tasks.TaskActionForm(request.POST, prefix=action.name)
            if not form.is_valid():
                self.message_user(
                    request, _("Write the text to send, then try again."), messages.ERROR
                )
                return HttpResponseRedirect(back)
            text = form.cleaned_data["text"]
        try:
            task = admin_tasks.perform(action, task, text)
        except TaskClosed as closed:
            self.message_user(
                request,
                _("Nothing was sent: this task already ended (%(state)s).")
                % {"state": admin_tasks.state_label(closed.state)},
                messages.ERROR,
            )
            return HttpResponseRedirect(back)
        except TaskNotFound:  # deleted meanwhile
            self.message_user(request, _("This task no longer exists."), messages.ERROR)
            return HttpResponseRedirect(reverse(f"{self.admin_site.name}:a2a_app_task_changelist"))
        self.log_change(request, task, f"{action.name}: {text}" if text else action.name)
        self.message_user(request, action.done, messages.SUCCESS)
        return HttpResponseRedirect(back)

    # --- list actions -------------------------------------------------------------------

    def has_cancel_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("a2a_app.cancel_task")

    def has_reject_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("a2a_app.reject_task")

    @admin.action(description=_("Reject selected tasks…"), permissions=["reject"])
    def reject_tasks(self, request: HttpRequest, queryset: QuerySet[Task]) -> Any:
        """Asks for the reason first (one for all), then rejects each live task with it."""
        live = list(queryset.exclude(state__in=[s.value for s in TERMINAL_STATES]))
        verb = admin_tasks.VERBS["reject"]
        applying = "apply" in request.POST
        form = admin_tasks.TaskActionForm(request.POST if applying else None, prefix="reject")
        if applying and form.is_valid():
            reason, rejected = form.cleaned_data["text"], 0
            for task in live:
                try:
                    admin_tasks.perform(verb, task, reason)
                except TaskClosed:
                    continue  # it ended meanwhile: left as it is
                self.log_change(request, task, f"reject: {reason}")
                rejected += 1
            self.message_user(request, _("Rejected %d task(s).") % rejected, messages.SUCCESS)
            return None
        if not live:
            self.message_user(request, _("None of these tasks is live."), messages.WARNING)
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": _("Reject tasks"),
            "opts": self.model._meta,
            "tasks": live,
            "form": form,
            "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/a2a_app/task/reject_selected.html", context)

    @admin.action(description=_("Cancel selected tasks"), permissions=["cancel"])
    def cancel_tasks(self, request: HttpRequest, queryset: QuerySet[Task]) -> None:
        canceled = 0
        live = list(queryset.exclude(state__in=[s.value for s in TERMINAL_STATES]))
        users = admin_tasks.users_by_scope(task.owner for task in live)
        for task in live:
            # Through the service, as the task's owner, so signals and rules apply.
            try:
                service.cancel_task(
                    TaskIdRequest(id=str(task.pk)), admin_tasks.owner_caller(task, users)
                )
                canceled += 1
            except A2AError as exc:
                self.message_user(request, f"{task.pk}: {exc.message}", messages.WARNING)
        self.message_user(request, _("Canceled %d task(s).") % canceled, messages.SUCCESS)


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

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # The log is written by deliveries only: no Save button (redelivering is an action).
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


# The agent profile, the "Agent card" page and the "Activity" page live in their own modules.
from a2a_app import admin_activity, card_admin  # noqa: E402, F401, I001
