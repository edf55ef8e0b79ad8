"""Admin for the restaurant: menu, tables, opening hours, reservations and catering requests."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from . import catering
from .models import (
    CateringRequest,
    Closure,
    MenuItem,
    OpeningHours,
    Reservation,
    RestaurantInfo,
    Table,
)


@admin.register(MenuItem)
class MenuItemAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "category",
        "price",
        "vegetarian",
        "vegan",
        "allergen_list",
        "available",
        "order",
    )
    list_editable = ("price", "available", "order")
    list_filter = ("category", "vegetarian", "vegan", "available")
    search_fields = ("name", "name_de", "description", "description_de")
    ordering = ("category", "order", "name")
    fields = (
        ("name", "name_de"),
        "category",
        "price",
        "description",
        "description_de",
        "allergens",
        "tags",
        ("vegetarian", "vegan"),
        ("available", "order"),
    )
    actions = ("make_available", "make_unavailable")

    @admin.display(description=_("allergens"))
    def allergen_list(self, obj: MenuItem) -> str:
        return ", ".join(obj.allergens) or "–"

    @admin.action(description=_("Show selected items on the menu"))
    def make_available(self, request: HttpRequest, queryset: QuerySet[MenuItem]) -> None:
        count = queryset.update(available=True)
        self.message_user(request, _("%(n)d items shown.") % {"n": count}, messages.SUCCESS)

    @admin.action(description=_("Hide selected items from the menu"))
    def make_unavailable(self, request: HttpRequest, queryset: QuerySet[MenuItem]) -> None:
        count = queryset.update(available=False)
        self.message_user(request, _("%(n)d items hidden.") % {"n": count}, messages.SUCCESS)


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("number", "seats")
    list_editable = ("seats",)
    list_filter = ("seats",)
    search_fields = ("number",)


@admin.register(OpeningHours)
class OpeningHoursAdmin(admin.ModelAdmin):
    list_display = ("weekday", "opens", "closes")
    list_editable = ("opens", "closes")
    list_filter = ("weekday",)


@admin.register(Closure)
class ClosureAdmin(admin.ModelAdmin):
    """Holidays: the opening-hours skill says closed on these days."""

    list_display = ("first_day", "last_day", "reason", "reason_de")
    date_hierarchy = "first_day"


@admin.register(RestaurantInfo)
class RestaurantInfoAdmin(admin.ModelAdmin):
    """The one row the location skill answers from (address, parking, transport...)."""

    list_display = ("__str__", "phone", "email")
    fieldsets = (
        (None, {"fields": ("address", "phone", "email")}),
        (
            _("Getting here"),
            {
                "fields": (
                    ("directions", "directions_de"),
                    ("public_transport", "public_transport_de"),
                    ("parking", "parking_de"),
                    ("accessibility", "accessibility_de"),
                )
            },
        ),
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        # One row: the skill reads the first; a second would be silently ignored.
        return not RestaurantInfo.objects.exists()


@admin.register(Reservation)
class ReservationAdmin(admin.ModelAdmin):
    list_display = ("reference", "start", "party_size", "name", "contact", "table", "status")
    list_filter = ("status", "table", "start")
    search_fields = ("reference", "name", "contact")
    date_hierarchy = "start"
    readonly_fields = ("reference", "created_at")
    list_select_related = ("table",)
    actions = ("cancel",)

    @admin.action(description=_("Cancel selected reservations"))
    def cancel(self, request: HttpRequest, queryset: QuerySet[Reservation]) -> None:
        count = queryset.filter(status=Reservation.Status.CONFIRMED).update(
            status=Reservation.Status.CANCELLED
        )
        self.message_user(
            request, _("%(n)d reservations cancelled.") % {"n": count}, messages.SUCCESS
        )


@admin.register(CateringRequest)
class CateringRequestAdmin(admin.ModelAdmin):
    """Managers decide here; the decision finishes the agent's waiting task."""

    list_display = (
        "reference",
        "date",
        "time",
        "guests",
        "name",
        "contact",
        "status",
        "created_at",
        "decided_at",
    )
    list_filter = ("status", "date", "language")
    search_fields = ("reference", "name", "contact", "notes", "task_id")
    date_hierarchy = "date"
    # Only the note is edited by hand: a change to the request would not reach the agent.
    readonly_fields = (
        "reference",
        "task_id",
        "date",
        "time",
        "guests",
        "name",
        "contact",
        "notes",
        "language",
        "status",
        "created_at",
        "decided_at",
    )
    actions = ("approve_requests", "decline_requests")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # requests come from agents, each with the task it waits on

    @admin.action(description=_("Approve selected requests"))
    def approve_requests(self, request: HttpRequest, queryset: QuerySet[CateringRequest]) -> None:
        self._decide(request, queryset, approve=True)

    @admin.action(description=_("Decline selected requests"))
    def decline_requests(self, request: HttpRequest, queryset: QuerySet[CateringRequest]) -> None:
        self._decide(request, queryset, approve=False)

    def _decide(
        self, request: HttpRequest, queryset: QuerySet[CateringRequest], *, approve: bool
    ) -> None:
        done: dict[str, list[str]] = {}
        for pk, reference in queryset.values_list("pk", "reference"):
            done.setdefault(catering.decide(pk, approve=approve), []).append(reference)
        decided = done.get(catering.APPROVED if approve else catering.DECLINED, [])
        if decided:
            text = _("Approved: %(refs)s.") if approve else _("Declined: %(refs)s.")
            self.message_user(request, text % {"refs": ", ".join(decided)}, messages.SUCCESS)
        if done.get(catering.CLOSED):
            self.message_user(
                request,
                _(
                    "The agent's task had already ended (e.g. canceled), so nobody was told; "
                    "closed: %(refs)s."
                )
                % {"refs": ", ".join(done[catering.CLOSED])},
                messages.WARNING,
            )
        if done.get(catering.SKIPPED):
            self.message_user(
                request,
                _("Skipped, not pending: %(refs)s.") % {"refs": ", ".join(done[catering.SKIPPED])},
                messages.INFO,
            )
