"""``manage.py load_demo``: fill the database with Trattoria Django's menu, tables and hours.

Idempotent: every row is keyed on a natural key (dish name, table number, weekday and
opening time) and updated in place, so running it again changes nothing or restores
the demo values. It also creates the ``Skill`` rows the agent card publishes.
"""

from __future__ import annotations

from datetime import time
from decimal import Decimal
from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from a2a_app.skills.catalogue import sync_rows
from skills.models import MenuItem, OpeningHours, Table

V, VG = "vegetarian", "vegan"

# (category, name, description, price, allergens, diet)
DISHES: list[tuple[str, str, str, str, list[str], str]] = [
    ("starter", "Bruschetta al pomodoro", "Toasted bread, ripe tomatoes, garlic, basil.",
     "6.50", ["gluten"], VG),
    ("starter", "Caprese", "Buffalo mozzarella, tomatoes, basil, olive oil.",
     "8.90", ["milk"], V),
    ("starter", "Vitello tonnato", "Thinly sliced veal with tuna and caper sauce.",
     "12.50", ["fish", "egg"], ""),
    ("starter", "Minestrone", "Vegetable soup with beans and fresh herbs.",
     "7.50", ["celery"], VG),
    ("pasta", "Spaghetti aglio, olio e peperoncino", "Garlic, olive oil, chili, parsley.",
     "9.50", ["gluten"], VG),
    ("pasta", "Penne all'arrabbiata", "Spicy tomato sauce with garlic and chili.",
     "10.50", ["gluten"], VG),
    ("pasta", "Trofie al pesto genovese", "Basil pesto with pine nuts and Parmigiano.",
     "12.50", ["gluten", "milk", "nuts"], V),
    ("pasta", "Spaghetti alla carbonara", "Guanciale, egg yolk, pecorino, black pepper.",
     "12.90", ["gluten", "egg", "milk"], ""),
    ("pasta", "Tagliatelle al ragù", "Fresh egg pasta with slow-cooked beef ragù.",
     "13.50", ["gluten", "egg", "celery", "milk"], ""),
    ("pizza", "Pizza Marinara", "Tomato, garlic, oregano, olive oil.",
     "8.00", ["gluten"], VG),
    ("pizza", "Pizza Margherita", "Tomato, fior di latte, basil.",
     "9.50", ["gluten", "milk"], V),
    ("pizza", "Pizza Ortolana", "Tomato and grilled vegetables, no cheese.",
     "11.50", ["gluten"], VG),
    ("pizza", "Pizza Diavola", "Tomato, mozzarella, spicy salami.",
     "11.90", ["gluten", "milk"], ""),
    ("pizza", "Pizza Quattro formaggi", "Mozzarella, gorgonzola, fontina, Parmigiano.",
     "12.50", ["gluten", "milk"], V),
    ("pizza", "Pizza tonno e cipolla", "Tomato, mozzarella, tuna, red onion.",
     "12.90", ["gluten", "milk", "fish"], ""),
    ("main", "Melanzane alla parmigiana", "Baked aubergine, tomato, mozzarella, Parmigiano.",
     "15.50", ["milk"], V),
    ("main", "Saltimbocca alla romana", "Veal escalopes with sage and prosciutto, white wine.",
     "19.50", ["milk", "sulphites"], ""),
    ("main", "Branzino al forno", "Oven-baked sea bass with lemon, potatoes and olives.",
     "22.00", ["fish"], ""),
    ("dessert", "Tiramisù", "Mascarpone, savoiardi, espresso, cocoa.",
     "7.50", ["gluten", "egg", "milk"], V),
    ("dessert", "Cannoli siciliani", "Crisp pastry filled with ricotta and pistachios.",
     "7.00", ["gluten", "milk", "nuts"], V),
    ("dessert", "Panna cotta", "Vanilla cream with berry sauce.",
     "6.50", ["milk"], ""),
    ("dessert", "Sorbetto al limone", "Amalfi lemon sorbet.",
     "5.50", [], VG),
    ("drink", "Acqua minerale (0.75 l)", "Still or sparkling.",
     "4.50", [], VG),
    ("drink", "Chianti Classico (0.2 l)", "Red wine from Tuscany.",
     "7.50", ["sulphites"], V),
    ("drink", "Espresso", "",
     "2.80", [], VG),
]  # fmt: skip

TABLES = {1: 2, 2: 2, 3: 4, 4: 4, 5: 4, 6: 6, 7: 8}  # number: seats
OPENS, CLOSES = time(11, 30), time(23, 0)


class Command(BaseCommand):
    help = "Load the Trattoria Django demo: menu, tables, opening hours and skill rows."

    def handle(self, *args: Any, **options: Any) -> None:
        with transaction.atomic():
            dishes = self._load_menu()
            tables = self._load_tables()
            hours = self._load_hours()
            skills = sync_rows()
        self.stdout.write(
            self.style.SUCCESS(
                f"Menu: {len(DISHES)} items ({dishes} new). "
                f"Tables: {len(TABLES)} ({tables} new). "
                f"Opening hours: daily {OPENS:%H:%M}–{CLOSES:%H:%M} ({hours} new). "
                f"Skills: {', '.join(skills) + ' added' if skills else 'already present'}."
            )
        )

    def _load_menu(self) -> int:
        created_count = 0
        for order, (category, name, description, price, allergens, diet) in enumerate(DISHES):
            _, created = MenuItem.objects.update_or_create(
                name=name,
                defaults={
                    "category": category,
                    "description": description,
                    "price": Decimal(price),
                    "allergens": allergens,
                    "vegetarian": diet in (V, VG),
                    "vegan": diet == VG,
                    "available": True,
                    "order": order * 10,
                },
            )
            created_count += created
        return created_count

    def _load_tables(self) -> int:
        return sum(
            Table.objects.update_or_create(number=number, defaults={"seats": seats})[1]
            for number, seats in TABLES.items()
        )

    def _load_hours(self) -> int:
        return sum(
            OpeningHours.objects.update_or_create(
                weekday=weekday, opens=OPENS, defaults={"closes": CLOSES}
            )[1]
            for weekday in range(7)
        )
