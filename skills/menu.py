"""The menu skill's logic: read filters from text or data, query dishes, write the menu.

:func:`parse_menu_query` and :func:`menu_filters_from_data` are pure; only
:func:`find_dishes` touches the database. Labels go through gettext: call the
renderers inside ``translation.override(lang)`` (the skill does).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

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
    Category.DRINK: "drink drinks beverage beverages getränk getränke trinken",
}
CATEGORY_WORDS = {w: cat.value for cat, text in _CATEGORY_WORDS.items() for w in text.split()}

VEGAN, VEGETARIAN = "vegan", "vegetarian"
_DIET_WORDS = {
    VEGAN: "vegan vegans vegane veganen veganes veganer plant-based pflanzlich pflanzliche "
    "pflanzlichen",
    VEGETARIAN: "vegetarian vegetarians veggie vegetarisch vegetarische vegetarischen "
    "vegetarisches vegetarier fleischlos fleischlose fleischlosen meatless meat-free",
}
DIET_WORDS = {w: diet for diet, text in _DIET_WORDS.items() for w in text.split()}

# MenuItem.tags a guest asks for ("What wine do you have?", "Habt ihr Fisch?"), and the
# words for them. A tag that is also an allergen (fish) matches either list.
_TAG_WORDS = {
    "wine": "wine wines wein weine weinkarte vino",
    "red wine": "red-wine rotwein rotweine",
    "white wine": "white-wine weißwein weißweine weisswein",
    "sparkling wine": "sparkling prosecco sekt schaumwein champagne",
    "beer": "beer beers bier biere birra",
    "alcohol": "alcohol alcoholic alkohol alkoholisch alkoholische",
    "coffee": "coffee kaffee espresso",
    "water": "water wasser mineralwasser",
    "soft drink": "soft-drink softdrink softdrinks lemonade limonade limo",
    "fish": "fish fisch fische seafood meeresfrüchte tuna thunfisch",
    "meat": "meat fleisch",
    "pork": "pork schwein schweinefleisch",
    "beef": "beef rind rindfleisch",
    "veal": "veal kalb kalbfleisch",
    "spicy": "spicy scharf scharfe scharfes",
    "soup": "soup soups suppe suppen",
    "salad": "salad salads salat salate",
    # What the kitchen recommends: the dishes the owner tagged "recommended".
    "recommended": "recommend recommends recommended recommendation recommendations "
    "specialty specialties speciality specialities signature favourite favorite favourites "
    "favorites popular empfehlen empfehlt empfiehlst empfiehlt empfehlung empfehlungen "
    "empfehlenswert spezialität spezialitäten lieblingsgericht lieblingsgerichte beliebt "
    "beliebteste beliebtesten",
}
TAG_WORDS = {w: tag for tag, text in _TAG_WORDS.items() for w in text.split()}
# Two-word tags written apart: "red wine", "soft drink".
_TAG_PAIRS = {("red", "wine"): "red wine", ("white", "wine"): "white wine",
              ("soft", "drinks"): "soft drink", ("soft", "drink"): "soft drink",
              ("sparkling", "wine"): "sparkling wine"}  # fmt: skip

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
ALLERGEN_LABELS = {
    "gluten": gettext_lazy("gluten"), "milk": gettext_lazy("milk"), "egg": gettext_lazy("egg"),
    "nuts": gettext_lazy("nuts"), "peanuts": gettext_lazy("peanuts"),
    "fish": gettext_lazy("fish"), "crustaceans": gettext_lazy("crustaceans"),
    "soy": gettext_lazy("soy"), "celery": gettext_lazy("celery"),
    "mustard": gettext_lazy("mustard"), "sesame": gettext_lazy("sesame"),
    "sulphites": gettext_lazy("sulphites"),
}  # fmt: skip
TAG_LABELS = {
    "wine": gettext_lazy("wine"), "red wine": gettext_lazy("red wine"),
    "white wine": gettext_lazy("white wine"), "sparkling wine": gettext_lazy("sparkling wine"),
    "beer": gettext_lazy("beer"), "alcohol": gettext_lazy("alcohol"),
    "coffee": gettext_lazy("coffee"), "water": gettext_lazy("water"),
    "soft drink": gettext_lazy("soft drinks"), "fish": gettext_lazy("fish"),
    "meat": gettext_lazy("meat"), "pork": gettext_lazy("pork"), "beef": gettext_lazy("beef"),
    "veal": gettext_lazy("veal"), "spicy": gettext_lazy("spicy"), "soup": gettext_lazy("soup"),
    "salad": gettext_lazy("salad"), "recommended": gettext_lazy("recommended"),
}  # fmt: skip
CATEGORY_LABELS = {
    "starter": pgettext_lazy("menu heading", "Starters"),
    "pasta": pgettext_lazy("menu heading", "Pasta"),
    "pizza": pgettext_lazy("menu heading", "Pizza"),
    "main": pgettext_lazy("menu heading", "Main courses"),
    "dessert": pgettext_lazy("menu heading", "Desserts"),
    "drink": pgettext_lazy("menu heading", "Drinks"),
}

EXCLUDE_CUES = _EXCLUDE_CUES = word_set(
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
    #: Tags (or allergens) the dishes must have: "wine", "fish".
    tags: list[str] = field(default_factory=list)
    #: Data values that could not be read, as "key=value" strings, to tell the caller.
    ignored: list[str] = field(default_factory=list)

    def merge(self, other: MenuFilters) -> MenuFilters:
        """``other`` (the data part) wins where it says something."""
        return MenuFilters(
            categories=other.categories or self.categories,
            diet=other.diet or self.diet,
            without=sorted(set(self.without) | set(other.without)),
            max_price=other.max_price if other.max_price is not None else self.max_price,
            tags=sorted(set(self.tags) | set(other.tags)),
            ignored=self.ignored + other.ignored,
        )

    @property
    def empty(self) -> bool:
        return (
            not (self.categories or self.diet or self.without or self.tags)
            and self.max_price is None
        )

    def describe(self, lang: str) -> list[str]:
        """The filters as short phrases, for the heading of the answer (gettext: call
        inside ``translation.override(lang)``)."""
        out = [diet_label(self.diet, lang)] if self.diet else []
        out.extend(
            allergen_label(t, lang) if t in ALLERGEN_LABELS else tag_label(t) for t in self.tags
        )
        out.extend(category_label(c, lang) for c in self.categories)
        if self.max_price is not None:
            out.append(_("up to %(price)s") % {"price": price_text(self.max_price, lang)})
        if self.without:
            names = ", ".join(allergen_label(a, lang) for a in self.without)
            out.append(_("without %(allergens)s") % {"allergens": names})
        return out


def diet_label(diet: str, lang: str = "") -> str:
    return _("vegetarian") if diet == VEGETARIAN else _("vegan")


def category_label(category: str, lang: str = "") -> str:
    return str(CATEGORY_LABELS.get(category, category))


def allergen_label(allergen: str, lang: str = "") -> str:
    return str(ALLERGEN_LABELS.get(allergen) or TAG_LABELS.get(allergen, allergen))


def tag_label(tag: str) -> str:
    return str(TAG_LABELS.get(tag, tag))


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
    wanted_allergens, avoided = _allergens_asked(tokens)
    filters.without = sorted(_excluded_allergens(tokens) | avoided)
    filters.max_price = parse_max_price(text)
    unwanted = _unwanted_tags(tokens)
    if filters.diet:
        unwanted -= _DIET_COVERS  # "ohne Fleisch" is said by the diet already
    filters.without = sorted(set(filters.without) | unwanted)
    wanted = _wanted_tags(tokens) | wanted_allergens
    filters.tags = sorted(wanted - set(filters.without))
    return filters


# Tags a vegetarian (or vegan) diet leaves out anyway.
_DIET_COVERS = frozenset({"meat", "pork", "beef", "veal", "fish"})


def _unwanted_tags(tokens: list[str]) -> set[str]:
    """Tags to leave out: "non-alcoholic", "alkoholfreie", "alcohol-free", "ohne Alkohol",
    "no pork" (dishes with that tag are left out, as with an allergen)."""
    found: set[str] = set()
    for i, token in enumerate(tokens):
        if token.startswith("non-") and token[4:] in TAG_WORDS:
            found.add(TAG_WORDS[token[4:]])
        elif token in _EXCLUDE_CUES and i + 1 < len(tokens) and tokens[i + 1] in TAG_WORDS:
            found.add(TAG_WORDS[tokens[i + 1]])
        else:
            for suffix in _FREE_SUFFIXES[:6]:  # the "free" ones, not "allergy"
                if token.endswith(suffix) and len(token) > len(suffix):
                    tag = TAG_WORDS.get(token[: -len(suffix)].rstrip("-"))
                    if tag:
                        found.add(tag)
                    break
    return found


# After an allergen, words that make it one to avoid ("lactose intolerant", "nut allergy").
_AVOID_AFTER = word_set(
    "free frei freie freien freies allergy allergie allergies intolerant intolerance "
    "unverträglichkeit intoleranz"
)
# Before an allergen, words that avoid it besides the filters' cues ("I can't eat
# gluten": "can't" is read as "can" "t"; "Ich vertrage Laktose nicht gut").
_AVOID_BEFORE = _EXCLUDE_CUES | word_set(
    "t cannot avoid intolerant sensitive vertrage verträgt vertragen darf dürfen"
)


def _allergens_asked(tokens: list[str]) -> tuple[set[str], set[str]]:
    """Allergens asked for and allergens avoided. Asked for: "Which dishes contain
    celery?", "Was hat Ei?" (the dishes that have it: a guest who must avoid it checks
    that way too). Avoided, besides the cues :func:`_excluded_allergens` reads: "I can't
    eat gluten", "lactose intolerant", "Ich vertrage Laktose nicht"."""
    wanted: set[str] = set()
    avoided: set[str] = set()
    for i, token in enumerate(tokens):
        name = ALLERGEN_WORDS.get(token)
        if name is None:
            continue
        if any(t in _AVOID_BEFORE for t in tokens[max(0, i - 3) : i]) or set(
            tokens[i + 1 : i + 3]
        ) & (_AVOID_AFTER | _EXCLUDE_CUES):
            avoided.add(name)
        else:
            wanted.add(name)
    return wanted - avoided, avoided


def _wanted_tags(tokens: list[str]) -> set[str]:
    """Tags asked for ("red wine", "Fisch"), leaving out those after "without"/"ohne"."""
    found: set[str] = set()
    for i, token in enumerate(tokens):
        if i and (tokens[i - 1], token) in _TAG_PAIRS:
            found.discard(TAG_WORDS.get(tokens[i - 1], ""))
            found.add(_TAG_PAIRS[(tokens[i - 1], token)])
            continue
        tag = TAG_WORDS.get(token)
        if tag is None or any(t in _EXCLUDE_CUES for t in tokens[max(0, i - 3) : i]):
            continue
        found.add(tag)
    return found


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
    for value in _as_list(data.get("tags") or data.get("tag")):
        filters.tags.append(TAG_WORDS.get(value.lower(), value.lower()))
    filters.tags = sorted(set(filters.tags))
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
    found = [
        d
        for d in dishes
        if not excluded.intersection(d.allergens)
        and not excluded.intersection(d.tags)  # "non-alcoholic": a tag left out
        and all(t in d.tags or t in d.allergens for t in filters.tags)
    ]
    return sorted(found, key=lambda d: (CATEGORY_ORDER.index(d.category), d.order, d.name))


def render_menu(dishes: list[MenuItem], filters: MenuFilters, lang: str) -> str:
    """The dishes as readable text, grouped by category, with descriptions and allergens
    (the artifact's text; the guest's short answer is written by the skill)."""
    described = ", ".join(filters.describe(lang))
    lines = []
    if filters.ignored:
        lines.append(
            "(%s)"
            % (_("Not understood, ignored: %(values)s") % {"values": ", ".join(filters.ignored)})
        )
    if not dishes and not described:
        lines.append(_("The menu is empty."))
        return "\n".join(lines)
    if not dishes:
        lines.append(_("Sorry, nothing on our menu matches: %(filters)s.") % {"filters": described})
        lines.append(_("Try fewer filters, or ask for the whole menu."))
        return "\n".join(lines)
    title = _("Our menu")
    lines.append(f"{title} ({described}):" if described else f"{title}:")
    current = None
    for dish in dishes:
        if dish.category != current:
            current = dish.category
            lines.extend(["", category_label(current, lang)])
        lines.append("- " + dish_line(dish, lang, allergens=True))
    return "\n".join(lines)


def dish_line(dish: MenuItem, lang: str, *, allergens: bool = False) -> str:
    """``Pizza Margherita – €9.50 (vegetarian): Tomato, fior di latte, basil.``"""
    line = f"{dish.display_name(lang)} – {price_text(dish.price, lang)}"
    if dish.vegetarian:
        line += f" ({diet_label(VEGAN if dish.vegan else VEGETARIAN, lang)})"
    description = dish.display_description(lang)
    if description:
        line += f": {description}"
    if allergens and dish.allergens:
        names = ", ".join(allergen_label(a, lang) for a in dish.allergens)
        label = _("Allergens")
        line += f" [{label}: {names}]"
    return line
