"""The restaurant's one public page: the menu, for humans (agents use ``view-menu``)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from .menu import MenuFilters, category_label, find_dishes


def menu(request: HttpRequest) -> HttpResponse:
    sections: list[tuple[str, list]] = []
    for dish in find_dishes(MenuFilters()):
        label = category_label(dish.category, "en")
        if not sections or sections[-1][0] != label:
            sections.append((label, []))
        sections[-1][1].append(dish)
    return render(request, "skills/menu.html", {"sections": sections})
