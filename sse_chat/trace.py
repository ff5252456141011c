"""``sse-chat chat --trace``: print each model call's span when it ends.

The calls record to a tracer provider of this command's own (the OpenTelemetry SDK's, never
the global one), whose exporter prints each ended span on stderr: its name, status, duration,
attributes and events (retries). Content is not recorded unless
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` asks, as everywhere else.
"""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import Iterator, Sequence
from typing import Any

from sse_chat.render import Renderer
from sse_core.telemetry import Telemetry

__all__ = ["trace_refusal", "tracing"]

_SDK = "opentelemetry.sdk"


def trace_refusal() -> str | None:
    """Why ``--trace`` cannot run (the SDK is missing), or None."""
    if importlib.util.find_spec("opentelemetry") is None or importlib.util.find_spec(_SDK) is None:
        return (
            "--trace prints the calls' OpenTelemetry spans and needs the SDK: "
            "pip install 'sse-connectors[otel]' opentelemetry-sdk"
        )
    return None


@contextlib.contextmanager
def tracing(view: Renderer) -> Iterator[Telemetry]:
    """A Telemetry recording to a provider that prints each ended span on ``view``."""
    from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
    from opentelemetry.sdk.trace.export import (
        SimpleSpanProcessor,
        SpanExporter,
        SpanExportResult,
    )

    class Printer(SpanExporter):
        def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
            for span in spans:
                for line in describe(span):
                    view.line(line)
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(Printer()))
    try:
        yield Telemetry(tracer_provider=provider)
    finally:
        provider.shutdown()


#: Event attributes too long for a terminal (the exception's traceback).
_LONG = frozenset({"exception.stacktrace"})


def describe(span: Any) -> list[str]:
    """The lines that show one ended span."""
    seconds = (span.end_time - span.start_time) / 1e9 if span.end_time else 0.0
    code = span.status.status_code.name
    status = "ok" if code == "UNSET" else code  # UNSET is the conventions' success
    if span.status.description:
        status += f" ({span.status.description})"
    lines = [f"span: {span.name}  {status}  {seconds:.3f} s"]
    for name, value in sorted((span.attributes or {}).items()):
        lines.append(f"  {name} = {_shown(value)}")
    for event in span.events:
        facts = sorted((event.attributes or {}).items())
        said = ", ".join(f"{k}={_shown(v)}" for k, v in facts if k not in _LONG)
        lines.append(f"  event {event.name}: {said}")
    return lines


def _shown(value: object) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(repr(item) for item in value) + "]"
    return repr(value)
