"""Anthropic citations are Citation events, byte-level: a text block's ``citations_delta``, the
``citations`` a text block starts with, those of a block prefilled in ``message_start`` and
those of a whole JSON answer each become ``Citation(citation=<as sent>, block=<index>)``; the
Accumulator keeps them in arrival order (``Choice.citations``, ``Completion.citations``). A
citation that is no JSON object stays a GatewayEvent, as sent. Every body gives the same
events and Completion however it is split into reads.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from sse_core import Citation, Completion, GatewayEvent, StreamDecoder, TextDelta
from sse_core.pipeline import Accumulator, MessagesDecoder, StreamSession
from tests.core.anthropic.messages_wire import (
    STOP,
    block,
    body,
    chop,
    delta,
    message_delta,
    start,
    stop_block,
    text,
    thinking,
)
from tests.core.pipeline.decode_support import outcome

CHAR = {"type": "char_location", "cited_text": "Paris", "document_index": 0,
        "document_title": "Atlas", "start_char_index": 0, "end_char_index": 5}  # fmt: skip
WEB = {"type": "web_search_result_location", "cited_text": "big", "url": "https://w.test/p",
       "title": "Paris", "encrypted_index": "Eo8B"}  # fmt: skip
# A kind not known yet, with fields of its own: kept as sent, nothing dropped or renamed.
FUTURE = {"type": "some_future_location", "cited_text": "x", "where": {"page": [1, 2]}}


def cite(index: int, citation: object) -> dict[str, Any]:
    return delta(index, "citations_delta", citation=citation)


# Block 1 is cited while block 0's text streams between its citations.
INTERLEAVED = body(
    start(),
    block(0),
    block(1),
    cite(1, CHAR),
    text(0, "Hello "),
    text(1, "Paris"),
    cite(1, WEB),
    text(0, "there. "),
    cite(1, FUTURE),
    text(1, " is big."),
    stop_block(0),
    stop_block(1),
    message_delta(),
    STOP,
)
STARTS_CITED = body(
    start(content=[{"type": "text", "text": "Pre", "citations": [WEB]}]),
    block(1, text="Paris", citations=[CHAR]),
    cite(1, FUTURE),
    stop_block(1),
    block(2, citations=None),
    text(2, "."),
    stop_block(2),
    message_delta(),
    STOP,
)
BODIES = {"interleaved": INTERLEAVED, "starts cited": STARTS_CITED}


def decoded(data: bytes) -> tuple[list[Any], str, Completion]:
    return outcome(StreamDecoder(protocol="anthropic"), [data])


def test_citations_delta_become_citation_events_of_their_block_in_order() -> None:
    events, error, completion = decoded(INTERLEAVED)
    assert error == ""
    assert [e for e in events if isinstance(e, Citation)] == [
        Citation(citation=CHAR, block=1),
        Citation(citation=WEB, block=1),
        Citation(citation=FUTURE, block=1),
    ]
    assert not [e for e in events if isinstance(e, GatewayEvent)]
    texts = [e.text for e in events if isinstance(e, TextDelta)]
    assert texts == ["Hello ", "Paris", "there. ", " is big."]
    assert completion.citations == (CHAR, WEB, FUTURE) == completion.choices[0].citations
    assert completion.content == "Hello Paristhere.  is big."
    assert (completion.finish_reason, completion.events) == ("stop", ())


def test_an_unknown_kind_is_kept_as_sent() -> None:
    _, _, completion = decoded(INTERLEAVED)
    assert completion.citations[2] == {
        "type": "some_future_location",
        "cited_text": "x",
        "where": {"page": [1, 2]},
    }


def test_citations_a_text_block_starts_with_or_is_prefilled_with() -> None:
    events, error, completion = decoded(STARTS_CITED)
    assert error == ""
    cited = [e for e in events if isinstance(e, Citation)]
    assert cited == [
        Citation(citation=WEB, block=0),  # prefilled in message_start: content[0]
        Citation(citation=CHAR, block=1),
        Citation(citation=FUTURE, block=1),
    ]
    # A block's citations come before its text, as citations_delta do on the wire.
    assert events.index(cited[1]) < events.index(TextDelta(text="Paris"))
    assert completion.content == "PreParis."
    assert completion.citations == (WEB, CHAR, FUTURE)


def test_a_whole_json_answer_gives_the_citations_of_its_text_blocks() -> None:
    answer = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [
            {"type": "text", "text": "Paris", "citations": [CHAR, WEB]},
            {"type": "text", "text": " is big.", "citations": [FUTURE]},
        ],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 4},
    }
    events = MessagesDecoder().decode_whole(json.dumps(answer).encode())
    assert [e for e in events if isinstance(e, Citation)] == [
        Citation(citation=CHAR, block=0),
        Citation(citation=WEB, block=0),
        Citation(citation=FUTURE, block=1),
    ]
    session = StreamSession(protocol="anthropic")
    session.begin({"content-type": "application/json"})
    session.step(json.dumps(answer).encode())
    session.end()
    completion = session.completion()
    assert (completion.content, completion.citations) == ("Paris is big.", (CHAR, WEB, FUTURE))


@pytest.mark.parametrize("name", list(BODIES))
def test_every_split_gives_the_same_events_and_completion(name: str) -> None:
    data = BODIES[name]
    whole = decoded(data)
    assert whole[2].citations
    byte_by_byte = outcome(StreamDecoder(protocol="anthropic"), chop(data, range(len(data))))
    assert byte_by_byte == whole
    for cut in range(1, len(data)):
        assert outcome(StreamDecoder(protocol="anthropic"), chop(data, [cut])) == whole, cut


@pytest.mark.parametrize("citation", ["Paris", ["Paris"], None, 7])
def test_a_citations_delta_without_an_object_stays_a_gateway_event_as_sent(
    citation: object,
) -> None:
    bad = cite(0, citation)
    data = body(start(), block(0), bad, text(0, "Hi"), stop_block(0), message_delta(), STOP)
    events, error, completion = decoded(data)
    assert error == ""
    assert not [e for e in events if isinstance(e, Citation)]
    assert [e for e in events if isinstance(e, GatewayEvent)] == [
        GatewayEvent(name="content_block_delta", data=bad)
    ]
    assert (completion.content, completion.citations) == ("Hi", ())


def test_a_citations_delta_with_no_citation_at_all_stays_a_gateway_event() -> None:
    bare = delta(0, "citations_delta")
    data = body(start(), block(0), bare, text(0, "Hi"), stop_block(0), message_delta(), STOP)
    events, _, completion = decoded(data)
    assert [e for e in events if isinstance(e, GatewayEvent)] == [
        GatewayEvent(name="content_block_delta", data=bare)
    ]
    assert completion.citations == ()


def test_a_start_citation_that_is_no_object_stays_a_gateway_event_as_sent() -> None:
    data = body(start(), block(0, citations=["odd", CHAR]), stop_block(0), message_delta(), STOP)
    events, error, completion = decoded(data)
    assert error == ""
    assert GatewayEvent(name="citation", data="odd") in events
    assert completion.citations == (CHAR,)


def test_citations_outside_an_open_text_block_stay_gateway_events() -> None:
    after_stop, on_thinking = cite(0, CHAR), cite(1, WEB)
    data = body(
        start(),
        block(0),
        text(0, "Hi"),
        stop_block(0),
        after_stop,  # its block is closed: kept as sent, as text after the stop is
        block(1, "thinking"),
        thinking(1, "hm"),
        on_thinking,  # not a text block
        stop_block(1),
        message_delta(),
        STOP,
    )
    events, _, completion = decoded(data)
    assert [e.data for e in events if isinstance(e, GatewayEvent)] == [after_stop, on_thinking]
    assert completion.citations == ()


def test_a_citations_delta_of_a_block_never_started_implies_a_text_block() -> None:
    data = body(start(), cite(3, CHAR), text(3, "Paris"), message_delta(), STOP)
    events, _, completion = decoded(data)
    said = [e for e in events if isinstance(e, (Citation, TextDelta))]
    assert said == [Citation(citation=CHAR, block=3), TextDelta(text="Paris")]
    assert (completion.content, completion.citations, completion.events) == (
        "Paris",
        (CHAR,),
        (),
    )


def test_the_accumulator_keeps_citations_per_choice_and_in_snapshots() -> None:
    acc = Accumulator()
    acc.extend(
        [
            TextDelta(text="a"),
            Citation(citation=CHAR, block=0),
            Citation(citation=WEB, choice=1),
            Citation(citation=FUTURE),
        ]
    )
    mark = acc.mark()
    assert mark is not None
    assert acc.snapshot(mark).citations == (CHAR, FUTURE)
    completion = acc.completion()
    assert completion.citations == (CHAR, FUTURE)
    assert [c.citations for c in completion.choices] == [(CHAR, FUTURE), (WEB,)]
    assert Completion().citations == ()
