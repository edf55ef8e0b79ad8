"""The menu skill's logic: read filters from text or data, query dishes, write the menu.

:func:`parse_menu_query` and :func:`menu_filters_from_data` are pure; only
:func:`find_dishes` touches the database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from .models import MenuItem
from .wording import DE, word_set

Category = MenuItem.Category
CATEGORY_ORDER = [c.value for c in Category]

# Lower-case words, English and German, for each category.
_CATEGORY_WORDS = {
    Category.STARTER: "starter starters appetizer appetizers appetiser appetisers antipasti "
    "antipasto vorspeise vorspeisen",
    Category.PASTA: "pasta pastas noodles nudeln nudelgerichte spaghetti",
    Category.PIZZA: "pizza pizzas pizzen pizze",
    Category.MAIN: "main mains entree entrees entrée entrées secondi hauptgericht hauptgerichte "
    "hauptspeise hauptspeisen hauptgang",
    Category.DESSERT: "dessert desserts sweet sweets dolci nachspeise nachspeisen nachtisch "
    "nachtische süßspeisen",
    Category.DRINK: "drink drinks beverage beverages wine wines getränk getränke wein",
}
CATEGORY_WORDS = {w: cat.value for cat, text in _CATEGORY_WORDS.items() for w in text.split()}

VEGAN, VEGETARIAN = "vegan", "vegetarian"
_DIET_WORDS = {
    VEGAN: "vegan vegane veganen veganes veganer plant-based pflanzlich pflanzliche pflanzlichen",
    VEGETARIAN: "vegetarian vegetarians veggie vegetarisch vegetarische vegetarischen "
    "vegetarisches vegetarier fleischlos fleischlose fleischlosen meatless meat-free",
}
DIET_WORDS = {w: diet for diet, text in _DIET_WORDS.items() for w in text.split()}

# Canonical allergen names (as stored on MenuItem.allergens) and the words for them.
_ALLERGEN_WORDS = {
    "gluten": "gluten wheat weizen",
    "milk": "milk dairy lactose cheese milch laktose käse milchprodukte",
    "egg": "egg eggs ei eier",
    "nuts": "nut nuts tree-nuts nuss nüsse nüssen schalenfrüchte",
    "peanuts": "peanut peanuts erdnuss erdnüsse erdnüssen",
    "fish": "fish fisch",
    "crustaceans": "crustacean crustaceans shellfish shrimp shrimps prawns krebstiere garnelen",
    "soy": "soy soya soja",
    "celery": "celery sellerie",
    "mustard": "mustard senf",
    "sesame": "sesame sesam",
    "sulphites": "sulphites sulfites sulphite sulfite sulfit schwefel",
}
ALLERGEN_WORDS = {w: name for name, text in _ALLERGEN_WORDS.items() for w in text.split()}
ALLERGEN_NAMES_DE = {
    "gluten": "Gluten", "milk": "Milch", "egg": "Ei", "nuts": "Nüsse", "peanuts": "Erdnüsse",
    "fish": "Fisch", "crustaceans": "Krebstiere", "soy": "Soja", "celery": "Sellerie",
    "mustard": "Senf", "sesame": "Sesam", "sulphites": "Sulfite",
}  # fmt: skip

_EXCLUDE_CUES = word_set(
    "without no not ohne kein keine keinen keiner allergic allergisch allergy allergie avoid"
)
_SKIP_AFTER_CUE = word_set("any of to gegen auf mit with")
_CONNECTORS = word_set("and or und oder")
_FREE_SUFFIXES = ("free", "frei", "freie", "freien", "freies", "freier", "allergie", "allergy")
_MEAT = word_set("meat fleisch")
_ANIMAL = word_set("tierische tierischen animal")
_TOKEN_RE = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")

_AMOUNT = r"(\d+(?:[.,]\d{1,2})?)"
_CURRENCY = r"(?:€|eur\b|euros?\b)"
_MAX_PRICE_RES = (
    re.compile(
        r"\b(?:under|below|less than|cheaper than|up to|at most|no more than|not more than|"
        r"maximum|max\.?|unter|bis zu|bis|höchstens|hoechstens|weniger als|maximal|"
        rf"günstiger als|billiger als)\s*{_CURRENCY}?\s*{_AMOUNT}",
        re.IGNORECASE,
    ),
    re.compile(
        rf"{_AMOUNT}\s*{_CURRENCY}?\s*(?:or less|or under|or cheaper|oder weniger|oder günstiger)",
        re.IGNORECASE,
    ),
)


@dataclass(slots=True)
class MenuFilters:
    categories: list[str] = field(default_factory=list)
    diet: str | None = None
    without: list[str] = field(default_factory=list)
    max_price: Decimal | None = None
    #: Data values that could not be read, as "key=value" strings, to tell the caller.
    ignored: list[str] = field(default_factory=list)

    def merge(self, other: MenuFilters) -> MenuFilters:
        """``other`` (the data part) wins where it says something."""
        return MenuFilters(
            categories=other.categories or self.categories,
            diet=other.diet or self.diet,
            without=sorted(set(self.without) | set(other.without)),
            max_price=other.max_price if other.max_price is not None else self.max_price,
            ignored=self.ignored + other.ignored,
        )

    def describe(self, lang: str) -> list[str]:
        """The filters as short phrases, for the heading of the answer."""
        de = lang == DE
        out = [diet_label(self.diet, lang)] if self.diet else []
        out.extend(category_label(c, lang) for c in self.categories)
        if self.max_price is not None:
            out.append(f"{'bis' if de else 'up to'} {price_text(self.max_price, lang)}")
        if self.without:
            names = ", ".join(allergen_label(a, lang) for a in self.without)
            out.append(f"{'ohne' if de else 'without'} {names}")
        return out


def diet_label(diet: str, lang: str) -> str:
    return "vegetarisch" if diet == VEGETARIAN and lang == DE else diet


def category_label(category: str, lang: str) -> str:
    labels = {
        "starter": ("Starters", "Vorspeisen"),
        "pasta": ("Pasta", "Pasta"),
        "pizza": ("Pizza", "Pizza"),
        "main": ("Main courses", "Hauptgerichte"),
        "dessert": ("Desserts", "Desserts"),
        "drink": ("Drinks", "Getränke"),
    }
    english, german = labels.get(category, (category, category))
    return german if lang == DE else english


def allergen_label(allergen: str, lang: str) -> str:
    return ALLERGEN_NAMES_DE.get(allergen, allergen) if lang == DE else allergen


def price_text(price: Decimal, lang: str) -> str:
    return f"{price:.2f} €".replace(".", ",") if lang == DE else f"€{price:.2f}"


def _allergen_of(token: str) -> str | None:
    if token in ALLERGEN_WORDS:
        return ALLERGEN_WORDS[token]
    for suffix in _FREE_SUFFIXES:
        if token.endswith(suffix) and len(token) > len(suffix):
            return ALLERGEN_WORDS.get(token[: -len(suffix)].rstrip("-"))
    return None


def _excluded_allergens(tokens: list[str]) -> set[str]:
    found: set[str] = set()
    for i, token in enumerate(tokens):
        # Compounds: "nut-free", "nussfrei", "glutenfreie", "Nussallergie".
        if token not in ALLERGEN_WORDS and (allergen := _allergen_of(token)):
            found.add(allergen)
        # Two words: "gluten free", "nut allergy".
        elif (
            token in ("free", "frei", "allergy", "allergie")
            and i
            and tokens[i - 1] in (ALLERGEN_WORDS)
        ):
            found.add(ALLERGEN_WORDS[tokens[i - 1]])
        # A cue and a list: "without nuts or gluten", "ohne Milch und Ei".
        elif token in _EXCLUDE_CUES:
            for following in tokens[i + 1 :]:
                if following in _SKIP_AFTER_CUE or following in _CONNECTORS:
                    continue
                if following not in ALLERGEN_WORDS:
                    break
                found.add(ALLERGEN_WORDS[following])
    return found


def parse_max_price(text: str) -> Decimal | None:
    for pattern in _MAX_PRICE_RES:
        match = pattern.search(text)
        if match:
            return Decimal(match[1].replace(",", "."))
    return None


def parse_menu_query(text: str) -> MenuFilters:
    """Filters from a request such as "vegan pizzas under 12 euros without nuts"."""
    tokens = [t.lower() for t in _TOKEN_RE.findall(text)]
    filters = MenuFilters()
    filters.categories = [c for c in CATEGORY_ORDER if c in {CATEGORY_WORDS.get(t) for t in tokens}]
    diets = {DIET_WORDS[t] for t in tokens if t in DIET_WORDS}
    for i, token in enumerate(tokens[:-1]):
        if token in _EXCLUDE_CUES and tokens[i + 1] in _MEAT:
            diets.add(VEGETARIAN)
        if token in _EXCLUDE_CUES and tokens[i + 1] in _ANIMAL:
            diets.add(VEGAN)
    filters.diet = VEGAN if VEGAN in diets else (VEGETARIAN if diets else None)
    filters.without = sorted(_excluded_allergens(tokens))
    filters.max_price = parse_max_price(text)
    return filters


def _as_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    return []


def menu_filters_from_data(data: dict[str, Any]) -> MenuFilters:
    """Filters from a data part: ``category``, ``diet``, ``allergen``/``without``, ``max_price``."""
    filters = MenuFilters()
    for value in _as_list(data.get("category") or data.get("categories")):
        category = CATEGORY_WORDS.get(value.lower())
        if category:
            filters.categories.append(category)
        else:
            filters.ignored.append(f"category={value}")
    diet = data.get("diet")
    if diet:
        if str(diet).lower() in DIET_WORDS:
            filters.diet = DIET_WORDS[str(diet).lower()]
        else:
            filters.ignored.append(f"diet={diet}")
    for key in ("allergen", "allergens", "without", "exclude_allergens"):
        for value in _as_list(data.get(key)):
            # Unknown names are kept: a dish listing that allergen is still left out.
            filters.without.append(_allergen_of(value.lower()) or value.lower())
    filters.without = sorted(set(filters.without))
    if data.get("max_price") not in (None, ""):
        try:
            filters.max_price = Decimal(str(data["max_price"]).replace(",", "."))
            if not filters.max_price.is_finite() or filters.max_price < 0:
                raise InvalidOperation
        except InvalidOperation:
            filters.max_price = None
            filters.ignored.append(f"max_price={data['max_price']}")
    return filters


def find_dishes(filters: MenuFilters) -> list[MenuItem]:
    """Available dishes matching the filters, in menu order."""
    dishes = MenuItem.objects.filter(available=True)
    if filters.categories:
        dishes = dishes.filter(category__in=filters.categories)
    if filters.diet == VEGAN:
        dishes = dishes.filter(vegan=True)
    elif filters.diet == VEGETARIAN:
        dishes = dishes.filter(vegetarian=True)
    if filters.max_price is not None:
        dishes = dishes.filter(price__lte=filters.max_price)
    excluded = set(filters.without)
    # JSON "contains" lookups are not available on SQLite; a menu is small enough.
    found = [d for d in dishes if not excluded.intersection(d.allergens)]
    return sorted(found, key=lambda d: (CATEGORY_ORDER.index(d.category), d.order, d.name))


def render_menu(dishes: list[MenuItem], filters: MenuFilters, lang: str) -> str:
    """The dishes as readable text, grouped by category."""
    described = ", ".join(filters.describe(lang))
    lines = []
    if filters.ignored:
        note = "Nicht verstanden und ignoriert" if lang == DE else "Not understood, ignored"
        lines.append(f"({note}: {', '.join(filters.ignored)})")
    if not dishes and not described:
        lines.append("Die Speisekarte ist leer." if lang == DE else "The menu is empty.")
        return "\n".join(lines)
    if not dishes:
        if lang == DE:
            lines.append(f"Leider passt nichts auf unserer Speisekarte zu: {described}.")
            lines.append(
                "Versuchen Sie es mit weniger Filtern oder fragen Sie nach der ganzen Karte."
            )
        else:
            lines.append(f"Sorry, nothing on our menu matches: {described}.")
            lines.append("Try fewer filters, or ask for the whole menu.")
        return "\n".join(lines)
    title = "Unsere Speisekarte" if lang == DE else "Our menu"
    lines.append(f"{title} ({described}):" if described else f"{title}:")
    current = None
    for dish in dishes:
        if dish.category != current:
            current = dish.category
            lines.extend(["", category_label(current, lang)])
        line = f"- {dish.name} – {price_text(dish.price, lang)}"
        if dish.vegetarian:
            line += f" ({diet_label(VEGAN if dish.vegan else VEGETARIAN, lang)})"
        if dish.description:
            line += f": {dish.description}"
        if dish.allergens:
            label = "Allergene" if lang == DE else "Allergens"
            line += f" [{label}: {', '.join(allergen_label(a, lang) for a in dish.allergens)}]"
        lines.append(line)
    return "\n".join(lines)
