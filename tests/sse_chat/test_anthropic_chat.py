"""``sse-chat chat --protocol anthropic``: the demo conversation over Anthropic's Messages API,
against the emulator's ``anthropic`` dialect (a real server on 127.0.0.1): the requests in
Anthropic's shapes, reasoning, text, tool calls, usage and the stop reason rendered as for
chat completions, typed errors on stderr with exit status 1, ``--record`` and replay."""

from __future__ import annotations

from pathlib import Path

import pytest

from sse_chat.cli import main
from sse_core import decode
from sse_emulator import Emulator

pytestmark = pytest.mark.timeout(60)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``main``; the exit status (argparse's too), stdout and stderr."""
    try:
        code = main(argv)
    except SystemExit as exit:
        code = int(exit.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def anthropic(emulator: Emulator, *argv: str) -> list[str]:
    return ["chat", "--protocol", "anthropic", "--base-url", emulator.base_url("anthropic"), *argv]


def test_a_tool_round_trip_in_anthropics_shapes(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = anthropic(emulator, "--api-key", "sk-ant-demo-key-1234", "weather in Paris and Tokyo")
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert out.count("[tool call] get_weather") == 2
    assert '{"city":"Paris"}' in out and '{"city":"Tokyo"}' in out
    assert out.startswith("[reasoning] ")  # demo-think thinks unasked
    assert "finish_reason=tool_calls stop_reason=tool_use  usage: input_tokens=" in out
    assert "[answer] Based on the tool results: get_weather returned" in out
    assert "finish_reason=stop stop_reason=end_turn  usage: input_tokens=" in out
    assert "(ran the tool locally; sending its result back)" in err
    first, second = emulator.requests
    assert first.path == second.path == "/anthropic/v1/messages"
    assert first.header("anthropic-version") == "2023-06-01"
    assert first.header("x-api-key") == "***1234" and first.header("authorization") is None
    body = first.json()
    assert body["max_tokens"] == 4096 and body["stream"] is True
    question = [{"type": "text", "text": "weather in Paris and Tokyo"}]
    assert body["messages"] == [{"role": "user", "content": question}]  # the core's turns
    (tool,) = body["tools"]
    assert tool["name"] == "get_weather" and tool["input_schema"]["required"] == ["city"]
    # the answer goes back as content blocks, its thinking with its signature, then the results
    assistant, results = second.json()["messages"][1:]
    kinds = [block["type"] for block in assistant["content"]]
    assert kinds == ["thinking", "tool_use", "tool_use"], kinds
    thinking = assistant["content"][0]
    assert thinking["thinking"].startswith("The user wrote") and thinking["signature"]
    calls = assistant["content"][1:]
    assert [c["input"] for c in calls] == [{"city": "Paris"}, {"city": "Tokyo"}]
    assert results["role"] == "user"
    assert [r["tool_use_id"] for r in results["content"]] == [c["id"] for c in calls]
    assert '"forecast":"sunny"' in results["content"][0]["content"]


def test_dialect_anthropic_starts_the_emulator_and_implies_the_protocol(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(["chat", "--dialect", "anthropic", "--no-tools", "hello"], capsys)
    assert code == 0, err
    assert "dialect anthropic" in err.splitlines()[0]
    assert "[answer] Hello!" in out and "stop_reason=end_turn" in out


def test_protocol_anthropic_without_base_url_picks_the_anthropic_dialect(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(["chat", "--protocol", "anthropic", "--no-tools", "hello"], capsys)
    assert code == 0, err
    assert "dialect anthropic" in err and "stop_reason=end_turn" in out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["--dialect", "anthropic", "--protocol", "chat_completions"],
            "--dialect anthropic speaks Anthropic's Messages API, not --protocol "
            "chat_completions: drop one of them",
        ),
        (
            ["--dialect", "shroud", "--protocol", "anthropic"],
            "--dialect shroud speaks chat completions, not --protocol anthropic: drop one of them",
        ),
    ],
)
def test_a_dialect_that_does_not_speak_the_protocol_is_refused(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["chat", *argv, "hi"], capsys) == (2, "", f"sse-chat chat: {said}\n")


def test_max_tokens_is_sent(emulator: Emulator, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(anthropic(emulator, "--no-tools", "--max-tokens", "300", "hi"), capsys)
    assert code == 0, err
    assert emulator.last_request is not None
    assert emulator.last_request.json()["max_tokens"] == 300
    assert "tools" not in emulator.last_request.json()


def test_auth_bearer_and_a_base_url_ending_in_v1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--auth bearer`` sends the key as Authorization (the emulator checks it when it has
    one); a base URL that ends in /v1 gets /messages, not /v1/v1/messages."""
    with Emulator(api_key="sk-anthropic-bearer-1234") as emulator:
        base = emulator.base_url("anthropic") + "/v1"
        argv = ["chat", "--protocol", "anthropic", "--base-url", base, "--no-tools"]
        key = ["--api-key", "sk-anthropic-bearer-1234"]
        code, out, err = run([*argv, *key, "--auth", "bearer", "hi"], capsys)
        assert code == 0, err
        assert emulator.last_request is not None
        assert emulator.last_request.path == "/anthropic/v1/messages"
        assert emulator.last_request.header("x-api-key") is None
        assert emulator.last_request.header("authorization") == "Bearer ***1234"
        code, out, err = run([*argv, *key, "hi"], capsys)  # the protocol's own: x-api-key
        assert code == 0, err
        assert emulator.last_request.header("x-api-key") == "***1234"
        code, out, err = run([*argv, "--auth", "bearer", "--api-key", "sk-wrong-key", "hi"], capsys)
        assert code == 1 and "AuthenticationError" in err and "sk-wrong-key" not in out + err


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        (
            "overloaded",
            "error: ServerError: the gateway answered HTTP 529 from http://127.0.0.1:",
        ),
        (
            "error-frame; after=4",
            "error: GatewayStreamError: the gateway reported an error inside the stream: "
            "Overloaded",
        ),
        (
            "truncate; after=4",
            "error: the stream was cut before the answer finished: the gateway ended it without "
            "a stop_reason and without message_stop",
        ),
    ],
)
@pytest.mark.parametrize("via", ["core", "langchain", "llamaindex"])
def test_errors_are_typed_on_stderr_with_exit_status_1(
    via: str, fault: str, said: str, emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = anthropic(emulator, "--via", via, "--no-tools", "--fault", fault, "hello")
    code, out, err = run(argv, capsys)
    assert code == 1
    (line,) = [line for line in err.splitlines() if line.startswith("error: ")]
    assert line.startswith(said), line
    if fault == "overloaded":
        # retried before the first byte (529 is retryable), then said with its request id
        assert err.count("(529 from the gateway, retrying in ") == 2
        assert "Overloaded" in line and "Request id: req_" in line
        assert out == ""
    else:
        # the reasoning streamed to stdout; the answer so far is told with the error
        assert out.startswith("[reasoning] The")
        assert "the answer so far:\n[reasoning] The" in err


@pytest.mark.parametrize("fault", ["hold-open; seconds=30", "data-only", "usage-late", "prefilled"])
def test_gateway_variants_of_the_wire_give_the_same_answer(
    fault: str, emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """A socket held open after message_stop does not hang the chat (well under the 30 s);
    frames without event: lines, input counts only in message_delta, and a message whole in
    message_start give what the plain wire gives."""
    code, plain, _ = run(anthropic(emulator, "--no-tools", "hello"), capsys)
    assert code == 0
    code, out, err = run(anthropic(emulator, "--no-tools", "--fault", fault, "hello"), capsys)
    assert code == 0, err
    assert out == plain
    assert "usage: input_tokens=9 output_tokens=22 cache_creation_input_tokens=0" in out


def test_record_and_replay(
    emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "session"
    argv = anthropic(emulator, "--api-key", "sk-ant-record-canary-1234", "--record", str(record))
    code, live, err = run([*argv, "weather in Paris"], capsys)
    assert code == 0, err
    assert err.splitlines()[-1].startswith(f"(recorded 2 model call(s) in {record}; ")
    assert "sk-ant-record-canary" not in "".join(p.read_text() for p in record.iterdir())
    # the recording decodes (its protocol told by its first event) ...
    code, decoded, _ = run(["decode", str(record / "001.sse")], capsys)
    assert code == 0
    assert '[tool call 0] get_weather({"city":"Paris"})' in decoded
    assert "[finish_reason] tool_calls (stop_reason tool_use)" in decoded
    assert "[thinking signature] " in decoded
    # ... and replays as the live chat ran
    with Emulator(replay=record) as replay:
        replayed = ["chat", "--protocol", "anthropic", "--base-url", replay.base_url("anthropic")]
        code, out, _ = run([*replayed, "anything"], capsys)
    assert code == 0 and out == live


# --- through the frameworks: ChatSSE and SSELLM with protocol="anthropic" ---


@pytest.mark.parametrize("via", ["langchain", "llamaindex"])
def test_a_tool_round_trip_through_each_framework(
    via: str, emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = anthropic(emulator, "--via", via, "--max-tokens", "2000", "weather in Paris and Tokyo")
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert out.count("[tool call] get_weather") == 2
    assert out.startswith("[reasoning] The user wrote")
    # The protocol's own names where the framework keeps them (LlamaIndex's raw message),
    # LangChain's usage_metadata in the shared ones.
    names = "usage: input_tokens=" if via == "llamaindex" else "usage: prompt="
    assert f"finish_reason=tool_calls stop_reason=tool_use  {names}" in out
    assert "[answer] Based on the tool results: get_weather returned" in out
    assert f"finish_reason=stop stop_reason=end_turn  {names}" in out
    first, second = emulator.requests
    assert first.path == second.path == "/anthropic/v1/messages"
    assert first.header("anthropic-version") == "2023-06-01"
    assert first.json()["max_tokens"] == 2000
    assert [tool["name"] for tool in first.json()["tools"]] == ["get_weather"]
    assert "input_schema" in first.json()["tools"][0]
    results = second.json()["messages"][-1]
    assert [block["type"] for block in results["content"]] == ["tool_result", "tool_result"]


@pytest.mark.parametrize("via", ["langchain", "llamaindex"])
def test_each_framework_records_for_replay(
    via: str, emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = anthropic(emulator, "--via", via, "--record", str(tmp_path), "weather in Paris")
    code, live, err = run(argv, capsys)
    assert code == 0, err
    assert err.splitlines()[-1].startswith(f"(recorded 2 model call(s) in {tmp_path}; ")
    with Emulator(replay=tmp_path) as replay:
        argv = ["chat", "--via", via, "--protocol", "anthropic"]
        code, out, _ = run([*argv, "--base-url", replay.base_url("anthropic"), "anything"], capsys)
    assert code == 0 and out == live


@pytest.mark.parametrize("via", ["langchain", "llamaindex"])
def test_auth_reaches_each_framework(
    via: str, emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    key = ["--api-key", "sk-ant-via-canary-1234"]
    for auth, header, value in (
        ("bearer", "authorization", "Bearer ***1234"),
        (None, "x-api-key", "***1234"),
    ):
        option = ["--auth", auth] if auth else []
        code, _, err = run(
            anthropic(emulator, "--via", via, "--no-tools", *key, *option, "hi"), capsys
        )
        assert code == 0, err
        assert emulator.last_request is not None
        assert emulator.last_request.header(header) == value
        other = "x-api-key" if header == "authorization" else "authorization"
        assert emulator.last_request.header(other) is None


@pytest.mark.parametrize("via", ["core", "langchain", "llamaindex"])
@pytest.mark.parametrize(
    ("options", "max_tokens"),
    [([], 4096), (["--max-tokens", "3000"], 3000)],
)
def test_thinking_on_request(
    via: str,
    options: list[str],
    max_tokens: int,
    emulator: Emulator,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The emulator model thinks only when asked; max_tokens stays above the budget."""
    argv = anthropic(emulator, "--via", via, "--model", "emulator", "--no-tools", *options)
    code, out, err = run([*argv, "--thinking", "2048", "hi"], capsys)
    assert code == 0, err
    assert out.startswith("[reasoning] I can answer this directly.\n[answer] Hello!")
    assert emulator.last_request is not None
    body = emulator.last_request.json()
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["max_tokens"] == max_tokens


def test_a_big_thinking_budget_raises_the_default_max_tokens(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = anthropic(emulator, "--model", "emulator", "--no-tools", "--thinking", "5000", "hi")
    assert run(argv, capsys)[0] == 0
    assert emulator.last_request is not None
    assert emulator.last_request.json()["max_tokens"] == 5000 + 4096


def test_thinking_is_refused_for_chat_completions(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["chat", "--thinking", "1024", "hi"], capsys) == (
        2,
        "",
        "sse-chat chat: --thinking is Anthropic's setting (--protocol anthropic); chat "
        "completions gateways have their own (reasoning_effort: --effort; chat_template_kwargs)\n",
    )


def test_redacted_thinking_goes_back_byte_exact(
    emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The API's test string makes the emulator answer with a redacted_thinking block: shown
    as such, and passed back whole with the tool results."""
    prompt = "ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING weather in Paris"
    code, out, err = run(anthropic(emulator, "--record", str(tmp_path), prompt), capsys)
    assert code == 0, err
    assert out.startswith("[reasoning] (redacted thinking, ")
    answered = decode((tmp_path / "001.sse").read_bytes(), protocol="anthropic")
    (block,) = answered.reasoning_blocks
    assert block.redacted
    assistant = emulator.requests[1].json()["messages"][1]
    assert assistant["content"][0] == {"type": "redacted_thinking", "data": block.redacted}


def test_a_json_message_answered_to_a_stream_records_and_decodes(
    emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = anthropic(emulator, "--no-tools", "--fault", "json-body", "--record", str(tmp_path))
    code, live, err = run([*argv, "hello"], capsys)
    assert code == 0, err
    assert (tmp_path / "001.sse").read_bytes().startswith(b'{"id":"msg_')
    code, decoded, _ = run(["decode", str(tmp_path / "001.sse")], capsys)
    assert code == 0
    answer = live.split("[answer] ", 1)[1].split("\n", 1)[0]
    assert f"[content]\n{answer}\n" in decoded
    assert "[finish_reason] stop (stop_reason end_turn)" in decoded


def test_the_key_is_never_echoed(emulator: Emulator, capsys: pytest.CaptureFixture[str]) -> None:
    key = "sk-ant-cli-canary-abcdef123456"
    argv = anthropic(emulator, "--no-tools", "--api-key", key, "--fault", "unauthorized", "hi")
    code, out, err = run(argv, capsys)
    assert code == 1 and "AuthenticationError" in err
    assert key not in out + err
