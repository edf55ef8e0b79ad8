"""Processes the suite starts and measures: web servers, Celery workers, CPU readings.

Every process runs in its own session so that stopping it reaches its children
(gunicorn's worker, Celery's pool); nothing else on the machine is touched.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass(frozen=True)
class Deployment:
    name: str
    label: str
    asgi: bool
    app: str = "bench"  # "bench" (the Django site) or "sdk" (the a2a-sdk comparison)
    #: Settings of this deployment's own (the environment the site's settings read).
    env: dict[str, str] = field(default_factory=dict)

    def argv(self, port: int) -> list[str]:
        if self.name == "uvicorn" or self.app == "sdk":
            target = "bench.sdk_server:app" if self.app == "sdk" else "bench.asgi:application"
            return [
                PY,
                "-m",
                "uvicorn",
                target,
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--workers",
                "1",
                "--no-access-log",
                "--log-level",
                "warning",
            ]
        worker_class = self.name.removeprefix("gunicorn-")
        argv = [
            PY,
            "-m",
            "gunicorn",
            "bench.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "1",
            "--worker-class",
            worker_class,
            "--log-level",
            "warning",
        ]
        if worker_class == "gthread":
            argv += ["--threads", "4"]
        return argv


DEPLOYMENTS = {
    "uvicorn": Deployment("uvicorn", "uvicorn (ASGI), 1 process", asgi=True),
    # One request at a time per process: the worker keeps its database connection
    # (CONN_MAX_AGE), as Django advises for such servers, rather than taking one from
    # the pool and handing it back on every request (docs/operations.md).
    "gunicorn-sync": Deployment(
        "gunicorn-sync",
        "gunicorn sync (WSGI), 1 worker, persistent database connection",
        asgi=False,
        env={"DB_CONN_MAX_AGE": "600"},
    ),
    "gunicorn-gthread": Deployment(
        "gunicorn-gthread", "gunicorn gthread (WSGI), 1 worker × 4 threads", asgi=False
    ),
    "a2a-sdk": Deployment(
        "a2a-sdk",
        "a2a-sdk 1.3.0 (Starlette, in-memory store), uvicorn, 1 process",
        asgi=True,
        app="sdk",
    ),
}
ALIASES = {"gunicorn": "gunicorn-gthread", "gthread": "gunicorn-gthread", "sync": "gunicorn-sync"}


@dataclass
class Proc:
    """A started process (and its session); ``log`` holds its output."""

    process: subprocess.Popen
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def tail(self, chars: int = 3000) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self, timeout: float = 20) -> None:
        """SIGTERM to the main process only, which stops its own children in order (a
        Celery worker finishes the jobs in flight: SIGTERM to the whole group killed its
        pool processes under it, a WorkerLostError traceback in the log); whatever is
        left of the group after it exits, or after ``timeout``, is killed."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.process.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=timeout)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)


def spawn(argv: list[str], env: dict[str, str], log: Path) -> Proc:
    log.parent.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        argv,
        cwd=ROOT,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    return Proc(process, log)


@dataclass
class Server(Proc):
    base: str = ""
    deployment: Deployment | None = None


def start_server(deployment: Deployment, env: dict[str, str], logdir: Path, tag: str) -> Server:
    import requests

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    if deployment.app == "sdk":
        env = {**env, "BENCH_SDK_URL": base}
    proc = spawn(deployment.argv(port), {**env, **deployment.env}, logdir / f"{tag}.log")
    server = Server(proc.process, proc.log, base=base, deployment=deployment)
    probe = "/.well-known/agent-card.json" if deployment.app == "sdk" else "/bench/json"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if not server.alive():
            raise RuntimeError(f"{deployment.name} exited:\n{server.tail()}")
        try:
            if requests.get(base + probe, timeout=2).status_code == 200:
                return server
        except requests.RequestException:
            pass
        time.sleep(0.2)
    server.stop()
    raise RuntimeError(f"{deployment.name} did not answer within 60 s:\n{server.tail()}")


def start_worker(env: dict[str, str], logdir: Path, tag: str, concurrency: int) -> Proc:
    """``celery -A a2a_site worker`` (no beat: nothing but the queued work runs)."""
    [worker] = start_workers(env, logdir, [tag], concurrency)
    return worker


def start_workers(
    env: dict[str, str], logdir: Path, tags: list[str], concurrency: int
) -> list[Proc]:
    """Workers started together, returned once all are ready: started one after the
    other, the first would take the queued work alone while the next one boots."""
    procs = [_spawn_worker(env, logdir, tag, concurrency) for tag in tags]
    deadline = time.monotonic() + 60
    waiting = list(procs)
    while waiting and time.monotonic() < deadline:
        for proc in list(waiting):
            if not proc.alive():
                for other in procs:
                    other.stop()
                raise RuntimeError(f"celery worker exited:\n{proc.tail()}")
            if b" ready." in proc.log.read_bytes():
                waiting.remove(proc)
        time.sleep(0.1)
    if waiting:
        for proc in procs:
            proc.stop()
        raise RuntimeError(f"celery worker not ready within 60 s:\n{waiting[0].tail()}")
    return procs


def _spawn_worker(env: dict[str, str], logdir: Path, tag: str, concurrency: int) -> Proc:
    argv = [
        PY,
        "-m",
        "celery",
        "-A",
        "a2a_site",
        "worker",
        "--concurrency",
        str(concurrency),
        "--loglevel",
        "INFO",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "--hostname",
        f"bench-{tag}-{os.getpid()}@%h",
    ]
    return spawn(argv, env, logdir / f"{tag}.log")


# --- CPU --------------------------------------------------------------------------------


def _cpu(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system


@dataclass
class CpuReading:
    per_pid: dict[int, float] = field(default_factory=dict)

    def __sub__(self, before: CpuReading) -> float:
        """CPU seconds spent between two readings by the processes alive at the second."""
        return sum(cpu - before.per_pid.get(pid, 0.0) for pid, cpu in self.per_pid.items())


def tree_cpu(pid: int) -> CpuReading:
    """CPU seconds of a process and all its descendants."""
    reading = CpuReading()
    try:
        root = psutil.Process(pid)
        processes = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return reading
    for process in processes:
        with contextlib.suppress(psutil.NoSuchProcess):
            reading.per_pid[process.pid] = _cpu(process)
    return reading


def postgres_cpu(database: str) -> CpuReading:
    """CPU seconds of the PostgreSQL backends serving ``database`` (on this machine).

    Backends show ``postgres: <user> <database> <client> <activity>`` as their command
    line; the server's own background processes are left out.
    """
    reading = CpuReading()
    marker = f" {database} "
    for process in psutil.process_iter(["name", "cmdline"]):
        try:
            if process.info["name"] != "postgres":
                continue
            cmdline = " ".join(process.info["cmdline"] or ())
            if cmdline.startswith("postgres: ") and marker in cmdline:
                reading.per_pid[process.pid] = _cpu(process)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return reading
