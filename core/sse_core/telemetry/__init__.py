"""OpenTelemetry for the core's clients: one CLIENT span per call, and the GenAI metrics.

The names recorded are in :mod:`.names`; whether a client records, and to which providers,
is :mod:`.setting` (on when the application set a provider, off with
``SSE_CONNECTORS_TELEMETRY=0`` or ``telemetry=False``); what one call records is
:mod:`.call`; where a stream opens and ends its call is :mod:`sse_core.transport.traced`.
Only ``opentelemetry-api`` is used (the ``otel`` extra), imported on a client's first stream.
"""

from __future__ import annotations

from sse_core.telemetry.names import CANCELLED, ERROR_TYPES, OTHER
from sse_core.telemetry.setting import ENV, Telemetry

__all__ = ["CANCELLED", "ENV", "ERROR_TYPES", "OTHER", "Telemetry"]
