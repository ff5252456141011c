"""``sse-chat probe --protocol responses``: OpenAI Responses API gateways, as the emulator's
``responses`` dialect (docs/emulator.md) and its gateway variants (``X-Emulator-Fault`` sent
with ``--header``) show them; the fixtures of tests/fixtures/responses/ read by the analysis;
the settings it recommends, which work."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.llms import ChatMessage
from pydantic import SecretStr

from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM
from sse_chat.cli import main
from sse_chat.probe.analyse import exchange
from sse_chat.probe.ending import GRACE, body_ending
from sse_chat.probe.responses import find_responses
from sse_chat.probe.steps import RESPONSES_ENDS
from sse_core.transport.config import ClientConfig
from sse_emulator import Emulator

pytestmark = pytest.mark.timeout(120)

FOLDER = Path(__file__).parents[2] / "tests" / "fixtures" / "responses"
REASONING = {"effort": "low", "summary": "auto"}
USAGE = [
    "input_tokens",
    "input_tokens_details.cached_tokens",
    "output_tokens",
    "output_tokens_details.reasoning_tokens",
    "total_tokens",
]
#: What docs/emulator.md documents of the responses dialect, as the probe names it.
DOCUMENTED: dict[str, Any] = {
    "protocol": "responses",
    "requests": 5,
    "content_type": "text/event-stream; charset=utf-8",
    "event_lines": "all",
    "terminal_event": "response.completed",
    "status": "completed",
    "ending": "closes",
    "done_marker": False,
    "sequence_numbers": True,
    "usage": USAGE,
    "final_output": "items",
    "reasoning": "summary",
    "reasoning_on_request": True,
    "encrypted_content": True,
    "tool_arguments": "in_pieces",
    "other_events": [],
    "error_response": {
        "status": 400,
        "content_type": "application/json",
        "json_error": True,
        "message": "Previous response with id 'resp_sse_chat_probe_not_stored' not found.",
    },
    "step_errors": {},
}


def probe(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(["probe", *argv])
    except SystemExit as exit:
        code = int(exit.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def probe_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, err = probe([*argv, "--json"], capsys)
    assert code == 0, out + err
    (line,) = out.splitlines()  # ONE JSON object
    report: dict[str, Any] = json.loads(line)
    return report


def on(emulator: Emulator, *argv: str) -> list[str]:
    return ["--protocol", "responses", "--base-url", emulator.base_url("responses"), *argv]


def test_the_responses_dialect_is_reported_as_documented(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = probe_json(["--protocol", "responses"], capsys)
    assert {key: report[key] for key in DOCUMENTED} == DOCUMENTED
    assert report["url"].endswith("/v1/responses")
    base = report["recommended"]["base_url"]
    shared = {"model": "emulator", "base_url": base, "protocol": "responses"}
    assert report["recommended"] == {**shared, "model_kwargs": {"reasoning": REASONING}}
    assert report["recommended_llamaindex"] == {
        **shared,
        "additional_kwargs": {"reasoning": REASONING},
    }


@pytest.mark.parametrize(
    ("fault", "found"),
    [
        ("data-only", {"event_lines": "none"}),
        ("done-marker", {"done_marker": True, "ending": "closes"}),
        ("output-empty", {"final_output": "empty"}),
        ("no-argument-deltas", {"tool_arguments": "done_only"}),
        ("reasoning-text", {"reasoning": "reasoning_text"}),
        ("item-id-per-event", {"tool_arguments": "in_pieces", "final_output": "items"}),
        (
            "web-search",
            {
                "other_events": [
                    "response.web_search_call.completed",
                    "response.web_search_call.in_progress",
                    "response.web_search_call.searching",
                ]
            },
        ),
    ],
)
def test_gateway_variants_are_told_apart(
    fault: str, found: dict[str, Any], emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = on(emulator, "--model", "m", "--header", f"X-Emulator-Fault: {fault}")
    report = probe_json(argv, capsys)
    assert {key: report[key] for key in found} == found
    assert "default_headers" not in report["recommended"]  # the fault is no setting


def test_a_gateway_whose_responses_fail_is_one_line(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = on(emulator, "--model", "m", "--header", "X-Emulator-Fault: response-failed")
    code, out, err = probe(argv, capsys)
    assert (code, out) == (1, "")
    assert err == (
        f"sse-chat probe: {emulator.base_url('responses')}/responses: the first request failed: "
        "GatewayStreamError: the gateway reported an error inside the stream: The model failed "
        "to generate a response. Please try again.\n"
    )


def test_a_socket_held_open_after_the_terminal_event_is_found_without_waiting_for_it(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = on(emulator, "--model", "m", "--header", "X-Emulator-Fault: hold-open; seconds=60")
    started = time.monotonic()
    code, out, _ = probe(argv, capsys)
    assert time.monotonic() - started < 30
    assert code == 0
    assert (
        "  end of stream  response.completed (status completed), then the socket stays open (a "
        "client that waits for the end of the body hangs)\n"
    ) in out


def test_the_report_for_people(emulator: Emulator, capsys: pytest.CaptureFixture[str]) -> None:
    base = emulator.base_url("responses")
    code, out, err = probe(on(emulator, "--model", "m"), capsys)
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"probed {base}/responses (model m, 5 requests)",
        "  protocol       OpenAI Responses API",
        "  content type   text/event-stream; charset=utf-8",
        "  end of stream  response.completed (status completed), then the body ends",
        "  event: lines   on every frame",
        "  sequence nos   on every event",
        "  usage          " + ", ".join(USAGE),
        "  final output   the items",
        "  reasoning      a summary (reasoning_summary_text), encrypted_content on the item "
        "(switched on by reasoning)",
        "  tool calls     function_call items, arguments in deltas",
        "  other events   none",
        "  a bad request  HTTP 400 application/json: Previous response with id "
        "'resp_sse_chat_probe_not_stored' not found.",
        "recommended settings (the key: api_key=... or SSE_API_KEY):",
        f"  ChatSSE(model='m', base_url='{base}', protocol='responses', "
        f"model_kwargs={{'reasoning': {REASONING}}})",
        f"  SSELLM(model='m', base_url='{base}', protocol='responses', "
        f"additional_kwargs={{'reasoning': {REASONING}}})",
    ]


def test_the_requests_are_the_cores_and_recorded(
    emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = on(emulator, "--model", "m", "--record", str(tmp_path))
    report = probe_json([*argv, "--api-key", "sk-resp-probe-canary-1234"], capsys)
    folders = sorted(p.name for p in tmp_path.iterdir())
    assert folders == ["1-plain", "2-ending", "3-thinking", "4-tools", "5-failure"]
    recorded = "".join(p.read_text() for p in tmp_path.glob("*/*"))
    assert "response.completed" in recorded and "sk-resp-probe-canary" not in recorded
    assert report["url"] == emulator.base_url("responses") + "/responses"
    plain, ending, thinking, tools, failure = (r.json() for r in emulator.requests)
    assert plain == ending
    assert plain["store"] is False and plain["max_output_tokens"] == 256
    assert thinking["reasoning"] == REASONING
    assert thinking["include"] == ["reasoning.encrypted_content"]
    assert tools["tools"][0]["name"] == "get_weather"
    assert failure["previous_response_id"] == "resp_sse_chat_probe_not_stored"
    for request in emulator.requests:  # the ending request too
        assert request.header("authorization") == "Bearer ***1234"


def test_the_fixtures_through_the_analysis() -> None:
    meta = {"status": 200, "headers": [["content-type", "text/event-stream"]]}

    def read(name: str) -> Any:
        return exchange(meta, (FOLDER / name).read_bytes())

    found = find_responses(
        {"plain": (read("text.sse"),), "tools": (read("function-calls.sse"),)}, None
    )
    assert (found.terminal_event, found.status, found.event_lines) == (
        "response.completed",
        "completed",
        "all",
    )
    assert found.tool_arguments == "in_pieces" and found.final_output == "items"
    vllm = find_responses({"plain": (read("vllm-unnamed-empty-output.sse"),)}, None)
    assert (vllm.event_lines, vllm.done_marker, vllm.final_output) == ("none", True, "empty")
    assert vllm.reasoning == "reasoning_text"
    assert vllm.other_events == ("response.reasoning_part.added",)
    cut = find_responses({"plain": (read("incomplete.sse"),)}, None)
    assert (cut.terminal_event, cut.status) == ("response.incomplete", "incomplete")


@pytest.mark.parametrize(
    ("fault", "ending"),
    [
        (None, "closes"),
        ("hold-open; seconds=30", "held_open"),
        ("truncate; after=3", "no_message_stop"),
        ("data-only", "closes"),
    ],
)
def test_how_the_body_ends_after_the_terminal_event(
    fault: str | None, ending: str, emulator: Emulator, tmp_path: Path
) -> None:
    headers = {"X-Emulator-Fault": fault} if fault else {}
    config = ClientConfig.build(
        base_url=emulator.base_url("responses"), protocol="responses", default_headers=headers
    )
    payload = {"model": "m", "input": "hi", "store": False}
    started = time.monotonic()
    assert body_ending(config, payload, tmp_path, 20.0, stops=RESPONSES_ENDS) == ending
    assert time.monotonic() - started < GRACE + 5


def test_the_recommended_settings_work(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """ChatSSE and SSELLM built from the report reason and answer against the gateway."""
    report = probe_json(on(emulator, "--model", "m"), capsys)
    chat = ChatSSE(**report["recommended"], api_key=SecretStr("sk-demo"))
    message = chat.invoke("hello")
    assert isinstance(message.text, str) and message.text.startswith("Hello!")
    assert emulator.requests[-1].json()["reasoning"] == REASONING
    llm = SSELLM(**report["recommended_llamaindex"], api_key="sk-demo")
    answer = llm.chat([ChatMessage(role="user", content="hello")])
    assert (answer.message.content or "").startswith("Hello!")
    assert emulator.requests[-1].json()["reasoning"] == REASONING
