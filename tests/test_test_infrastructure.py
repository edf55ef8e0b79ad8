"""The test suite as a tool drives it: stable test ids, one database per pytest session,
and no silent skip of a test that needs a service when ``CI`` is set."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from tests.conftest import ROOT

PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]

# A test file outside tests/ that records the database its session uses: loaded with the
# suite's conftest as a plugin, so that it gets the suite's database set-up.
PROBE = """
import os
import pytest
from django.db import connection

@pytest.mark.django_db
def test_probe():
    with open(os.environ["PROBE_OUT"], "a") as out:
        out.write(connection.settings_dict["NAME"] + "\\n")
"""

# Two sessions in one process, as mutmut runs them (forks of one process).
TWO_SESSIONS = """
import sys
import pytest
args = ["-c", "pyproject.toml", "--rootdir", ".", "-p", "tests.conftest",
        "-p", "no:cacheprovider", "-q", sys.argv[1]]
sys.exit(pytest.main(args) or pytest.main(args))
"""


def run(command: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_two_sessions_in_one_process_have_databases_of_their_own(tmp_path: Path):
    probe = tmp_path / "test_probe.py"
    probe.write_text(PROBE)
    out = tmp_path / "names"
    env = {"PROBE_OUT": str(out)}
    result = run([sys.executable, "-c", TWO_SESSIONS, str(probe)], **env)
    assert result.returncode == 0, result.stdout + result.stderr
    first, second = out.read_text().split()
    assert first != second
    for name in (first, second):
        if connection.vendor == "sqlite":
            assert re.fullmatch(r".*/a2a-app-test-\d+-[0-9a-f]{8}\.sqlite3", name)
            assert not Path(name).exists()  # each session drops its own at its end
        else:
            assert re.fullmatch(r"test_\w+_\d+_[0-9a-f]{8}", name)
            import psycopg  # the test database is not this test's: ask the server itself

            url = os.environ["DATABASE_URL"]
            with psycopg.connect(url) as server:
                found = server.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
                assert found.fetchone() is None  # dropped at its session's end


@pytest.mark.django_db
def test_this_session_does_not_use_the_per_process_database():
    name = connection.settings_dict["NAME"]
    assert name == connection.settings_dict["TEST"]["NAME"]
    if connection.vendor == "sqlite":
        assert Path(name).name.startswith(f"a2a-app-test-{os.getpid()}-")
    else:
        assert name.startswith("test_") and f"_{os.getpid()}_" in name


REDIS_TEST = "tests/test_streaming.py::test_redis_notifier_wakes_a_stream_for_another_process"
CLOSED_PORT = "redis://127.0.0.1:1/0"


def test_a_missing_redis_fails_in_ci_with_the_reason():
    result = run([*PYTEST, "-rf", REDIS_TEST], CI="1", TEST_REDIS_URL=CLOSED_PORT)
    assert result.returncode == 1, result.stdout
    assert "1 failed" in result.stdout
    assert f"CI: Redis at {CLOSED_PORT} is required and not reachable" in result.stdout


def test_a_missing_redis_skips_outside_ci_with_the_reason():
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    result = subprocess.run(
        [*PYTEST, "-rs", REDIS_TEST],
        cwd=ROOT,
        env={**env, "TEST_REDIS_URL": CLOSED_PORT},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout
    assert "1 skipped" in result.stdout
    assert f"Redis at {CLOSED_PORT} is required and not reachable" in result.stdout


def test_parametrized_test_ids_are_the_same_in_every_collection():
    """A tool that reruns a test by its id (mutmut, ``pytest --lf``) finds it again."""
    collections = [run([*PYTEST, "--collect-only", "-m", "not integration"]) for _ in range(2)]
    assert [c.returncode for c in collections] == [0, 0]
    first, second = ([line for line in c.stdout.splitlines() if "::" in line] for c in collections)
    assert len(first) > 500
    assert first == second
