"""view-menu through the A2A endpoint: lists, yes/no questions about a dish, prices,
allergens, wine, fish, typos, and German answers with German descriptions."""

from __future__ import annotations

from typing import Any

import pytest

from a2a_app.testing import A2AClient
from skills.menu_skills import mentioned_dishes
from skills.models import MenuItem

pytestmark = pytest.mark.usefixtures("demo")


def ask(text: str = "", data: Any = None, **metadata: Any) -> tuple[str, list[dict], dict]:
    """The answer (status message), the dishes (artifact data) and the task."""
    task = A2AClient().send(text, data=data, metadata={"skillId": "view-menu", **metadata})["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED", task
    (message,) = [p["text"] for p in task["status"]["message"]["parts"] if "text" in p]
    (artifact,) = task["artifacts"]
    assert artifact["name"] == "menu"
    dishes = next(p["data"] for p in artifact["parts"] if "data" in p)
    return message, dishes, task


def names(dishes: list[dict]) -> list[str]:
    return [d["name"] for d in dishes]


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Is the tiramisu vegetarian?", "Yes, the Tiramisù is vegetarian."),
        ("Is the Tiramisu vegan?", "No, the Tiramisù is not vegan."),
        ("Is the Diavola vegetarian?", "No, the Pizza Diavola is not vegetarian."),
        ("Does the Margherita contain gluten?", "Yes, the Pizza Margherita contains gluten."),
        ("Is the sorbetto gluten-free?", "Yes, the Sorbetto al limone contains no gluten."),
        ("Is the Margarita gluten free?", "No, the Pizza Margherita contains gluten."),
        ("Is there alcohol in the tiramisu?", "Yes, the Tiramisù contains alcohol."),
        ("Is the Diavola spicy?", "Yes, the Pizza Diavola is spicy."),
        ("Ist das Tiramisu vegetarisch?", "Ja, Tiramisù ist vegetarisch."),
        ("Ist die Pizza Diavola vegetarisch?", "Nein, Pizza Diavola ist nicht vegetarisch."),
        ("Ist im Tiramisu Alkohol?", "Ja, Tiramisù enthält Alkohol."),
        ("Sind im Tiramisu Nüsse?", "Nein, Tiramisù enthält keine Nüsse."),
        ("Ist die Carbonara glutenfrei?", "Nein, Spaghetti alla carbonara enthält Gluten."),
    ],
)
def test_yes_no_questions_about_one_dish(text: str, answer: str) -> None:
    message, dishes, _ = ask(text)
    assert message == answer
    assert len(dishes) == 1  # the dish asked about, not the whole vegetarian menu


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("How much is a Margherita?", "The Pizza Margherita costs €9.50."),
        ("What does the tiramisu cost?", "The Tiramisù costs €7.50."),
        ("Was kostet eine Pizza Margarita?", "Pizza Margherita kostet 9,50 €."),
        ("Wie viel kostet das Tiramisu?", "Tiramisù kostet 7,50 €."),
    ],
)
def test_prices(text: str, answer: str) -> None:
    assert ask(text)[0] == answer


def test_allergens_of_a_dish() -> None:
    message, dishes, _ = ask("What allergens are in the carbonara?")
    assert message == "Allergens in the Spaghetti alla carbonara: egg, gluten and milk."
    assert dishes[0]["allergens"] == ["egg", "gluten", "milk"]
    message, _, _ = ask("Welche Allergene hat die Carbonara?")
    assert message == "Allergene in Spaghetti alla carbonara: Ei, Gluten und Milch."


def test_wine_lists_wines_not_water() -> None:
    message, dishes, _ = ask("What wine do you have?")
    assert names(dishes) == ["Chianti Classico (0.2 l)", "Pinot Grigio (0.2 l)", "Prosecco (0.1 l)"]
    assert message.startswith("Yes, we have:") and "Acqua" not in message
    message, dishes, _ = ask("Welche Weine habt ihr?")
    assert len(dishes) == 3 and "Rotwein aus der Toskana" in message
    _, dishes, _ = ask("Do you have red wine?")
    assert names(dishes) == ["Chianti Classico (0.2 l)"]


def test_fish() -> None:
    message, dishes, _ = ask("Do you have fish?")
    assert names(dishes) == ["Vitello tonnato", "Pizza tonno e cipolla", "Branzino al forno"]
    assert "sea bass" in message
    message, _, _ = ask("Habt ihr Fisch?")
    assert message.startswith("Ja, wir haben:") and "Wolfsbarsch" in message
    MenuItem.objects.filter(tags__icontains="fish").update(available=False)
    message, dishes, _ = ask("Do you have fish?")
    assert dishes == [] and message.startswith("Sorry, nothing on our menu matches: fish.")


def test_german_answers_have_german_descriptions_and_labels() -> None:
    message, dishes, _ = ask("Welche vegetarischen Pizzen gibt es unter 10 Euro?")
    assert names(dishes) == ["Pizza Marinara", "Pizza Margherita"]
    assert "Pizza Margherita – 9,50 € (vegetarisch): Tomate, Fior di Latte, Basilikum." in message
    assert dishes[1]["description"] == "Tomate, Fior di Latte, Basilikum."
    message, _, task = ask("Was steht auf der Speisekarte?")
    assert message.startswith("Unsere Speisekarte:\nVorspeisen: Bruschetta al pomodoro (6,50 €)")
    assert "Hauptgerichte:" in message and "Getränke: Mineralwasser (0,75 l)" in message
    text = task["artifacts"][0]["parts"][0]["text"]
    assert "[Allergene: Gluten, Milch]" in text


def test_the_metadata_language_counts_when_the_text_says_none() -> None:
    message, _, _ = ask("Tiramisu?", language="de")
    assert message.startswith("Tiramisù – 7,50 € (vegetarisch): Mascarpone, Löffelbiskuits")


def test_a_dish_named_alone_or_with_a_typo_is_described() -> None:
    message, dishes, _ = ask("Margarita?")
    assert names(dishes) == ["Pizza Margherita"]
    assert message == (
        "Pizza Margherita – €9.50 (vegetarian): Tomato, fior di latte, basil. "
        "[Allergens: gluten, milk]"
    )
    assert names(ask("Tell me about the saltimboca")[1]) == ["Saltimbocca alla romana"]


def test_a_dish_not_on_the_menu() -> None:
    message, dishes, _ = ask("Do you have lasagne?")
    assert message.startswith("Sorry, we have no lasagne on our menu.")


def test_filters_from_a_data_part() -> None:
    _, dishes, _ = ask(data={"category": "pizza", "diet": "vegan", "max_price": "10"})
    assert names(dishes) == ["Pizza Marinara"]
    _, dishes, _ = ask(data={"tags": ["wine"], "max_price": 7})
    assert names(dishes) == ["Pinot Grigio (0.2 l)", "Prosecco (0.1 l)"]


def test_filters_from_text_still_list() -> None:
    message, dishes, _ = ask("Show me the vegan desserts")
    assert names(dishes) == ["Sorbetto al limone"]
    assert message.startswith("Our menu (vegan, Desserts):")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("tiramisu", ["Tiramisù"]),
        ("Pizza Margherita", ["Pizza Margherita"]),
        ("margarita", ["Pizza Margherita"]),
        ("carbonara", ["Spaghetti alla carbonara"]),
        ("spaghetti", ["Spaghetti aglio, olio e peperoncino", "Spaghetti alla carbonara"]),
        ("Do you have pizza?", []),
        ("Mineralwasser", ["Acqua minerale (0.75 l)"]),
    ],
)
def test_mentioned_dishes(text: str, expected: list[str]) -> None:
    dishes = list(MenuItem.objects.filter(available=True))
    assert [d.name for d in mentioned_dishes(text, dishes)] == expected


def test_no_match_suggests_what_fits_the_allergy() -> None:
    message, dishes, _ = ask("Do you have a gluten-free pizza?")
    assert dishes == []
    assert message.startswith("Sorry, nothing on our menu matches: Pizza, without gluten.")
    assert "Other dishes that fit (without gluten): Caprese, Vitello tonnato" in message
    message, _, _ = ask("Habt ihr glutenfreie Pizza?")
    assert "Andere passende Gerichte (ohne Gluten): Caprese" in message


def test_cheapest_and_most_expensive() -> None:
    assert names(ask("What's your cheapest pizza?")[1]) == ["Pizza Marinara"]
    assert names(ask("Was ist das teuerste Hauptgericht?")[1]) == ["Branzino al forno"]


def test_do_you_have_a_dish_and_a_dish_taken_off_the_menu() -> None:
    message, dishes, _ = ask("Do you have tiramisu?")
    assert message.startswith("Yes, we have:\nTiramisù – €7.50 (vegetarian)")
    MenuItem.objects.filter(name="Tiramisù").update(available=False)
    message, dishes, _ = ask("Habt ihr Tiramisu?")
    assert (message, dishes) == ("Leider gibt es Tiramisù im Moment nicht.", [])


# --- round 2: the menu's own words route here, allergens asked for list their dishes ---------


def routed(text: str) -> str | None:
    """The skill a new message with no skillId ends up with (None: a direct reply)."""
    from a2a_app.models import Task

    answer = A2AClient().send(text)
    return Task.objects.get(pk=answer["task"]["id"]).skill_id if "task" in answer else None


@pytest.mark.parametrize(
    "text",
    [
        "Got any antipasti?",  # a category word
        "Gibt es Nachspeisen ohne Ei?",
        "Do you do espresso?",  # a kind of drink
        "Habt ihr Weißwein?",
        "Is there any sesame in the pesto?",  # an allergen and a dish
        "Enthält die Carbonara Sellerie?",
        "whats in the tagliatele al ragu",  # a dish with a typo
        "Is there pork in the saltimbocca?",
    ],
)
def test_questions_naming_only_menu_words_are_routed_to_the_menu(text: str) -> None:
    assert routed(text) == "view-menu"


@pytest.mark.parametrize(
    ("text", "has", "lacks"),
    [
        ("Which dishes have egg in them?", "Vitello tonnato", "Caprese"),
        ("Welche Gerichte enthalten Sellerie?", "Minestrone", "Bruschetta al pomodoro"),
    ],
)
def test_an_allergen_asked_for_lists_the_dishes_that_have_it(
    text: str, has: str, lacks: str
) -> None:
    message, dishes, _ = ask(text)
    assert has in names(dishes) and lacks not in names(dishes)


@pytest.mark.parametrize(
    ("text", "without"),
    [
        ("I can't eat gluten, what pasta is there?", ["gluten"]),
        ("Ich vertrage Laktose nicht, welche Desserts?", ["milk"]),
        ("Pizzas for someone lactose intolerant", ["milk"]),
    ],
)
def test_an_allergen_the_guest_avoids_is_left_out(text: str, without: list[str]) -> None:
    from skills.menu import parse_menu_query

    filters = parse_menu_query(text)
    assert filters.without == without and not set(without) & set(filters.tags)


@pytest.mark.parametrize(
    "text",
    [
        "Bis wann kann man bei euch warm essen?",
        "From when can we eat on Sunday?",
        "Bis wie viel Uhr kann man essen?",
    ],
)
def test_when_we_can_eat_is_the_opening_hours(text: str) -> None:
    # Routed here for "essen"/"eat"; no dish and no filter, but a "when": handed over.
    from a2a_app.models import Task

    task = A2AClient().send(text, metadata={"skillId": "view-menu"})["task"]
    assert Task.objects.get(pk=task["id"]).skill_id == "opening-hours"
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert "23:00" in task["status"]["message"]["parts"][0]["text"]


def test_when_a_dish_is_named_it_stays_on_the_menu() -> None:
    assert "Tiramisù" in ask("When can I have the tiramisu, is it vegetarian?")[0]


@pytest.mark.parametrize(
    "text",
    [
        "Any non-alcoholic drinks?",
        "Welche alkoholfreien Getränke habt ihr?",
        "Drinks without alcohol",
    ],
)
def test_a_tag_left_out_leaves_out_its_dishes(text: str) -> None:
    listed = names(ask(text)[1])
    assert "Limonata (0.33 l)" in listed
    assert not {"Chianti Classico (0.2 l)", "Birra Moretti (0.33 l)"} & set(listed)


@pytest.mark.parametrize(
    ("text", "said"),
    [("Is the lasagne vegetarian?", "lasagne"), ("Hat die Lasagne Fleisch?", "lasagne")],
)
def test_a_question_about_a_dish_we_do_not_have(text: str, said: str) -> None:
    message, _, _ = ask(text)
    assert said in message.lower() and ("sorry" in message.lower() or "leider" in message.lower())


@pytest.mark.parametrize(
    "text", ["Is the restaurant vegan friendly?", "Is the sauce on the penne spicy?"]
)
def test_no_unknown_dish_for_words_of_the_menu_or_the_place(text: str) -> None:
    message, _, _ = ask(text)
    assert "Sorry, we have no" not in message


# --- recommendations: the dishes the owner tagged "recommended" ----------------------------

PICKS = ["Vitello tonnato", "Tagliatelle al ragù", "Pizza Diavola", "Saltimbocca alla romana"]


def test_what_the_kitchen_recommends_are_the_dishes_tagged_recommended() -> None:
    message, dishes, _ = ask("What do you recommend?")
    assert names(dishes) == [*PICKS, "Tiramisù"]
    assert message.startswith("We recommend:\n")
    message, dishes, _ = ask("Welche Pasta könnt ihr empfehlen?")
    assert names(dishes) == ["Tagliatelle al ragù"]
    assert message.startswith("Wir empfehlen (Pasta):")
    # The owner decides, in the admin: a dish tagged there is among them.
    item = MenuItem.objects.get(name="Branzino al forno")
    item.tags = [*item.tags, "recommended"]
    item.save()
    assert "Branzino al forno" in names(ask("What's your specialty?")[1])


def test_with_no_pick_that_fits_the_dishes_that_fit_are_offered() -> None:
    message, dishes, _ = ask("Any vegan recommendations?")
    assert message.startswith("None of our recommendations is vegan, but we have:")
    assert dishes and all(d["vegan"] for d in dishes)


@pytest.mark.parametrize(
    "text",
    ["What do you recommend?", "Was ist eure Spezialität?", "What's your most popular dish?"],
)
def test_a_question_for_a_recommendation_goes_to_the_menu(text: str) -> None:
    from a2a_app.models import Task

    task = A2AClient().send(text)["task"]
    assert Task.objects.get(pk=task["id"]).skill_id == "view-menu"
