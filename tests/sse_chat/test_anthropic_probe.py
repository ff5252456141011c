"""``sse-chat probe`` of Messages API (Anthropic) gateways: the emulator's ``anthropic``
dialect as docs/emulator.md documents it, its gateway variants (``X-Emulator-Fault`` sent with
``--header``), real captures read by the analysis, and the settings it recommends."""

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
from sse_chat.probe.anthropic import find_messages
from sse_chat.probe.ending import GRACE, body_ending
from sse_core import SSEConnectorError
from sse_core.transport.config import ClientConfig
from sse_emulator import Emulator

pytestmark = pytest.mark.timeout(120)

FOLDER = Path(__file__).parents[2] / "tests" / "fixtures" / "real" / "anthropic"
SSE_UTF8 = "text/event-stream; charset=utf-8"
THINKING = {"type": "enabled", "budget_tokens": 1024}
EVERY_COUNT = [
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "output_tokens",
]
#: What docs/emulator.md documents of the anthropic dialect, as the probe names it.
DOCUMENTED: dict[str, Any] = {
    "protocol": "anthropic",
    "requests": 5,
    "content_type": SSE_UTF8,
    "event_lines": "all",
    "message_stop": True,
    "ending": "closes",
    "stop_reason": "end_turn",
    "start_usage": EVERY_COUNT,
    "input_tokens_in_message_start": True,
    "delta_usage": "cumulative",
    "usage_deltas": 1,
    "prefilled": False,
    "thinking": True,
    "thinking_on_request": True,
    "signature": True,
    "redacted_thinking": False,
    "pings": True,
    "tool_input": "in_pieces",
    "other_events": [],
    "error_response": {
        "status": 400,
        "content_type": "application/json",
        "json_error": True,
        "message": "max_tokens: Input should be greater than or equal to 0",
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


def test_the_anthropic_dialect_is_reported_as_documented(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = probe_json(["--dialect", "anthropic"], capsys)
    assert {key: report[key] for key in DOCUMENTED} == DOCUMENTED
    assert report["url"].endswith("/anthropic/v1/messages")
    settings = report["recommended"]
    base = settings["base_url"]
    assert base.endswith("/anthropic")
    thinking = {"type": "enabled", "budget_tokens": 1024}  # the emulator thinks when asked
    shared = {"model": "emulator", "base_url": base, "protocol": "anthropic"}
    assert settings == {**shared, "thinking": thinking}
    assert report["recommended_llamaindex"] == {**shared, "thinking_dict": thinking}


@pytest.mark.parametrize(
    ("fault", "found"),
    [
        ("data-only", {"event_lines": "none"}),
        (
            "usage-late",
            {
                "start_usage": ["output_tokens"],
                "input_tokens_in_message_start": False,
                "delta_usage": "cumulative",
            },
        ),
        ("usage-output-only", {"start_usage": EVERY_COUNT, "delta_usage": "output_only"}),
        ("usage-twice", {"delta_usage": "cumulative", "usage_deltas": 2}),
        (
            "prefilled",
            {"prefilled": True, "delta_usage": "none", "pings": False, "tool_input": "whole"},
        ),
    ],
)
def test_gateway_variants_are_told_apart(
    fault: str, found: dict[str, Any], emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--protocol", "anthropic", "--base-url", emulator.base_url("anthropic")]
    report = probe_json([*argv, "--model", "m", "--header", f"X-Emulator-Fault: {fault}"], capsys)
    assert {key: report[key] for key in found} == found
    assert report["message_stop"] is True and report["step_errors"] == {}
    assert "default_headers" not in report["recommended"]  # the fault is no setting


def test_a_socket_held_open_after_message_stop_is_found_without_waiting_for_it(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """The hold lasts 60 s; the probe waits a short grace time after message_stop, and its
    other requests stop at message_stop."""
    argv = ["--protocol", "anthropic", "--base-url", emulator.base_url("anthropic"), "--model", "m"]
    started = time.monotonic()
    code, out, _ = probe([*argv, "--header", "X-Emulator-Fault: hold-open; seconds=60"], capsys)
    assert time.monotonic() - started < 30
    assert code == 0
    assert (
        "  end of stream  message_stop, then the socket stays open (a client that waits for the "
        "end of the body hangs)\n"
    ) in out


def test_the_report_for_people(emulator: Emulator, capsys: pytest.CaptureFixture[str]) -> None:
    base = emulator.base_url("anthropic")
    code, out, err = probe(["--protocol", "anthropic", "--base-url", base, "--model", "m"], capsys)
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"probed {base}/v1/messages (model m, 5 requests)",
        "  protocol       Anthropic Messages API",
        f"  content type   {SSE_UTF8}",
        "  end of stream  message_stop, then the body ends",
        "  stop reason    end_turn",
        "  event: lines   on every frame",
        "  usage          message_start: input_tokens, cache_creation_input_tokens, "
        "cache_read_input_tokens, output_tokens; message_delta: cumulative, with input_tokens; "
        "input tokens in message_start",
        "  prefilled      no",
        "  thinking       thinking blocks, signatures (switched on by thinking)",
        "  pings          sent",
        "  tool calls     tool_use blocks, input in pieces",
        "  other events   none",
        "  a bad request  HTTP 400 application/json: max_tokens: Input should be greater than "
        "or equal to 0",
        "recommended settings (the key: api_key=... or SSE_API_KEY):",
        f"  ChatSSE(model='m', base_url='{base}', protocol='anthropic', thinking={THINKING})",
        f"  SSELLM(model='m', base_url='{base}', protocol='anthropic', thinking_dict={THINKING})",
    ]


def test_a_v1_base_url_and_bearer_auth_are_kept_in_the_settings(
    emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = emulator.base_url("anthropic") + "/v1"
    argv = ["--protocol", "anthropic", "--base-url", base, "--model", "m", "--auth", "bearer"]
    argv += ["--record", str(tmp_path)]
    report = probe_json([*argv, "--api-key", "sk-ant-probe-canary-1234"], capsys)
    folders = sorted(p.name for p in tmp_path.iterdir())
    assert folders == ["1-plain", "2-ending", "3-thinking", "4-tools", "5-failure"]
    recorded = "".join(p.read_text() for p in tmp_path.glob("*/*"))
    assert "message_stop" in recorded and "sk-ant-probe-canary" not in recorded
    assert report["url"] == base + "/messages"  # not /v1/v1/messages
    assert report["recommended"] == {
        "model": "m",
        "base_url": base,
        "protocol": "anthropic",
        "auth": "bearer",
        "thinking": {"type": "enabled", "budget_tokens": 1024},
    }
    for request in emulator.requests:  # the ending request too
        assert request.header("authorization") == "Bearer ***1234"
        assert request.header("x-api-key") is None


def test_a_gateway_without_the_messages_api_is_one_line(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    base = emulator.base_url("shroud")
    code, out, err = probe(["--protocol", "anthropic", "--base-url", base, "--model", "m"], capsys)
    assert (code, out) == (1, "")
    assert err == (
        "sse-chat probe: the first request was refused: the gateway answered HTTP 404 from "
        f"{base}/messages: no such path: POST /shroud/v1/messages. The gateway rejected the "
        "request as sent.\n"
    )


def test_real_captures_through_the_analysis() -> None:
    """Anthropic's own bytes (event: lines, pings, redacted thinking, usage restated in
    message_delta), and a capture kept as payloads, framed without event: lines."""
    meta = {"status": 200, "headers": [["content-type", "text/event-stream"]]}
    body = (FOLDER / "pydantic-ai__sonnet45-redacted-thinking-padded-frames.sse").read_bytes()
    found = find_messages({"plain": (exchange(meta, body),)}, None)
    assert (found.event_lines, found.message_stop, found.pings) == ("all", True, True)
    assert (found.redacted_thinking, found.thinking, found.signature) == (True, False, False)
    assert found.start_usage == tuple(EVERY_COUNT)
    assert (found.delta_usage, found.usage_deltas, found.stop_reason) == (
        "cumulative",
        1,
        "end_turn",
    )
    raw = (FOLDER / "vercel-ai__tool-no-args.payloads.jsonl").read_bytes()
    framed = b"".join(b"data: " + line + b"\n\n" for line in raw.splitlines() if line.strip())
    found = find_messages({"tools": (exchange(meta, framed),)}, None)
    assert (found.event_lines, found.tool_input, found.pings) == ("none", "whole", True)


def test_without_protocol_a_messages_api_gateway_is_detected(
    emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No chat completions at the base URL (a 404), the Messages API there: probed as such,
    and said so."""
    base = emulator.base_url("anthropic")
    argv = ["--base-url", base, "--model", "m", "--record", str(tmp_path)]
    code, out, err = probe(argv, capsys)
    assert code == 0
    assert err.splitlines()[0] == (
        f"(no chat completions at {base}/chat/completions (HTTP 404); Anthropic's Messages API "
        f"answers at {base}/v1/messages: probed as --protocol anthropic)"
    )
    assert out.startswith(f"probed {base}/v1/messages (model m, 5 requests)\n")
    assert "  protocol       Anthropic Messages API\n" in out
    assert (tmp_path / "1-plain").is_dir() and (tmp_path / "anthropic" / "2-ending").is_dir()
    report = probe_json(["--base-url", base, "--model", "m"], capsys)
    assert report["protocol"] == "anthropic" and report["detected"].startswith("no chat")
    assert report["recommended"]["protocol"] == "anthropic"


def test_a_gateway_with_neither_protocol_gets_the_first_error(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    base = emulator.url + "/nothing"
    code, out, err = probe(["--base-url", base, "--model", "m"], capsys)
    assert (code, out) == (1, "")
    assert err.startswith(
        f"sse-chat probe: the first request was refused: the gateway answered HTTP 404 from "
        f"{base}/chat/completions: "
    )


def test_a_gateway_with_chat_completions_is_not_probed_twice(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    report = probe_json(["--base-url", emulator.base_url(), "--model", "m"], capsys)
    assert report["protocol"] == "chat_completions" and "detected" not in report
    assert all(not r.path.endswith("/messages") for r in emulator.requests)


@pytest.mark.parametrize(
    ("fault", "ending"),
    [
        (None, "closes"),
        ("hold-open; seconds=30", "held_open"),
        ("truncate; after=3", "no_message_stop"),
        ("data-only", "closes"),
    ],
)
def test_how_the_body_ends_after_message_stop(
    fault: str | None, ending: str, emulator: Emulator, tmp_path: Path
) -> None:
    headers = {"X-Emulator-Fault": fault} if fault else {}
    config = ClientConfig.build(
        base_url=emulator.base_url("anthropic"), protocol="anthropic", default_headers=headers
    )
    payload = {"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]}
    started = time.monotonic()
    assert body_ending(config, payload, tmp_path, 20.0) == ending
    assert time.monotonic() - started < GRACE + 5
    assert len(list(tmp_path.glob("*.sse"))) == 1  # recorded as the other steps


def test_an_error_answer_to_the_ending_request_is_an_error(
    emulator: Emulator, tmp_path: Path
) -> None:
    config = ClientConfig.build(
        base_url=emulator.base_url("anthropic"),
        protocol="anthropic",
        default_headers={"X-Emulator-Fault": "overloaded"},
    )
    payload = {"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]}
    with pytest.raises(SSEConnectorError, match="the gateway answered HTTP 529"):
        body_ending(config, payload, tmp_path, 20.0)


def test_the_recommended_settings_work(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """ChatSSE and SSELLM built from the report think and answer against the gateway."""
    base = emulator.base_url("anthropic")
    report = probe_json(["--protocol", "anthropic", "--base-url", base, "--model", "m"], capsys)
    chat = ChatSSE(**report["recommended"], api_key=SecretStr("sk-demo"))
    message = chat.invoke("hello")
    assert isinstance(message.text, str) and message.text.startswith("Hello!")
    assert emulator.requests[-1].json()["thinking"] == THINKING
    llm = SSELLM(**report["recommended_llamaindex"], api_key="sk-demo")
    answer = llm.chat([ChatMessage(role="user", content="hello")])
    assert (answer.message.content or "").startswith("Hello!")
    assert emulator.requests[-1].json()["thinking"] == THINKING
