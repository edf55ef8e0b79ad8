"""``make run``'s launcher (scripts/run_demo.py): one Ctrl+C stops the web server and the
worker, with no log flood and nothing left running.

The trial's ``trap 'kill 0' EXIT INT TERM`` ended in ``make: *** Segmentation fault``,
thousands of ``worker: Warm shutdown`` lines and a worker left behind. Here the launcher
runs as a terminal runs it: leading its own process group, which gets the SIGINT a
Ctrl+C sends. Real uvicorn and Celery worker processes, on the filesystem broker of
``make run`` (in a temporary directory) and a fresh SQLite database.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.integration

GRACE = 10.0  # the launcher's default: what a worker gets to finish its running tasks
STARTUP_TIMEOUT = 90.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def descendants(pid: int) -> set[int]:
    """Every process below ``pid``, from /proc (the children leave its process group)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited; its parent has not read its status yet


def wait_for(log: Path, *needles: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace")
        if all(needle in text for needle in needles):
            return text
        time.sleep(0.2)
    raise AssertionError(f"never logged {needles}:\n{log.read_text(errors='replace')[-3000:]}")


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process tree from /proc")
def test_one_ctrl_c_stops_web_and_worker_cleanly(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "a2a_site.settings",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "CELERY_BROKER_URL": "filesystem://localhost//",
        "CELERY_BROKER_DIR": str(tmp_path / "broker"),
        "PYTHONUNBUFFERED": "1",
    }
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=120,
    )
    log = tmp_path / "run.log"
    port = free_port()
    with log.open("wb") as out:
        launcher = subprocess.Popen(
            [sys.executable, "-m", "scripts.run_demo", "--port", str(port)]
            + ["--schedule", str(tmp_path / "celerybeat-schedule")],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # the terminal's foreground group, led by the launcher
        )
    try:
        wait_for(log, "Uvicorn running", " ready.", "beat: Starting", timeout=STARTUP_TIMEOUT)
        started = descendants(launcher.pid)
        assert len(started) >= 4, started  # uvicorn, the worker, its pool and beat
        lines_before = len(log.read_text(errors="replace").splitlines())

        os.killpg(launcher.pid, signal.SIGINT)  # what one Ctrl+C does
        began = time.monotonic()
        assert launcher.wait(timeout=GRACE + 20) == 0
        took = time.monotonic() - began
        # The launcher kills what outlived the grace; its group's processes are gone too.
        deadline = time.monotonic() + 5
        while any(alive(pid) for pid in started) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [pid for pid in started if alive(pid)] == []
    finally:
        if launcher.poll() is None:
            os.killpg(launcher.pid, signal.SIGKILL)
            launcher.wait()
        for pid in descendants(launcher.pid):
            os.kill(pid, signal.SIGKILL)

    text = log.read_text(errors="replace")
    after = text.splitlines()[lines_before:]
    assert text.count("Warm shutdown") == 1, after[:20]
    assert len(after) < 20, after  # a few goodbye lines, no flood
    assert "Segmentation fault" not in text and "Traceback" not in text
    assert took < GRACE + 5
