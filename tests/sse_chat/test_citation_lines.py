"""sse-chat shows an Anthropic answer's citations as ``[citation]`` lines, as sent: live, as
each Citation event arrives (the chat's renderer), and in ``sse-chat decode``'s account of a
body, after the choice's text."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from sse_chat.cli import main
from sse_chat.render import Renderer
from sse_core import Citation, TextDelta
from tests.core.anthropic.messages_wire import (
    STOP,
    block,
    body,
    delta,
    message_delta,
    start,
    stop_block,
    text,
)
from tests.raw_server import response, serving

pytestmark = pytest.mark.timeout(60)

CHAR = {"type": "char_location", "cited_text": "Paris", "document_index": 0}
ODD = {"type": "some_future_location", "cited_text": "x"}
#: An answer whose text "Paris." carries both citations.
ANSWER = body(
    start(),
    block(0),
    delta(0, "citations_delta", citation=CHAR),
    text(0, "Paris."),
    delta(0, "citations_delta", citation=ODD),
    stop_block(0),
    message_delta(),
    STOP,
)


def test_a_citation_event_is_a_line_of_its_own_between_answer_pieces() -> None:
    out = io.StringIO()
    view = Renderer(out)
    for event in (TextDelta(text="Paris"), Citation(citation=CHAR, block=0), TextDelta(text=".")):
        view.event(event)
    view.end_line()
    assert out.getvalue() == (
        f"[answer] Paris\n[citation] {json.dumps(CHAR, separators=(',', ':'))}\n[answer] .\n"
    )


def test_decode_lists_the_citations_after_the_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capture = tmp_path / "capture.sse"
    capture.write_bytes(ANSWER)
    assert main(["decode", str(capture)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    compact = {name: json.dumps(c, separators=(",", ":")) for name, c in (("a", CHAR), ("b", ODD))}
    assert (
        f"[content]\nParis.\n[citation] {compact['a']}\n[citation] {compact['b']}\n"
        "[finish_reason] stop (stop_reason end_turn)\n"
    ) in out
    assert "[event" not in out  # citations are no gateway events


@pytest.mark.parametrize("via", ["langchain", "llamaindex"])
def test_chat_through_either_adapter_shows_the_answers_citations(
    via: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(lambda number, request: response(ANSWER)) as served:
        argv = ["chat", "--protocol", "anthropic", "--base-url", served.url, "--via", via]
        code = main([*argv, "--api-key", "sk-ant-x", "--no-tools", "where?"])
    out, err = capsys.readouterr()
    assert code == 0, err
    compact = [json.dumps(c, separators=(",", ":")) for c in (CHAR, ODD)]
    assert f"[citation] {compact[0]}\n[citation] {compact[1]}\n" in out
    assert out.index("Paris.") < out.index("[citation]") < out.index("finish_reason=stop")
