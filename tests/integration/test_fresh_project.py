"""The README's "Add a2a_app to your own site", followed to the letter by a newcomer.

The wheel is built from this checkout and installed, with the extras the README's
``pip install`` names, in a fresh virtualenv. Then, in an empty directory, the README's
blocks are applied in order, exactly as they stand in README.md: each block follows an
HTML comment that says what it is,

* ``<!-- snippet: install -->``: the ``pip install`` line (only its extras are used: the
  package comes from the wheel);
* ``<!-- snippet: shell -->``: commands, run one by one (``cd`` moves; ``uvicorn`` is
  started in the background on a free port);
* ``<!-- snippet: PATH -->`` / ``<!-- snippet: PATH append -->``: a file's whole text /
  text added at its end;
* ``<!-- snippet: request -->``: a ``curl`` call of the agent, sent as it is (to the
  server's port, with ``<task id>`` replaced by the task's id); ``request plain-text``: one
  of the conversation in plain text.

The site that results must answer over HTTP: its card lists the skill, the admin's CSS
loads, and the README's conversation ends COMPLETED.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.integration

README = ROOT / "README.md"
SNIPPET = re.compile(
    r"<!-- snippet: (?P<target>[^>]+?) -->\s*\n```[a-z]*\n(?P<body>.*?)^```", re.S | re.M
)
#: Environment variables of the test run that a newcomer's shell does not have.
FOREIGN_ENV = (
    "DJANGO_",
    "PYTHON",
    "VIRTUAL_ENV",
    "DATABASE_URL",
    "CELERY_",
    "A2A_",
    "CACHE_URL",
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
)
#: What goes into the wheel besides the app: its metadata.
DIST_INFO = re.compile(r"^django_a2a_app-[^/]+\.dist-info/")
COMMAND_TIMEOUT = 120


@dataclass(frozen=True)
class Snippet:
    target: str
    body: str


def readme_snippets() -> list[Snippet]:
    snippets = [
        Snippet(m["target"].strip(), m["body"]) for m in SNIPPET.finditer(README.read_text())
    ]
    assert snippets, "README.md has no <!-- snippet: ... --> blocks"
    return snippets


def readme_extras() -> str:
    """The extras of the README's ``pip install "django-a2a-app[...]"``."""
    (install,) = [s for s in readme_snippets() if s.target == "install"]
    found = re.findall(r"django-a2a-app\[([a-z0-9,]+)\]", install.body)
    assert found, f"no `pip install django-a2a-app[...]` in the install snippet:\n{install.body}"
    return found[0]


# --- the package -----------------------------------------------------------------------------


def checkout_files() -> list[Path]:
    """The files of this working tree that a clean checkout would have (no venvs, no
    caches, no build leftovers), with uncommitted changes."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [Path(name) for name in listed.split("\0") if name and (ROOT / name).is_file()]


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the checkout: the build writes nothing into the working tree, and finds
    no stale ``build/`` there."""
    copy = tmp_path_factory.mktemp("checkout")
    for name in checkout_files():
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, copy / name)
    return copy


@pytest.fixture(scope="module")
def wheel(source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(source)])
    (built,) = dist.glob("django_a2a_app-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv with the wheel and the README's extras; its ``bin`` directory."""
    root = tmp_path_factory.mktemp("venv")
    # No pip of its own (ensurepip takes seconds): this pip installs into it.
    run([sys.executable, "-m", "venv", "--without-pip", str(root)])
    python = root / "bin" / "python"
    run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q"]
        + [f"{wheel}[{readme_extras()}]"]
    )
    return root / "bin"


def test_the_wheel_holds_the_app_and_nothing_of_the_demo(wheel: Path, source: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = next(
            archive.read(n).decode() for n in names if n.endswith(".dist-info/METADATA")
        )
    app_files = {n for n in names if not DIST_INFO.match(n)}
    assert all(n.startswith("a2a_app/") for n in app_files), sorted(
        n for n in app_files if not n.startswith("a2a_app/")
    )
    # Everything of the app in the checkout: modules, migrations, management commands,
    # and whatever data it grows (templates, static files, translations, py.typed).
    expected = {
        path.relative_to(source).as_posix()
        for path in source.joinpath("a2a_app").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert expected - app_files == set(), "missing from the wheel (pyproject package-data?)"
    assert app_files - expected == set()
    assert "a2a_app/migrations/0001_initial.py" in app_files
    assert "a2a_app/management/commands/a2a_skills.py" in app_files
    # The extras the README explains.
    for extra in ("asgi", "postgres", "redis"):
        assert f"Provides-Extra: {extra}" in metadata
    assert "Requires-Dist: Django>=5.2" in metadata


# --- following the README ----------------------------------------------------------------------


def newcomer_env(bin_dir: Path) -> dict[str, str]:
    """The environment of a shell with the virtualenv activated, nothing of this test run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(FOREIGN_ENV)}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(bin_dir.parent)
    return env


def run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess:
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=COMMAND_TIMEOUT, **kwargs
    )
    assert done.returncode == 0, f"{shlex.join(command)}:\n{done.stdout}\n{done.stderr}"
    return done


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Site:
    url: str
    log: Path
    requests: list[str]
    text_requests: list[str]


@contextlib.contextmanager
def follow_readme(workdir: Path, bin_dir: Path) -> Iterator[Site]:
    """Apply the README's blocks in order in ``workdir``; yield the site once it serves."""
    env = newcomer_env(bin_dir)
    cwd = workdir
    servers: list[subprocess.Popen] = []
    site = Site("", workdir / "uvicorn.log", [], [])
    try:
        for snippet in readme_snippets():
            target, _, mode = snippet.target.partition(" ")
            if target == "install":
                continue  # the venv fixture installed the wheel with these extras
            if target == "request":
                (site.text_requests if mode == "plain-text" else site.requests).append(snippet.body)
            elif target == "shell":
                for line in snippet.body.splitlines():
                    command = shlex.split(line, comments=True)
                    if not command:
                        continue
                    if command[0] == "cd":
                        cwd = cwd / command[1]
                    elif command[0] == "uvicorn":
                        servers.append(start_uvicorn(command, cwd, env, site))
                    else:
                        assert command[0] != "celery", "the README now needs a worker: start it"
                        run(command, cwd=cwd, env=env)
            else:
                path = cwd / target
                text = snippet.body
                if mode == "append":
                    with path.open("a") as file:
                        file.write("\n" + text)
                else:
                    assert mode == "", f"unknown snippet mode {snippet.target!r}"
                    path.write_text(text)
        assert servers, "the README starts no server"
        yield site
    finally:
        for server in servers:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait(timeout=10)


def start_uvicorn(
    command: list[str], cwd: Path, env: dict[str, str], site: Site
) -> subprocess.Popen:
    port = free_port()
    with site.log.open("wb") as log:
        server = subprocess.Popen(
            [*command, "--port", str(port)],
            cwd=cwd,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its whole process group is ended after the test
        )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert server.poll() is None, f"uvicorn exited:\n{site.log.read_text()}"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            site.url = f"http://127.0.0.1:{port}"
            return server
        except OSError:
            time.sleep(0.1)
    os.killpg(server.pid, signal.SIGKILL)
    raise AssertionError(f"uvicorn did not listen within 30 s:\n{site.log.read_text()}")


# --- talking to the site ----------------------------------------------------------------------


def fetch(
    url: str, data: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def send_readme_request(
    site: Site, curl: str, task_id: str = "", edit: Any = None
) -> dict[str, Any]:
    """Send one of the README's ``curl`` calls to the site: its JSON-RPC result.

    ``edit(payload)`` may change the request first (a test's own variation)."""
    command = shlex.split(curl.replace("<task id>", task_id))
    assert command[0] == "curl", curl
    url = next(arg for arg in command if arg.startswith("http://"))
    headers = dict(command[i + 1].split(": ", 1) for i, arg in enumerate(command) if arg == "-H")
    payload = json.loads(command[command.index("-d") + 1])
    if edit is not None:
        edit(payload)
    body = json.dumps(payload).encode()
    url = re.sub(r"^http://127\.0\.0\.1:8000", site.url, url)
    status, _, answer = fetch(url, body, headers)
    assert status == 200, answer
    decoded = json.loads(answer)
    assert "result" in decoded, decoded
    return decoded["result"]


def said(message: dict[str, Any]) -> str:
    """What a message says, its text and its data, as one string."""
    return " ".join(
        part["text"] if "text" in part else json.dumps(part.get("data"))
        for part in message.get("parts", [])
    )


def hold_the_readme_conversation(site: Site) -> None:
    status, _, body = fetch(f"{site.url}/.well-known/agent-card.json")
    assert status == 200, body
    card = json.loads(body)
    assert card["name"] == "Clinic Example"
    assert [s["id"] for s in card["skills"]] == ["request-appointment"]

    # The admin is styled: uvicorn serves no static files, the README's asgi.py does.
    status, headers, css = fetch(f"{site.url}/static/admin/css/base.css")
    assert status == 200 and headers["Content-Type"].startswith("text/css"), status
    status, _, page = fetch(f"{site.url}/admin/login/")
    assert status == 200 and b"/static/admin/css/base.css" in page

    first, answer, get = site.requests
    task = send_readme_request(site, first)["task"]
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED", task
    question = said(task["status"]["message"]).lower().replace("e-mail", "email")
    assert "name" in question and "email" in question, question

    done = send_readme_request(site, answer, task["id"])["task"]
    assert done["id"] == task["id"]
    assert done["status"]["state"] == "TASK_STATE_COMPLETED", done
    (artifact,) = done["artifacts"]
    data = next(part["data"] for part in artifact["parts"] if "data" in part)
    assert data == {"day": "2026-12-14", "name": "Anna Schmidt", "email": "anna@example.com"}
    assert "Monday 14 December 2026" in said(artifact)

    again = send_readme_request(site, get, task["id"])
    assert again["status"]["state"] == "TASK_STATE_COMPLETED"
    assert [m["messageId"] for m in again["history"] if m["role"] == "ROLE_USER"] == [
        "m1",
        "m2",
    ]
    assert_clean_log(site)


def assert_clean_log(site: Site) -> None:
    """Nothing but uvicorn's INFO lines: no traceback, warning or lifespan complaint."""
    log = site.log.read_text()
    assert all(line.startswith("INFO:") for line in log.splitlines()), log
    assert "lifespan" not in log, log


def hold_the_plain_text_conversation(site: Site) -> None:
    """The README's conversation in plain text; a bad e-mail address on the way is asked
    for again with the form's message."""
    first, answer = site.text_requests
    task = send_readme_request(site, first)["task"]
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED", task

    def bad_address(payload: dict[str, Any]) -> None:
        payload["params"]["message"].update(
            messageId="m-bad", parts=[{"text": "Anna Schmidt, anna(at)example.com"}]
        )

    again = send_readme_request(site, answer, task["id"], edit=bad_address)["task"]
    assert again["status"]["state"] == "TASK_STATE_INPUT_REQUIRED", again
    assert "email" in said(again["status"]["message"]).lower().replace("e-mail", "email")

    done = send_readme_request(site, answer, task["id"])["task"]
    assert done["status"]["state"] == "TASK_STATE_COMPLETED", done
    (artifact,) = done["artifacts"]
    data = next(part["data"] for part in artifact["parts"] if "data" in part)
    assert (data["name"], data["email"]) == ("Anna Schmidt", "anna@example.com")
    day = date.fromisoformat(data["day"])
    assert day.weekday() == 0 and day > date.today(), day  # "next Monday"
    assert_clean_log(site)


def test_the_readme_makes_a_site_that_holds_a_conversation(venv: Path, tmp_path: Path) -> None:
    with follow_readme(tmp_path, venv) as site:
        hold_the_readme_conversation(site)
        hold_the_plain_text_conversation(site)
