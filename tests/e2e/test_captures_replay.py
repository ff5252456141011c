"""The 40 real captures of tests/fixtures/real (38 wire bodies, and 2 lists of chunk
payloads framed here as ``data:`` events), replayed by the emulator, through both adapters:
ChatSSE and SSELLM give what decoding the capture gives (content, reasoning, tool calls,
finish reason, usage), or the same typed error with the same partial answer.

The decoder's own result is checked against hand-written expectations in
tests/core/test_golden.py; here the question is whether the whole path (HTTP, the emulator
writing the captured bytes event by event, the transport, the adapter) keeps all of it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.base.llms.types import ThinkingBlock
from llama_index.core.llms import ChatMessage

import sse_core
from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM
from sse_core import Choice, Completion, StreamError
from sse_emulator.pytest_plugin import ReplayFactory

REAL = Path(__file__).parents[1] / "fixtures" / "real"
CAPTURES = sorted([*REAL.glob("*.sse"), *REAL.glob("*.payloads.jsonl")])

pytestmark = pytest.mark.timeout(60)


def wire(capture: Path, tmp_path: Path) -> Path:
    """The capture as a wire body the emulator can replay (payload lists framed as SSE)."""
    if capture.suffix == ".sse":
        return capture
    lines = capture.read_bytes().splitlines()
    framed = tmp_path / (capture.name + ".sse")
    framed.write_bytes(b"".join(b"data: " + line + b"\n\n" for line in lines if line.strip()))
    return framed


def decoded(capture: Path) -> tuple[Completion, type[StreamError] | None]:
    try:
        return sse_core.decode(capture.read_bytes()), None
    except StreamError as error:
        return error.partial, type(error)


def followed(completion: Completion) -> Choice:
    return completion.choices[0] if completion.choices else Choice()


def calls_of(choice: Choice) -> list[tuple[str | None, str | None, Any]]:
    return [(c.id, c.name, json.loads(c.arguments or "{}")) for c in choice.tool_calls]


def test_there_are_the_captures() -> None:
    assert len(CAPTURES) == 40


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda p: p.name)
def test_chat_sse_gives_what_the_capture_holds(
    capture: Path, emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    capture = wire(capture, tmp_path)
    want, error_class = decoded(capture)
    model = ChatSSE(model="m", base_url=emulator_replay(capture).base_url(), max_retries=0)
    try:
        message: Any = model.invoke("replay")
    except StreamError as error:
        assert isinstance(error, error_class or ()), error
        message = error.partial_message
        want = error.partial
    else:
        assert error_class is None
    choice = followed(want)
    assert message.content == choice.content
    assert message.additional_kwargs.get("reasoning_content", "") == choice.reasoning
    calls = [(c["id"], c["name"], c["args"]) for c in message.tool_calls]
    assert calls == calls_of(choice)
    assert message.response_metadata.get("finish_reason") == choice.finish_reason
    if want.usage is not None and want.usage.prompt_tokens is not None:
        assert message.usage_metadata["input_tokens"] == want.usage.prompt_tokens
        assert message.usage_metadata["output_tokens"] == (want.usage.completion_tokens or 0)


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda p: p.name)
def test_sse_llm_gives_what_the_capture_holds(
    capture: Path, emulator_replay: ReplayFactory, tmp_path: Path
) -> None:
    capture = wire(capture, tmp_path)
    want, error_class = decoded(capture)
    llm = SSELLM(model="m", base_url=emulator_replay(capture).base_url(), max_retries=0)
    try:
        response: Any = llm.chat([ChatMessage(role="user", content="replay")])
    except StreamError as error:
        assert isinstance(error, error_class or ()), error
        response = error.partial_response
        want = error.partial
    else:
        assert error_class is None
    choice = followed(want)
    message = response.message
    # No empty TextBlock beside tool calls (as llama-index's Anthropic and OpenAI's whole
    # answers): such a message's content is None, as theirs is.
    assert message.content == (choice.content or (None if choice.tool_calls else ""))
    thinking = "".join(b.content or "" for b in message.blocks if isinstance(b, ThinkingBlock))
    assert thinking == choice.reasoning
    calls = [
        (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"] or "{}"))
        for c in message.additional_kwargs.get("tool_calls", [])
    ]
    assert calls == [(i or f"call_{n}", name, a) for n, (i, name, a) in enumerate(calls_of(choice))]
    if error_class is None:
        assert response.additional_kwargs.get("finish_reason") == choice.finish_reason
    if want.usage is not None and want.usage.prompt_tokens is not None:
        assert response.additional_kwargs["prompt_tokens"] == want.usage.prompt_tokens
