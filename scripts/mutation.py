"""Mutation testing of the modules whose every line decides protocol behaviour.

``python -m scripts.mutation [--module PATH ...]`` (``make mutation``) runs mutmut 3 on each
module of :data:`TARGETS` against the test files listed for it, prints a table
module → mutants, killed, score, the surviving mutants' names, and exits non-zero when a
module scores under :data:`THRESHOLD` percent.

mutmut 3 reads its configuration from ``pyproject.toml`` in the directory it runs in and
has no command-line switch for the files to mutate or the tests to run. So each module
gets a work directory of its own, ``mutants/<module>/`` (ignored by git, rebuilt on every
run): a ``pyproject.toml`` that is the project's with ``[tool.mutmut]`` narrowed to the
module and its tests, and symbolic links to the project's packages. Nothing in the
checkout changes, and the work directory stays behind for a rerun by hand
(docs/testing.md, "Mutation testing")::

    cd mutants/a2a_app.protocol.versions && rm -rf mutants && mutmut run && mutmut results
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "mutants"
THRESHOLD = 90.0

# Module → the test files that exercise it. One entry a line, in path order, so that
# branches adding modules merge line by line (hence no formatter here).
# fmt: off
TARGETS: dict[str, list[str]] = {
    "a2a_app/authentication.py": ["tests/test_security.py", "tests/test_api_keys.py"],
    "a2a_app/bindings/auth.py": ["tests/test_security.py", "tests/test_api_keys.py"],
    "a2a_app/bindings/http.py": ["tests/test_rest.py", "tests/test_jsonrpc.py"],
    "a2a_app/bindings/jsonrpc.py": ["tests/test_jsonrpc.py", "tests/test_input_limits.py"],
    "a2a_app/bindings/rest.py": ["tests/test_rest.py"],
    "a2a_app/bindings/rest_v03.py": ["tests/test_rest_v03.py"],
    "a2a_app/bindings/security.py": ["tests/test_security.py"],
    "a2a_app/caller.py": ["tests/test_access.py", "tests/test_api_keys.py"],
    "a2a_app/core/limits.py": ["tests/test_limits.py", "tests/test_input_limits.py", "tests/test_history_limits.py"],  # noqa: E501
    "a2a_app/core/retention.py": ["tests/test_retention.py"],
    "a2a_app/core/retries.py": ["tests/test_idempotency.py"],
    "a2a_app/core/sending.py": ["tests/test_sending.py", "tests/test_tasks.py", "tests/test_state_machine.py", "tests/test_background.py", "tests/test_transactions.py", "tests/test_idempotency.py", "tests/test_history_limits.py", "tests/test_access.py", "tests/test_hand_over.py", "tests/test_jsonrpc.py"],  # noqa: E501
    "a2a_app/core/streams.py": ["tests/test_streaming.py", "tests/test_streaming_reads.py", "tests/test_hand_over.py", "tests/test_idempotency.py"],  # noqa: E501
    "a2a_app/core/updates.py": ["tests/test_task_updates.py", "tests/test_state_machine.py"],
    "a2a_app/protocol/jsonrpc_envelope.py": ["tests/test_protocol.py"],
    "a2a_app/protocol/states.py": ["tests/test_state_machine.py"],
    "a2a_app/protocol/versions.py": ["tests/test_protocol.py"],
    "a2a_app/push/policy.py": ["tests/test_push.py"],
    "a2a_app/push/signatures.py": ["tests/test_signatures.py"],
    "a2a_app/push/ssrf.py": ["tests/test_ssrf.py"],
    "a2a_app/skills/routing.py": ["tests/test_routing.py", "tests/test_routing_boundaries.py", "tests/test_routing_fallback.py", "tests/test_routing_round3.py", "tests/test_routing_dates.py"],  # noqa: E501
}

# Module → the slow tests of its files left out (pytest's ``-k``): each mutant reruns the
# tests, and these cost seconds each while other tests check the same lines. The
# credential tests hash a password (the runs of authentication.py and bindings/auth.py
# keep them); SendMessage through a database, where the routing tests call the router
# and the fallback directly.
DESELECTED: dict[str, str] = {
    "a2a_app/bindings/http.py": "not TestCallers and not TestAuthentication",
    "a2a_app/bindings/rest.py": "not TestCallers",
    "a2a_app/core/sending.py": "not TestAuthentication",
    "a2a_app/skills/routing.py": "not ThroughSendMessage",
}
# fmt: on

# What the tests import or read besides the module's package (copied into mutmut's
# sandbox, where the tests run).
LINKED = ["a2a_app", "tests", "skills", "a2a_site", "templates", "manage.py"]


@dataclass(frozen=True)
class Score:
    module: str
    mutants: int
    killed: int
    timeout: int
    suspicious: int
    survived: int
    no_tests: int
    skipped: int
    survivors: tuple[str, ...]

    @property
    def percent(self) -> float:
        """mutmut's own score (its ``badge`` command): killed and timed-out mutants among
        those it tested; a mutant no test reaches counts against it."""
        tested = self.mutants - self.skipped
        return 100.0 if tested <= 0 else 100.0 * (self.killed + self.timeout) / tested


def work_dir(module: str) -> Path:
    return WORK / module.removesuffix(".py").replace("/", ".")


def mutmut_config(module: str, tests: list[str]) -> dict:
    """The project's ``[tool.mutmut]`` narrowed to one module and its tests."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    deselected = ["-k", DESELECTED[module]] if module in DESELECTED else []
    return {
        **project["tool"]["mutmut"],
        "only_mutate": [module],
        "pytest_add_cli_args_test_selection": [*tests, *deselected],
    }


def toml_value(value: object) -> str:
    # The values of [tool.mutmut] are strings, lists of strings, numbers and booleans:
    # JSON writes each of them as TOML reads it.
    return json.dumps(value)


def prepare(module: str, tests: list[str]) -> Path:
    """A fresh work directory for ``module``: the project's pyproject.toml with the
    module's ``[tool.mutmut]``, and links to what the tests need."""
    work = work_dir(module)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    pyproject = (ROOT / "pyproject.toml").read_text()
    # Drop the project's own [tool.mutmut] table, up to the next table.
    pyproject = re.sub(r"(?ms)^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", "", pyproject)
    section = "\n".join(f"{k} = {toml_value(v)}" for k, v in mutmut_config(module, tests).items())
    (work / "pyproject.toml").write_text(f"{pyproject.rstrip()}\n\n[tool.mutmut]\n{section}\n")
    for name in LINKED:
        if (ROOT / name).exists():
            (work / name).symlink_to(ROOT / name)
    return work


def run_module(module: str, tests: list[str], max_children: int | None) -> Score:
    work = prepare(module, tests)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "mutmut", "run"]
    if max_children:
        command += ["--max-children", str(max_children)]
    print(f"--- {module}: mutmut run in {work.relative_to(ROOT)}", flush=True)
    if subprocess.run(command, cwd=work, env=env).returncode != 0:
        # mutmut stops when the tests fail without any mutant (or cannot be collected).
        raise SystemExit(f"mutmut run failed for {module}; its output is above (in {work})")
    subprocess.run(
        [sys.executable, "-m", "mutmut", "export-cicd-stats"],
        cwd=work,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    stats = json.loads((work / "mutants" / "mutmut-cicd-stats.json").read_text())
    listing = subprocess.run(
        [sys.executable, "-m", "mutmut", "results"],
        cwd=work,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    # "    <mutant>: <status>", for every mutant not killed.
    survivors = tuple(
        f"{name.strip()} ({status.strip()})"
        for name, _, status in (line.rpartition(": ") for line in listing.splitlines())
        if name and status.strip() not in {"killed", "timeout"}
    )
    return Score(
        module=module,
        mutants=stats["total"],
        killed=stats["killed"],
        timeout=stats["timeout"],
        suspicious=stats["suspicious"],
        survived=stats["survived"],
        no_tests=stats["no_tests"],
        skipped=stats["skipped"],
        survivors=survivors,
    )


def table(scores: list[Score]) -> str:
    rows = [
        "| module | mutants | killed | timeout | suspicious | survived | no tests | score |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    rows += [
        f"| {s.module} | {s.mutants} | {s.killed} | {s.timeout} | {s.suspicious} "
        f"| {s.survived} | {s.no_tests} | {s.percent:.1f} % |"
        for s in scores
    ]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--module",
        action="append",
        choices=sorted(TARGETS),
        metavar="PATH",
        help="a module of the table (repeatable; default: all of them)",
    )
    parser.add_argument("--max-children", type=int, help="mutmut's parallel workers")
    args = parser.parse_args(argv)
    modules = args.module or sorted(TARGETS)
    scores = [run_module(m, TARGETS[m], args.max_children) for m in modules]
    for score in scores:
        if score.survivors:
            print(f"\nSurvivors in {score.module}:")
            print("\n".join(f"  {name}" for name in score.survivors))
    print()
    print(table(scores))
    failing = [s.module for s in scores if s.percent < THRESHOLD]
    if failing:
        print(f"\nUnder {THRESHOLD:.0f} %: {', '.join(failing)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
