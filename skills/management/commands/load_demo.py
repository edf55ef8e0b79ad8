"""``manage.py load_demo``: fill the database with Trattoria Django's menu, tables and hours.

Idempotent: every row is keyed on a natural key (dish name, table number, weekday and
opening time) and updated in place, so running it again changes nothing or restores
the demo values. It also creates the ``Skill`` rows the agent card publishes.
"""

from __future__ import annotations

from datetime import date, time
from decimal import Decimal
from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from a2a_app.models import Skill
from a2a_app.skills.catalogue import mark_changed, sync_rows
from skills.models import Closure, MenuItem, OpeningHours, RestaurantInfo, Table

SKILL_ORDER = (
    "cancel-reservation",
    "change-reservation",
    "make-reservation",
    "catering-request",
    "location",
    "opening-hours",
    "view-menu",
)

V, VG = "vegetarian", "vegan"

# (category, name, description, German description, price, allergens, diet, tags)
DISHES: list[tuple[str, str, str, str, str, list[str], str, list[str]]] = [
    ("starter", "Bruschetta al pomodoro", "Toasted bread, ripe tomatoes, garlic, basil.",
     "Geröstetes Brot, reife Tomaten, Knoblauch, Basilikum.",
     "6.50", ["gluten"], VG, []),
    ("starter", "Caprese", "Buffalo mozzarella, tomatoes, basil, olive oil.",
     "Büffelmozzarella, Tomaten, Basilikum, Olivenöl.",
     "8.90", ["milk"], V, ["salad"]),
    ("starter", "Vitello tonnato", "Thinly sliced veal with tuna and caper sauce.",
     "Dünn geschnittenes Kalbfleisch mit Thunfisch-Kapern-Sauce.",
     "12.50", ["fish", "egg"], "", ["meat", "veal", "fish", "recommended"]),
    ("starter", "Minestrone", "Vegetable soup with beans and fresh herbs.",
     "Gemüsesuppe mit Bohnen und frischen Kräutern.",
     "7.50", ["celery"], VG, ["soup"]),
    ("pasta", "Spaghetti aglio, olio e peperoncino", "Garlic, olive oil, chili, parsley.",
     "Knoblauch, Olivenöl, Chili, Petersilie.",
     "9.50", ["gluten"], VG, ["spicy"]),
    ("pasta", "Penne all'arrabbiata", "Spicy tomato sauce with garlic and chili.",
     "Scharfe Tomatensauce mit Knoblauch und Chili.",
     "10.50", ["gluten"], VG, ["spicy"]),
    ("pasta", "Trofie al pesto genovese", "Basil pesto with pine nuts and Parmigiano.",
     "Basilikumpesto mit Pinienkernen und Parmigiano.",
     "12.50", ["gluten", "milk", "nuts"], V, []),
    ("pasta", "Spaghetti alla carbonara", "Guanciale, egg yolk, pecorino, black pepper.",
     "Guanciale, Eigelb, Pecorino, schwarzer Pfeffer.",
     "12.90", ["gluten", "egg", "milk"], "", ["meat", "pork"]),
    ("pasta", "Tagliatelle al ragù", "Fresh egg pasta with slow-cooked beef ragù.",
     "Frische Eiernudeln mit langsam geschmortem Rinderragù.",
     "13.50", ["gluten", "egg", "celery", "milk"], "", ["meat", "beef", "recommended"]),
    ("pizza", "Pizza Marinara", "Tomato, garlic, oregano, olive oil.",
     "Tomate, Knoblauch, Oregano, Olivenöl.",
     "8.00", ["gluten"], VG, []),
    ("pizza", "Pizza Margherita", "Tomato, fior di latte, basil.",
     "Tomate, Fior di Latte, Basilikum.",
     "9.50", ["gluten", "milk"], V, []),
    ("pizza", "Pizza Ortolana", "Tomato and grilled vegetables, no cheese.",
     "Tomate und gegrilltes Gemüse, ohne Käse.",
     "11.50", ["gluten"], VG, []),
    ("pizza", "Pizza Diavola", "Tomato, mozzarella, spicy salami.",
     "Tomate, Mozzarella, scharfe Salami.",
     "11.90", ["gluten", "milk"], "", ["meat", "pork", "spicy", "recommended"]),
    ("pizza", "Pizza Quattro formaggi", "Mozzarella, gorgonzola, fontina, Parmigiano.",
     "Mozzarella, Gorgonzola, Fontina, Parmigiano.",
     "12.50", ["gluten", "milk"], V, []),
    ("pizza", "Pizza tonno e cipolla", "Tomato, mozzarella, tuna, red onion.",
     "Tomate, Mozzarella, Thunfisch, rote Zwiebeln.",
     "12.90", ["gluten", "milk", "fish"], "", ["fish"]),
    ("main", "Melanzane alla parmigiana", "Baked aubergine, tomato, mozzarella, Parmigiano.",
     "Überbackene Auberginen, Tomate, Mozzarella, Parmigiano.",
     "15.50", ["milk"], V, ["aubergine", "auberginen", "eggplant"]),
    ("main", "Saltimbocca alla romana", "Veal escalopes with sage and prosciutto, white wine.",
     "Kalbsschnitzel mit Salbei und Prosciutto, in Weißwein.",
     "19.50", ["milk", "sulphites"], "", ["meat", "veal", "pork", "alcohol", "recommended"]),
    ("main", "Branzino al forno", "Oven-baked sea bass with lemon, potatoes and olives.",
     "Wolfsbarsch aus dem Ofen mit Zitrone, Kartoffeln und Oliven.",
     "22.00", ["fish"], "", ["fish", "sea bass", "wolfsbarsch"]),
    ("dessert", "Tiramisù", "Mascarpone, savoiardi, espresso, a dash of Marsala, cocoa.",
     "Mascarpone, Löffelbiskuits, Espresso, ein Schuss Marsala, Kakao.",
     "7.50", ["gluten", "egg", "milk"], V, ["alcohol", "coffee", "recommended"]),
    ("dessert", "Cannoli siciliani", "Crisp pastry filled with ricotta and pistachios.",
     "Knuspriges Gebäck, gefüllt mit Ricotta und Pistazien.",
     "7.00", ["gluten", "milk", "nuts"], V, []),
    ("dessert", "Panna cotta", "Vanilla cream with berry sauce.",
     "Vanillecreme mit Beerensauce.",
     "6.50", ["milk"], "", []),
    ("dessert", "Sorbetto al limone", "Amalfi lemon sorbet.",
     "Zitronensorbet von der Amalfiküste.",
     "5.50", [], VG, ["zitronensorbet", "sorbet"]),
    ("drink", "Acqua minerale (0.75 l)", "Still or sparkling.",
     "Still oder mit Kohlensäure.",
     "4.50", [], VG, ["water", "soft drink"]),
    ("drink", "Limonata (0.33 l)", "Sicilian lemonade.",
     "Sizilianische Zitronenlimonade.",
     "3.90", [], VG, ["soft drink"]),
    ("drink", "Chianti Classico (0.2 l)", "Red wine from Tuscany.",
     "Rotwein aus der Toskana.",
     "7.50", ["sulphites"], V, ["wine", "red wine", "alcohol"]),
    ("drink", "Pinot Grigio (0.2 l)", "Dry white wine from Friuli.",
     "Trockener Weißwein aus dem Friaul.",
     "6.90", ["sulphites"], V, ["wine", "white wine", "alcohol"]),
    ("drink", "Prosecco (0.1 l)", "Sparkling wine from Veneto.",
     "Schaumwein aus Venetien.",
     "5.50", ["sulphites"], V, ["wine", "sparkling wine", "alcohol"]),
    ("drink", "Birra Moretti (0.33 l)", "Italian lager.",
     "Italienisches Lagerbier.",
     "4.20", ["gluten"], VG, ["beer", "alcohol"]),
    ("drink", "Espresso", "", "",
     "2.80", [], VG, ["coffee"]),
]  # fmt: skip
#: German names where guests would not recognise the Italian one.
NAMES_DE = {"Acqua minerale (0.75 l)": "Mineralwasser (0,75 l)"}

TABLES = {1: 2, 2: 2, 3: 4, 4: 4, 5: 4, 6: 6, 7: 8}  # number: seats
OPENS, CLOSES = time(11, 30), time(23, 0)
# (first day, last day, reason, German reason); month and day, in the next 12 months.
CLOSURES = [
    ((12, 25), (12, 26), "Christmas", "Weihnachten"),
    ((1, 1), (1, 1), "New Year", "Neujahr"),
]

INFO = {
    "address": "Trattoria Django\nGartenstraße 12\n10115 Berlin-Mitte",
    "phone": "+49 30 1234567",
    "email": "ciao@trattoria-django.example",
    "directions": "In Berlin-Mitte, on Gartenstraße between Nordbahnhof and Invalidenstraße.",
    "directions_de": "In Berlin-Mitte, in der Gartenstraße zwischen Nordbahnhof und "
    "Invalidenstraße.",
    "public_transport": "S-Bahn S1, S2 or S25 to Nordbahnhof (3 minutes' walk), or tram M10 "
    "to Nordbahnhof; from Berlin Hauptbahnhof it is two stops on the tram M10.",
    "public_transport_de": "S-Bahn S1, S2 oder S25 bis Nordbahnhof (3 Minuten zu Fuß) oder "
    "Tram M10 bis Nordbahnhof; vom Hauptbahnhof sind es zwei Stationen mit der M10.",
    "parking": "We have no car park of our own. There is paid street parking on "
    "Gartenstraße, and the car park at Nordbahnhof is a 3-minute walk.",
    "parking_de": "Eigene Parkplätze haben wir nicht. In der Gartenstraße gibt es "
    "gebührenpflichtige Parkplätze, das Parkhaus am Nordbahnhof ist 3 Minuten entfernt.",
    "accessibility": "Yes: the entrance is step-free and we have an accessible toilet. "
    "Tell us when you book and we keep a table near the door.",
    "accessibility_de": "Ja: Der Eingang ist stufenlos und wir haben ein barrierefreies WC. "
    "Sagen Sie es uns bei der Reservierung, dann halten wir einen Tisch nahe der Tür frei.",
}


class Command(BaseCommand):
    help = "Load the Trattoria Django demo: menu, tables, opening hours and skill rows."

    def handle(self, *args: Any, **options: Any) -> None:
        with transaction.atomic():
            dishes = self._load_menu()
            tables = self._load_tables()
            hours = self._load_hours()
            self._load_closures()
            self._load_info()
            skills = sync_rows()
            # The order of the card, which also breaks a tie in routing: a request that
            # fits a table and a group equally well ("three of us on Friday") is a table.
            for position, skill_id in enumerate(SKILL_ORDER):
                Skill.objects.filter(id=skill_id).update(order=position)
            mark_changed()  # an update() sends no signal: every process reloads the skills
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
        for order, row in enumerate(DISHES):
            category, name, description, description_de, price, allergens, diet, tags = row
            _, created = MenuItem.objects.update_or_create(
                name=name,
                defaults={
                    "name_de": NAMES_DE.get(name, ""),
                    "category": category,
                    "description": description,
                    "description_de": description_de,
                    "tags": tags,
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

    def _load_closures(self) -> None:
        # Holidays of the coming twelve months, so the demo always has some ahead.
        today = timezone.localdate()
        for (m1, d1), (m2, d2), reason, reason_de in CLOSURES:
            first = date(today.year, m1, d1)
            if first < today:
                first = date(today.year + 1, m1, d1)
            last = date(first.year + (1 if (m2, d2) < (m1, d1) else 0), m2, d2)
            Closure.objects.update_or_create(
                first_day=first,
                defaults={"last_day": last, "reason": reason, "reason_de": reason_de},
            )

    def _load_info(self) -> None:
        info = RestaurantInfo.current()
        if info is None:
            RestaurantInfo.objects.create(**INFO)
        else:
            RestaurantInfo.objects.filter(pk=info.pk).update(**INFO)
