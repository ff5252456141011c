"""Real Anthropic Messages streams, recorded by public projects' test suites (provenance in
tests/fixtures/real/SOURCES.md, section "Anthropic Messages"), decoded with
``protocol="anthropic"``; the expected values are read off the captures by hand.

``*.sse`` files are response bodies as sent (``event:`` lines, Anthropic's padded frames);
``*.payloads.jsonl`` keep each event's data only, so they are framed as ``data:`` lines
without ``event:`` lines: the type is inside the data, as some gateways send it.
"""

from __future__ import annotations

import re
from pathlib import Path

from sse_core import Completion, ReasoningBlock, ToolCall
from tests.core.anthropic.messages_wire import outcome

FOLDER = Path(__file__).resolve().parents[2] / "fixtures" / "real" / "anthropic"


def _body(path: Path) -> bytes:
    raw = path.read_bytes()
    if path.name.endswith(".payloads.jsonl"):
        return b"".join(b"data: " + line + b"\n\n" for line in raw.splitlines() if line.strip())
    return raw


CAPTURES = {path.name: _body(path) for path in sorted(FOLDER.iterdir()) if path.is_file()}


def ok(name: str) -> Completion:
    verdict, completion = outcome([CAPTURES[name]])
    assert verdict == "ok", verdict
    return completion


def test_there_are_captures() -> None:
    assert len(CAPTURES) >= 4


def test_redacted_thinking_blocks_come_back_byte_exact_from_padded_frames() -> None:
    name = "pydantic-ai__sonnet45-redacted-thinking-padded-frames.sse"
    completion = ok(name)
    raw = (FOLDER / name).read_bytes()
    data = [m.decode() for m in re.findall(rb'"redacted_thinking","data":"([^"]+)"', raw)]
    assert len(data) == 2 and data[0].startswith("EqkECkYI") and data[1].endswith("GAE=")
    assert completion.reasoning_blocks == tuple(ReasoningBlock(redacted=d) for d in data)
    assert completion.reasoning == ""
    assert completion.content.startswith("I notice that you've sent what appears to be some")
    assert completion.content.endswith(
        "How can I assist you today with a legitimate task or question?"
    )
    assert '"magic string"' in completion.content and "\n\nI'm Claude" in completion.content
    assert (completion.id, completion.model) == (
        "msg_018XZkwvj9asBiffg3fXt88s",
        "claude-sonnet-4-5-20250929",
    )
    usage = completion.usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (92, 189, 281)
    assert (usage.cached_tokens, usage.cache_write_tokens) == (0, 0)
    assert usage.raw["service_tier"] == "standard"  # said in message_start only
    assert (completion.finish_reason, completion.stop_reason, completion.done) == (
        "stop",
        "end_turn",
        True,
    )


def test_tool_use_with_only_an_empty_input_piece_has_empty_object_arguments() -> None:
    completion = ok("vercel-ai__tool-no-args.payloads.jsonl")
    assert completion.content == "I'll update the issue list for you."
    assert completion.tool_calls == (
        ToolCall(
            index=0, id="toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name="updateIssueList", arguments="{}"
        ),
    )
    usage = completion.usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens) == (565, 48)
    assert (completion.finish_reason, completion.stop_reason) == ("tool_calls", "tool_use")


def test_input_tokens_restated_in_message_delta_win() -> None:
    completion = ok("vercel-ai__message-delta-input-tokens.payloads.jsonl")
    assert completion.content == "pong"
    usage = completion.usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (61, 2, 63)


def test_content_prefilled_in_message_start_with_its_stop_reason() -> None:
    completion = ok("vercel-ai__message-start-prepopulated-content.payloads.jsonl")
    assert completion.tool_calls == (
        ToolCall(
            index=0, id="toolu_followup", name="lookup_customer", arguments='{"id":"customer_123"}'
        ),
    )
    start, *results = completion.events
    # message_start says more than this decoder reads (a container): kept whole
    assert start.name == "message_start"
    assert start.data["message"]["container"]["id"] == "container_prepopulated"
    assert [r.data["tool_use_id"] for r in results] == ["srvtoolu_result_1", "srvtoolu_result_2"]
    assert {r.name for r in results} == {"content_block"}
    assert (completion.finish_reason, completion.stop_reason, completion.done) == (
        "tool_calls",
        "tool_use",
        True,
    )


def test_a_refusal_keeps_its_stop_details() -> None:
    completion = ok("vercel-ai__refusal-stop-details.payloads.jsonl")
    assert (completion.content, completion.tool_calls) == ("", ())
    assert (completion.finish_reason, completion.stop_reason) == ("content_filter", "refusal")
    (event,) = completion.events
    assert event.name == "message_delta"
    assert event.data["delta"]["stop_details"]["category"] == "cyber"
    usage = completion.usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens) == (18, 5)
    assert usage.raw["inference_geo"] == "not_available"
