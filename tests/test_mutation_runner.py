"""scripts/mutation.py: the table of modules and tests, the work directory it gives mutmut,
and how it scores."""

from __future__ import annotations

import tomllib

import pytest

from scripts import mutation
from tests.conftest import ROOT


@pytest.mark.parametrize("module", sorted(mutation.TARGETS))
def test_every_module_and_test_file_of_the_table_exists(module):
    assert (ROOT / module).is_file()
    assert set(mutation.DESELECTED) <= set(mutation.TARGETS)
    tests = mutation.TARGETS[module]
    assert tests and all((ROOT / t).is_file() and t.startswith("tests/") for t in tests)


def test_the_work_directory_narrows_the_projects_config(tmp_path, monkeypatch):
    monkeypatch.setattr(mutation, "WORK", tmp_path / "mutants")
    module = "a2a_app/protocol/versions.py"
    work = mutation.prepare(module, ["tests/test_protocol.py"])
    assert work == tmp_path / "mutants" / "a2a_app.protocol.versions"
    written = tomllib.loads((work / "pyproject.toml").read_text())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert written["tool"]["mutmut"] == {
        **project["tool"]["mutmut"],
        "only_mutate": [module],
        "pytest_add_cli_args_test_selection": ["tests/test_protocol.py"],
    }
    # Everything else of the project's pyproject is kept (pytest's settings above all).
    assert written["tool"]["pytest"] == project["tool"]["pytest"]
    assert written["project"] == project["project"]
    assert (work / "a2a_app").resolve() == ROOT / "a2a_app"
    assert (work / "tests").resolve() == ROOT / "tests"
    # A module's slow tests left out with pytest's -k.
    routing = mutation.prepare("a2a_app/skills/routing.py", ["tests/test_routing.py"])
    selection = tomllib.loads((routing / "pyproject.toml").read_text())["tool"]["mutmut"]
    assert selection["pytest_add_cli_args_test_selection"] == [
        "tests/test_routing.py",
        "-k",
        mutation.DESELECTED["a2a_app/skills/routing.py"],
    ]
    # A second run starts afresh.
    (work / "mutants").mkdir()
    assert not (mutation.prepare(module, ["tests/test_protocol.py"]) / "mutants").exists()


def score(**counts: int) -> mutation.Score:
    values = {"mutants": 10, "killed": 0, "timeout": 0, "suspicious": 0, "survived": 0}
    values |= {"no_tests": 0, "skipped": 0} | counts
    return mutation.Score(module="m.py", survivors=(), **values)


def test_the_score_is_mutmuts():
    assert score(killed=9, survived=1).percent == 90.0
    assert score(killed=8, timeout=1, survived=1).percent == 90.0  # a timeout is a kill
    assert score(killed=8, no_tests=2).percent == 80.0  # no test reaches it: not killed
    assert score(killed=8, skipped=2).percent == 100.0  # skipped ones are not counted
    assert score(mutants=0).percent == 100.0


def test_the_table_and_the_threshold(monkeypatch, capsys):
    scores = {"a.py": score(killed=9, survived=1), "b.py": score(killed=8, survived=2)}
    monkeypatch.setattr(mutation, "TARGETS", {"a.py": ["t"], "b.py": ["t"]})
    monkeypatch.setattr(mutation, "run_module", lambda module, tests, children: scores[module])
    assert mutation.main(["--module", "a.py"]) == 0
    assert "| m.py | 10 | 9 | 0 | 0 | 1 | 0 | 90.0 % |" in capsys.readouterr().out
    assert mutation.main([]) == 1
    assert "Under 90 %: m.py" in capsys.readouterr().out
