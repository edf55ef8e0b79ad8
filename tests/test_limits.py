"""Limits (docs/security.md, "Limits and rate limits"): rate limits, caps on what one
request may carry or hold, anonymous task creation, and no resource held while waiting.

Each test reproduces one finding of the red team (issue #13) at a small scale: the limit
is set low, and the request past it must be refused with the documented error before
anything is written.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import AsyncClient, Client

from a2a_app.caller import Caller
from a2a_app.core import limits, runner
from a2a_app.models import PushConfig, Task, TaskArtifact
from tests.conftest import user_message
from tests.support import error_info, error_of, new_task, rest_error, send, violated_fields

JSON = dict[str, Any]
RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"
HOOK = "https://hooks.example.com/a2a"


@pytest.fixture
def limit(settings) -> Callable[..., None]:
    """``limit(RATE_LIMITS={...}, MAX_...=n)``: those settings for this test."""

    def configure(**values: Any) -> None:
        settings.A2A_APP = {**settings.A2A_APP, **values}

    return configure


@pytest.fixture
def job(install) -> str:
    """An inline skill that asks for more input (its tasks take follow-ups)."""
    return install(lambda ctx: ctx.ask("and then?"), key="job")


def rest_send(client: Client, text: str = "hello", **headers: str) -> Any:
    body = {"message": user_message(text)}
    return client.post(
        "/a2a/rest/message:send", json.dumps(body), content_type="application/json", **headers
    )


# --- rate limits -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_sends_over_the_rate_get_429_with_retry_after_before_any_row(rpc, job, limit):
    limit(RATE_LIMITS={"SendMessage": "3/min"})
    for i in range(3):
        new_task(rpc, f"hello {i}")
    tasks = Task.objects.count()
    body = rpc("SendMessage", {"message": user_message("one more")}, status=429)
    error = error_of(body, -32000)
    assert error_info(error)["reason"] == "RATE_LIMIT_EXCEEDED"
    assert error_info(error)["metadata"]["rule"] == "SendMessage"
    [retry] = [d for d in error["data"] if d["@type"] == RETRY_INFO]
    seconds = int(retry["retryDelay"].removesuffix("s"))
    assert 1 <= seconds <= 60 + 60 // 3  # the rest of the window, then a third of the next
    assert Task.objects.count() == tasks
    # Other operations have their own (default) allowance.
    assert "result" in rpc("GetTask", {"id": str(Task.objects.first().pk)})


@pytest.mark.django_db
def test_rest_answers_429_with_retry_after_header(client, job, limit):
    limit(RATE_LIMITS={"SendMessage": "1/hour"})
    assert rest_send(client).status_code == 200
    response = rest_send(client)
    error = rest_error(response, 429, "RESOURCE_EXHAUSTED", "RATE_LIMIT_EXCEEDED")
    # The sliding window may hold a limit of one for up to two windows.
    assert 1 <= int(response["Retry-After"]) <= 2 * 3600
    assert any(d["@type"] == RETRY_INFO for d in error["details"])
    assert Task.objects.count() == 1


@pytest.mark.django_db
def test_the_default_rule_covers_operations_without_their_own(rpc, job, limit):
    limit(RATE_LIMITS={"default": "2/min", "SendMessage": None})
    task = new_task(rpc)
    rpc("GetTask", {"id": task["id"]})
    rpc("GetTask", {"id": task["id"]})
    error_of(rpc("GetTask", {"id": task["id"]}, status=429), -32000)
    new_task(rpc, "SendMessage is not limited")


@pytest.mark.django_db
def test_anonymous_callers_are_counted_per_address(job, limit):
    limit(RATE_LIMITS={"SendMessage": "1/min"})
    first, second = Client(REMOTE_ADDR="192.0.2.1"), Client(REMOTE_ADDR="192.0.2.2")
    assert rest_send(first).status_code == 200
    assert rest_send(first).status_code == 429
    assert rest_send(second).status_code == 200
    # An IPv6 client holds its whole /64.
    one, other = Client(REMOTE_ADDR="2001:db8::1"), Client(REMOTE_ADDR="2001:db8::ffff")
    assert rest_send(one).status_code == 200
    assert rest_send(other).status_code == 429


@pytest.mark.django_db
def test_behind_a_proxy_the_client_is_what_the_proxy_saw(job, limit):
    limit(RATE_LIMITS={"SendMessage": "1/min"}, CLIENT_IP_HEADER="X-Forwarded-For")
    proxy = Client(REMOTE_ADDR="10.0.0.1")
    # The leftmost entries are the client's own word: forging them changes nothing.
    assert rest_send(proxy, HTTP_X_FORWARDED_FOR="1.1.1.1, 198.51.100.7").status_code == 200
    assert rest_send(proxy, HTTP_X_FORWARDED_FOR="2.2.2.2, 198.51.100.7").status_code == 429
    assert rest_send(proxy, HTTP_X_FORWARDED_FOR="198.51.100.8").status_code == 200


@pytest.mark.django_db
def test_authenticated_callers_are_counted_per_user_not_per_address(job, limit):
    limit(RATE_LIMITS={"SendMessage": "1/min"})
    users = get_user_model().objects
    users.create_user("alice", password="alice-pw")
    users.create_user("bob", password="bob-pw")
    same_address = Client(REMOTE_ADDR="192.0.2.9")
    alice, bob = basic_auth("alice", "alice-pw"), basic_auth("bob", "bob-pw")
    assert rest_send(same_address, HTTP_AUTHORIZATION=alice).status_code == 200
    assert rest_send(same_address, HTTP_AUTHORIZATION=bob).status_code == 200
    assert rest_send(same_address).status_code == 200  # anonymous: its address
    assert rest_send(same_address, HTTP_AUTHORIZATION=alice).status_code == 429


def basic_auth(user: str, password: str) -> str:
    import base64

    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@pytest.mark.django_db
def test_a_skill_limit_counts_new_tasks_of_that_skill_after_routing(rpc, install, limit):
    install(lambda ctx: ctx.ask("which table?"), key="book")
    install(lambda ctx: ctx.ask("what else?"), key="menu")
    limit(RATE_LIMITS={"skill:book": "2/hour"})
    book = {"skillId": "book"}
    first = new_task(rpc, "table for 2", metadata=book)
    new_task(rpc, "table for 4", metadata=book)
    tasks = Task.objects.count()
    params = {"message": user_message("table for 6"), "metadata": book}
    error = error_of(rpc("SendMessage", params, status=429), -32000)
    assert error_info(error)["metadata"]["rule"] == "skill:book"
    assert Task.objects.count() == tasks
    # Other skills, and follow-ups of the tasks already made, are not this limit's business.
    new_task(rpc, "the menu", metadata={"skillId": "menu"})
    follow_up = send(rpc, "at 8", taskId=first["id"], contextId=first["contextId"])
    assert "result" in follow_up, follow_up


def test_a_refused_request_is_not_counted(monkeypatch, settings):
    settings.A2A_APP = {**settings.A2A_APP, "RATE_LIMITS": {"x": "2/min"}}
    caller = Caller(address="192.0.2.1")
    now = [6000.0]
    monkeypatch.setattr(limits.time, "time", lambda: now[0])
    limits.check_rate("x", caller)
    limits.check_rate("x", caller)
    for _ in range(10):  # a client hammering while refused
        with pytest.raises(limits.RateLimitedError):
            limits.check_rate("x", caller)
    # Half-way through the next window the two admitted requests count as one: room for one.
    now[0] = 6090.0
    limits.check_rate("x", caller)
    with pytest.raises(limits.RateLimitedError):
        limits.check_rate("x", caller)


def test_rates_parse_and_the_sliding_window_waits_for_room(monkeypatch, settings):
    assert limits.parse_rate("60/min") == limits.Rate(60, 60)
    assert limits.parse_rate("10 / hour") == limits.Rate(10, 3600)
    assert limits.parse_rate("100/5min") == limits.Rate(100, 300)
    assert limits.parse_rate("1/days") == limits.Rate(1, 86400)
    with pytest.raises(ValueError):
        limits.parse_rate("lots")
    settings.A2A_APP = {**settings.A2A_APP, "RATE_LIMITS": {"x": "4/min"}}
    caller = Caller(address="192.0.2.1")
    now = [6000.0]  # a window boundary (100 × 60 s)
    monkeypatch.setattr(limits.time, "time", lambda: now[0])
    for _ in range(4):
        limits.check_rate("x", caller)
    with pytest.raises(limits.RateLimitedError) as refused:
        limits.check_rate("x", caller)
    assert refused.value.retry_after == 60 * 1 - 0 + 15  # the next window, 1/4 of it slid out
    # Half-way through the next window, half the previous one still counts: 2 of 4.
    now[0] = 6090.0
    limits.check_rate("x", caller)
    limits.check_rate("x", caller)
    with pytest.raises(limits.RateLimitedError) as refused:
        limits.check_rate("x", caller)
    assert refused.value.retry_after == 15  # when the estimate drops below 3


def test_counters_in_a_shared_redis_cache(redis_server, settings):
    """What a site with several processes uses: the counts live in Redis."""
    url, _ = redis_server
    settings.CACHES = {
        **settings.CACHES,
        "limits": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url},
    }
    settings.A2A_APP = {
        **settings.A2A_APP,
        "RATE_LIMITS": {"x": "2/min"},
        "RATE_LIMIT_CACHE": "limits",
    }
    caller = Caller(address="192.0.2.1")
    limits.check_rate("x", caller)
    limits.check_rate("x", caller)
    with pytest.raises(limits.RateLimitedError):
        limits.check_rate("x", caller)
    limits.check_rate("x", Caller(address="192.0.2.2"))
    import redis

    client = redis.Redis.from_url(url)
    counted = sorted(int(client.get(key)) for key in client.scan_iter())
    assert counted == [1, 2]  # the refused request was taken back


# --- anonymous task creation ---------------------------------------------------------------------


@pytest.mark.django_db
def test_anonymous_task_creation_can_be_switched_off(rpc, client, job, limit):
    task = new_task(rpc)  # made while it was allowed
    limit(ANONYMOUS_TASK_CREATION=False)
    response = client.post(
        "/a2a/jsonrpc",
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
                    "params": {"message": user_message()}}),
        content_type="application/json",
    )  # fmt: skip
    assert response.status_code == 401
    assert 'Basic realm="api"' in response["WWW-Authenticate"]
    error_of(response.json(), -32000)
    rest = rest_send(client)
    rest_error(rest, 401, "UNAUTHENTICATED", "UNAUTHENTICATED")
    assert 'Basic realm="api"' in rest["WWW-Authenticate"]
    assert Task.objects.count() == 1
    # Reads follow their own rules, and so does a follow-up of an existing task.
    assert rpc("GetTask", {"id": task["id"]})["result"]["id"] == task["id"]
    assert "result" in send(rpc, "more", taskId=task["id"])
    # Authenticated callers still create tasks.
    get_user_model().objects.create_user("alice", password="alice-pw")
    assert rest_send(client, HTTP_AUTHORIZATION=basic_auth("alice", "alice-pw")).status_code == 200


# --- what one message may carry ------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("setting", "cap", "parts", "field"),
    [
        ("MAX_MESSAGE_PARTS", 3, [{"text": "a"}] * 4, "message.parts"),
        ("MAX_TEXT_PART_CHARS", 10, [{"text": "a"}, {"text": "b" * 11}], "message.parts[1].text"),
        ("MAX_MESSAGE_BYTES", 400, [{"data": {"k": "v" * 500}}], "message"),
    ],
)
def test_messages_over_a_cap_are_invalid_params_naming_the_field(
    rpc, job, limit, setting, cap, parts, field
):
    limit(**{setting: cap})
    body = rpc("SendMessage", {"message": user_message(parts=parts)})
    assert violated_fields(error_of(body, -32602)) == [field]
    assert not Task.objects.exists()


@pytest.mark.django_db
def test_history_length_is_clamped_to_the_cap(rpc, job, limit):
    task = new_task(rpc, "one")
    for text in ("two", "three"):
        send(rpc, text, taskId=task["id"])
    limit(MAX_HISTORY_LENGTH=2)
    for params in ({"id": task["id"]}, {"id": task["id"], "historyLength": 50}):
        history = rpc("GetTask", params)["result"]["history"]
        assert len(history) == 2
    listed = rpc("ListTasks", {"contextId": task["contextId"]})["result"]["tasks"]
    assert len(listed[0]["history"]) == 2
    assert len(rpc("GetTask", {"id": task["id"], "historyLength": 1})["result"]["history"]) == 1


# --- push configs per task -----------------------------------------------------------------------


@pytest.mark.django_db
def test_push_configs_per_task_are_capped(rpc, job, limit, no_dns, settings):
    settings.A2A_APP = {**settings.A2A_APP, "WEBHOOK_ALLOWED_HOSTS": ["hooks.example.com"]}
    limit(MAX_PUSH_CONFIGS_PER_TASK=2)
    task = new_task(rpc)
    for i in range(2):
        config = {"taskId": task["id"], "url": f"{HOOK}/{i}"}
        assert "result" in rpc("CreateTaskPushNotificationConfig", config)
    body = rpc("CreateTaskPushNotificationConfig", {"taskId": task["id"], "url": f"{HOOK}/3"})
    error = error_of(body, -32000)
    assert error_info(error)["reason"] == "LIMIT_EXCEEDED"
    # The client is told which cap it hit and how high it is.
    assert error_info(error)["metadata"] == {"limit": "2", "setting": "MAX_PUSH_CONFIGS_PER_TASK"}
    assert "at most 2 push notification configs" in error["message"]
    # A config sent with a follow-up counts too; re-using an id replaces, it adds none.
    with_config = {"taskPushNotificationConfig": {"url": f"{HOOK}/4"}}
    error_of(send(rpc, "more", taskId=task["id"], configuration=with_config), -32000)
    first_id = rpc("ListTaskPushNotificationConfigs", {"taskId": task["id"]})["result"]["configs"][
        0
    ]["id"]
    replaced = {"taskId": task["id"], "id": first_id, "url": f"{HOOK}/5"}
    assert "result" in rpc("CreateTaskPushNotificationConfig", replaced)
    assert PushConfig.objects.filter(task_id=task["id"]).count() == 2


# --- ListTasks bounded by bytes ------------------------------------------------------------------


@pytest.mark.django_db
def test_list_tasks_pages_stop_at_max_page_bytes_and_continue(rpc, install, limit):
    install(lambda ctx: ctx.complete("x" * 3000), key="big")
    first = new_task(rpc, "big 0", metadata={"skillId": "big"})
    sized = first["contextId"]  # generated: an anonymous caller lists only such contexts
    ids = [first["id"]] + [
        new_task(rpc, f"big {i}", contextId=sized, metadata={"skillId": "big"})["id"]
        for i in range(1, 5)
    ]
    limit(MAX_PAGE_BYTES=7000)  # two tasks' artifacts and history, not three
    seen: list[str] = []
    token, pages = "", 0
    while True:
        params = {"contextId": sized, "includeArtifacts": True, "pageSize": 10}
        result = rpc("ListTasks", {**params, "pageToken": token} if token else params)["result"]
        page = [t["id"] for t in result["tasks"]]
        assert 1 <= len(page) <= 2, page
        seen += page
        pages += 1
        token = result["nextPageToken"]
        if not token:
            break
    assert sorted(seen) == sorted(ids) and len(seen) == len(set(seen))
    assert pages == 3
    # One task over the limit is still answered, whole, one per page.
    limit(MAX_PAGE_BYTES=100)
    result = rpc("ListTasks", {"contextId": sized, "includeArtifacts": True})["result"]
    assert len(result["tasks"]) == 1 and result["nextPageToken"]
    assert result["tasks"][0]["artifacts"][0]["parts"][0]["text"] == "x" * 3000
    # Without artifacts (and no history), the page is not cut by them.
    lean = rpc("ListTasks", {"contextId": sized, "historyLength": 0})["result"]
    assert len(lean["tasks"]) == 5
    assert TaskArtifact.objects.count() == 5


# --- open streams per caller ---------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_open_streams_per_caller_are_capped_and_given_back(rpc, install, limit, fast_streams):
    install(lambda ctx: ctx.keep_working("waiting"), key="slow")
    task = new_task(rpc, "go", metadata={"skillId": "slow"})
    limit(MAX_STREAMS_PER_CALLER=2)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SubscribeToTask",
                       "params": {"id": task["id"]}})  # fmt: skip

    async def scenario() -> None:
        client = AsyncClient()

        async def subscribe() -> Any:
            return await client.post("/a2a/jsonrpc", body, content_type="application/json")

        first, second = await subscribe(), await subscribe()
        assert first.streaming and second.streaming
        third = await subscribe()
        assert third.status_code == 429 and not third.streaming
        error = error_of(json.loads(third.content), -32000)
        assert error_info(error)["reason"] == "STREAM_LIMIT_EXCEEDED"
        await asyncio.to_thread(first.close)  # what every ASGI handler does at the end
        fourth = await subscribe()
        assert fourth.streaming
        for response in (second, fourth):
            await asyncio.to_thread(response.close)

    asyncio.run(asyncio.wait_for(scenario(), 20))
    assert not limits._streams


# --- a blocking send holds no connection while it waits -----------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_blocking_send_holds_no_database_connection_while_it_waits(
    install, limit, dispatched, monkeypatch
):
    """The worker never comes (the dispatcher records the run): the send waits
    BLOCKING_TIMEOUT, and each time it sleeps its connection is back in the pool."""
    install(lambda ctx: ctx.complete("late"), key="bg", background=True)
    limit(BLOCKING_TIMEOUT=0.5)
    held: list[bool] = []
    sleep = time.sleep

    def watching_sleep(seconds: float) -> None:
        held.append(connection.connection is not None)
        sleep(seconds)

    monkeypatch.setattr(runner.time, "sleep", watching_sleep)
    client = Client()
    started = time.monotonic()
    response = client.post(
        "/a2a/jsonrpc",
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
                    "params": {"message": user_message("wait")}}),
        content_type="application/json",
    )  # fmt: skip
    assert time.monotonic() - started >= 0.5
    assert response.json()["result"]["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"
    assert held and not any(held)


# --- the body limit, while the body is read (ASGI) -----------------------------------------------

CHUNK = 64 * 1024


async def asgi_post(path: str, *, chunks: int, content_length: int | None) -> tuple[JSON, int]:
    """POST ``chunks`` × 64 KiB through a2a_app's ASGI handler: the response (status,
    headers, JSON body) and how many chunks the handler asked for."""
    from a2a_app.asgi import ASGIHandler

    headers = [(b"host", b"testserver"), (b"content-type", b"application/json")]
    if content_length is not None:
        headers.append((b"content-length", str(content_length).encode()))
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
        "root_path": "", "headers": headers, "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }  # fmt: skip
    asked = 0
    response: JSON = {"body": b""}

    async def receive() -> JSON:
        nonlocal asked
        asked += 1
        if asked > chunks:
            await asyncio.sleep(30)  # the client waits for an answer
            return {"type": "http.disconnect"}
        return {"type": "http.request", "body": b" " * CHUNK, "more_body": asked < chunks}

    async def send(message: JSON) -> None:
        if message["type"] == "http.response.start":
            response["status"] = message["status"]
            response["headers"] = {k.decode().lower(): v.decode() for k, v in message["headers"]}
        elif message["type"] == "http.response.body":
            response["body"] += message.get("body", b"")

    await asyncio.wait_for(ASGIHandler()(scope, receive, send), 20)
    response["json"] = json.loads(response["body"])
    return response, asked


def test_a_body_declared_too_large_is_not_read_at_all():
    two_gib = 2 * 1024**3
    response, asked = asyncio.run(
        asgi_post("/a2a/jsonrpc", chunks=two_gib // CHUNK, content_length=two_gib)
    )
    assert response["status"] == 413
    assert response["json"]["error"]["code"] == -32600
    assert error_info(response["json"]["error"])["reason"] == "REQUEST_TOO_LARGE"
    assert asked == 0


# The database: a REST operation reads its body after the caller is identified, and every
# operation first makes sure of its database connection (a2a_app.db.ensure_live_connection).
@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "status"),
    [("/a2a/jsonrpc", 413), ("/a2a/rest/message:send", 413), ("/a2a/rest/nowhere", 404)],
)
def test_a_body_without_length_is_read_no_further_than_the_limit(settings, path, status):
    settings.A2A_APP = {**settings.A2A_APP, "MAX_REQUEST_BYTES": 10 * CHUNK}
    response, asked = asyncio.run(asgi_post(path, chunks=1000, content_length=None))
    assert response["status"] == status
    assert asked == 11  # the chunk that went over, and no more
    if "rest" in path:
        assert response["json"]["error"]["code"] == status


@pytest.mark.django_db
def test_a_body_under_the_limit_without_length_is_served(settings, job):
    settings.A2A_APP = {**settings.A2A_APP, "MAX_REQUEST_BYTES": 10 * CHUNK}
    response, asked = asyncio.run(asgi_post("/a2a/jsonrpc", chunks=2, content_length=None))
    assert asked == 2
    assert response["json"]["error"]["code"] == -32700  # spaces are not JSON: but it was read


@pytest.mark.django_db(transaction=True)
def test_waiting_sends_leave_the_connection_pool_to_others(install, limit, dispatched, later):
    """The red team's finding on PostgreSQL with psycopg's pool: about 20 blocking sends
    waiting for a worker took every pooled connection, and an unrelated GetTask waited."""
    if connection.vendor != "postgresql" or "pool" not in connection.settings_dict["OPTIONS"]:
        pytest.skip("needs PostgreSQL with psycopg's pool (tests/project: DATABASE_URL)")
    install(lambda ctx: ctx.complete("late"), key="bg", background=True)
    install(lambda ctx: ctx.ask("more?"), key="quick")
    limit(BLOCKING_TIMEOUT=3)
    pool_size = connection.settings_dict["OPTIONS"]["pool"]["max_size"]

    def blocking_send(text: str) -> JSON:
        params = {"message": user_message(text), "metadata": {"skillId": "bg"}}
        return Client(REMOTE_ADDR=f"192.0.2.{len(text)}").post(
            "/a2a/jsonrpc",
            json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": params}),
            content_type="application/json",
        )

    senders = [later(blocking_send, f"wait {i}", delay=0) for i in range(pool_size + 5)]
    time.sleep(1)  # every send is waiting now

    def unrelated_send() -> tuple[JSON, float]:
        started = time.monotonic()
        params = {"message": user_message("hello"), "metadata": {"skillId": "quick"}}
        response = Client().post(
            "/a2a/jsonrpc",
            json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": params}),
            content_type="application/json",
        )
        return response.json(), time.monotonic() - started

    body, seconds = later(unrelated_send, delay=0).outcome()
    assert body["result"]["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert seconds < 1.5, f"an unrelated send waited {seconds:.2f} s for a connection"
    assert any(sender.is_alive() for sender in senders)  # they were still waiting
    for sender in senders:
        assert sender.outcome().status_code == 200
