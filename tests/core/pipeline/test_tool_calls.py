"""The tool-call rules (``pipeline/tool_calls.py``): ``ToolIndexer`` gives every wire shape's
fragment our index and passes id/name on once; ``CallParts`` grows a call (id/name set once,
arguments appended) and reads it back as it stood after any fragment (``at``)."""

from __future__ import annotations

from typing import Any

import pytest

from sse_core import ToolCall, ToolCallDelta
from sse_core.pipeline.tool_calls import CallParts, ToolIndexer


def call(index: object = None, **fields: Any) -> dict[str, Any]:
    """One ``tool_calls`` entry on the wire (``index`` omitted when None)."""
    entry: dict[str, Any] = {} if index is None else {"index": index}
    function = {k: fields.pop(k) for k in ("name", "arguments") if k in fields}
    entry.update(fields)
    if function:
        entry["function"] = function
    return entry


def index_all(*entries: dict[str, Any], choice: int = 0) -> list[ToolCallDelta | None]:
    indexer = ToolIndexer()
    return [indexer.fragment(entry, choice) for entry in entries]


def d(index: int, id: str | None = None, name: str | None = None, args: str = "") -> ToolCallDelta:
    return ToolCallDelta(index=index, id=id, name=name, arguments=args)


# --- ToolIndexer: the wire shapes -------------------------------------------------------------


def test_openai_by_index_in_pieces() -> None:
    assert index_all(
        call(0, id="call_a", type="function", name="f", arguments=""),
        call(0, arguments='{"x"'),
        call(0, arguments=":1}"),
    ) == [d(0, "call_a", "f"), d(0, args='{"x"'), d(0, args=":1}")]


def test_whole_calls_in_one_delta() -> None:
    assert index_all(
        call(0, id="a", name="f", arguments="{}"), call(1, id="b", name="g", arguments="{}")
    ) == [d(0, "a", "f", "{}"), d(1, "b", "g", "{}")]


def test_repeated_empty_ids_and_names_are_passed_on_once() -> None:
    # DashScope: "" ids on continuations; some gateways repeat the name on every piece.
    assert index_all(
        call(0, id="call_a", name="f", arguments="{"),
        call(0, id="", name="f", arguments="}"),
        call(0, id="call_a", name="f"),
    ) == [d(0, "call_a", "f", "{"), d(0, args="}"), None]


def test_wire_index_numbered_from_one_is_kept() -> None:
    assert index_all(call(1, id="a", name="f"), call(1, arguments="{}")) == [
        d(1, "a", "f"),
        d(1, args="{}"),
    ]


def test_a_wire_index_reused_for_a_new_id_is_a_new_call() -> None:
    assert index_all(
        call(0, id="a", name="f", arguments="{}"),
        call(0, id="b", name="g", arguments="{"),
        call(0, arguments="}"),  # continues the new call
        call(0, id="c", name="h"),  # and again
        call(1, id="d", name="k"),  # wire index 1: our 1 is taken by "b", so a new call
    ) == [
        d(0, "a", "f", "{}"),
        d(1, "b", "g", "{"),
        d(1, args="}"),
        d(2, "c", "h"),
        d(3, "d", "k"),
    ]


def test_no_index_joins_by_id() -> None:
    # Mistral, Ollama, Gemini.
    assert index_all(
        call(id="a", name="f", arguments='{"x"'),
        call(id="b", name="g"),
        call(id="a", arguments=":1}"),
        call(id="b", arguments="{}"),
    ) == [d(0, "a", "f", '{"x"'), d(1, "b", "g"), d(0, args=":1}"), d(1, args="{}")]


def test_no_index_no_id_a_name_starts_a_call_else_the_open_call_continues() -> None:
    assert index_all(
        call(name="f", arguments="{"),
        call(arguments="}"),
        call(name="g", arguments="{"),
        call(arguments='"y"'),
        call(arguments="}"),
    ) == [
        d(0, name="f", args="{"),
        d(0, args="}"),
        d(1, name="g", args="{"),
        d(1, args='"y"'),
        d(1, args="}"),
    ]


def test_a_call_without_index_after_indexed_calls_takes_the_next_free_index() -> None:
    assert index_all(call(5, id="a", name="f"), call(id="b", name="g"), call(name="h")) == [
        d(5, "a", "f"),
        d(6, "b", "g"),
        d(7, name="h"),
    ]


def test_a_continuation_without_index_or_id_goes_to_the_last_call_touched() -> None:
    assert index_all(
        call(0, id="a", name="f"),
        call(1, id="b", name="g"),
        call(0, arguments="{"),
        call(arguments="}"),
    ) == [d(0, "a", "f"), d(1, "b", "g"), d(0, args="{"), d(0, args="}")]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [({"x": 1}, '{"x":1}'), ([1, "a"], '[1,"a"]'), (None, ""), (7, "7"), ("", "")],
)
def test_arguments_that_are_not_a_string_are_serialised(arguments: object, expected: str) -> None:
    (event,) = index_all(call(0, id="a", name="f", arguments=arguments))
    assert event is not None and event.arguments == expected


@pytest.mark.parametrize(
    "entry",
    [
        {"index": 0},
        {"index": 0, "function": {"arguments": ""}},
        {"index": 0, "id": "", "function": {"name": ""}},
        {"index": 0, "id": 5, "function": {"name": ["f"]}},
        {"function": "f"},
        {},
    ],
)
def test_a_fragment_that_carries_nothing_gives_no_event(entry: dict[str, Any]) -> None:
    assert index_all(entry) == [None]


@pytest.mark.parametrize("index", ["0", 0.0, True, None, [0]])
def test_an_index_that_is_not_an_int_counts_as_none(index: object) -> None:
    entry = {"index": index, "id": "a", "function": {"name": "f"}}
    assert index_all(entry) == [d(0, "a", "f")]


def test_the_choice_is_carried_on_every_event() -> None:
    (event,) = index_all(call(0, id="a", name="f"), choice=3)
    assert event is not None and event.choice == 3


def test_the_indexer_is_linear_in_the_number_of_calls() -> None:
    indexer = ToolIndexer()
    events = [indexer.fragment(call(name="f", arguments="{}"), 0) for _ in range(20_000)]
    assert [e.index for e in events if e is not None] == list(range(20_000))


# --- CallParts -------------------------------------------------------------------------------


def test_call_parts_set_id_and_name_once_and_append_arguments() -> None:
    parts = CallParts(0)
    for seq, event in enumerate(
        [d(0, "a", "f", "{"), d(0, "b", "g", '"x"'), d(0, args=""), d(0, args=":1}")]
    ):
        parts.add(event, seq)
    assert parts.build(4) == ToolCall(index=4, id="a", name="f", arguments='{"x":1}')


def test_at_reads_the_call_as_it_stood_after_any_fragment() -> None:
    # Fragment numbers are the choice's: other calls' fragments come in between (1, 3, 4).
    parts = CallParts(first=0)
    parts.add(d(0, args="{"), 0)
    parts.add(d(0, name="f"), 2)
    parts.add(d(0, id="a", args='"x"'), 5)
    parts.add(d(0, args="}"), 6)
    assert [parts.at(9, count) for count in range(8)] == [
        ToolCall(index=9),  # nothing arrived yet
        ToolCall(index=9, arguments="{"),
        ToolCall(index=9, arguments="{"),
        ToolCall(index=9, name="f", arguments="{"),
        ToolCall(index=9, name="f", arguments="{"),
        ToolCall(index=9, name="f", arguments="{"),
        ToolCall(index=9, id="a", name="f", arguments='{"x"'),
        ToolCall(index=9, id="a", name="f", arguments='{"x"}'),
    ]


def test_at_out_of_order_and_repeated_reads_agree() -> None:
    parts = CallParts(first=0)
    for seq, piece in enumerate(["a", "b", "c", "d"]):
        parts.add(d(0, args=piece), seq)
    forward = [parts.at(0, count).arguments for count in range(5)]
    backward = [parts.at(0, count).arguments for count in reversed(range(5))]
    assert forward == ["", "a", "ab", "abc", "abcd"] and backward == forward[::-1]
    assert parts.at(0, 100).arguments == "abcd" == parts.build(0).arguments


def test_first_records_where_the_call_began() -> None:
    assert CallParts(first=7).first == 7


@pytest.mark.parametrize(
    ("arguments", "sent"),
    [({}, "{}"), ({"city": "Paris"}, '{"city":"Paris"}'), (None, ""), ([], "[]")],
)
def test_arguments_sent_as_an_object_keep_their_json(arguments: object, sent: str) -> None:
    # Some gateways send the arguments as an object: an empty one still means "{}".
    (fragment,) = index_all(call(0, id="c", name="f", arguments=arguments))
    assert fragment == d(0, "c", "f", sent)
