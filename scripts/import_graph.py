"""Which part of a2a_app imports which: the package → package picture of the layers.

    python -m scripts.import_graph            # this checkout
    python -m scripts.import_graph --modules  # module → module

Parts are a2a_app's subpackages (``protocol``, ``skills``, ``core``, ``push``,
``bindings``) and its top-level modules (``models``, ``conf``, ``api``...); imports of
other libraries are grouped by their top-level name (``django``, ``celery``...).
``tests/test_architecture.py`` checks the rules of docs/architecture.md on the same walk.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "a2a_app"


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, root: Path = ROOT) -> Iterator[str]:
    """Every module ``path`` imports (absolute names; relative imports resolved)."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            yield module
            # ``from a2a_app.core import store`` imports the module a2a_app.core.store
            yield from (f"{module}.{alias.name}" for alias in node.names)


def part(module: str, *, modules: bool = False) -> str | None:
    """The part of the app (or the library) a module belongs to."""
    pieces = module.split(".")
    if pieces[0] != PACKAGE:
        return pieces[0] or None
    if len(pieces) == 1:
        return PACKAGE
    if modules:
        return ".".join(pieces[1:])
    return pieces[1]


def graph(
    root: Path = ROOT, *, modules: bool = False, known: set[str] | None = None
) -> dict[str, set[str]]:
    """part → the parts it imports (a2a_app's own parts, and libraries)."""
    app = root / PACKAGE
    files = [p for p in app.rglob("*.py") if "migrations" not in p.parts]
    names = {module_name(p, root) for p in files}
    edges: dict[str, set[str]] = defaultdict(set)
    for path in files:
        source = part(module_name(path, root), modules=modules)
        for imported in imports(path, root):
            if imported.startswith(PACKAGE) and imported not in names:
                continue  # a name imported from a module, not a module
            target = part(imported, modules=modules)
            if target and target != source and target != "__future__":
                edges[source].add(target)
    return edges


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modules", action="store_true", help="module → module")
    parser.add_argument("--root", type=Path, default=ROOT, help="a checkout of the project")
    args = parser.parse_args(argv)
    edges = graph(args.root.resolve(), modules=args.modules)
    for source in sorted(edges):
        own = sorted(t for t in edges[source] if not _library(t))
        libraries = sorted(t for t in edges[source] if _library(t))
        print(f"{source} → {', '.join(own) or '-'}   [{', '.join(libraries)}]")
    return 0


_STDLIB = set(sys.stdlib_module_names)


def _library(name: str) -> bool:
    return name in _STDLIB or name in {"django", "rest_framework", "celery", "asgiref",
                                       "requests", "urllib3", "cryptography", "psycopg",
                                       "redis", "environ"}  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
