"""Spans to a file, for the integration tests of traces (tests/integration/test_traces_live.py).

``A2A_TEST_SPANS_FILE=/path`` makes the test project install the OpenTelemetry SDK with an
exporter that appends one JSON line per finished span: uvicorn and every Celery pool
process write to the same file, which the test reads. Exported at once (no batching
thread): a forked pool child would not inherit a batching thread.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult


class JsonLinesExporter(SpanExporter):
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        lines = "".join(json.dumps(_as_dict(span)) + "\n" for span in spans)
        with self._lock, self.path.open("a") as out:
            out.write(lines)
        return SpanExportResult.SUCCESS


def _as_dict(span: ReadableSpan) -> dict:
    return {
        "name": span.name,
        "trace_id": f"{span.context.trace_id:032x}",
        "span_id": f"{span.context.span_id:016x}",
        "parent_id": f"{span.parent.span_id:016x}" if span.parent else None,
        "attributes": dict(span.attributes or {}),
    }


def export_to(path: str) -> None:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(JsonLinesExporter(Path(path))))
    trace.set_tracer_provider(provider)
