"""``sse-chat chat --protocol responses``: the demo conversation over OpenAI's Responses API,
against the emulator's ``responses`` dialect (a real server on 127.0.0.1): the requests the
core makes of the shared turns (``input`` items, flat tools, ``store`` false), reasoning with
``--effort`` (a summary, sent back sealed with the tool results: the stateless loop), usage
in the API's names, the terminal status as the stop reason, typed errors on stderr with exit
status 1, the gateway variants of the wire, ``--record`` and replay; through ChatSSE and
SSELLM too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sse_chat.cli import main
from sse_emulator import Emulator

pytestmark = pytest.mark.timeout(60)

#: A question the emulator echoes at length (past a 16-token limit).
LONG = "echo: " + " ".join(f"word{i}" for i in range(40))


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``main``; the exit status (argparse's too), stdout and stderr."""
    try:
        code = main(argv)
    except SystemExit as exit:
        code = int(exit.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def responses(emulator: Emulator, *argv: str) -> list[str]:
    return ["chat", "--protocol", "responses", "--base-url", emulator.base_url("responses"), *argv]


def items(body: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [item for item in body["input"] if item.get("type") == kind]


def test_a_tool_round_trip_in_the_responses_shapes(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = responses(emulator, "--api-key", "sk-resp-demo-key-1234", "weather in Paris and Tokyo")
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert out.count("[tool call] get_weather") == 2
    assert '{"city":"Paris"}' in out and '{"city":"Tokyo"}' in out
    assert "[reasoning]" not in out  # the API streams reasoning only as a summary, when asked
    assert "finish_reason=tool_calls stop_reason=completed  usage: input_tokens=" in out
    assert "output_tokens_details.reasoning_tokens=" in out
    assert "[answer] Based on the tool results: get_weather returned" in out
    assert "finish_reason=stop stop_reason=completed  usage: input_tokens=" in out
    assert "(ran the tool locally; sending its result back)" in err
    first, second = emulator.requests
    assert first.path == second.path == "/v1/responses"
    assert first.header("authorization") == "Bearer ***1234"
    body = first.json()
    assert body["stream"] is True and body["store"] is False
    assert "reasoning" not in body and "include" not in body
    assert body["input"] == [
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "weather in Paris and Tokyo"}],
        }
    ]
    (tool,) = body["tools"]
    assert tool["type"] == "function" and tool["name"] == "get_weather"
    assert tool["parameters"]["required"] == ["city"] and tool["strict"] is False
    # the answer's calls go back with their arguments as they came, then one output each
    following = second.json()
    assert following["input"][0] == body["input"][0]
    calls, outputs = items(following, "function_call"), items(following, "function_call_output")
    assert [c["arguments"] for c in calls] == ['{"city":"Paris"}', '{"city":"Tokyo"}']
    assert [o["call_id"] for o in outputs] == [c["call_id"] for c in calls]
    assert '"forecast":"sunny"' in outputs[0]["output"]
    assert following["tools"] == body["tools"]


def test_effort_asks_for_reasoning_and_sends_it_back_sealed(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--effort`` is ``reasoning: {effort, summary: auto}``; with ``store`` false the
    encrypted reasoning is asked for, and the reasoning item goes back whole, before the
    calls it led to (the emulator checks the seal: R15)."""
    code, out, err = run(responses(emulator, "--effort", "low", "weather in Paris"), capsys)
    assert code == 0, err
    assert out.startswith("[reasoning] I should call get_weather.\n[tool call] get_weather ")
    assert "[reasoning] The tool results are in, so I can answer from them." in out
    first, second = emulator.requests
    body = first.json()
    assert body["reasoning"] == {"effort": "low", "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"] and body["store"] is False
    following = second.json()
    kinds = [item.get("type") for item in following["input"]]
    assert kinds == ["message", "reasoning", "function_call", "function_call_output"], kinds
    (reasoning,) = items(following, "reasoning")
    assert reasoning["id"].startswith("rs_")
    assert reasoning["encrypted_content"].startswith("gAAAAA")
    assert reasoning["summary"] == [{"type": "summary_text", "text": "I should call get_weather."}]


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["--protocol", "responses", "--thinking", "1024"],
            "--thinking is Anthropic's setting (--protocol anthropic); the Responses API asks "
            "for reasoning with --effort",
        ),
        (
            ["--protocol", "anthropic", "--effort", "low"],
            "--effort is OpenAI's reasoning effort (chat completions, responses); --protocol "
            "anthropic asks for thinking with --thinking BUDGET",
        ),
        (
            ["--dialect", "responses", "--protocol", "anthropic"],
            "--dialect responses speaks OpenAI's Responses API, not --protocol anthropic: drop "
            "one of them",
        ),
        (
            ["--dialect", "openai", "--protocol", "responses"],
            "--dialect openai speaks chat completions, not --protocol responses: drop one of them",
        ),
    ],
)
def test_settings_the_protocol_cannot_carry_are_refused(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["chat", *argv, "hi"], capsys) == (2, "", f"sse-chat chat: {said}\n")


@pytest.mark.parametrize("argv", [["--protocol", "responses"], ["--dialect", "responses"]])
def test_without_base_url_the_emulator_speaks_the_responses_dialect(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["chat", *argv, "--no-tools", "hello"], capsys)
    assert code == 0, err
    assert "dialect responses" in err.splitlines()[0]
    assert "[answer] Hello!" in out and "stop_reason=completed" in out


def test_max_tokens_is_max_output_tokens_and_a_cut_answer_says_so(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = responses(emulator, "--model", "emulator", "--no-tools", "--max-tokens", "16", LONG)
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert "finish_reason=length stop_reason=max_output_tokens  usage: " in out
    assert emulator.last_request is not None
    assert emulator.last_request.json()["max_output_tokens"] == 16
    # a gateway that sends every terminal state as completed: only the status tells
    code, cut, err = run([*argv[:-1], "--fault", "incomplete-as-completed", LONG], capsys)
    assert code == 0 and cut == out


def test_a_limit_the_api_refuses_is_refused_before_sending(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(responses(emulator, "--no-tools", "--max-tokens", "5", "hi"), capsys)
    assert code == 1 and out == ""
    assert "max_output_tokens must be an integer of at least 16" in err
    assert emulator.requests == []


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        (
            "server-error",
            "error: ServerError: the gateway answered HTTP 500 from http://127.0.0.1:",
        ),
        (
            "error-frame; after=7",
            "error: GatewayStreamError: the gateway reported an error inside the stream: ",
        ),
        (
            "response-failed; after=7",
            "error: GatewayStreamError: the gateway reported an error inside the stream: "
            "The model failed to generate a response.",
        ),
        (
            "truncate; after=7",
            "error: the stream was cut before the answer finished: the gateway ended it without "
            "a terminal event (response.completed, response.incomplete or response.failed)",
        ),
    ],
)
@pytest.mark.parametrize("via", ["core", "langchain", "llamaindex"])
def test_errors_are_typed_on_stderr_with_exit_status_1(
    via: str, fault: str, said: str, emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = responses(emulator, "--via", via, "--effort", "low", "--no-tools", "--fault", fault)
    code, out, err = run([*argv, "hello"], capsys)
    assert code == 1
    (line,) = [line for line in err.splitlines() if line.startswith("error: ")]
    assert line.startswith(said), line
    if fault == "server-error":
        assert err.count("(500 from the gateway, retrying in ") == 2
        assert out == ""
    else:
        # the reasoning streamed to stdout; the answer so far is told with the error
        assert out.startswith("[reasoning] I")
        assert "the answer so far:\n[reasoning] I" in err


@pytest.mark.parametrize(
    "fault",
    [
        "hold-open; seconds=30",
        "data-only",
        "done-marker",
        "output-empty",
        "output-reordered",
        "item-id-per-event",
        "no-argument-deltas",
    ],
)
def test_gateway_variants_of_the_wire_give_the_same_answer(
    fault: str, emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """A socket held open after response.completed does not hang the chat (well under the
    30 s); frames without event: lines, a [DONE] after the end, an empty or reordered final
    output, item ids minted per event, arguments only in .done or interleaved give what the
    plain wire gives."""
    argv = responses(emulator, "--effort", "low", "weather in Paris and Tokyo")
    code, plain, _ = run(argv, capsys)
    assert code == 0
    code, out, err = run([*argv[:-1], "--fault", fault, argv[-1]], capsys)
    assert code == 0, err
    assert out == plain


def test_interleaved_argument_deltas_are_shown_per_call_and_sent_back_whole(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two calls whose argument deltas take turns: each fragment is shown on the line of its
    own call, never spliced into the other's, and each call goes back whole."""
    argv = responses(emulator, "--fault", "interleaved-arguments", "weather in Paris and Tokyo")
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert out.startswith(
        "[tool call] get_weather \n[tool call] get_weather \n"
        '[tool call] get_weather (continued) {"city":\n'
        '[tool call] get_weather (continued) {"city":\n'
        '[tool call] get_weather (continued) "Paris"}\n'
        '[tool call] get_weather (continued) "Tokyo"}\n'
        "finish_reason=tool_calls"
    )
    calls = items(emulator.requests[1].json(), "function_call")
    assert [c["arguments"] for c in calls] == ['{"city":"Paris"}', '{"city":"Tokyo"}']


def test_deltas_that_lost_a_token_are_the_answer_and_the_final_text_is_shown(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = responses(emulator, "--model", "emulator", "--no-tools", "--fault", "lost-delta")
    code, out, err = run([*argv, "hello there"], capsys)
    assert code == 0, err
    assert "[event response.output_mismatch] {" in out
    assert '"event":"response.output_text.done"' in out and '"final":"Hello!' in out


def test_server_tools_and_raw_reasoning_are_shown_as_they_come(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = responses(emulator, "--effort", "low", "--no-tools", "--fault", "web-search")
    code, out, err = run([*argv, "news today"], capsys)
    assert code == 0, err
    assert "[event response.web_search_call.searching] {" in out
    assert '[citation] {"type":"url_citation"' in out
    assert "[tool call]" not in out  # a server tool is never a call to run
    code, out, err = run([*argv[:-1], "reasoning-text", "hello"], capsys)
    assert code == 0, err
    assert out.startswith("[reasoning] I can answer this directly.\n\nI can answer")


def test_record_and_replay(
    emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "session"
    argv = responses(emulator, "--api-key", "sk-resp-record-canary-1234", "--effort", "low")
    code, live, err = run([*argv, "--record", str(record), "weather in Paris"], capsys)
    assert code == 0, err
    assert err.splitlines()[-1].startswith(f"(recorded 2 model call(s) in {record}; ")
    assert "sk-resp-record-canary" not in "".join(p.read_text() for p in record.iterdir())
    # the recording decodes (its protocol told by its first event) ...
    code, decoded, _ = run(["decode", str(record / "001.sse")], capsys)
    assert code == 0
    assert '[tool call 0] get_weather({"city":"Paris"})' in decoded
    assert "[finish_reason] tool_calls (stop_reason completed)" in decoded
    assert "[reasoning item] rs_" in decoded and ": encrypted_content " in decoded
    # ... and replays as the live chat ran
    with Emulator(replay=record) as replay:
        replayed = ["chat", "--protocol", "responses", "--base-url", replay.base_url("responses")]
        code, out, _ = run([*replayed, "anything"], capsys)
    assert code == 0 and out == live


def test_a_whole_response_answered_to_a_stream_records_and_decodes(
    emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = responses(emulator, "--no-tools", "--fault", "json-body", "--record", str(tmp_path))
    code, _, err = run([*argv, "hello"], capsys)
    assert code == 0, err
    assert (tmp_path / "001.sse").read_bytes().startswith(b'{"id":"resp_')
    code, decoded, _ = run(["decode", str(tmp_path / "001.sse")], capsys)
    assert code == 0
    assert "[content]\nHello!" in decoded
    assert "[finish_reason] stop (stop_reason completed)" in decoded


# --- through the frameworks: ChatSSE and SSELLM with protocol="responses" ---


@pytest.mark.parametrize("via", ["langchain", "llamaindex"])
def test_a_tool_round_trip_through_each_framework(
    via: str, emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = responses(emulator, "--via", via, "--effort", "low", "weather in Paris and Tokyo")
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert out.count("[tool call] get_weather") == 2
    assert out.startswith("[reasoning] I should call get_weather")
    # The protocol's own names where the framework keeps them (LlamaIndex's raw response),
    # LangChain's usage_metadata in the shared ones.
    names = "usage: input_tokens=" if via == "llamaindex" else "usage: prompt="
    assert f"finish_reason=tool_calls stop_reason=completed  {names}" in out
    assert "[answer] Based on the tool results: get_weather returned" in out
    assert f"finish_reason=stop stop_reason=completed  {names}" in out
    first, second = emulator.requests
    assert first.path == second.path == "/v1/responses"
    body = first.json()
    assert body["reasoning"] == {"effort": "low", "summary": "auto"}
    assert body["store"] is False and body["include"] == ["reasoning.encrypted_content"]
    assert [tool["name"] for tool in body["tools"]] == ["get_weather"]
    following = second.json()
    (reasoning,) = items(following, "reasoning")
    assert reasoning["encrypted_content"].startswith("gAAAAA")
    outputs, calls = items(following, "function_call_output"), items(following, "function_call")
    assert [o["call_id"] for o in outputs] == [c["call_id"] for c in calls]


@pytest.mark.parametrize("via", ["langchain", "llamaindex"])
def test_each_framework_records_for_replay(
    via: str, emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = responses(emulator, "--via", via, "--record", str(tmp_path), "weather in Paris")
    code, live, err = run(argv, capsys)
    assert code == 0, err
    assert err.splitlines()[-1].startswith(f"(recorded 2 model call(s) in {tmp_path}; ")
    with Emulator(replay=tmp_path) as replay:
        argv = ["chat", "--via", via, "--protocol", "responses"]
        code, out, _ = run([*argv, "--base-url", replay.base_url("responses"), "anything"], capsys)
    assert code == 0 and out == live


@pytest.mark.parametrize("via", ["core", "langchain", "llamaindex"])
def test_effort_on_chat_completions_is_reasoning_effort(
    via: str, emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["chat", "--base-url", emulator.base_url(), "--via", via, "--no-tools"]
    code, _, err = run([*argv, "--effort", "low", "hi"], capsys)
    assert code == 0, err
    assert emulator.last_request is not None
    assert emulator.last_request.json()["reasoning_effort"] == "low"
