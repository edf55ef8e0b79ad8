"""Where the suite finds its parts: paths, the broker, the database URL."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LUA = ROOT / "bench" / "lua"
REPORT = ROOT / "docs" / "performance.md"
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/7")
SQLITE_PATH = Path(os.environ.get("BENCH_SQLITE_PATH", "/tmp/a2a-bench.sqlite3"))
LOCK_PATH = Path("/tmp/a2a-bench.lock")


def database_url() -> str:
    """``DATABASE_URL``, or a SQLite file under /tmp."""
    return os.environ.get("DATABASE_URL", "") or f"sqlite:///{SQLITE_PATH}"


def is_postgres(url: str) -> bool:
    return url.startswith(("postgres://", "postgresql://", "pgsql://"))


def redis_client():
    import redis

    return redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)


def redis_ok() -> bool:
    import redis

    try:
        redis_client().ping()
    except redis.RedisError:
        return False
    return True


def queue_length() -> int:
    client = redis_client()
    return sum(client.llen(key) for key in client.keys("celery*") if client.type(key) == b"list")


CODE_DIRS = ("a2a_app", "a2a_site", "bench")


def code_files() -> dict[str, str]:
    """A hash of each .py file of the measured code: did it change during the run?"""
    return {
        str(path.relative_to(ROOT)): hashlib.sha256(path.read_bytes()).hexdigest()[:12]
        for directory in CODE_DIRS
        for path in sorted((ROOT / directory).rglob("*.py"))
    }


def code_version() -> str:
    """The commit measured, and whether the working tree differs from it."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
        return done.stdout.strip()

    commit = git("log", "-1", "--format=%h %s")
    if not commit:
        return "unknown (not a git checkout)"
    dirty = git("status", "--porcelain", "--", "a2a_app", "a2a_site")
    return f"`{commit}`" + (" with uncommitted changes in a2a_app/a2a_site" if dirty else "")
