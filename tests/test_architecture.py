"""The import rules of docs/architecture.md, checked on every module of a2a_app.

Each rule names the parts a layer may import; the walk is ``scripts/import_graph.py``'s
(every import, lazy and ``TYPE_CHECKING`` ones included, migrations excepted).
"""

from __future__ import annotations

import sys

import pytest

from scripts.import_graph import PACKAGE, ROOT, imports, module_name

#: Top-level modules every layer may use: settings, models and what they need.
#: ``tracing``: spans through OpenTelemetry's API when the site installed it (lazily).
FOUNDATION = {
    "a2a_app",
    "conf",
    "db",
    "models",
    "signals",
    "exceptions",
    "caller",
    "crypto",
    "ids",
    "tracing",
}
LIBRARIES = set(sys.stdlib_module_names)
DJANGO = {"django", "rest_framework", "asgiref"}

#: layer -> (parts of a2a_app it may import, libraries beyond the standard library)
RULES: dict[str, tuple[set[str], set[str]]] = {
    "protocol": ({"protocol"}, set()),
    "foundation": (FOUNDATION | {"protocol"}, DJANGO | {"cryptography", "opentelemetry"}),
    # lingua: the optional language detector adapter (skills.language.lingua_scores).
    "skills": (FOUNDATION | {"protocol", "skills"}, DJANGO | {"lingua"}),
    "forms": (
        FOUNDATION | {"protocol", "skills", "forms"},
        DJANGO | {"dateparser", "phonenumbers"},
    ),
    "core": (
        FOUNDATION | {"protocol", "skills", "forms", "core", "push.policy", "push.ssrf"},
        DJANGO | {"celery", "redis", "psycopg"},
    ),
    "push": (FOUNDATION | {"protocol", "core", "push"}, DJANGO | {"requests", "urllib3"}),
    "jobs": ({"core", "push", "signals", "tracing"}, {"celery"}),
}


def app_modules() -> list[tuple[str, list[str]]]:
    files = sorted((ROOT / PACKAGE).rglob("*.py"))
    return [
        (module_name(path), sorted(set(imports(path))))
        for path in files
        if "migrations" not in path.parts
    ]


def layer(module: str) -> str:
    if module == PACKAGE:
        return "root"  # the public surface re-exports every layer (lazily)
    piece = module.split(".")[1]
    return "foundation" if piece in FOUNDATION else piece


def allowed(imported: str, parts: set[str]) -> bool:
    inner = imported.removeprefix(f"{PACKAGE}.")
    return imported == PACKAGE or any(
        inner == part or inner.startswith(f"{part}.") for part in parts
    )


MODULES = app_modules()
APP_MODULES = {module for module, _ in MODULES}


def module_imports(imported: list[str]) -> list[str]:
    """The imports that are modules: ``from a2a_app.core import store`` yields both
    ``a2a_app.core`` and ``a2a_app.core.store``; ``from a2a_app import __version__`` only
    ``a2a_app``."""
    return [n for n in imported if not n.startswith(PACKAGE) or n in APP_MODULES]


@pytest.mark.parametrize(("module", "imported"), MODULES, ids=[m for m, _ in MODULES])
def test_each_layer_imports_only_what_it_may(module: str, imported: list[str]) -> None:
    rule = RULES.get(layer(module))
    if rule is None:
        return  # bindings and the app's edges (urls, admin, api...) may use any layer
    parts, libraries = rule
    wrong = [
        name
        for name in module_imports(imported)
        if (name.startswith(f"{PACKAGE}.") or name == PACKAGE)
        and not allowed(name, parts)
        or not name.startswith(PACKAGE)
        and name.split(".")[0] not in LIBRARIES | libraries | {"__future__"}
    ]
    assert wrong == [], f"{module} ({layer(module)}) may not import {wrong}"


def test_celery_is_reached_only_through_the_dispatcher_and_the_jobs() -> None:
    users = {m for m, imported in MODULES if any(n.split(".")[0] == "celery" for n in imported)}
    assert users == {"a2a_app.core.dispatch", "a2a_app.jobs"}


def test_only_the_urls_the_test_kit_the_card_page_and_the_pages_reach_into_the_bindings() -> None:
    # The admin's card page and the pages for people draw the card with the code that
    # serves it: what the owner checks there is byte for byte what agents get.
    users = {
        module
        for module, imported in MODULES
        if layer(module) != "bindings"
        and any(n.startswith(f"{PACKAGE}.bindings") for n in imported)
    }
    assert users == {
        "a2a_app.urls",
        "a2a_app.testing",
        "a2a_app.card_admin",
        "a2a_app.pages.agent",
        "a2a_app.pages.checks",
        "a2a_app.metrics.views",  # who may scrape: the client address the rate limits use
    }


def test_nothing_in_a2a_app_imports_the_demo() -> None:
    demo = [
        (module, name)
        for module, imported in MODULES
        for name in imported
        if name.split(".")[0] in {"a2a_site", "skills", "bench", "tests"}
    ]
    assert demo == []


def test_the_walk_sees_every_layer() -> None:
    # A rule that checks nothing would pass: make sure each layer has modules.
    seen = {layer(module) for module, _ in MODULES}
    assert set(RULES) | {"bindings"} <= seen


def test_site_code_imports_everything_from_the_package_root() -> None:
    import importlib

    import a2a_app

    for name in a2a_app.__all__:
        value = getattr(a2a_app, name)
        origin = a2a_app._EXPORTS.get(name)
        if origin is not None:
            assert value is getattr(importlib.import_module(origin), name)
        else:
            assert value is importlib.import_module(f"a2a_app.{name}")
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        a2a_app.nope  # noqa: B018
