"""A local tracer provider and meter provider per test (never the global ones): the spans
in an in-memory exporter, the metrics in an in-memory reader."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from sse_core.telemetry import Telemetry


@dataclass
class Recorded:
    """What a test's calls recorded."""

    telemetry: Telemetry
    exporter: InMemorySpanExporter
    reader: InMemoryMetricReader

    def spans(self) -> tuple[ReadableSpan, ...]:
        return tuple(self.exporter.get_finished_spans())

    def span(self) -> ReadableSpan:
        """The one ended span (fails if there are more, or none)."""
        spans = self.spans()
        assert len(spans) == 1, [s.name for s in spans]
        return spans[0]

    def points(self, metric: str) -> list[Any]:
        """The data points of ``metric`` (empty: never recorded)."""
        data = self.reader.get_metrics_data()
        if data is None:
            return []
        return [
            point
            for resource in data.resource_metrics
            for scope in resource.scope_metrics
            for found in scope.metrics
            if found.name == metric
            for point in found.data.data_points
        ]


def recorded() -> Iterator[Recorded]:
    """Local providers recording in memory, shut down after (the body of :func:`otel`)."""
    exporter = InMemorySpanExporter()
    tracing = TracerProvider()
    tracing.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    metering = MeterProvider(metric_readers=[reader])
    yield Recorded(Telemetry(tracer_provider=tracing, meter_provider=metering), exporter, reader)
    tracing.shutdown()
    metering.shutdown()


@pytest.fixture
def otel() -> Iterator[Recorded]:
    yield from recorded()
