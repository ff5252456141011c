"""Responses, when the deltas and the final output disagree (issue 36): a whole answer is the
final text, as the API defines the response (``response.output_text``: the output's
``output_text`` parts joined); a stream cannot take back what it already showed, so its
deltas are what it showed, and the ``response.output_mismatch`` gateway event keeps both.

Concretely: ``Completion.content`` (``decode()``, ``ChatClient.complete``, a stream's
completion once it ended) is the final text; the TextDeltas (a stream's chunks, a snapshot
at any mark) are the deltas. The final text is the terminal event's (its ``output``, else
the last ``.done`` / ``content_part.done`` / ``output_item.done`` of each part); parts with
no final version keep their deltas; reasoning and refusals are not concerned.

Two bodies show it: one in vLLM's manner (``data:`` lines only; a word the deltas lost, kept
by ``output_text.done``, the done item and the final output: vllm-project/vllm#30099, fixed
by #30437: when the engine yielded several tokens at once only the last was streamed), and
the emulator's ``lost-delta`` fault.
"""

from __future__ import annotations

from typing import Any

import httpx

import sse_core
from sse_core import ChatClient, StreamDecoder, TextDelta
from sse_core.pipeline.responses_items import MISMATCH
from sse_emulator import Emulator
from tests.core.responses.responses_wire import (
    USAGE,
    added,
    body,
    chop,
    completed,
    created,
    item_done,
    message_item,
    part_added,
    text,
    text_done,
)
from tests.raw_server import response, serving

STREAMED = "Every wave returns to the shore."
FINAL = "Every wave slowly returns to the shore."
PIECES = ["Every", " wave", " returns", " to", " the", " shore."]  # " slowly" lost
ITEM = "msg_vllm"


def _part_done(index: int, whole: str) -> dict[str, Any]:
    return {
        "type": "response.content_part.done",
        "item_id": ITEM,
        "output_index": index,
        "content_index": 0,
        "part": {"type": "output_text", "text": whole, "annotations": []},
    }


#: In vLLM's manner: data lines only, a [DONE] after the terminal event.
VLLM_LOST = (
    body(
        created(),
        added(0, message_item(ITEM)),
        part_added(0, ITEM),
        *(text(0, piece, ITEM) for piece in PIECES),
        text_done(0, FINAL, ITEM),
        _part_done(0, FINAL),
        item_done(0, message_item(ITEM, FINAL)),
        completed([{**message_item(ITEM, FINAL), "status": "completed"}], usage=USAGE),
        named=False,
    )
    + b"data: [DONE]\n\n"
)


def mismatches(completion: sse_core.Completion) -> list[tuple[str, str]]:
    return [(e.data["streamed"], e.data["final"]) for e in completion.events if e.name == MISMATCH]


def streamed_text(data: bytes) -> str:
    decoder = StreamDecoder(protocol="responses")
    events = [e for at in range(len(data)) for e in decoder.feed(data[at : at + 1])]
    return "".join(e.text for e in [*events, *decoder.finish()] if isinstance(e, TextDelta))


def test_a_whole_answer_is_the_final_text_and_the_stream_the_deltas() -> None:
    assert streamed_text(VLLM_LOST) == STREAMED
    for cut in range(len(VLLM_LOST) + 1):
        completion = sse_core.decode(chop(VLLM_LOST, [cut]), protocol="responses")
        assert (completion.content, completion.finish_reason) == (FINAL, "stop"), cut
        assert set(mismatches(completion)) == {(STREAMED, FINAL)}, cut


def test_a_part_with_no_final_version_keeps_its_deltas() -> None:
    other = "msg_2"
    data = body(
        created(),
        added(0, message_item(ITEM)),
        *(text(0, piece, ITEM) for piece in PIECES),
        text_done(0, FINAL, ITEM),
        added(1, message_item(other)),
        text(1, " The end.", other),
        completed(),  # vLLM: an empty output
    )
    completion = sse_core.decode(data, protocol="responses")
    assert completion.content == FINAL + " The end."
    assert streamed_text(data) == STREAMED + " The end."


def test_deltas_that_agree_with_the_final_output_are_the_answer() -> None:
    data = body(
        created(),
        added(0, message_item(ITEM)),
        *(text(0, piece, ITEM) for piece in PIECES),
        text_done(0, STREAMED, ITEM),
        completed([{**message_item(ITEM, STREAMED), "status": "completed"}]),
    )
    completion = sse_core.decode(data, protocol="responses")
    assert (completion.content, mismatches(completion)) == (STREAMED, [])


def test_the_client_completes_with_the_final_text_and_streams_the_deltas() -> None:
    with serving(lambda n, request: response(VLLM_LOST)) as server, ChatClient(
        base_url=server.url, api_key="sk-test", protocol="responses", max_retries=0
    ) as client:  # fmt: skip
        whole = client.complete({"model": "m", "input": "hi"})
        with client.stream({"model": "m", "input": "hi"}) as stream:
            shown = "".join(e.text for e in stream if isinstance(e, TextDelta))
            ended = stream.completion
    assert whole.content == FINAL and set(mismatches(whole)) == {(STREAMED, FINAL)}
    assert shown == STREAMED
    assert ended is not None and ended.content == FINAL


def test_the_emulators_lost_delta_fault_completes_with_the_whole_text() -> None:
    prompt = {"model": "emulator", "input": "echo: one two three four"}
    with Emulator() as emulator, ChatClient(
        base_url=emulator.base_url("responses"), api_key="sk-test", protocol="responses",
        default_headers={"X-Emulator-Fault": "lost-delta"}, max_retries=0,
    ) as client:  # fmt: skip
        whole = client.complete(prompt)
        with client.stream(prompt) as stream:
            shown = "".join(e.text for e in stream if isinstance(e, TextDelta))
        record = emulator.last_request
        assert record is not None
        sent = httpx.post(emulator.url + record.path, content=record.body, timeout=10,
                          headers={"content-type": "application/json",
                                   "X-Emulator-Fault": "lost-delta"}).content  # fmt: skip
    assert streamed_text(sent) == shown == "one three four"
    assert whole.content == "one two three four"
    assert set(mismatches(whole)) == {("one three four", "one two three four")}
