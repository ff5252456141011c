"""Both adapters on tool calls that never get a name (tests/core/test_nameless_calls.py), on
every protocol, served as sent by a loopback server and read the four ways: no tool call (no
``tool_calls``, ``invalid_tool_calls`` or ``tool_call_chunks`` in ChatSSE; nothing from
SSELLM's ``get_tool_calls_from_response``, no invented ``call_0``), the fragment kept as the
``tool_call.nameless`` gateway event, the rest of the answer as sent."""

from __future__ import annotations

from typing import Any

import pytest

from sse_core.pipeline.tool_calls import NAMELESS_CALL
from tests.adapters.conftest import HOWS, PROTOCOLS, Driver
from tests.core.gemini.gemini_wire import body, call, chunk
from tests.core.test_nameless_calls import ANTHROPIC_NAMELESS, ARGS, CHAT_NAMELESS, UNANNOUNCED
from tests.raw_server import response, serving

pytestmark = pytest.mark.timeout(60)

#: Gemini's call without a name (its whole ``args``, as Gemini sends a call).
GEMINI_NAMELESS = body(chunk(call(None, {"city": "Paris"})), chunk(finish="STOP"))
#: Each protocol's body, its text, its finish reason, the nameless call's place, and its
#: arguments as the decoder keeps them (Gemini's ``args`` object written compact).
BODIES: dict[str, tuple[bytes, str, str, int, str]] = {
    "chat_completions": (CHAT_NAMELESS, "", "tool_calls", 0, ARGS),
    "anthropic": (ANTHROPIC_NAMELESS, "Let me look.", "tool_calls", 1, ARGS),
    "responses": (UNANNOUNCED, "", "stop", 0, ARGS),
    "gemini": (GEMINI_NAMELESS, "", "stop", 0, '{"city":"Paris"}'),
}


def gateway_events(answer: Any, name: str) -> list[Any]:
    return [data for event, data in answer.gateway_events if event == name]


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_call_without_a_name_is_no_call_in_either_adapter(
    driver: Driver, protocol: str, how: str
) -> None:
    data, text, finish, index, args = BODIES[protocol]
    with serving(lambda n, request: response(data)) as server:
        model = driver.make(model="m", base_url=server.url, api_key="sk-test", protocol=protocol,
                            max_retries=0, timeout=10)  # fmt: skip
        answer = driver.answer(model, how)
    assert (answer.tool_calls, answer.cut_calls, answer.refused) == ([], [], "")
    assert (answer.text, answer.finish_reason) == (text, finish)
    assert gateway_events(answer, NAMELESS_CALL) == [
        {"index": index, "id": None, "arguments": args}
    ]
    native = answer.native
    if driver.name == "ChatSSE":
        assert native.tool_calls == [] and native.invalid_tool_calls == []
        assert getattr(native, "tool_call_chunks", []) == []
    else:
        assert [b for b in native.blocks if type(b).__name__ == "ToolCallBlock"] == []
        assert (
            "tool_calls" not in native.additional_kwargs
            or not native.additional_kwargs["tool_calls"]
        )
