"""Traces through OpenTelemetry, when the site installed it (the ``otel`` extra).

a2a_app makes spans with the OpenTelemetry *API* only, on a tracer named ``a2a_app``; the
site configures the SDK and its exporter (or an agent such as ``opentelemetry-instrument``
does). Without the API installed every helper here does nothing and ``opentelemetry`` is
never imported: the first use tries the import once and remembers the answer. With the
API but no tracer provider set (no SDK configured yet) they do nothing either: the API's
no-op spans would cost every request a few context switches for spans nobody records.

The spans (docs/observability.md, "Traces"):

* one per operation (``SendMessage``, ``GetTask``, ...), a child of the calling agent's
  ``traceparent`` when it sent one;
* ``a2a.skill`` around the skill's handler, inline or in a worker;
* ``a2a.run_task`` and ``a2a.deliver_webhooks`` around the Celery jobs, children of the
  span that enqueued them (the context travels in the Celery message's headers);
* ``a2a.webhook`` per delivery attempt, whose context the POST carries in ``traceparent``.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Mapping
from types import SimpleNamespace
from typing import Any, TypeVar

TRACER_NAME = "a2a_app"

F = TypeVar("F", bound=Callable[..., Any])
Attributes = dict[str, Any]

# None: not looked for yet; False: not installed; else the API's modules.
_api: Any = None


def _otel() -> Any:
    """The OpenTelemetry API modules, or None when the site has not installed them."""
    global _api
    if _api is None:
        try:
            from opentelemetry import context, propagate, trace
        except ImportError:
            _api = False
        else:
            _api = SimpleNamespace(context=context, propagate=propagate, trace=trace)
    return _api or None


def _tracing() -> Any:
    """The API modules when a tracer provider is set (the SDK's or an agent's), else None."""
    otel = _otel()
    if otel is None or isinstance(
        otel.trace.get_tracer_provider(),
        (otel.trace.ProxyTracerProvider, otel.trace.NoOpTracerProvider),
    ):
        return None
    return otel


def enabled() -> bool:
    return _tracing() is not None


@contextlib.contextmanager
def span(
    name: str,
    attributes: Attributes | None = None,
    *,
    carrier: Mapping[str, str] | None = None,
    kind: str = "INTERNAL",
) -> Iterator[Any]:
    """A span around the block (``None`` without OpenTelemetry).

    ``carrier`` holds propagation headers (``traceparent``) of whoever asked for the work:
    the span continues their trace, unless a span is current already (a site's own HTTP
    or Celery instrumentation read them first, and its span is the better parent).
    """
    otel = _tracing()
    if otel is None:
        yield None
        return
    parent = None
    if carrier and not otel.trace.get_current_span().get_span_context().is_valid:
        parent = otel.propagate.extract(carrier)
    tracer = otel.trace.get_tracer(TRACER_NAME)
    with tracer.start_as_current_span(
        name,
        context=parent,
        kind=getattr(otel.trace.SpanKind, kind),
        attributes=_clean(attributes),
    ) as current:
        yield current


def set_attributes(current: Any, attributes: Attributes) -> None:
    """Add ``attributes`` (Nones left out) to ``current``, a span or None."""
    if current is not None:
        current.set_attributes(_clean(attributes))


def _clean(attributes: Attributes | None) -> Attributes:
    return {key: value for key, value in (attributes or {}).items() if value is not None}


def traced(
    name: str | Callable[..., str],
    attributes: Callable[..., Attributes] | None = None,
    *,
    result: Callable[[Any], Attributes] | None = None,
    carrier: Callable[..., Mapping[str, str] | None] | None = None,
    kind: str = "INTERNAL",
) -> Callable[[F], F]:
    """Decorate a function with a span named ``name`` (or ``name(*args, **kwargs)``):
    ``attributes(*args, **kwargs)`` at the start,
    ``result(returned)`` at the end, ``carrier(*args, **kwargs)`` the caller's headers."""

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if _tracing() is None:
                return function(*args, **kwargs)
            with span(
                name(*args, **kwargs) if callable(name) else name,
                attributes(*args, **kwargs) if attributes else None,
                carrier=carrier(*args, **kwargs) if carrier else None,
                kind=kind,
            ) as current:
                returned = function(*args, **kwargs)
                if result is not None:
                    set_attributes(current, result(returned))
                return returned

        return wrapper  # type: ignore[return-value]

    return decorate


def carrier() -> dict[str, str]:
    """The current trace context as headers (``traceparent``, ...) to send along."""
    otel = _otel()
    headers: dict[str, str] = {}
    if otel is not None:
        otel.propagate.inject(headers)
    return headers


def job_carrier(current_task: Any) -> dict[str, str]:
    """The trace headers of the Celery message being run (see :func:`carrier`): Celery
    keeps a message's custom headers as attributes of ``current_task.request``."""
    request = getattr(current_task, "request", None)
    if request is None:
        return {}
    fields = _otel().propagate.get_global_textmap().fields
    # ``apply(headers=...)`` (eager runs) keeps them apart, in ``request.headers``.
    extra = getattr(request, "headers", None) or {}
    found = {name: request.get(name) or extra.get(name) for name in fields}
    return {name: value for name, value in found.items() if isinstance(value, str)}


def job(name: str, attributes: Callable[..., Attributes], current_task: Any) -> Callable[[F], F]:
    """:func:`traced` for a Celery task (``current_task``: Celery's proxy of the task
    running): the span continues the enqueuer's trace, and the job's return value becomes
    its ``a2a.outcome``."""
    return traced(
        name,
        attributes,
        result=lambda returned: {"a2a.outcome": str(returned)},
        carrier=lambda *args, **kwargs: job_carrier(current_task),
        kind="CONSUMER",
    )


def operation_name(request: Any, method: Any, *args: Any) -> str:
    return method.name


def operation_attributes(request: Any, method: Any, *args: Any) -> Attributes:
    return {"a2a.operation": method.name}


def operation_carrier(request: Any, *args: Any) -> Mapping[str, str]:
    return request.headers


def operation_result(returned: Any) -> Attributes:
    """The task an operation answered with, if any: its id and state."""
    result = returned[0] if isinstance(returned, tuple) else returned
    task = result.get("task", result) if isinstance(result, dict) else None
    if not isinstance(task, dict) or not isinstance(task.get("status"), dict):
        return {}
    return {"a2a.task.id": task.get("id"), "a2a.task.state": task["status"].get("state")}


def skill_attributes(ctx: Any) -> Attributes:
    return {"a2a.skill": ctx.skill.id, "a2a.task.id": ctx.task_id, "a2a.context.id": ctx.context_id}


def skill_result(outcome: Any) -> Attributes:
    return {"a2a.outcome": type(outcome).__name__ if outcome is not None else "Canceled"}


def delivery_attributes(delivery: Any, *args: Any) -> Attributes:
    return {
        "a2a.task.id": str(delivery.task_id),
        "a2a.delivery.id": delivery.pk,
        "a2a.delivery.attempt": delivery.attempts + 1,
    }
