"""Admin for the restaurant: menu, tables, opening hours and reservations."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from .models import MenuItem, OpeningHours, Reservation, Table


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
    search_fields = ("name", "description")
    ordering = ("category", "order", "name")
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
