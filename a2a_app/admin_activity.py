"""Admin: the "Activity" page (tasks per day by skill and outcome, handler times, who is
waiting, webhook success, the latest errors). The figures come from
:mod:`a2a_app.activity`; the page is listed with the app's models through the
``Activity`` proxy, whose view permission (``a2a_app.view_activity``) opens it.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext

from a2a_app import activity
from a2a_app.conf import a2a_settings
from a2a_app.models import Activity


@admin.register(Activity)
class ActivityAdmin(admin.ModelAdmin):
    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.has_perm("a2a_app.view_activity")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_urls(self) -> list[Any]:
        view = self.admin_site.admin_view(self.changelist_view)
        return [path("", view, name=f"{self.opts.app_label}_{self.opts.model_name}_changelist")]

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        days = _days(request.GET.get("days"))
        skill = request.GET.get("skill", "")[:100]
        figures = activity.activity(days, skill)
        task_list = reverse("admin:a2a_app_task_changelist")
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": gettext("Activity"),
            "a": figures,
            "ranges": activity.RANGES,
            "task_list": task_list,
            "may_view_tasks": request.user.has_perm("a2a_app.view_task"),
        }
        return TemplateResponse(request, "admin/a2a_app/activity.html", context)


def _days(value: str | None) -> int:
    """The range asked for, if the page offers it; else ``ACTIVITY_DAYS``."""
    try:
        days = int(value or "")
    except ValueError:
        days = 0
    if days in activity.RANGES:
        return days
    return a2a_settings.ACTIVITY_DAYS
