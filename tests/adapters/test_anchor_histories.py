"""A thread made by another client, continued by ChatSSE and SSELLM on every protocol, is a
request the API accepts (issue 35).

Each history is made by the anchor itself against the strict emulator: ChatOpenAI on chat
completions and on Responses (``output_version`` v0, v1 and ``responses/v1``: text blocks with
``id`` and ``annotations``, ``function_call`` and ``reasoning`` blocks, a web search's
``web_search_call``), ChatAnthropic (thinking, redacted thinking, tool use; v0 and v1; a real
web search's server tool blocks and citations, replayed), llama-index's OpenAI,
OpenAIResponses and Anthropic. Each is continued with a new question by ChatSSE (the LangChain
ones) or SSELLM (the LlamaIndex ones) on chat completions, Anthropic Messages and Responses:
the strict emulator accepts the request, no call or item goes twice, and what the target API
cannot take (another protocol's signed or encrypted reasoning, its output items) is left out
with a warning that names it, never on the protocol that made it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_anthropic import ChatAnthropic
from langchain_core.messages import BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from llama_index.core.llms import ChatMessage
from llama_index.core.tools import FunctionTool
from llama_index.llms.anthropic import Anthropic
from llama_index.llms.openai import OpenAI, OpenAIResponses

from sse_emulator import Emulator
from tests.adapters.histories import (
    THE_PROTOCOLS,
    chatsse,
    continued,
    get_weather,
    left_out,
    ssellm,
)

pytestmark = pytest.mark.timeout(120)

QUESTION = "What is the weather in Paris?"
AGAIN = "And in Tokyo?"
THINK = {"type": "enabled", "budget_tokens": 1024}
REAL = Path(__file__).parents[1] / "fixtures" / "real" / "anthropic"
weather = tool(get_weather)


def _loop(bound: Any) -> list[BaseMessage]:
    """A question, the anchor's tool call, its result, the anchor's answer."""
    history: list[BaseMessage] = [HumanMessage(QUESTION)]
    asked = bound.invoke(history)
    history.append(asked)
    history += [ToolMessage("Sunny", tool_call_id=call["id"]) for call in asked.tool_calls]
    history.append(bound.invoke(history))
    return history


def _one(model: Any, text: str) -> list[BaseMessage]:
    return [HumanMessage(text), model.invoke(text)]


def _replayed(capture: str, tmp_path: Path) -> Path:
    """A Messages capture of payloads as the SSE wire (each frame with its ``event:`` line)."""
    lines = (REAL / capture).read_bytes().splitlines()
    framed = tmp_path / "capture.sse"
    framed.write_bytes(
        b"".join(
            b"event: " + json.loads(line)["type"].encode() + b"\ndata: " + line + b"\n\n"
            for line in lines
            if line.strip()
        )
    )
    return framed


ITEM, SIGNED = "encrypted reasoning item", "signed thinking"
#: Which protocol made each LangChain history, and what a history of it holds that another
#: protocol cannot take (the words its warning names each by).
LANGCHAIN: dict[str, tuple[str, tuple[str, ...]]] = {
    "chatopenai-chat": ("chat_completions", ()),
    "chatopenai-responses-v0": ("responses", (ITEM,)),
    "chatopenai-responses-v1": ("responses", (ITEM,)),
    "chatopenai-responses-responses/v1": ("responses", (ITEM,)),
    "chatopenai-web-search": ("responses", (ITEM, "'web_search_call' block")),
    "chatanthropic-v0": ("anthropic", (SIGNED,)),
    "chatanthropic-v1": ("anthropic", (SIGNED,)),
    "chatanthropic-redacted": ("anthropic", ("redacted thinking",)),
    "chatanthropic-web-search-v0": ("anthropic", ("'server_tool_use' block",)),
    # v1's server tool blocks are LangChain's, no API's: left out wherever blocks are sent
    "chatanthropic-web-search-v1": ("langchain v1", ("'server_tool_result' block",)),
}


def _langchain_history(name: str, emulator: Emulator, tmp_path: Path) -> list[BaseMessage]:
    """The anchor's own thread (its own requests checked by the strict emulator too)."""
    if name == "chatopenai-chat":
        model = ChatOpenAI(model="gpt-4o", base_url=emulator.base_url(), api_key="k")
        return _loop(model.bind_tools([weather]))
    if name.startswith("chatopenai"):
        version = name.rsplit("-", 1)[-1] if "responses" in name else "responses/v1"
        search = name.endswith("web-search")
        model = ChatOpenAI(
            model="gpt-5",
            base_url=emulator.base_url(),
            api_key="k",
            use_responses_api=True,
            output_version=version,
            reasoning={"effort": "low", "summary": "auto"},
            store=False,
            include=["reasoning.encrypted_content"],
            default_headers={"X-Emulator-Fault": "web-search"} if search else None,
        )
        if search:
            return _one(model.bind_tools([{"type": "web_search"}]), "Latest AI news?")
        return _loop(model.bind_tools([weather]))
    version = "v1" if name.endswith("v1") else "v0"
    if "web-search" in name:
        with Emulator(
            replay=_replayed("vercel-ai__web-search-citations.payloads.jsonl", tmp_path)
        ) as emu:
            model = ChatAnthropic(  # streaming: the recording is a stream, whatever is asked
                model="claude-sonnet-4-5",
                base_url=emu.url,
                api_key="k",
                output_version=version,
                streaming=True,
            )
            return _one(model, "Tech news today?")
    model = ChatAnthropic(
        model="claude-sonnet-4-5",
        base_url=emulator.url,
        api_key="k",
        output_version=version,
        thinking=THINK,
        max_tokens=2048,
    )
    if name.endswith("redacted"):
        return _one(model, "ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING hi")
    return _loop(model.bind_tools([weather]))


def _expected(made_by: str, lost: tuple[str, ...], target: str, said: list[str]) -> None:
    """Nothing is left out on the protocol that made the thread; on another, what it cannot
    take is named. Chat completions takes an answer's text alone (blocks are not content it
    takes back, so none is named), and no reasoning but as text."""
    if made_by == target:
        assert said == []
        return
    named = [what for what in lost if not (what.endswith("block") and target == "chat_completions")]
    assert all(any(what in warning for warning in said) for what in named), said
    assert bool(said) == bool(named), said


@pytest.mark.parametrize("target", THE_PROTOCOLS)
@pytest.mark.parametrize("name", sorted(LANGCHAIN))
def test_a_langchain_anchors_thread_continued_by_chatsse(
    emulator: Emulator, tmp_path: Path, name: str, target: str
) -> None:
    history = _langchain_history(name, emulator, tmp_path)
    model = chatsse(emulator, target).bind_tools([get_weather])
    body, said = continued(lambda: model.invoke([*history, HumanMessage(AGAIN)]), emulator, target)
    made_by, lost = LANGCHAIN[name]
    _expected(made_by, lost, target, said)
    assert AGAIN in json.dumps(body)


def _li_loop(llm: Any) -> list[ChatMessage]:
    """A question, the anchor's tool call, its result, the anchor's answer (LlamaIndex)."""
    tools = [FunctionTool.from_defaults(get_weather)]
    asked = llm.chat_with_tools(tools, user_msg=QUESTION)
    history = [ChatMessage(role="user", content=QUESTION), asked.message]
    for call in llm.get_tool_calls_from_response(asked, error_on_no_tool_call=False):
        result = {"tool_call_id": call.tool_id, "name": call.tool_name}
        history.append(ChatMessage(role="tool", content="Sunny", additional_kwargs=result))
    history.append(llm.chat_with_tools(tools, chat_history=history).message)
    return history


#: Which protocol made each LlamaIndex history, and what another protocol cannot take of it.
LLAMAINDEX: dict[str, tuple[str, tuple[str, ...]]] = {
    "openai": ("chat_completions", ()),
    "openai-responses": ("responses", (ITEM,)),
    "anthropic": ("anthropic", (SIGNED,)),
}


def _llamaindex_history(name: str, emulator: Emulator) -> list[ChatMessage]:
    if name == "openai":
        return _li_loop(OpenAI(model="gpt-4o", api_base=emulator.base_url(), api_key="k"))
    if name == "openai-responses":
        llm = OpenAIResponses(
            model="gpt-5",
            api_base=emulator.base_url(),
            api_key="k",
            reasoning_options={"effort": "low", "summary": "auto"},
            store=False,
            include=["reasoning.encrypted_content"],
        )
        return _li_loop(llm)
    llm = Anthropic(
        model="claude-sonnet-4-5",
        base_url=emulator.url,
        api_key="k",
        thinking_dict=THINK,
        max_tokens=2048,
    )
    return _li_loop(llm)


@pytest.mark.parametrize("target", THE_PROTOCOLS)
@pytest.mark.parametrize("name", sorted(LLAMAINDEX))
def test_a_llamaindex_anchors_thread_continued_by_ssellm(
    emulator: Emulator, name: str, target: str
) -> None:
    history = _llamaindex_history(name, emulator)
    llm = ssellm(emulator, target)
    tools = [FunctionTool.from_defaults(get_weather)]

    def run() -> Any:
        return llm.chat_with_tools(tools, user_msg=AGAIN, chat_history=history)

    body, said = continued(run, emulator, target)
    made_by, lost = LLAMAINDEX[name]
    _expected(made_by, lost, target, said)
    assert AGAIN in json.dumps(body)


@pytest.fixture
def anthropic_thread(emulator: Emulator) -> Iterator[list[BaseMessage]]:
    model = ChatAnthropic(
        model="claude-sonnet-4-5",
        base_url=emulator.url,
        api_key="k",
        thinking=THINK,
        max_tokens=2048,
    )
    yield _loop(model.bind_tools([weather]))


def test_an_anthropic_thread_goes_to_responses_and_back(
    emulator: Emulator, anthropic_thread: list[BaseMessage]
) -> None:
    """Our own answers from another protocol: a thread of ChatAnthropic's, continued by ChatSSE
    on Responses, then on Anthropic again: each turn's reasoning goes back to its own API only
    (the Anthropic thinking is verified again there), the other's is left out, said."""
    history = [*anthropic_thread, HumanMessage(QUESTION)]
    on_responses = chatsse(emulator, "responses").bind_tools([get_weather])
    _, said = continued(lambda: history.append(on_responses.invoke(history)), emulator, "responses")
    assert any("signed thinking" in warning for warning in said), said
    history += [ToolMessage("Sunny", tool_call_id=c["id"]) for c in history[-1].tool_calls]
    with left_out():
        history.append(on_responses.invoke(history))
    history.append(HumanMessage(AGAIN))
    on_anthropic = chatsse(emulator, "anthropic").bind_tools([get_weather])
    body, said = continued(lambda: on_anthropic.invoke(history), emulator, "anthropic")
    assert any("encrypted reasoning item" in warning for warning in said), said
    thinking = [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]]
    assert [b["type"] for b in thinking if "thinking" in b["type"]] == ["thinking", "thinking"]
