"""Google's Gemini API (``protocol="gemini"``), registered in the core, streams through all four
entry points (``ChatClient`` / ``AsyncChatClient``, ``decode``, ``ChatSSE``, ``SSELLM``) against
the emulator's gemini dialect, with no edit to either adapter.

The emulator speaks as Gemini 3 does (docs/emulator.md, "The gemini dialect"): every answer
of a ``gemini-3*`` model is signed, and a function-call turn sent back without its
``thoughtSignature``, or with one changed by a byte, is refused (G13, G14). So a tool loop
the emulator answers is one whose signature went back byte-exact.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ThinkingBlock
from llama_index.core.tools import FunctionTool

from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM
from sse_core import AsyncChatClient, BadRequestError, ChatClient, decode
from sse_emulator import Emulator
from sse_emulator.server.record import RequestRecord

KEY = "gemini-key-canary-7d1e"
MODEL = "gemini-3-pro-preview"
ASK = "weather in Paris?"
PAYLOAD = {"model": MODEL, "contents": [{"role": "user", "parts": [{"text": "hi"}]}]}


@pytest.fixture
def emu() -> Any:
    with Emulator(api_key=KEY) as running:
        yield running


def _sent(record: RequestRecord) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(record.body)
    return body


def _model_parts(record: RequestRecord) -> list[dict[str, Any]]:
    contents = _sent(record)["contents"]
    return [part for content in contents if content["role"] == "model" for part in content["parts"]]


def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return "sunny"


@tool("get_weather")
def lc_weather(city: str) -> str:
    """Get the weather for a city."""
    return "sunny"


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_core_clients_stream_and_take_a_whole_answer(emu: Emulator, mode: str) -> None:
    settings: dict[str, Any] = {"base_url": emu.base_url("gemini"), "api_key": KEY}
    settings["protocol"] = "gemini"
    if mode == "sync":
        with ChatClient(**settings) as client:
            streamed = client.complete(PAYLOAD)
            whole = client.complete(PAYLOAD, streaming=False)
    else:

        async def run() -> tuple[Any, Any]:
            async with AsyncChatClient(**settings) as client:
                first = await client.complete(PAYLOAD)
                return first, await client.complete(PAYLOAD, streaming=False)

        streamed, whole = asyncio.run(run())
    for completion in (streamed, whole):
        assert completion.content.startswith("Hello!") and completion.done
        assert completion.finish_reason == "stop" and completion.stop_reason == "STOP"
        assert completion.usage.prompt_tokens
    first, second = emu.requests
    assert first.path.endswith(f"/v1beta/models/{MODEL}:streamGenerateContent")
    assert first.query == "alt=sse"
    assert second.path.endswith(f"/v1beta/models/{MODEL}:generateContent")
    headers = dict(first.headers)
    assert "x-goog-api-key" in headers and "authorization" not in headers
    assert _sent(first) == _sent(second) == {"contents": PAYLOAD["contents"]}


def test_decode_reads_a_stream_the_emulator_sent(emu: Emulator) -> None:
    url = f"{emu.base_url('gemini')}/v1beta/models/{MODEL}:streamGenerateContent?alt=sse"
    body = {"contents": PAYLOAD["contents"]}
    raw = httpx.post(url, json=body, headers={"x-goog-api-key": KEY}).content
    pieces = [raw[at : at + 7] for at in range(0, len(raw), 7)]
    completion = decode(pieces, protocol="gemini")
    assert completion.content.startswith("Hello!") and completion.done
    (block,) = completion.reasoning_blocks  # Gemini 3 signs even an answer without calls
    assert block.item is not None and block.item["kind"] == "text"


def test_chatsse_streams_invokes_and_reasons(emu: Emulator) -> None:
    model = ChatSSE(
        model=MODEL,
        base_url=emu.base_url("gemini"),
        api_key=KEY,
        protocol="gemini",
        reasoning_effort="high",
        temperature=0.5,
    )
    chunks = list(model.stream("hi"))
    assert "".join(c.text for c in chunks).startswith("Hello!")

    async def run() -> str:
        return "".join([c.text async for c in model.astream("hi")])

    assert asyncio.run(run()).startswith("Hello!")
    answer = model.invoke("hi")
    assert answer.text.startswith("Hello!")
    assert answer.additional_kwargs["reasoning_content"]
    assert answer.response_metadata["stop_reason"] == "STOP"
    config = _sent(emu.requests[-1])["generationConfig"]
    assert config == {
        "temperature": 0.5,
        "thinkingConfig": {"thinkingLevel": "HIGH", "includeThoughts": True},
    }


def _lc_loop(model: ChatSSE) -> tuple[AIMessage, AIMessage]:
    bound = model.bind_tools([lc_weather])
    call = bound.invoke(ASK)
    assert isinstance(call, AIMessage)
    assert [(c["name"], c["args"]) for c in call.tool_calls] == [("get_weather", {"city": "Paris"})]
    thread = [HumanMessage(ASK), call, ToolMessage("sunny", tool_call_id=call.tool_calls[0]["id"])]
    answer = bound.invoke(thread)
    assert isinstance(answer, AIMessage)
    return call, answer


def test_chatsse_tool_loop_sends_the_signature_back_byte_exact(emu: Emulator) -> None:
    model = ChatSSE(model=MODEL, base_url=emu.base_url("gemini"), api_key=KEY, protocol="gemini")
    call, answer = _lc_loop(model)
    assert answer.text == 'Based on the tool results: get_weather returned {"result": "sunny"}.'
    _, second = emu.requests
    assert second.status == 200
    (block,) = call.additional_kwargs["reasoning_blocks"]
    (called,) = _model_parts(second)
    assert called["functionCall"] == {"name": "get_weather", "args": {"city": "Paris"}}
    assert called["thoughtSignature"] == block["part"]["thoughtSignature"]
    (response,) = _sent(second)["contents"][2]["parts"]
    assert response == {
        "functionResponse": {"name": "get_weather", "response": {"result": "sunny"}}
    }


def test_the_emulator_refuses_a_changed_signature(emu: Emulator) -> None:
    """The check above means something: a changed byte is refused."""
    model = ChatSSE(model=MODEL, base_url=emu.base_url("gemini"), api_key=KEY, protocol="gemini")
    bound = model.bind_tools([lc_weather])
    call = bound.invoke(ASK)
    assert isinstance(call, AIMessage)
    (block,) = call.additional_kwargs["reasoning_blocks"]
    signature = block["part"]["thoughtSignature"]
    changed = ("A" if signature[0] != "A" else "B") + signature[1:]
    forged = {**block, "part": {**block["part"], "thoughtSignature": changed}}
    call.additional_kwargs["reasoning_blocks"] = [forged]
    thread = [HumanMessage(ASK), call, ToolMessage("sunny", tool_call_id=call.tool_calls[0]["id"])]
    with pytest.raises(BadRequestError, match="Corrupted thought signature"):
        bound.invoke(thread)


def test_chatsse_async_tool_loop_on_gemini_2_5_with_a_budget(emu: Emulator) -> None:
    model = ChatSSE(
        model="gemini-2.5-flash",
        base_url=emu.base_url("gemini"),
        api_key=KEY,
        protocol="gemini",
        reasoning_effort="low",
    )
    bound = model.bind_tools([lc_weather])

    async def run() -> AIMessage:
        call = await bound.ainvoke(ASK)
        assert isinstance(call, AIMessage)
        tool_id = call.tool_calls[0]["id"]
        thread = [HumanMessage(ASK), call, ToolMessage("sunny", tool_call_id=tool_id)]
        answer = await bound.ainvoke(thread)
        assert isinstance(answer, AIMessage)
        return answer

    assert asyncio.run(run()).text.startswith("Based on the tool results")
    config = _sent(emu.requests[0])["generationConfig"]
    assert config["thinkingConfig"] == {"thinkingBudget": 1024, "includeThoughts": True}


def test_sse_llm_chats_and_streams(emu: Emulator) -> None:
    llm = SSELLM(
        model=MODEL,
        base_url=emu.base_url("gemini"),
        api_key=KEY,
        protocol="gemini",
        reasoning_effort="low",
    )
    messages = [ChatMessage(role=MessageRole.USER, content="hi")]
    whole = llm.chat(messages)
    assert (whole.message.content or "").startswith("Hello!")
    assert any(isinstance(b, ThinkingBlock) for b in whole.message.blocks)
    streamed = list(llm.stream_chat(messages))
    assert (streamed[-1].message.content or "").startswith("Hello!")

    async def run() -> str:
        last = ""
        async for response in await llm.astream_chat(messages):
            last = response.message.content or ""
        return last

    assert asyncio.run(run()).startswith("Hello!")
    assert all(record.status == 200 for record in emu.requests)


def test_sse_llm_calls_a_tool(emu: Emulator) -> None:
    llm = SSELLM(model=MODEL, base_url=emu.base_url("gemini"), api_key=KEY, protocol="gemini")
    weather = FunctionTool.from_defaults(get_weather)
    response = llm.chat_with_tools([weather], user_msg=ASK)
    (selection,) = llm.get_tool_calls_from_response(response)
    assert (selection.tool_name, selection.tool_kwargs) == ("get_weather", {"city": "Paris"})
    signed = [b for b in response.message.blocks if isinstance(b, ThinkingBlock)]
    assert signed[0].additional_information["part"]["thoughtSignature"]


def test_sse_llm_tool_loop_sends_the_signature_back(emu: Emulator) -> None:
    llm = SSELLM(model=MODEL, base_url=emu.base_url("gemini"), api_key=KEY, protocol="gemini")
    weather = FunctionTool.from_defaults(get_weather)
    response = llm.chat_with_tools([weather], user_msg=ASK)
    (selection,) = llm.get_tool_calls_from_response(response)
    result = ChatMessage(
        role=MessageRole.TOOL,
        content="sunny",
        additional_kwargs={"tool_call_id": selection.tool_id, "name": "get_weather"},
    )
    thread = [ChatMessage(role=MessageRole.USER, content=ASK), response.message, result]
    answer = llm.chat_with_tools([weather], chat_history=thread)
    assert (answer.message.content or "").startswith("Based on the tool results")
    (block,) = [b for b in response.message.blocks if isinstance(b, ThinkingBlock)]
    _, second = emu.requests
    (called,) = _model_parts(second)
    assert called["thoughtSignature"] == block.additional_information["part"]["thoughtSignature"]


def test_the_key_is_read_from_google_genai_s_variables_in_its_order(
    emu: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("SSE_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    with ChatClient(base_url=emu.base_url("gemini"), protocol="gemini") as client:
        assert client.complete(PAYLOAD).done
    monkeypatch.setenv("GOOGLE_API_KEY", "wrong-key-0000")  # google-genai reads it first
    wrong = ChatClient(base_url=emu.base_url("gemini"), protocol="gemini", max_retries=0)
    with wrong, pytest.raises(BadRequestError, match="API key not valid"):
        wrong.complete(PAYLOAD)
    first, second = emu.requests
    assert dict(first.headers)["x-goog-api-key"] == "***" + KEY[-4:]
    assert dict(second.headers)["x-goog-api-key"] == "***0000"
    with pytest.warns(UserWarning, match="GOOGLE_API_KEY and GEMINI_API_KEY is set but not read"):
        ChatClient(base_url=emu.base_url("openai"), protocol="chat_completions").close()


def test_a_langchain_agent_runs_its_tool_loop(emu: Emulator) -> None:
    from langchain.agents import create_agent

    model = ChatSSE(model=MODEL, base_url=emu.base_url("gemini"), api_key=KEY, protocol="gemini")
    agent = create_agent(model, tools=[lc_weather], system_prompt="Be brief.")
    result = agent.invoke({"messages": [HumanMessage(ASK)]})
    kinds = [type(m).__name__ for m in result["messages"]]
    assert kinds == ["HumanMessage", "AIMessage", "ToolMessage", "AIMessage"]
    assert result["messages"][-1].text.startswith("Based on the tool results: get_weather")
    _, second = emu.requests
    assert second.status == 200  # the call's signature went back as it came
    assert _sent(second)["systemInstruction"] == {"parts": [{"text": "Be brief."}]}


def _function_agent_answer(llm: SSELLM) -> str:
    from llama_index.core.agent.workflow import FunctionAgent

    agent = FunctionAgent(tools=[FunctionTool.from_defaults(get_weather)], llm=llm)

    async def run() -> str:
        return str(await asyncio.wait_for(agent.run(user_msg=ASK), 60))

    return asyncio.run(run())


def test_a_llamaindex_function_agent_runs_its_tool_loop_on_gemini_2_5(emu: Emulator) -> None:
    base = emu.base_url("gemini")
    llm = SSELLM(model="gemini-2.5-flash", base_url=base, api_key=KEY, protocol="gemini")
    assert _function_agent_answer(llm).startswith("Based on the tool results: get_weather")
    assert [record.status for record in emu.requests] == [200, 200]


def test_a_llamaindex_function_agent_runs_its_tool_loop_on_gemini_3(emu: Emulator) -> None:
    base = emu.base_url("gemini")
    llm = SSELLM(model=MODEL, base_url=base, api_key=KEY, protocol="gemini")
    assert _function_agent_answer(llm).startswith("Based on the tool results: get_weather")
    assert [record.status for record in emu.requests] == [200, 200]  # the signature went back
