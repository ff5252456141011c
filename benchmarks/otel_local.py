"""A Telemetry recording to a local OpenTelemetry SDK tracer and meter provider (spans kept in
memory, metrics aggregated for an in-memory reader), never the global ones: what the benchmarks
measure "telemetry on" with."""

from __future__ import annotations

from sse_core.telemetry import Telemetry


def local_telemetry() -> Telemetry:
    """A Telemetry on fresh SDK providers (``opentelemetry-sdk``, a dev dependency)."""
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    tracing = TracerProvider()
    tracing.add_span_processor(SimpleSpanProcessor(InMemorySpanExporter()))
    metering = MeterProvider(metric_readers=[InMemoryMetricReader()])
    return Telemetry(tracer_provider=tracing, meter_provider=metering)
