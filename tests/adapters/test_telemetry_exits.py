"""The exit-path matrix of a call's span through both adapters (ChatSSE and SSELLM), sync and
async, on every protocol: read to its end, cut by the gateway, a gateway error frame, an HTTP
error, a timeout, left by its caller (``close()``, ``aclose()``, a cancelled task) and dropped
unclosed. Each is exactly one ended CLIENT span with its status and ``error.type`` (the
sse_core class name, whatever subclass the adapter raises), the duration recorded once with
the same ``error.type``, and no message content (tests/core/telemetry/test_exit_paths.py runs
the same matrix on the core clients)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import AsyncGenerator, Callable, Generator, Iterator
from typing import Any

import pytest
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind, StatusCode

import sse_core
from sse_core import Timeouts
from sse_core.protocols import protocol_names
from sse_core.telemetry import names
from sse_emulator import Emulator
from tests.adapters.test_telemetry import _lc, _li, _model
from tests.core.telemetry.conftest import Recorded, recorded

pytestmark = pytest.mark.timeout(60)

SECRET = "telemetry-private-words"
PROMPT = f"count to 30 for {SECRET}"  # the emulator answers "1 2 ... 30": many chunks
ASK = [ChatMessage(role=MessageRole.USER, content=PROMPT)]
FAULT = "X-Emulator-Fault"
SLOW = {FAULT: "slow; delay=0.05"}  # still open after the first chunk
ADAPTERS = ("langchain", "llamaindex")
#: Where the emulator sends usage before the cut: Anthropic's message_start carries the
#: input tokens, Gemini's usageMetadata rides every chunk; Chat Completions sends it only in
#: its last chunk (include_usage) and the Responses API only in response.completed.
USAGE_BEFORE_THE_CUT = ("anthropic", "gemini")

#: Each ending: the fault asked of the emulator and the ``error.type`` (None: the whole
#: answer). ``error-frame`` is each dialect's own mid-stream failure (Chat Completions'
#: ``{"error": ...}`` data frame, Anthropic's and the Responses API's ``event: error``,
#: Gemini's ``{"error": ...}`` chunk); ``event-error`` is a gateway's named ``event: error``,
#: which the core reads as a gateway error on every protocol.
ENDINGS = {
    "whole": ("", None),
    "cut": ("truncate; after=3", "IncompleteStreamError"),
    "error-frame": ("error-frame; after=3", "GatewayStreamError"),
    "event-error": ("event-error; after=3", "GatewayStreamError"),
    "http-error": ("server-error", "ServerError"),
    "timeout": ("stall; after=3; seconds=10", "StreamTimeoutError"),
}


@pytest.fixture
def otel() -> Iterator[Recorded]:
    """Local tracer and meter providers recording in memory (tests/core/telemetry's)."""
    yield from recorded()


def _make(adapter: str, emulator: Emulator, protocol: str, otel: Recorded, **fields: Any) -> Any:
    return (_lc if adapter == "langchain" else _li)(emulator, protocol, otel, **fields)


def _for(ending: str, **fields: Any) -> dict[str, Any]:
    """The model's fields for ``ending``: its fault, and a short idle timeout for a stall."""
    fault = ENDINGS[ending][0]
    if fault:
        fields["default_headers"] = {FAULT: fault}
    if ending == "timeout":
        fields["timeout"] = Timeouts(idle=0.3)
    return fields


def _open(adapter: str, model: Any) -> Generator[Any, None, None]:
    stream: Generator[Any, None, None]
    stream = model.stream(PROMPT) if adapter == "langchain" else model.stream_chat(ASK)
    return stream


async def _aopen(adapter: str, model: Any) -> AsyncGenerator[Any, None]:
    stream: AsyncGenerator[Any, None]
    stream = model.astream(PROMPT) if adapter == "langchain" else await model.astream_chat(ASK)
    return stream


def _call(adapter: str, how: str, model: Any) -> None:
    if how == "stream":
        for _ in _open(adapter, model):
            pass
    else:
        model.invoke(PROMPT) if adapter == "langchain" else model.chat(ASK)


async def _acall(adapter: str, how: str, model: Any) -> None:
    if how == "stream":
        async for _ in await _aopen(adapter, model):
            pass
    else:
        await (model.ainvoke(PROMPT) if adapter == "langchain" else model.achat(ASK))


def _raises(error: str | None) -> Any:
    """``pytest.raises`` of the sse_core class (the adapter may raise a subclass of it)."""
    return contextlib.nullcontext() if error is None else pytest.raises(getattr(sse_core, error))


def wait_for(found: Callable[[], bool], seconds: float = 5.0) -> None:
    stop = time.monotonic() + seconds
    while not found() and time.monotonic() < stop:
        time.sleep(0.01)


async def await_for(found: Callable[[], bool], seconds: float = 5.0) -> None:
    stop = time.monotonic() + seconds
    while not found() and time.monotonic() < stop:
        await asyncio.sleep(0.01)


def ended(otel: Recorded, protocol: str, error: str | None) -> ReadableSpan:
    """The call's one span, checked: CLIENT, named after the model, OK or ERROR with
    ``error``; the duration recorded once with the same ``error.type``; usage marked partial
    on every span that did not end well; no content."""
    span = otel.span()
    attributes = dict(span.attributes or {})
    assert span.kind is SpanKind.CLIENT
    assert span.name == f"chat {_model(protocol)}"
    assert attributes[names.SSE_PROTOCOL] == protocol
    if error is None:
        assert span.status.status_code in (StatusCode.UNSET, StatusCode.OK)
        assert names.ERROR_TYPE not in attributes
    else:
        assert span.status.status_code is StatusCode.ERROR
        assert attributes[names.ERROR_TYPE] == error
    durations = otel.points(names.METRIC_OPERATION_DURATION)
    assert [point.count for point in durations] == [1]
    assert durations[0].attributes.get(names.ERROR_TYPE) == error
    if names.USAGE_INPUT_TOKENS in attributes or names.USAGE_OUTPUT_TOKENS in attributes:
        assert attributes[names.SSE_USAGE_PARTIAL] is (error is not None)
    assert SECRET not in span.to_json()
    return span


def ended_as(otel: Recorded, protocol: str, ending: str, caught: Any = None) -> None:
    """:func:`ended`, with what ``ending`` says more; ``caught``: the error raised, whose
    partial answer says whether a chunk came (then the span has its time to first chunk)."""
    error = ENDINGS[ending][1]
    attributes = ended(otel, protocol, error).attributes or {}
    partial = getattr(getattr(caught, "value", None), "partial", None)
    if partial is not None:
        came = bool(partial.content or partial.reasoning or partial.tool_calls)
        assert (names.RESPONSE_TIME_TO_FIRST_CHUNK in attributes) is came, (ending, came)
    usage = names.USAGE_INPUT_TOKENS in attributes and names.USAGE_OUTPUT_TOKENS in attributes
    if ending == "whole":
        assert attributes[names.RESPONSE_FINISH_REASONS] == ("stop",)
        assert usage and attributes[names.SSE_USAGE_PARTIAL] is False
        first = attributes[names.RESPONSE_TIME_TO_FIRST_CHUNK]
        assert isinstance(first, float) and first >= 0
    elif ending == "cut":
        assert usage is (protocol in USAGE_BEFORE_THE_CUT)
        assert names.RESPONSE_FINISH_REASONS not in attributes
    elif ending == "http-error":
        assert names.RESPONSE_TIME_TO_FIRST_CHUNK not in attributes  # no chunk came


# -- read to an end: the whole answer, or an error ------------------------------------------

matrix = pytest.mark.parametrize(
    ("ending", "protocol", "adapter", "how"),
    [
        (ending, protocol, adapter, how)
        for ending in ENDINGS
        for protocol in protocol_names()
        for adapter in ADAPTERS
        for how in ("stream", "invoke")  # stream/stream_chat, invoke/chat
    ],
)


@matrix
def test_a_call_ends_one_span(
    emulator: Emulator, otel: Recorded, ending: str, protocol: str, adapter: str, how: str
) -> None:
    model = _make(adapter, emulator, protocol, otel, **_for(ending))
    with _raises(ENDINGS[ending][1]) as caught:
        _call(adapter, how, model)
    ended_as(otel, protocol, ending, caught)


@matrix
async def test_an_async_call_ends_one_span(
    emulator: Emulator, otel: Recorded, ending: str, protocol: str, adapter: str, how: str
) -> None:
    model = _make(adapter, emulator, protocol, otel, **_for(ending))
    with _raises(ENDINGS[ending][1]) as caught:
        await _acall(adapter, how, model)
    await await_for(lambda: bool(otel.spans()))
    ended_as(otel, protocol, ending, caught)


# -- left early: closed, cancelled, dropped -------------------------------------------------

each = pytest.mark.parametrize(
    ("protocol", "adapter"), [(p, a) for p in protocol_names() for a in ADAPTERS]
)


@each
@pytest.mark.parametrize("left", ["next-then-close", "break-then-close"])
def test_a_stream_closed_by_its_caller_is_cancelled(
    emulator: Emulator, otel: Recorded, protocol: str, adapter: str, left: str
) -> None:
    stream = _open(adapter, _make(adapter, emulator, protocol, otel, default_headers=SLOW))
    if left == "next-then-close":
        next(stream)
    else:
        for _ in stream:
            break
    assert otel.spans() == ()  # not ended while the caller may read on
    stream.close()
    ended(otel, protocol, names.CANCELLED)


@each
async def test_an_async_stream_closed_by_its_caller_is_cancelled(
    emulator: Emulator, otel: Recorded, protocol: str, adapter: str
) -> None:
    model = _make(adapter, emulator, protocol, otel, default_headers=SLOW)
    stream = await _aopen(adapter, model)
    async for _ in stream:
        break
    assert otel.spans() == ()
    await stream.aclose()
    await await_for(lambda: bool(otel.spans()))
    ended(otel, protocol, names.CANCELLED)


@each
async def test_a_cancelled_task_is_cancelled(
    emulator: Emulator, otel: Recorded, protocol: str, adapter: str
) -> None:
    model = _make(adapter, emulator, protocol, otel, default_headers=SLOW)
    started = asyncio.Event()

    async def read() -> None:
        async for _ in await _aopen(adapter, model):
            started.set()

    task = asyncio.create_task(read())
    await asyncio.wait_for(started.wait(), 10)
    assert otel.spans() == ()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await await_for(lambda: bool(otel.spans()))
    ended(otel, protocol, names.CANCELLED)


# A stream dropped unclosed is ``cancelled`` through both adapters, not the core's ``_OTHER``:
# what the caller drops is the adapter's generator, and the adapter reads the core stream
# inside ``with``/``closing`` (ChatSSE's ``_call``/``_loop``, BaseChatModel's own ``_stream``
# on the faithful path; SSELLM's ``close_after``/``aclose_after``). Finalizing that generator
# (CPython's refcount, or the loop's asyncgen finalizer) runs its ``finally``, which closes
# the core stream the way a caller does. A generator cannot tell its finalization from a
# ``close()``, so the adapters cannot say ``_OTHER`` here.


@each
def test_a_stream_dropped_after_a_break_is_closed_by_the_adapter(
    emulator: Emulator, otel: Recorded, protocol: str, adapter: str
) -> None:
    stream = _open(adapter, _make(adapter, emulator, protocol, otel, default_headers=SLOW))
    for _ in stream:
        break
    assert otel.spans() == ()
    del stream
    gc.collect()
    wait_for(lambda: bool(otel.spans()))
    ended(otel, protocol, names.CANCELLED)


@each
async def test_an_async_stream_dropped_after_a_break_is_closed_by_the_adapter(
    emulator: Emulator, otel: Recorded, protocol: str, adapter: str
) -> None:
    stream = await _aopen(adapter, _make(adapter, emulator, protocol, otel, default_headers=SLOW))
    async for _ in stream:
        break
    assert otel.spans() == ()
    del stream
    gc.collect()
    await await_for(lambda: bool(otel.spans()))  # the loop finalizes it in a task of its own
    ended(otel, protocol, names.CANCELLED)
