"""Real Anthropic Messages streams, recorded by public projects' test suites (provenance in
tests/fixtures/real/SOURCES.md, section "Anthropic Messages"), decoded with
``protocol="anthropic"``; the expected values are read off the captures by hand.

``*.sse`` files are response bodies as sent (``event:`` lines, Anthropic's padded frames);
``*.payloads.jsonl`` keep each event's data only, so they are framed as ``data:`` lines
without ``event:`` lines: the type is inside the data, as some gateways send it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from sse_core import Completion, GatewayEvent, ReasoningBlock, ToolCall
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
    assert len(CAPTURES) >= 11


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


def _signatures(name: str) -> list[str]:
    """The signatures as the capture's bytes spell them (read off the file, not decoded)."""
    raw = (FOLDER / name).read_bytes()
    return [m.decode() for m in re.findall(rb'"signature_delta","signature":"([^"]+)"', raw)]


def _pieces(completion: Completion, kind: str) -> str:
    """The ``input_json_delta`` pieces of the server tool blocks, kept as gateway events."""
    return "".join(
        e.data["delta"]["partial_json"]
        for e in completion.events
        if e.name == "content_block_delta" and e.data["delta"]["type"] == kind
    )


def test_signed_thinking_from_padded_payloads_comes_back_byte_exact() -> None:
    name = "vercel-ai__sonnet5-thinking-signature-padded.payloads.jsonl"
    completion = ok(name)
    thought = (
        "I'm working through the Euclidean algorithm to find the GCD of 1071 and 462, applying"
        " successive division until I reach a remainder of zero, which gives me 21 as the"
        " greatest common divisor."
    )
    (signature,) = _signatures(name)
    assert len(signature) == 436
    assert signature.startswith("EsECCokBCBAYAipA") and signature.endswith("1I6L4oPGAE=")
    assert completion.reasoning == thought
    assert completion.reasoning_blocks == (ReasoningBlock(text=thought, signature=signature),)
    assert completion.content.startswith(
        "# Finding GCD(1071, 462) Using the Euclidean Algorithm\n\n## Step 1: Divide 1071 by"
        " 462\n$$1071 = 2 \\times 462 + 147$$\n"
        "(since 2 \u00d7 462 = 924, and 1071 \u2212 924 = 147)"
    )
    assert "\n\n## Conclusion\nSince the remainder is now 0" in completion.content
    assert "$$\\gcd(1071, 462) = 21$$" in completion.content
    assert completion.content.endswith("- 1071 = 21 \u00d7 51 ✓\n- 462 = 21 \u00d7 22 ✓")
    assert (completion.id, completion.model) == ("msg_011CdZqGg4K3tq97K7RDtTw7", "claude-sonnet-5")
    usage = completion.usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (47, 373, 420)
    assert (usage.cached_tokens, usage.cache_write_tokens) == (0, 0)
    assert usage.raw["output_tokens_details"] == {"thinking_tokens": 62}
    assert usage.reasoning_tokens == 62  # output_tokens_details.thinking_tokens, in the 373
    assert usage.raw["inference_geo"] == "global"
    assert (completion.finish_reason, completion.stop_reason, completion.stop_sequence) == (
        "stop",
        "end_turn",
        None,
    )
    assert completion.done and completion.events == ()  # stop_details: null says nothing


def test_an_empty_thinking_piece_adds_nothing_and_context_management_is_kept() -> None:
    name = "vercel-ai__thinking-context-management.payloads.jsonl"
    completion = ok(name)
    thought = "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185"
    (signature,) = _signatures(name)
    assert len(signature) == 332
    assert signature.startswith("EvQBCkYICxgCKkAx") and signature.endswith("T6Ca17BgB")
    assert completion.reasoning_blocks == (ReasoningBlock(text=thought, signature=signature),)
    assert completion.content == "925 ÷ 5 = 185"
    usage = completion.usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (69, 53, 122)
    (event,) = completion.events
    assert event.name == "message_delta"
    assert event.data["context_management"] == {"applied_edits": []}
    assert (completion.finish_reason, completion.stop_reason) == ("stop", "end_turn")


def test_an_mcp_tool_run_by_the_server_is_no_tool_call() -> None:
    completion = ok("vercel-ai__mcp-tool-use-and-result.payloads.jsonl")
    assert completion.tool_calls == ()
    assert completion.content == (
        "The echo tool responded back with: **hello world**\n\n"
        "It simply echoed back the exact message that was sent to it."
    )
    starts = [e.data["content_block"] for e in completion.events if e.name == "content_block_start"]
    assert [(b["type"], b.get("id"), b.get("tool_use_id")) for b in starts] == [
        ("mcp_tool_use", "mcptoolu_017CuqaJcXe5ZHJjaz3KS1AT", None),
        ("mcp_tool_result", None, "mcptoolu_017CuqaJcXe5ZHJjaz3KS1AT"),
    ]
    assert starts[1]["content"] == [{"type": "text", "text": "Tool echo: hello world"}]
    assert _pieces(completion, "input_json_delta") == '{"message": "hello world"}'
    usage = completion.usage
    assert usage is not None
    # input_tokens 589 in message_start, 1250 in message_delta: the last wins
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (1250, 83, 1333)
    assert (completion.finish_reason, completion.stop_reason) == ("stop", "end_turn")


def test_a_tool_use_with_a_caller_and_its_input_in_pieces() -> None:
    completion = ok("vercel-ai__tool-use-caller-stop-details.payloads.jsonl")
    assert completion.content == "Let me check."
    assert completion.tool_calls == (
        ToolCall(
            index=0,
            id="toolu_01Ni1uw4HXYxUhc4iFMqx7yY",
            name="get_weather",
            arguments='{"city": "San Francisco"}',
        ),
    )
    assert (completion.id, completion.model) == (
        "msg_011CdHMeT7EYp2un4JDDZLDT",
        "claude-sonnet-4-5-20250929",
    )
    usage = completion.usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (624, 59, 683)
    assert (completion.finish_reason, completion.stop_reason, completion.stop_sequence) == (
        "tool_calls",
        "tool_use",
        None,
    )


def test_server_code_execution_and_web_fetch_with_a_container() -> None:
    completion = ok("vercel-ai__code-execution-web-fetch-container.payloads.jsonl")
    assert completion.tool_calls == ()  # code_execution and web_fetch ran on the server
    assert completion.content == (
        "The page at **example.com** is a simple placeholder page explaining that the domain"
        " is reserved for use in illustrative documentation examples and does not require"
        " prior permission to reference."
    )
    code = json.loads(_pieces(completion, "input_json_delta"))["code"]
    assert code == (
        '\nimport json\nresult = await web_fetch({"url": "https://example.com"})\n'
        'if isinstance(result, list):\n    print(result[0]["content"][:500])\n'
        "else:\n    print(result)\n"
    )
    starts = [e.data["content_block"] for e in completion.events if e.name == "content_block_start"]
    assert [b["type"] for b in starts] == [
        "server_tool_use",
        "server_tool_use",
        "web_fetch_tool_result",
        "code_execution_tool_result",
    ]
    assert starts[1]["input"] == {"url": "https://example.com"}
    (stop,) = [e for e in completion.events if e.name == "message_delta"]
    assert stop.data["delta"]["container"]["id"] == "container_011CYgdezfe66pcmCprMd28x"
    usage = completion.usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (7172, 144, 7316)
    assert usage.raw["server_tool_use"] == {"web_search_requests": 0, "web_fetch_requests": 1}
    assert (completion.finish_reason, completion.stop_reason) == ("stop", "end_turn")


def test_cache_reads_and_writes_of_the_last_report_count_in_the_prompt() -> None:
    completion = ok("vercel-ai__bash-code-execution-prompt-cache.payloads.jsonl")
    usage = completion.usage
    assert usage is not None
    # message_start: input 2, cache writes 3068; message_delta: input 6, reads 6289, writes 3337
    assert (usage.cached_tokens, usage.cache_write_tokens) == (6289, 3337)
    assert usage.prompt_tokens == 6 + 6289 + 3337
    assert (usage.completion_tokens, usage.total_tokens) == (198, 6 + 6289 + 3337 + 198)
    assert usage.raw["input_tokens"] == 6
    assert usage.reasoning_tokens == 0  # thinking_tokens: 0 is said, not left unsaid
    assert completion.content == "The sum of the squares of the numbers 1 through 12 is **650**."
    assert completion.tool_calls == ()
    pieces = [
        e.data["delta"]["partial_json"]
        for e in completion.events
        if e.name == "content_block_delta"
    ]
    first, second = "".join(pieces[:11]), "".join(pieces[11:])
    assert json.loads(first) == {"command": 'for n in $(seq 1 12); do echo "$n: $((n*n))"; done'}
    assert json.loads(second) == {
        "command": 'sum=0; for n in $(seq 1 12); do sum=$((sum + n*n)); done; echo "Sum: $sum"'
    }
    (stop,) = [e for e in completion.events if e.name == "message_delta"]
    assert stop.data["delta"]["container"]["id"] == "container_01Qh1LG5zm6onKQjYrHnhrvi"
    assert (completion.finish_reason, completion.stop_reason) == ("stop", "end_turn")


@pytest.mark.parametrize("size", [1, 7])
@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_reads_of_any_size_decode_as_the_whole_body(name: str, size: int) -> None:
    body = CAPTURES[name]
    whole = outcome([body])
    assert whole[0] == "ok"
    assert outcome(body[i : i + size] for i in range(0, len(body), size)) == whole


def test_named_frames_with_a_spaced_ping_and_a_tool_use_with_a_caller() -> None:
    completion = ok("anthropic-sdk-python__tool-use-caller-named-ping.sse")
    assert completion.content == "I'll check the current weather in Paris for you."
    assert completion.tool_calls == (
        ToolCall(
            index=0,
            id="toolu_01NRLabsLyVHZPKxbKvkfSMn",
            name="get_weather",
            arguments='{"location": "Paris"}',
        ),
    )
    usage = completion.usage
    assert usage is not None
    # input_tokens only in message_start, output_tokens last said in message_delta
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (377, 65, 442)
    assert (completion.id, completion.model) == (
        "msg_019Q1hrJbZG26Fb9BQhrkHEr",
        "claude-sonnet-4-20250514",
    )
    assert (completion.finish_reason, completion.stop_reason) == ("tool_calls", "tool_use")


CUT_ARGUMENTS = (
    '{"filename": "taxes.txt", "lines_of_text": [\n'
    '"# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s",\n'
    '"",\n"## INTRODUCTION",\n"",\n"Filing taxes'
)


def test_tool_input_cut_by_max_tokens_is_kept_as_written_and_flagged() -> None:
    # No content_block_stop for the tool block: message_delta (max_tokens) then message_stop.
    completion = ok("anthropic-sdk-python__max-tokens-cut-tool-input-padded.sse")
    assert completion.content == (
        "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a"
        " file called taxes.txt. Let me do that for you now."
    )
    (call,) = completion.tool_calls
    assert (call.index, call.id, call.name) == (0, "toolu_01EKqbqmZrGRXy18eN7m9kvY", "make_file")
    assert call.arguments == CUT_ARGUMENTS  # never repaired
    assert call.arguments_error is not None
    assert (completion.finish_reason, completion.stop_reason) == ("length", "max_tokens")
    usage = completion.usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (450, 124, 574)
    assert completion.done


def _payloads(name: str) -> list[dict[str, Any]]:
    """The events of a ``.payloads.jsonl`` capture, read with ``json`` (not the decoder)."""
    return [json.loads(line) for line in (FOLDER / name).read_bytes().splitlines()]


def _deltas(name: str, kind: str) -> list[dict[str, Any]]:
    return [
        p["delta"]
        for p in _payloads(name)
        if p["type"] == "content_block_delta" and p["delta"]["type"] == kind
    ]


WEB_SEARCH = "vercel-ai__web-search-citations.payloads.jsonl"


def test_web_search_citations_come_back_as_sent_and_in_order() -> None:
    completion = ok(WEB_SEARCH)
    assert completion.tool_calls == ()  # web_search ran on the server
    assert completion.content == "".join(d["text"] for d in _deltas(WEB_SEARCH, "text_delta"))
    assert completion.content.startswith(
        "Based on my search results, here are the key tech news developments from today"
        " (September 26, 2025):\n\n## Apple News\nApple today announced the grand reopening"
    )
    assert completion.content.endswith(
        "marking over 20 years since their first international retail expansion."
    )
    sent = [d["citation"] for d in _deltas(WEB_SEARCH, "citations_delta")]
    assert len(sent) == 14
    assert completion.citations == tuple(sent)
    first, second = completion.citations[:2]
    assert first["type"] == "web_search_result_location"
    assert first["cited_text"] == (
        "Apple today announced the grand reopening of Apple Ginza on Friday, September 26,"
        " located in the vibrant Ginza district."
    )
    assert first["encrypted_index"].startswith("Eo8BCioICBgCIiRiY2Jj")
    assert "where Apple\u2019s retail jou..." in second["cited_text"]  # the curly quote as sent
    assert completion.citations[-1]["url"] == "https://9to5mac.com/2025/09/22/ios-26-1-beta-1/"
    assert "\U0001f4f0 Major Tech News" in completion.citations[8]["title"]
    query = json.loads(_pieces(completion, "input_json_delta"))
    assert query == {"query": "tech news today September 26 2025"}
    starts = [e.data["content_block"] for e in completion.events if e.name == "content_block_start"]
    assert [b["type"] for b in starts] == ["server_tool_use", "web_search_tool_result"]
    results = starts[1]["content"]
    assert len(results) == 10 and results[0]["url"].startswith("https://www.crescendo.ai/")
    usage = completion.usage
    assert usage is not None
    # input_tokens 2037 in message_start, 15665 (with the search results) in message_delta
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (
        15665,
        795,
        16460,
    )
    assert usage.raw["server_tool_use"] == {"web_search_requests": 1, "web_fetch_requests": 0}
    assert (completion.finish_reason, completion.stop_reason) == ("stop", "end_turn")


def test_a_tool_only_answer_with_escaped_quotes_in_its_input() -> None:
    completion = ok("vercel-ai__tool-only-escaped-quotes-in-input.payloads.jsonl")
    assert completion.content == ""  # the answer is the tool call alone, at block 0
    (call,) = completion.tool_calls
    assert (call.index, call.id, call.name) == (
        0,
        "toolu_01Cr31vcGoeeRgi3Eo5Ds8qN",
        "website_update",
    )
    assert json.loads(call.arguments) == {
        "website_path": "/home/user/pace-landing",
        "tasks": [
            {
                "description": "Today you post every run to Strava, but Strava does not answer"
                ' the question: "What should I do next after this run?". It is a great log,'
                " but it is not adaptive.",
                "type": "feature",
                "passes": False,
            }
        ],
    }
    assert '\\"What should I do next after this run?\\"' in call.arguments  # as written
    usage = completion.usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (912, 118, 1030)
    assert (completion.finish_reason, completion.stop_reason) == ("tool_calls", "tool_use")
    assert completion.events == ()  # stop_details: null in both places says nothing


def test_a_failed_server_fetch_then_a_client_tool_call_from_padded_payloads() -> None:
    completion = ok("vercel-ai__web-fetch-error-then-client-tool-padded.payloads.jsonl")
    assert completion.content == (
        "I'll follow these steps in order.\n\nStep 1: Calling web_fetch on"
        " https://httpbin.org/status/500"
        "Step 2: web_fetch has returned (with an error, but it has completed).\n\n"
        "Step 3: Now calling display_products"
    )
    # The client tool is block 4 but the first tool call: web_fetch is no call.
    assert completion.tool_calls == (
        ToolCall(
            index=0, id="toolu_01FUuDcCDweLziH8QvQFQLtV", name="display_products", arguments="{}"
        ),
    )
    assert json.loads(_pieces(completion, "input_json_delta")) == {
        "url": "https://httpbin.org/status/500"
    }
    starts = [e.data["content_block"] for e in completion.events if e.name == "content_block_start"]
    assert [b["type"] for b in starts] == ["server_tool_use", "web_fetch_tool_result"]
    assert starts[1]["content"] == {
        "type": "web_fetch_tool_result_error",
        "error_code": "url_not_accessible",
    }
    usage = completion.usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (2509, 158, 2667)
    assert usage.raw["server_tool_use"] == {"web_search_requests": 0, "web_fetch_requests": 1}
    assert (completion.finish_reason, completion.stop_reason) == ("tool_calls", "tool_use")


def test_a_go_relays_reserialized_events_with_missing_fields() -> None:
    # A relay that re-encodes each event from its own structs: no ``text`` in the text
    # block's start, no ``input`` in the tool's, an input piece with no ``partial_json``,
    # ``stop_reason: ""`` in message_start, and no ``stop_sequence`` at all.
    completion = ok("dive__go-relay-reserialized-tool-use.payloads.jsonl")
    assert completion.content == (
        "I'll search for the top Google hits for Foo Fighters. Let me do that for you right away."
    )
    assert completion.tool_calls == (
        ToolCall(
            index=0,
            id="toolu_01VqG2jCdyjoB9HMTFnCKeo2",
            name="google_search",
            arguments='{"query": "Foo Fighters"}',
        ),
    )
    assert (completion.id, completion.model) == (
        "msg_01KCvnUX6MJRRDB1k3L36tU1",
        "claude-3-7-sonnet-20250219",
    )
    usage = completion.usage
    assert usage is not None
    # message_start: 471 in; the relay's message_delta: "input_tokens":0 beside 80 out.
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (471, 80, 551)
    assert (completion.finish_reason, completion.stop_reason, completion.stop_sequence) == (
        "tool_calls",
        "tool_use",
        None,
    )
    assert completion.done and completion.events == ()


def test_a_bedrock_invoke_stream_with_metrics_on_message_stop() -> None:
    # Bedrock's InvokeModelWithResponseStream chunks: Anthropic's events with Bedrock's ids
    # (msg_bdrk_, toolu_bdrk_) and amazon-bedrock-invocationMetrics on message_stop.
    completion = ok("kibana__bedrock-invoke-tool-use-invocation-metrics.payloads.jsonl")
    assert completion.content == ""
    assert completion.tool_calls == (
        ToolCall(
            index=0,
            id="toolu_bdrk_018QcdZZxZqKuheNsHQpbUjG",
            name="getOrderById",
            arguments='{"orderId": "XFGHJ5678"}',
        ),
    )
    assert (completion.id, completion.model) == (
        "msg_bdrk_012EMKX9CWPtpmbxXLG51z2t",
        "claude-3-sonnet-20240229",
    )
    usage = completion.usage
    assert usage is not None
    # The events' own counts (365 in, 60 out), not the metrics' (365, 41).
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (365, 60, 425)
    (stop,) = completion.events  # the metrics are kept, on the message_stop they came on
    assert isinstance(stop, GatewayEvent) and stop.name == "message_stop"
    metrics = stop.data["amazon-bedrock-invocationMetrics"]
    assert (metrics["inputTokenCount"], metrics["outputTokenCount"]) == (365, 41)
    assert (metrics["invocationLatency"], metrics["firstByteLatency"]) == (1181, 366)
    assert (completion.finish_reason, completion.stop_reason, completion.done) == (
        "tool_calls",
        "tool_use",
        True,
    )


def test_the_stop_sequence_that_ended_a_prefilled_answer() -> None:
    # The request prefilled "```python" and stopped on "```": Anthropic leaves the stop
    # sequence out of the text and names it in message_delta.
    name = "llm-anthropic__haiku35-stop-sequence-prefill-padded.sse"
    completion = ok(name)
    sent = [
        json.loads(line[6:])
        for line in (FOLDER / name).read_text("utf-8").splitlines()
        if line.startswith("data: ")
    ]
    texts = [p["delta"]["text"] for p in sent if p["type"] == "content_block_delta"]
    assert len(texts) == 58  # 64 frames: start, block start, ping, 58 pieces, 4 more
    assert completion.content == "".join(texts)
    assert completion.content.startswith('\ndef describe_pelican():\n    """\n    A function')
    assert '"wingspan": "2 - 3.5 meters"' in completion.content
    assert completion.content.endswith(
        'print("Distinctive Features:", pelican_info["physical_characteristics"]'
        '["distinctive_features"])\n'
    )
    assert "```" not in completion.content
    assert (completion.finish_reason, completion.stop_reason, completion.stop_sequence) == (
        "stop",
        "stop_sequence",
        "```",
    )
    usage = completion.usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (15, 386, 401)
    assert (completion.id, completion.model) == (
        "msg_01Hc6vd1tdGFuu8g31Dtwocw",
        "claude-3-5-haiku-20241022",
    )


def test_two_parallel_calls_of_one_tool_with_no_arguments() -> None:
    completion = ok("llm-anthropic__haiku35-two-parallel-tool-calls-padded.sse")
    assert completion.content == (
        "I'll help you generate two names for a pet pelican using the pelican name generator tool."
    )
    # Blocks 1 and 2, each with only an empty input piece: calls 0 and 1, arguments {}.
    assert completion.tool_calls == (
        ToolCall(
            index=0, id="toolu_017ngBid8gmdReTeroVSZf7r", name="pelican_name_generator",
            arguments="{}",
        ),
        ToolCall(
            index=1, id="toolu_01FJrHJrmnfEqR6NxkQ3yhpu", name="pelican_name_generator",
            arguments="{}",
        ),
    )  # fmt: skip
    usage = completion.usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (310, 82, 392)
    assert (completion.finish_reason, completion.stop_reason) == ("tool_calls", "tool_use")
    assert (completion.id, completion.model) == (
        "msg_015S7FCRZ7rzjcyuJgzDu35c",
        "claude-3-5-haiku-latest",
    )
