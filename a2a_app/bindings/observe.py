"""Tells observers (metrics, logs) about each A2A request, through signals.

:func:`observed` wraps a binding's view: when the answer is ready it sends
``request_handled`` with the operation, its protocol version and the outcome, and for an
SSE answer ``stream_opened`` now and ``stream_closed`` when the server closes the
response. The view leaves two marks for it: :func:`a2a_app.bindings.http.invoke` notes
the method on the request, and :func:`a2a_app.bindings.http.error_headers` the error on
the response (the one way every error becomes a response), so no view builds its
outcome twice.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse

from a2a_app.signals import request_handled, stream_closed, stream_opened

#: The attribute invoke() sets on the request, and error_headers() on the response.
METHOD_ATTRIBUTE = "_a2a_method"
ERROR_ATTRIBUTE = "_a2a_error"


def observed(binding: str) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """A view decorator: ``binding`` ("jsonrpc", "rest") is the signals' sender."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @functools.wraps(view)
        def serve(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            started = time.perf_counter()
            response = view(request, *args, **kwargs)
            method = getattr(request, METHOD_ATTRIBUTE, None)
            error = getattr(response, ERROR_ATTRIBUTE, None)
            operation = method.name if method is not None else ""
            request_handled.send(
                binding,
                operation=operation,
                version=method.version if method is not None else "",
                error=error,
                duration=time.perf_counter() - started,
            )
            if response.streaming:
                _watch_stream(response, binding, operation)
            return response

        return serve

    return decorate


def _watch_stream(response: HttpResponse, binding: str, operation: str) -> None:
    """``stream_opened`` now, ``stream_closed`` once the server closes the response
    (every server does, also when the client went away)."""
    stream_opened.send(binding, operation=operation)
    close = response.close

    def closing() -> None:
        try:
            close()
        finally:
            stream_closed.send(binding, operation=operation)

    response.close = closing  # type: ignore[method-assign]
