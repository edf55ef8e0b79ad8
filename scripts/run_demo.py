"""``make run``: the demo's web server and Celery worker, stopped together by one Ctrl+C.

    python -m scripts.run_demo [--host 127.0.0.1] [--port 8000]

Starts uvicorn and ``celery worker -B`` as children, each in a process group of its own,
so the terminal's Ctrl+C reaches this launcher only. The launcher then asks each child
once to stop (SIGINT to uvicorn, SIGTERM to the worker: a warm shutdown that finishes
the running tasks), waits up to ``--grace`` seconds, and kills what is left, pool
processes and the embedded beat included (the whole group). A second Ctrl+C kills at
once. It also stops everything when one child exits on its own, or on SIGTERM or SIGHUP.

Why not a shell ``trap 'kill 0' EXIT INT TERM``: ``kill 0`` signals the shell too, whose
TERM trap signals everyone again, and again: the worker logs a warm shutdown per signal
(thousands of lines) and bash ends in a segmentation fault, leaving the worker behind.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class Child:
    """A child process in a group of its own, stopped with ``stop_signal``."""

    def __init__(self, name: str, argv: Sequence[str], stop_signal: signal.Signals) -> None:
        self.name = name
        self.stop_signal = stop_signal
        # A session (and process group) of its own: outside the terminal's foreground
        # group, so a Ctrl+C reaches it only through the launcher, once; and without
        # the terminal as its controlling one, so `stty tostop` cannot stop its output.
        self.process = subprocess.Popen(list(argv), cwd=ROOT, start_new_session=True)

    def running(self) -> bool:
        return self.process.poll() is None

    def signal_group(self, signum: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError):  # already gone, with all of its group
            os.killpg(self.process.pid, signum)

    def stop(self) -> None:
        # The group leader only: the worker stops its own pool and beat in order.
        if self.running():
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(self.stop_signal)


def commands(host: str, port: int, schedule: Path) -> list[tuple[str, list[str], signal.Signals]]:
    python = sys.executable
    return [
        (
            "worker",
            [
                python,
                "-m",
                "celery",
                "-A",
                "a2a_site",
                "worker",
                "-B",
                "--loglevel",
                "INFO",
                "--concurrency",
                "2",
                "--schedule",
                str(schedule),
            ],
            signal.SIGTERM,
        ),
        (
            "web",
            [
                python,
                "-m",
                "uvicorn",
                "a2a_site.asgi:application",
                "--host",
                host,
                "--port",
                str(port),
                # Django's ASGI handler has no lifespan events: don't log that it has none.
                "--lifespan",
                "off",
            ],
            signal.SIGINT,
        ),
    ]


def run(host: str, port: int, grace: float, schedule: Path) -> int:
    schedule.parent.mkdir(parents=True, exist_ok=True)
    stopping: list[int] = []

    def on_signal(signum: int, frame: object) -> None:
        stopping.append(signum)

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, on_signal)
    children = [Child(name, argv, stop) for name, argv, stop in commands(host, port, schedule)]
    try:
        while not stopping and all(child.running() for child in children):
            time.sleep(0.1)
        if not stopping:
            gone = next(child for child in children if not child.running())
            print(f"run_demo: the {gone.name} stopped; stopping the rest.", file=sys.stderr)
        for child in children:
            child.stop()
        deadline = time.monotonic() + grace
        interrupts = len(stopping)
        while any(child.running() for child in children) and time.monotonic() < deadline:
            if len(stopping) > interrupts:  # a second Ctrl+C: no more waiting
                break
            time.sleep(0.1)
    finally:
        for child in children:
            # Whatever is left of each group: a worker that outlived its grace, the pool
            # processes and beat of a worker that died first.
            child.signal_group(signal.SIGKILL)
            child.process.wait()
    return 0 if stopping else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--grace",
        type=float,
        default=10.0,
        help="seconds the worker may take to finish its running tasks (default 10)",
    )
    parser.add_argument(
        "--schedule",
        type=Path,
        default=ROOT / "var" / "celerybeat-schedule",
        help="where beat keeps its schedule (default var/celerybeat-schedule)",
    )
    args = parser.parse_args(argv)
    return run(args.host, args.port, args.grace, args.schedule)


if __name__ == "__main__":
    sys.exit(main())
