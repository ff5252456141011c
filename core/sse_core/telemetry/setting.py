"""Whether a client records telemetry, and the OpenTelemetry instruments it records with.

On when the application asks, as the anthropic SDK is: a call is recorded when
``opentelemetry-api`` is installed and the application set a tracer provider or a meter
provider (an SDK's, or any other that is not the API's own no-op or proxy), with no setting
on our side. ``SSE_CONNECTORS_TELEMETRY=0`` (or ``false``, ``no``, ``off``) turns it off
whatever the code says; ``telemetry=False`` on a client turns it off for that client;
``telemetry=Telemetry(tracer_provider=..., meter_provider=...)`` records to those providers
instead of the global ones (tests use it: they never set the global providers).

``opentelemetry`` is imported on the first stream of a client with telemetry on, never at
import time; absent, nothing is recorded.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sse_core.errors import ConfigurationError
from sse_core.telemetry import names
from sse_core.telemetry.content import Capture, capture_mode

if TYPE_CHECKING:
    from opentelemetry.metrics import Histogram
    from opentelemetry.trace import Tracer

__all__ = ["DEFAULT_CONTENT_LIMIT", "ENV", "Instruments", "Telemetry", "resolve"]

#: The most characters of one content attribute, unless a Telemetry says otherwise.
DEFAULT_CONTENT_LIMIT = 32_768

#: The environment variable that turns telemetry off (``0``, ``false``, ``no``, ``off``).
ENV = "SSE_CONNECTORS_TELEMETRY"
_OFF = frozenset({"0", "false", "no", "off"})

# The conventions' advisory bucket boundaries (gen-ai-metrics): seconds, and tokens.
_SECONDS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]
_CHUNK_SECONDS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5]
_TOKENS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216]


@dataclass(frozen=True, slots=True)
class Instruments:
    """A tracer and the four GenAI client histograms (each None where its provider is the
    API's no-op one)."""

    tracer: Tracer | None
    duration: Histogram | None
    tokens: Histogram | None
    first_chunk: Histogram | None
    per_chunk: Histogram | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Telemetry:
    """Where a client records its calls' spans and metrics.

    Attributes:
        tracer_provider: An OpenTelemetry ``TracerProvider``; None: the global one.
        meter_provider: An OpenTelemetry ``MeterProvider``; None: the global one.
        capture_content: Whether the calls' messages are recorded
            (:mod:`sse_core.telemetry.content`): a bool, or one of ``NO_CONTENT``,
            ``SPAN_ONLY``, ``EVENT_ONLY``, ``SPAN_AND_EVENT``; None: as
            ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` says (off when unset).
        content_limit: The most characters of one content attribute (its JSON text).

    Raises:
        ConfigurationError: ``capture_content`` or ``content_limit`` is not one of those.
    """

    tracer_provider: Any = None
    meter_provider: Any = None
    capture_content: bool | str | None = None
    content_limit: int = DEFAULT_CONTENT_LIMIT
    # The instruments of the providers last seen (the global ones may be set after the
    # client is made): (tracer provider, meter provider, instruments).
    _made: list[tuple[Any, Any, Instruments | None]] = field(
        default_factory=list, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        limit = self.content_limit
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 64:
            raise ConfigurationError(f"content_limit must be an int of at least 64, got {limit!r}")
        mode = self.capture_content
        if not (mode is None or isinstance(mode, bool) or _known_mode(mode)):
            raise ConfigurationError(
                "capture_content must be a bool, None, or one of NO_CONTENT, SPAN_ONLY, "
                f"EVENT_ONLY, SPAN_AND_EVENT; got {mode!r}"
            )

    def capture(self, environ: Mapping[str, str] | None = None) -> Capture | None:
        """Where a call's content goes now (None: nowhere)."""
        return capture_mode(self.capture_content, os.environ if environ is None else environ)

    def instruments(self) -> Instruments | None:
        """The instruments to record a call with, or None where no provider records."""
        if _api() is None:
            return None
        from opentelemetry import metrics, trace

        tracing = self.tracer_provider or trace.get_tracer_provider()
        metering = self.meter_provider or metrics.get_meter_provider()
        made = self._made
        if made and made[0][0] is tracing and made[0][1] is metering:
            return made[0][2]
        found = _make(tracing, metering)
        made[:] = [(tracing, metering, found)]
        return found


def _known_mode(mode: object) -> bool:
    return isinstance(mode, str) and mode.strip().upper() in {
        "NO_CONTENT",
        "SPAN_ONLY",
        "EVENT_ONLY",
        "SPAN_AND_EVENT",
    }


def _api() -> object | None:
    """The OpenTelemetry API package, or None where it is not installed (looked up once)."""
    if not _FOUND:
        try:
            import opentelemetry.trace
        except ImportError:
            _FOUND.append(None)
        else:
            _FOUND.append(opentelemetry.trace)
    return _FOUND[0]


_FOUND: list[object | None] = []


def records(provider: object, api_module: str) -> bool:
    """Whether ``provider`` records: a provider class of the API package itself is its
    no-op one, or the proxy that stands for a global provider not set yet."""
    return not type(provider).__module__.startswith(api_module)


def _make(tracing: Any, metering: Any) -> Instruments | None:
    from sse_core import __version__

    tracer = (
        tracing.get_tracer("sse_core", __version__)
        if records(tracing, "opentelemetry.trace")
        else None
    )
    if not records(metering, "opentelemetry.metrics"):
        return None if tracer is None else Instruments(tracer, None, None, None, None)
    meter = metering.get_meter("sse_core", __version__)

    def histogram(name: str, unit: str, description: str, bounds: Sequence[float]) -> Histogram:
        made: Histogram = meter.create_histogram(
            name, unit=unit, description=description, explicit_bucket_boundaries_advisory=bounds
        )
        return made

    return Instruments(
        tracer,
        histogram(names.METRIC_OPERATION_DURATION, "s", "GenAI operation duration", _SECONDS),
        histogram(names.METRIC_TOKEN_USAGE, "{token}", "Number of tokens used", _TOKENS),
        histogram(
            names.METRIC_TIME_TO_FIRST_CHUNK, "s", "Time to the first content chunk", _SECONDS
        ),
        histogram(names.METRIC_TIME_PER_OUTPUT_CHUNK, "s", "Time per output chunk", _CHUNK_SECONDS),
    )


def resolve(
    setting: bool | Telemetry | None, environ: Mapping[str, str] | None = None
) -> Telemetry | None:
    """The telemetry of a client: None where it is off (``SSE_CONNECTORS_TELEMETRY``, or
    ``setting`` False); the given :class:`Telemetry`; else the global providers'.

    Raises:
        ConfigurationError: ``setting`` is neither a bool, None nor a :class:`Telemetry`.
    """
    env = os.environ if environ is None else environ
    if env.get(ENV, "").strip().lower() in _OFF or setting is False:
        return None
    if setting is None or setting is True:
        return Telemetry()
    if isinstance(setting, Telemetry):
        return setting
    raise ConfigurationError(
        f"telemetry must be a bool or a Telemetry, got {type(setting).__name__}"
    )
