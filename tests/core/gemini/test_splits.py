"""Any split of a Gemini body into reads gives the same events and the same verdict (byte by
byte, at every two-way cut, at random cuts); hostile bodies and frames give events or a typed
error (SSEConnectorError), never a KeyError, IndexError, TypeError or any other."""

from __future__ import annotations

import contextlib
import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sse_core import SSEConnectorError
from tests.core.gemini.gemini_wire import (
    body,
    call,
    candidate,
    captures,
    chop,
    chunk,
    error,
    events,
    frame,
    outcome,
    text,
    thought,
    usage,
)

_PIECE = {"jsonPath": "$.a[0].b", "stringValue": "x", "willContinue": True}
_STREAMED = [
    chunk({"functionCall": {"name": "f", "willContinue": True}, "thoughtSignature": "c2ln"}),
    chunk({"functionCall": {"partialArgs": [_PIECE], "willContinue": True}}),
    chunk({"functionCall": {"partialArgs": [{"jsonPath": "$.a[0].b", "stringValue": "y"}]}}),
    chunk(text(""), finish="STOP", counts=usage()),
]
#: Small bodies, one of each thing the decoder reads (every two-way cut of each is tried).
BODIES: dict[str, bytes] = {
    "text": body(chunk(text("Hel")), chunk(text("lo, wörld 🌍")), chunk(finish="STOP")),
    "thoughts_signed": body(
        chunk(thought("Think. ")),
        chunk(thought("More.", thoughtSignature="c2lnMQ=="), text("Answer")),
        chunk(text("", thoughtSignature="c2lnMg=="), finish="STOP", counts=usage(3, 2)),
    ),
    "parallel_calls": body(
        chunk(call("a", {"x": 1}, thoughtSignature="c2ln"), call("b", {}, id="id-b")),
        chunk(finish="STOP", counts=usage()),
    ),
    "streamed_call": body(*_STREAMED),
    "two_candidates": body(
        {"candidates": [candidate([text("A")]), candidate([text("B")], index=1)]},
        {"candidates": [candidate([], "STOP"), candidate([text("!")], "MAX_TOKENS", index=1)]},
    ),
    "blocked": body({"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": usage(4, None)}),
    "error_mid_stream": body(chunk(text("part")), error(503, "UNAVAILABLE", "overloaded")),
    "cut": body(chunk(text("never")), chunk(text(" finished"), counts=usage())),
    "citations_and_extras": body(
        {
            "candidates": [
                candidate(
                    [text("Cited")],
                    "STOP",
                    citationMetadata={
                        "citations": [{"startIndex": 0, "endIndex": 5, "uri": "https://a.example"}]
                    },
                    safetyRatings=[{"category": "X", "probability": "LOW"}],
                )
            ],
            "modelStatus": {"s": 1},
        },
    ),
    "crlf_named_and_done": (
        frame({"x": 1}, name="relay.note")
        + b": keep-alive\r\n\r\n"
        + body(chunk(text("a"), finish="STOP")).replace(b"\n", b"\r\n")
        + b"data: [DONE]\n\n"
    ),
    "other_parts": body(
        chunk({"executableCode": {"code": "print(1)"}}, {"codeExecutionResult": {"output": "1"}}),
        chunk({"inlineData": {"mimeType": "image/png", "data": "AA=="}}, finish="STOP"),
    ),
}
ALL = {**BODIES, **{f"capture:{name}": data for name, data in captures().items()}}


@pytest.mark.parametrize("name", sorted(ALL))
def test_byte_by_byte_equals_whole(name: str) -> None:
    data = ALL[name]
    pieces = [data[i : i + 1] for i in range(len(data))]
    assert outcome(pieces) == outcome([data])


@pytest.mark.parametrize("name", sorted(BODIES))
def test_every_two_way_split_equals_whole(name: str) -> None:
    data = BODIES[name]
    whole = outcome([data])
    for cut in range(1, len(data)):
        assert outcome([data[:cut], data[cut:]]) == whole, f"split at byte {cut}"


def _events_or_error(pieces: list[bytes]) -> object:
    try:
        return events(pieces)
    except SSEConnectorError as exc:
        return type(exc).__name__


@pytest.mark.parametrize("name", sorted(ALL))
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_any_split_gives_the_same_events(name: str, data: st.DataObject) -> None:
    whole = ALL[name]
    pieces = chop(whole, data.draw(st.lists(st.integers(0, len(whole)), max_size=30)))
    assert _events_or_error(pieces) == _events_or_error([whole])
    assert outcome(pieces) == outcome([whole])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=2_000))
def test_any_bytes_give_events_or_a_typed_error(data: bytes) -> None:
    with contextlib.suppress(SSEConnectorError):
        outcome([data])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    at=st.integers(0, 10_000),
    junk=st.binary(min_size=1, max_size=12),
    cuts=st.lists(st.integers(0, 10_000), max_size=6),
)
def test_mutated_bodies_give_one_typed_verdict_however_split(
    data: st.DataObject, at: int, junk: bytes, cuts: list[int]
) -> None:
    original = BODIES[data.draw(st.sampled_from(sorted(BODIES)))]
    at %= len(original)
    mutated = original[:at] + junk + original[at + len(junk) :]
    whole = outcome([mutated])  # only the typed errors are caught there
    assert outcome(chop(mutated, cuts)) == whole


#: Every field the decoder reads, at any depth.
FIELDS = (
    "candidates", "content", "parts", "text", "thought", "thoughtSignature", "functionCall",
    "name", "args", "id", "partialArgs", "jsonPath", "stringValue", "numberValue", "boolValue",
    "willContinue", "finishReason", "index", "citationMetadata", "citations", "safetyRatings",
    "usageMetadata", "promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount",
    "totalTokenCount", "promptFeedback", "blockReason", "error", "code", "message", "status",
    "responseId", "modelVersion", "createTime", "response",
)  # fmt: skip
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


def _replace(value: Any, key: str, new: object) -> Any:
    """``value`` with every ``key`` (at any depth) set to ``new``."""
    if isinstance(value, dict):
        return {k: new if k == key else _replace(v, key, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace(v, key, new) for v in value]
    return value


def _with(data: bytes, key: str, new: object) -> bytes:
    """``data`` with every ``key`` of every JSON frame set to ``new``."""
    frames = []
    for raw in data.replace(b"\r\n", b"\n").split(b"\n\n"):
        head, sep, payload = raw.rpartition(b"data: ")
        try:
            value = json.loads(payload) if sep and payload[:1] in (b"{", b"[") else None
        except ValueError:
            value = None
        if value is None:
            frames.append(raw)
        else:
            frames.append(head + sep + json.dumps(_replace(value, key, new)).encode())
    return b"\n\n".join(frames)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), new=JSON)
def test_any_json_value_in_any_field_gives_events_or_a_typed_error(
    data: st.DataObject, new: object
) -> None:
    original = ALL[data.draw(st.sampled_from(sorted(ALL)))]
    mutated = _with(original, data.draw(st.sampled_from(FIELDS)), new)
    _, completion = outcome([mutated])  # only the typed errors are caught there
    repr(completion)  # every value it holds is printable


def _numbers(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in _numbers(item, (*path, key))]
    if isinstance(value, list):
        return [p for at, item in enumerate(value) for p in _numbers(item, (*path, at))]
    return [path] if type(value) in (int, float) else []


def _number(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)


ODD = ["1e999", "-1e999", "NaN", "Infinity", "-1", "0.5", "18446744073709551616", "9" * 4000,
       "9" * 5000]  # fmt: skip
NUMBERS = st.one_of(st.sampled_from(ODD), st.integers().map(str), st.floats().map(_number))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), number=NUMBERS)
def test_any_number_in_any_numeric_field_gives_events_or_a_typed_error(
    data: st.DataObject, number: str
) -> None:
    original = ALL[data.draw(st.sampled_from(sorted(ALL)))]
    frames = original.replace(b"\r\n", b"\n").split(b"\n\n")
    found = [
        (at, json.loads(raw[6:])) for at, raw in enumerate(frames) if raw.startswith(b"data: {")
    ]
    at, payload = data.draw(st.sampled_from(found))
    paths = _numbers(payload)
    if not paths:
        return
    path = data.draw(st.sampled_from(paths))
    holder = payload
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = "\x00number\x00"
    written = json.dumps(payload).replace('"\\u0000number\\u0000"', number)
    frames[at] = b"data: " + written.encode()
    _, completion = outcome([b"\n\n".join(frames)])
    repr(completion)
