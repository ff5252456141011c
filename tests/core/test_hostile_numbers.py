"""Any number a gateway writes is read without an untyped error, on every protocol: JSON has
no bound on a number, so ``1e999`` reads as infinity, ``NaN`` and ``Infinity`` are taken by
the JSON parser, an integer may run to thousands of digits. A number where a count, a time or
an index belongs gives events (the number taken where it is one, else left out) or a typed
StreamError, never an OverflowError or ValueError.

The property: in a real capture of each protocol, any number in any numeric field of any
frame decodes to a Completion or a StreamError. The Responses ``created_at`` of 1e999 or NaN
(issue 36) on every core path: ``decode()``, ``StreamDecoder`` fed byte by byte,
``ChatClient`` against a loopback server.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sse_core
from sse_core import ChatClient, Completion, StreamDecoder, StreamError
from tests.core.responses.responses_wire import added, body, completed, message_item, text
from tests.core.responses.responses_wire import response as responses_object
from tests.raw_server import response, serving

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
#: Real captures of each protocol (a few of each: the property draws a frame and a field).
CORPUS: dict[str, list[Path]] = {
    "responses": sorted((FIXTURES / "responses").glob("*.sse"))
    + sorted((FIXTURES / "responses" / "real").glob("*.sse")),
    "anthropic": sorted((FIXTURES / "real" / "anthropic").glob("*.sse")),
    "chat_completions": sorted((FIXTURES / "real").glob("*.sse"))[:12],
    "gemini": sorted((Path(__file__).resolve().parent / "gemini" / "fixtures").glob("*.sse")),
}
#: Numbers no int or float of a reader holds, or that a reader may not expect.
ODD = ["1e999", "-1e999", "NaN", "Infinity", "-Infinity", "-0.0", "1e-999", "0.5", "-1",
       "1e308", "18446744073709551616", "9" * 4000, "9" * 5000]  # fmt: skip
PATHS = ("created_at", "created", "index", "output_index", "sequence_number", "input_tokens")

Path_ = tuple[Any, ...]


def numeric_fields(value: Any, path: Path_ = ()) -> list[Path_]:
    """The paths of the numbers (not booleans) in a JSON value."""
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in numeric_fields(item, (*path, key))]
    if isinstance(value, list):
        return [p for at, item in enumerate(value) for p in numeric_fields(item, (*path, at))]
    return [path] if type(value) in (int, float) else []


def frames_of(data: bytes) -> list[tuple[int, Any, list[Path_]]]:
    """Each frame of a body whose one data line is JSON with numbers: (its place, the JSON,
    the paths of its numbers)."""
    found = []
    for at, block in enumerate(data.replace(b"\r\n", b"\n").split(b"\n\n")):
        lines = [line for line in block.split(b"\n") if line.startswith(b"data:")]
        if len(lines) != 1:
            continue
        try:
            payload = json.loads(lines[0][5:])
        except ValueError:
            continue
        paths = numeric_fields(payload)
        if paths:
            found.append((at, payload, paths))
    return found


def with_number(data: bytes, at: int, payload: Any, path: Path_, number: str) -> bytes:
    """``data`` with the number at ``path`` of frame ``at`` written as ``number``."""
    changed = json.loads(json.dumps(payload))
    holder = changed
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = "\x00number\x00"
    written = json.dumps(changed).replace('"\\u0000number\\u0000"', number)
    blocks = data.replace(b"\r\n", b"\n").split(b"\n\n")
    lines = [
        b"data: " + written.encode() if line.startswith(b"data:") else line
        for line in blocks[at].split(b"\n")
    ]
    blocks[at] = b"\n".join(lines)
    return b"\n\n".join(blocks)


BODIES = [
    (protocol, path.read_bytes(), frames_of(path.read_bytes()))
    for protocol, paths in CORPUS.items()
    for path in paths
]


def json_number(value: float) -> str:
    """A float as a JSON parser takes it (``NaN``, ``Infinity``: JSON5, which pydantic-core
    and most gateways' encoders accept or write)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)


NUMBERS = st.one_of(
    st.sampled_from(ODD),
    st.integers().map(str),
    st.floats().map(json_number),
    st.integers(min_value=20, max_value=4299).map(lambda digits: "7" * digits),
)


def decodes(protocol: str, data: bytes) -> None:
    """``data`` decodes to a Completion or a StreamError (anything else fails the test)."""
    try:
        completion = sse_core.decode(data, protocol=protocol)
    except StreamError:
        return
    repr(completion)  # every value it holds is printable


def test_the_corpus_has_every_protocol() -> None:
    assert all(CORPUS[protocol] for protocol in sse_core.protocol_names())
    assert all(frames for _, _, frames in BODIES)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), number=NUMBERS)
def test_any_number_in_any_numeric_field_gives_events_or_a_typed_error(
    data: st.DataObject, number: str
) -> None:
    protocol, whole, frames = data.draw(st.sampled_from(BODIES))
    at, payload, paths = data.draw(st.sampled_from(frames))
    path = data.draw(st.sampled_from(paths))
    decodes(protocol, with_number(whole, at, payload, path, number))


@pytest.mark.parametrize("number", ODD)
@pytest.mark.parametrize("name", PATHS)
def test_each_odd_number_in_each_field_a_reader_counts_on(name: str, number: str) -> None:
    """Every odd number in every field of that name, in every capture (the fields a decoder
    turns into an int: a time, an index, a count)."""
    for protocol, whole, frames in BODIES:
        for at, payload, paths in frames:
            for path in paths:
                if path[-1] == name:
                    decodes(protocol, with_number(whole, at, payload, path, number))


def _created_at(number: str) -> bytes:
    """A Responses answer whose response objects say ``created_at`` is ``number``."""
    stream = body(
        {"type": "response.created", "response": responses_object()},
        added(0, message_item()),
        text(0, "Hello"),
        completed(),
    )
    return stream.replace(b'"created_at": 1741476542', b'"created_at": ' + number.encode())


@pytest.mark.parametrize("number", ["1e999", "-1e999", "NaN", "Infinity"])
def test_a_created_at_no_int_holds_is_no_time_on_every_core_path(number: str) -> None:
    stream = _created_at(number)
    assert stream.count(b'"created_at": ' + number.encode()) == 2
    whole = sse_core.decode(stream, protocol="responses")
    assert (whole.content, whole.created, whole.finish_reason) == ("Hello", None, "stop")
    decoder = StreamDecoder(protocol="responses")
    events = [event for at in range(len(stream)) for event in decoder.feed(stream[at : at + 1])]
    fed = sse_core.pipeline.Accumulator()
    fed.extend([*events, *decoder.finish()])
    assert fed.completion() == whole
    with (
        serving(lambda n, request: response(stream)) as server,
        ChatClient(
            base_url=server.url, api_key="sk-test", protocol="responses", max_retries=0
        ) as client,
    ):
        got = client.complete({"model": "gpt-5", "input": "hi"})
    assert isinstance(got, Completion)
    assert (got.content, got.created) == ("Hello", None)


def test_a_created_at_written_as_a_float_is_whole_seconds() -> None:
    got = sse_core.decode(_created_at("1741476542.75"), protocol="responses")
    assert got.created == 1741476542


@pytest.mark.parametrize("digits", [1, 19, 400, 4300, 4301, 50_000])
def test_a_retry_field_of_any_length_is_read_without_an_error(digits: int) -> None:
    """WHATWG: ``retry:`` of ASCII digits sets the reconnection time; an integer no int
    holds (past Python's digit limit) is no time, and the event still decodes."""
    frame = b"retry: " + b"7" * digits + b"\n" + chat_frames
    parser = sse_core.pipeline.SSEParser()
    events = parser.feed(frame)
    assert [event.data for event in events][:1] == ['{"choices":[{"delta":{"content":"hi"}}]}']
    readable = digits <= sys.get_int_max_str_digits()
    assert events[0].retry == (int("7" * digits) if readable else None)
    assert sse_core.decode(frame).content == "hi"


chat_frames = (
    b'data: {"choices":[{"delta":{"content":"hi"}}]}\n\n'
    b'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
)
