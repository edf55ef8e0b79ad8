"""Mutation testing: how many deliberate small bugs in a module its own tests catch (#18).

``python -m scripts.mutation [MODULE ...]`` (``make mutation``) runs mutmut 3 on each module
of ``TARGETS`` (all of them without arguments) with only the test files ``TARGETS`` names
for it, and prints one line per module: mutants, killed, survived, score. It exits 1 when a
module scores under ``THRESHOLD``. Surviving mutants that are equivalent (no test can tell
them from the original) are listed and explained in docs/testing.md.

Each module runs in a scratch copy of the project (``var/mutation/<module>/``): mutmut
writes its ``mutants/`` tree and its config beside the code, and the copy keeps both out
of the work tree. ``--show`` prints the diff of every surviving mutant.

Needs mutmut (``pip install 'mutmut>=3.3,<4'``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRATCH = ROOT / "var" / "mutation"
THRESHOLD = 90.0

# Module → the test files that exercise it (fast ones: each mutant reruns them). One entry
# a line, in path order, so that branches adding modules merge line by line.
# fmt: off
TARGETS: dict[str, list[str]] = {
    "a2a_app/authentication.py": ["tests/test_security.py", "tests/test_api_keys.py"],
    "a2a_app/bindings/auth.py": ["tests/test_security.py", "tests/test_api_keys.py"],
    "a2a_app/bindings/security.py": ["tests/test_security.py"],
    "a2a_app/caller.py": ["tests/test_access.py", "tests/test_api_keys.py"],
    "a2a_app/core/limits.py": ["tests/test_limits.py", "tests/test_input_limits.py", "tests/test_history_limits.py"],  # noqa: E501
    "a2a_app/push/policy.py": ["tests/test_push.py"],
    "a2a_app/push/signatures.py": ["tests/test_signatures.py"],
    "a2a_app/push/ssrf.py": ["tests/test_ssrf.py"],
}
# fmt: on

#: What the tests need beside a2a_app and tests/ (templates, the demo site, skills).
_ALSO_COPY = ["a2a_site", "templates", "skills", "scripts", "manage.py"]
_COPY = ["a2a_app", "tests", "pyproject.toml", *_ALSO_COPY]


def _prepare(module: str, tests: list[str]) -> Path:
    """A fresh copy of the project with a mutmut config for ``module`` alone."""
    workdir = SCRATCH / module.replace("/", "_").removesuffix(".py")
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "db.sqlite3*")
    for name in _COPY:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, workdir / name, ignore=ignore)
        elif source.exists():
            shutil.copy2(source, workdir / name)
    lines = ["[mutmut]", "source_paths = a2a_app", f"only_mutate = {module}", "also_copy ="]
    lines += [f"    {name}" for name in _ALSO_COPY]
    # The cache plugin would write into the copy from every forked run; -x stops at the
    # first failing test, which is all a killed mutant needs.
    lines += ["pytest_add_cli_args =", "    -p", "    no:cacheprovider", "    -x"]
    lines += ["pytest_add_cli_args_test_selection ="] + [f"    {test}" for test in tests]
    (workdir / "setup.cfg").write_text("\n".join(lines) + "\n")
    return workdir


def _mutmut(workdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mutmut", *args]
    return subprocess.run(command, cwd=workdir, capture_output=True, text=True, check=False)


def run_module(module: str, max_children: int, show: bool) -> dict[str, float | int]:
    workdir = _prepare(module, TARGETS[module])
    done = _mutmut(workdir, "run", "--max-children", str(max_children))
    if done.returncode != 0:
        tail = (done.stdout + done.stderr)[-3000:]
        raise SystemExit(f"mutmut failed on {module}:\n{tail}")
    _mutmut(workdir, "export-cicd-stats")
    stats = json.loads((workdir / "mutants" / "mutmut-cicd-stats.json").read_text())
    tested = stats["total"] - stats["skipped"]
    caught = stats["killed"] + stats["timeout"]
    stats["score"] = 100.0 * caught / tested if tested else 100.0
    if show:
        listing = _mutmut(workdir, "results").stdout.split()
        for name in (word.rstrip(":") for word in listing if word.startswith("a2a_app.")):
            print(_mutmut(workdir, "show", name).stdout)
    return stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help="module paths (default: all of TARGETS)")
    parser.add_argument("--max-children", type=int, default=2, help="mutants run at once")
    parser.add_argument("--show", action="store_true", help="print surviving mutants")
    options = parser.parse_args(argv)
    unknown = [m for m in options.modules if m not in TARGETS]
    if unknown:
        parser.error(f"not in TARGETS: {', '.join(unknown)}")
    failed = []
    print(f"{'module':40} {'mutants':>7} {'killed':>7} {'survived':>8} {'score':>7}")
    for module in options.modules or list(TARGETS):
        stats = run_module(module, options.max_children, options.show)
        caught = stats["killed"] + stats["timeout"]
        missed = stats["survived"] + stats["no_tests"] + stats["suspicious"]
        print(
            f"{module:40} {stats['total']:>7} {caught:>7} {missed:>8} {stats['score']:>6.1f}%",
            flush=True,
        )
        if stats["score"] < THRESHOLD:
            failed.append(module)
    if failed:
        print(f"under {THRESHOLD:.0f} %: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
