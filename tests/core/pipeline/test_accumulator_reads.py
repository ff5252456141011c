"""``Accumulator.read()``: what each network read added, told by the accumulator itself.

A stream's reader (LangChain's coalesced chunks, every LlamaIndex response) maps one read at a
time; the accumulator holds every piece already, so the read comes from it and no adapter
walks a batch of events again. Each read carries what a framework shows per read: the text,
reasoning, refusal and merged tool-call fragments, the reasoning blocks that closed (with
their signatures, or redacted), the citations that came, the named events, the usage report,
and where the choice stands after it (its mark and finish).

The byte-level tests cut real captures at every byte (and at every frame, and at random), add
each read's events as the transport does, and check that the reads add up to the Completion
and agree with :func:`merge_read` of the same events where both can know.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from sse_core import (
    Citation,
    Completion,
    ErrorFrame,
    Finish,
    GatewayEvent,
    GatewayStreamError,
    ReasoningBlock,
    ReasoningDelta,
    ReasoningSignature,
    RedactedReasoning,
    StreamDecoder,
    StreamError,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    Usage,
    UsageUpdate,
)
from sse_core.pipeline import Accumulator, ReadDelta
from sse_core.pipeline.reads import merge_read

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
NOTE = GatewayEvent(name="note", data={"n": 1})
CITED = {"type": "char_location", "cited_text": "x", "document_index": 0}


def _body(path: Path) -> bytes:
    raw = path.read_bytes()
    if path.name.endswith(".payloads.jsonl"):
        return b"".join(b"data: " + line + b"\n\n" for line in raw.splitlines() if line.strip())
    return raw


def _captures(folder: Path) -> dict[str, bytes]:
    return {
        path.name: _body(path)
        for path in sorted(folder.iterdir())
        if path.name.endswith((".sse", ".payloads.jsonl"))
    }


ANTHROPIC = _captures(FIXTURES / "real" / "anthropic")
CHAT = {**_captures(FIXTURES / "real"), **_captures(FIXTURES / "seeds")}


def reads(
    pieces: list[bytes], protocol: str
) -> Iterator[tuple[Accumulator, list[StreamEvent], ReadDelta]]:
    """Each read's events added to one accumulator as the transport adds them (up to an
    error frame), then its read: (the accumulator, the read's events, the read)."""
    decoder = StreamDecoder(protocol=protocol)
    answer = Accumulator()
    try:
        for piece in [*pieces, None]:
            batch = decoder.feed(piece) if piece is not None else decoder.finish()
            taken: list[StreamEvent] = []
            for event in batch:
                try:
                    answer.add(event)
                except GatewayStreamError:
                    break
                taken.append(event)
            if taken:
                yield answer, taken, answer.read()
            if len(taken) < len(batch) or decoder.done:
                return
    except StreamError:  # a malformed capture ends where the transport would end it
        return


def splits(data: bytes, cuts: int) -> Iterator[list[bytes]]:
    """The body whole, a frame per read, random reads, and cut in two at every byte (at
    about ``cuts`` bytes evenly apart, in a longer body)."""
    yield [data]
    frames = data.split(b"\n\n")
    yield [frame + b"\n\n" for frame in frames[:-1]] + ([frames[-1]] if frames[-1] else [])
    rng = random.Random(7)
    for _ in range(3):
        pieces, at = [], 0
        while at < len(data):
            size = rng.randint(1, 60)
            pieces.append(data[at : at + size])
            at += size
        yield pieces
    for at in range(1, len(data), max(1, len(data) // cuts)):
        yield [data[:at], data[at:]]


def _merge_calls(found: dict[int, ToolCall], call: ToolCallDelta) -> None:
    known = found.get(call.index) or ToolCall(index=call.index)
    found[call.index] = ToolCall(
        index=call.index,
        id=known.id or call.id,
        name=known.name or call.name,
        arguments=known.arguments + call.arguments,
    )


def check_adds_up(pieces: list[bytes], protocol: str) -> int:
    """The reads of ``pieces`` add up to the Completion; each mark's snapshot holds the
    blocks and citations read so far. The number of reads."""
    text = reasoning = refusal = ""
    blocks: list[ReasoningBlock] = []
    cited: list[object] = []
    events: list[GatewayEvent] = []
    calls: dict[int, ToolCall] = {}
    usage: Usage | None = None
    answer, count, last = None, 0, ReadDelta()
    for answer, _, read in reads(pieces, protocol):
        count += 1
        text, reasoning, refusal = (
            text + read.text,
            reasoning + read.reasoning,
            refusal + read.refusal,
        )
        blocks += read.reasoning_blocks
        cited += read.citations
        events += read.events
        usage = read.usage or usage
        for call in read.tool_calls:
            _merge_calls(calls, call)
        if read.mark is not None:
            shot = answer.snapshot(read.mark)
            assert (shot.content, shot.reasoning) == (text, reasoning)
            assert list(shot.reasoning_blocks) == blocks and list(shot.citations) == cited
        last = read
    if answer is None:  # an error frame before anything (the stream raises)
        return 0
    whole: Completion = answer.completion()
    first = whole.choices[0] if whole.choices else None
    assert (text, reasoning, refusal) == (whole.content, whole.reasoning, whole.refusal)
    assert tuple(calls[index] for index in sorted(calls)) == whole.tool_calls
    closed = [b for b in whole.reasoning_blocks if b.signature is not None or b.redacted]
    assert [b for b in blocks if b.signature is not None or b.redacted] == closed
    assert tuple(cited) == whole.citations and tuple(events) == whole.events
    assert usage is whole.usage
    finish = last.finish
    assert (finish and finish.reason) == whole.finish_reason
    if first is not None and finish is not None:
        assert (finish.stop_reason, finish.stop_sequence) == (
            first.stop_reason,
            first.stop_sequence,
        )
    return count


#: Captures with signed, redacted and unsigned reasoning blocks, and a refusal's stop
#: fields: cut at every byte (the others at about 400 places).
EVERY_BYTE = (
    "pydantic-ai__sonnet45-redacted-thinking-padded-frames.sse",
    "vercel-ai__sonnet5-thinking-signature-padded.payloads.jsonl",
    "vercel-ai__thinking-context-management.payloads.jsonl",
    "vercel-ai__refusal-stop-details.payloads.jsonl",
)


@pytest.mark.parametrize("name", sorted(ANTHROPIC))
def test_anthropic_reads_add_up_to_the_completion_at_every_cut(name: str) -> None:
    data = ANTHROPIC[name]
    for pieces in splits(data, cuts=len(data) if name in EVERY_BYTE else 400):
        check_adds_up(pieces, "anthropic")


def test_the_citations_capture_reads_give_every_citation() -> None:
    data = ANTHROPIC["vercel-ai__web-search-citations.payloads.jsonl"]
    assert data.count(b"citations_delta") >= 2
    assert max(check_adds_up(pieces, "anthropic") for pieces in splits(data, cuts=60)) > 10


@pytest.mark.parametrize("name", sorted(CHAT))
def test_chat_completions_reads_add_up_and_agree_with_merge_read(name: str) -> None:
    data = CHAT[name]
    for pieces in splits(data, cuts=100):
        check_adds_up(pieces, "chat_completions")
        for answer, batch, read in reads(pieces, "chat_completions"):
            merged = merge_read(batch, answer.followed)
            told = (read.text, read.reasoning, read.refusal, read.tool_calls, read.citations)
            assert told == (
                merged.text,
                merged.reasoning,
                merged.refusal,
                merged.tool_calls,
                merged.citations,
            )
            assert (read.finished, read.usage, read.events) == (
                merged.finished,
                merged.usage,
                merged.events,
            )


def test_signed_and_redacted_blocks_close_in_the_read_that_closes_them() -> None:
    answer = Accumulator()
    answer.extend([ReasoningDelta(text="Fir"), ReasoningDelta(text="st")])
    first = answer.read()
    assert first.reasoning == "First" and first.reasoning_blocks == ()
    answer.extend([ReasoningSignature(signature="sig-A"), RedactedReasoning(data="RED")])
    second = answer.read()
    assert second.reasoning == "" and second.reasoning_blocks == (
        ReasoningBlock(text="First", signature="sig-A"),
        ReasoningBlock(redacted="RED"),
    )
    answer.extend([ReasoningDelta(text="open"), RedactedReasoning(data="R2")])
    # unsigned text closed by a redacted block: both close in this read
    assert answer.read().reasoning_blocks == (
        ReasoningBlock(text="open"),
        ReasoningBlock(redacted="R2"),
    )
    assert second.mark is not None
    assert len(answer.snapshot(second.mark).reasoning_blocks) == 2  # as of its read


def test_citations_come_in_their_read_and_snapshots_hold_those_given_by_then() -> None:
    answer = Accumulator()
    answer.extend([TextDelta(text="a"), Citation(citation=CITED, block=0)])
    first = answer.read()
    later = {**CITED, "cited_text": "y"}
    answer.extend([Citation(citation=later), Citation(citation={"other": 1}, choice=1)])
    second = answer.read()
    assert (first.citations, second.citations) == ((CITED,), (later,))
    assert first.mark is not None and answer.snapshot(first.mark).citations == (CITED,)
    assert answer.citations() == (CITED, later) and answer.citations(1) == ({"other": 1},)
    assert Accumulator().citations() == ()


def test_the_finish_and_its_stop_fields_stand_in_every_later_read() -> None:
    answer = Accumulator()
    answer.add(TextDelta(text="a"))
    assert answer.read().finish is None
    stop = Finish(reason="stop", stop_reason="stop_sequence", stop_sequence="END")
    answer.add(stop)
    ended = answer.read()
    assert ended.finished and ended.finish == stop and not ended.has_delta
    answer.add(UsageUpdate(usage=Usage(total_tokens=3)))
    after = answer.read()
    assert not after.finished and after.finish == stop  # where the choice stands
    answer.add(Finish(reason="stop"))  # a gateway repeating its finish (double-finish captures)
    assert answer.read().finished


def test_a_repeated_usage_object_is_still_a_report_of_its_read() -> None:
    # The chat decoder hands the same Usage object on when the counts did not change.
    usage = Usage(prompt_tokens=1, completion_tokens=2, total_tokens=3)
    answer = Accumulator()
    answer.extend([TextDelta(text="a"), UsageUpdate(usage=usage)])
    assert answer.read().usage is usage
    answer.add(TextDelta(text="b"))
    assert answer.read().usage is None
    answer.add(UsageUpdate(usage=usage))
    assert answer.read().usage is usage


def test_before_any_choice_a_read_has_only_named_events_and_usage() -> None:
    answer = Accumulator()
    usage = Usage(total_tokens=1)
    answer.extend([NOTE, UsageUpdate(usage=usage)])
    assert answer.read() == ReadDelta(events=(NOTE,), usage=usage)
    answer.add(TextDelta(text="hi", choice=2))
    read = answer.read()
    assert read.text == "hi" and read.events == () and read.mark == (2, 1, 0, 0, 0, 0, 0)


def test_an_empty_read_changes_nothing_and_keeps_the_mark() -> None:
    answer = Accumulator()
    answer.add(TextDelta(text="a"))
    first = answer.read()
    again = answer.read()
    assert not again.has_delta and again.mark == first.mark and again.text == ""
    answer.extend([TextDelta(text="b"), TextDelta(text="c"), TextDelta(text="z", choice=1)])
    assert answer.read().text == "bc"  # the followed choice only


def test_tool_fragments_merge_per_call_with_id_and_name_on_their_first_read() -> None:
    answer = Accumulator()
    answer.extend(
        [
            ToolCallDelta(index=1, id="b", name="g", arguments="{"),
            ToolCallDelta(index=0, id="a", name="f"),
            ToolCallDelta(index=0, arguments='{"k":'),
        ]
    )
    assert answer.read().tool_calls == (
        ToolCallDelta(index=1, id="b", name="g", arguments="{"),
        ToolCallDelta(index=0, id="a", name="f", arguments='{"k":'),
    )
    answer.extend([ToolCallDelta(index=0, arguments="1}"), ToolCallDelta(index=1, arguments="}")])
    assert answer.read().tool_calls == (
        ToolCallDelta(index=0, arguments="1}"),
        ToolCallDelta(index=1, arguments="}"),
    )
    answer.add(ToolCallDelta(index=2))  # a fragment that carries nothing still touched a call
    assert answer.read().tool_calls == (ToolCallDelta(index=2),)


def test_an_error_frame_leaves_the_events_before_it_in_the_read() -> None:
    answer = Accumulator()
    answer.add(TextDelta(text="partial"))
    with pytest.raises(GatewayStreamError):
        answer.add(ErrorFrame(message="boom"))
    assert answer.read().text == "partial"


@pytest.mark.timeout(60)
def test_reading_after_every_piece_stays_linear() -> None:
    # 100,000 text pieces and 50,000 fragments of one call, a read after each: a read that
    # joined or scanned what came before would be quadratic (minutes); this is a blink.
    answer = Accumulator()
    size = 0
    for _ in range(100_000):
        answer.add(TextDelta(text="x"))
        size += len(answer.read().text)
    answer.add(ToolCallDelta(index=0, id="c", name="f", arguments="{"))
    answer.read()
    for _ in range(50_000):
        answer.add(ToolCallDelta(index=0, arguments="1"))
        (call,) = answer.read().tool_calls
        size += len(call.arguments)
    assert size == 150_000


def test_a_skipped_read_is_left_out_of_the_next() -> None:
    answer = Accumulator()
    answer.add(TextDelta(text="a"))
    answer.skip_read()  # the reader mapped that one event itself
    answer.extend([TextDelta(text="b"), TextDelta(text="c")])
    assert answer.read().text == "bc"
    answer.add(ToolCallDelta(index=0, id="x", name="f", arguments="{"))
    answer.skip_read()
    answer.extend([ToolCallDelta(index=0, arguments="}"), NOTE])
    told = answer.read()
    assert told.tool_calls == (ToolCallDelta(index=0, arguments="}"),) and told.events == (NOTE,)
    empty = Accumulator()
    empty.add(NOTE)
    empty.skip_read()
    assert empty.read() == ReadDelta()
