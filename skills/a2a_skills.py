"""The restaurant's A2A skills: ``view-menu`` here; the booking skills
(``make-reservation``, ``cancel-reservation``, ``change-reservation``,
``catering-request``) in :mod:`skills.booking_skills`.

Discovered by ``a2a_app`` (it imports each app's ``a2a_skills`` module). The handlers
only wire things together: reading input is a2a_app's (forms), the menu filters live in
:mod:`skills.menu`, the rules and the locking in
:mod:`skills.booking` and :mod:`skills.catering`, the wording in :mod:`skills.replies`.
"""

from __future__ import annotations

from a2a_app import Completed, SkillContext, skill

from . import booking_skills  # noqa: F401  (registers the booking skills)
from .menu import find_dishes, menu_filters_from_data, parse_menu_query, render_menu
from .wording import EN, detect_language

MODES = ["text/plain", "application/json"]


@skill(
    "view-menu",
    name="View menu",
    description=(
        "The menu of Trattoria Django: dishes and drinks with prices in euros, allergens, "
        "vegetarian and vegan marks. Filter in English or German words (\"vegan pizzas "
        'under 12 euros without nuts") or with a data part {"category", "diet", '
        '"allergen", "max_price"}. Returns the menu as text and the dishes as JSON.'
    ),
    tags=[
        "menu", "food", "dishes", "prices", "allergens", "gluten", "vegetarian", "vegan",
        "pizza", "pasta", "dessert", "drinks", "wine", "Speisekarte", "Gerichte", "vegetarisch",
        "Allergene", "Vorspeisen", "Nachspeisen", "Getränke",
    ],
    examples=[
        "What's on the menu?",
        "Show me the vegan dishes",
        "Which pizzas are under 12 euros?",
        "Vegetarian pasta without nuts",
        "What desserts do you have?",
        "Which dishes are gluten-free?",
        "Was steht auf der Speisekarte?",
        "Zeig mir die vegetarischen Gerichte",
        "Vegane Gerichte ohne Nüsse",
        "Welche Nachspeisen gibt es?",
        "Welche Getränke habt ihr?",
    ],
    input_modes=MODES,
    output_modes=MODES,
)  # fmt: skip
def view_menu(ctx: SkillContext) -> Completed:
    """Show the menu, filtered by category, diet, allergen or price."""
    lang = detect_language(ctx.text) or EN
    filters = parse_menu_query(ctx.text).merge(menu_filters_from_data(ctx.data))
    dishes = find_dishes(filters)
    return ctx.complete(
        text=render_menu(dishes, filters, lang),
        data=[dish.as_dict() for dish in dishes],
        name="menu",
    )
