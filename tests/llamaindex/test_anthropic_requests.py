"""SSELLM(protocol="anthropic")'s requests, LlamaIndex's own kinds: the pure Messages mapping
of LlamaIndex messages (developer messages, ThinkingBlocks, ToolCallBlocks, legacy tool calls,
image and document blocks, cache points), tools and settings, num_output, and the protocol
kept through to_dict and pickle. (The request both adapters send alike:
tests/adapters/test_messages_request.py.)"""

from __future__ import annotations

import base64
import json
import pickle
from typing import Any

import httpx
import pytest
from llama_index.core.base.llms.types import (
    AudioBlock,
    CacheControl,
    CachePoint,
    ChatMessage,
    DocumentBlock,
    ImageBlock,
    MessageRole,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from llama_index.core.tools import FunctionTool
from pydantic import SecretStr

from llamaindex_sse import SSELLM
from llamaindex_sse._protocols import mapping_of
from llamaindex_sse._turns import openai_tool, to_turns
from sse_core import ConfigurationError
from sse_core.protocols import anthropic
from sse_core.protocols.anthropic import DEFAULT_MAX_TOKENS
from sse_emulator import Emulator
from tests.llamaindex.li_support import API_KEY, TIMEOUT, sse_transport

SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+/=="
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def to_anthropic_messages(
    messages: list[ChatMessage],
) -> tuple[str | list[dict[str, Any]] | None, list[dict[str, Any]]]:
    """LlamaIndex messages as SSELLM sends them in Messages: its turns, the core's rules."""
    return anthropic.messages(to_turns(messages))


def anthropic_tools(tools: list[Any]) -> list[dict[str, Any]]:
    """Tools as SSELLM sends them in Messages (LlamaIndex tools as OpenAI's, then the core's)."""
    return anthropic.tools(openai_tool(tool) for tool in tools)


def anthropic_tool_choice(choice: Any, parallel: bool | None) -> dict[str, Any] | None:
    return anthropic.tool_choice(choice, parallel)


def user(text: str) -> ChatMessage:
    return ChatMessage(role=MessageRole.USER, content=text)


def weather(city: str) -> str:
    """Get the weather for a city."""
    return f"sunny in {city}"


def anthropic_llm(emulator: Emulator, **fields: Any) -> SSELLM:
    params: dict[str, Any] = {
        "protocol": "anthropic",
        "model": "claude-emulated",
        "base_url": emulator.base_url("anthropic"),
        "api_key": API_KEY,
        "timeout": TIMEOUT,
        "max_retries": 0,
    }
    return SSELLM(**(params | fields))


# -- the pure mapping --------------------------------------------------------------------


def test_a_developer_message_is_system_text_too() -> None:
    # (System on top, user turns merged, both adapters: tests/adapters/test_messages_request.py)
    system, turns = to_anthropic_messages(
        [
            ChatMessage(role="system", content="Be terse."),
            user("one"),
            ChatMessage(role="assistant", content="ok"),
            ChatMessage(role="developer", content="Mind the rules."),
            user("three"),
        ]
    )
    assert system == [
        {"type": "text", "text": "Be terse."},
        {"type": "text", "text": "Mind the rules."},
    ]
    assert [turn["role"] for turn in turns] == ["user", "assistant", "user"]


def test_unsigned_thinking_is_left_out() -> None:
    # (Signed and redacted thinking passed back byte-exact, tool results, for both adapters:
    # tests/adapters/test_messages_request.py.)
    signed = ThinkingBlock(
        content="Let me think…\n  about it ", additional_information={"signature": SIGNATURE}
    )
    unsigned = ThinkingBlock(content="reasoning from another provider")
    answer = ChatMessage(role="assistant", blocks=[signed, unsigned, TextBlock(text="Done.")])
    _, turns = to_anthropic_messages([user("q"), answer, user("next")])
    assert turns[1]["content"] == [
        {"type": "thinking", "thinking": "Let me think…\n  about it ", "signature": SIGNATURE},
        {"type": "text", "text": "Done."},
    ]


def test_tool_call_blocks_with_text_or_dict_arguments_and_no_empty_text() -> None:
    call = ChatMessage(
        role="assistant",
        blocks=[
            TextBlock(text=""),  # an empty text block is not sent: the API refuses it
            ToolCallBlock(
                tool_call_id="toolu_1", tool_name="weather", tool_kwargs='{"city": "Paris"}'
            ),
            ToolCallBlock(
                tool_call_id="toolu_2", tool_name="weather", tool_kwargs={"city": "Tokyo"}
            ),
        ],
    )
    _, turns = to_anthropic_messages([user("weather in Paris and Tokyo"), call])
    assert turns[1] == {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "toolu_2", "name": "weather", "input": {"city": "Tokyo"}},
        ],
    }


@pytest.mark.parametrize(
    "legacy",
    [
        {
            "id": "toolu_9",
            "type": "function",
            "function": {"name": "weather", "arguments": '{"city": "Oslo"}'},
        },
        {"id": "toolu_9", "type": "tool_use", "name": "weather", "input": {"city": "Oslo"}},
    ],
)
def test_legacy_tool_calls_in_additional_kwargs(legacy: dict[str, Any]) -> None:
    message = ChatMessage(role="assistant", content="", additional_kwargs={"tool_calls": [legacy]})
    _, turns = to_anthropic_messages([user("q"), message])
    assert turns[1]["content"] == [
        {"type": "tool_use", "id": "toolu_9", "name": "weather", "input": {"city": "Oslo"}}
    ]


def test_a_tool_result_without_its_call_id_is_a_clear_error() -> None:
    with pytest.raises(ConfigurationError, match="tool_call_id"):
        to_anthropic_messages([user("q"), ChatMessage(role="tool", content="x")])


def test_images_and_documents() -> None:
    encoded = base64.b64encode(PNG).decode()
    message = ChatMessage(
        role="user",
        blocks=[
            TextBlock(text="what is this?"),
            ImageBlock(image=PNG, image_mimetype="image/png"),
            ImageBlock(url="https://example.com/cat.jpg"),
            ImageBlock(url=f"data:image/png;base64,{encoded}"),
            DocumentBlock(data=b"plain words", document_mimetype="text/plain"),
        ],
    )
    _, turns = to_anthropic_messages([message])
    assert turns[0]["content"][1:] == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": encoded}},
        {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.jpg"}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": encoded}},
        {
            "type": "document",
            "source": {"type": "text", "media_type": "text/plain", "data": "plain words"},
        },
    ]
    with pytest.raises(ConfigurationError, match="AudioBlock"):
        to_anthropic_messages([ChatMessage(role="user", blocks=[AudioBlock(audio=b"RIFF")])])
    with pytest.raises(ConfigurationError, match="assistant message"):
        to_anthropic_messages([ChatMessage(role="assistant", blocks=[ImageBlock(image=PNG)])])
    with pytest.raises(ConfigurationError, match="system message can carry text only"):
        to_anthropic_messages([ChatMessage(role="system", blocks=[ImageBlock(image=PNG)])])


def test_cache_control_from_cache_points_and_message_kwargs() -> None:
    system = ChatMessage(
        role="system",
        blocks=[
            TextBlock(text="long context"),
            CachePoint(cache_control=CacheControl(type="ephemeral")),
        ],
    )
    question = ChatMessage(
        role="user",
        blocks=[TextBlock(text="a"), TextBlock(text="b")],
        additional_kwargs={"cache_control": {"type": "ephemeral", "ttl": "1h"}},
    )
    system_blocks, turns = to_anthropic_messages([system, question])
    assert system_blocks == [
        {
            "type": "text",
            "text": "long context",
            "cache_control": {"type": "ephemeral", "ttl": "5m"},
        }
    ]
    assert turns[0]["content"] == [
        {"type": "text", "text": "a"},
        {"type": "text", "text": "b", "cache_control": {"type": "ephemeral", "ttl": "1h"}},
    ]
    with pytest.raises(ConfigurationError, match="CachePoint"):
        to_anthropic_messages(
            [
                ChatMessage(
                    role="user", blocks=[CachePoint(cache_control=CacheControl(type="ephemeral"))]
                )
            ]
        )


def test_tools_in_anthropic_shape() -> None:
    tool = FunctionTool.from_defaults(weather)
    openai_shaped = tool.metadata.to_openai_tool()
    server_tool = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
    formatted = anthropic_tools([openai_shaped, tool, server_tool])
    expected = {
        "name": "weather",
        "description": openai_shaped["function"]["description"],
        "input_schema": openai_shaped["function"]["parameters"],
    }
    assert formatted == [expected, expected, server_tool]


def test_a_tool_choice_that_names_nothing_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="tool_choice"):
        anthropic_tool_choice(3, None)


def test_the_request_body_settings_then_call_arguments() -> None:
    body, headers = mapping_of("anthropic").build_request(
        "claude-x",
        [ChatMessage(role="system", content="sys"), user("hi")],
        settings={
            "max_tokens": None,
            "temperature": 0.5,
            "stop": ["END"],
            "thinking": None,
            "top_k": 5,
            "metadata": {"user_id": "u-1"},
        },
        call_kwargs={"top_p": 0.9, "stop": "STOP", "extra_headers": {"anthropic-beta": "b-1"}},
    )
    assert body == {
        "model": "claude-x",
        "max_tokens": DEFAULT_MAX_TOKENS,
        "temperature": 0.5,
        "stop_sequences": ["STOP"],
        "top_k": 5,
        "metadata": {"user_id": "u-1"},
        "top_p": 0.9,
        "system": "sys",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    }
    assert headers == {"anthropic-beta": "b-1"}


def test_reasoning_effort_is_the_effort_of_the_output_config() -> None:
    # As langchain-anthropic maps it (and as ChatSSE does on this protocol): neither refused
    # nor dropped.
    llm = SSELLM(
        protocol="anthropic", model="m", base_url="http://127.0.0.1:9/", reasoning_effort="low"
    )
    body, _ = llm._build_request([ChatMessage(role="user", content="hi")], {})
    assert body["output_config"] == {"effort": "low"} and "reasoning_effort" not in body


def test_a_protocol_or_auth_that_does_not_exist_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="protocol"):
        SSELLM(protocol="realtime", model="m", base_url="http://127.0.0.1:9")
    with pytest.raises(ConfigurationError, match="auth"):
        SSELLM(protocol="anthropic", auth="basic", model="m", base_url="http://127.0.0.1:9")


# -- what the gateway saw --------------------------------------------------------------


def test_num_output_is_the_max_tokens_sent_by_default(emulator: Emulator) -> None:
    llm = anthropic_llm(emulator)
    llm.chat([user("echo: hi")])
    record = emulator.last_request
    assert record is not None and record.json()["max_tokens"] == DEFAULT_MAX_TOKENS == 1024
    assert llm.metadata.num_output == DEFAULT_MAX_TOKENS


def test_the_key_is_in_no_repr_or_json() -> None:
    # (The key in x-api-key byte-exact, both adapters: tests/adapters/test_messages_request.py)
    llm = SSELLM(protocol="anthropic", model="claude-x", base_url="http://gateway.test",
                 api_key=API_KEY)  # fmt: skip
    assert API_KEY not in repr(llm) and API_KEY not in llm.to_json()


def test_chat_completions_keep_their_path() -> None:
    seen: list[httpx.Request] = []
    llm = SSELLM(
        model="m",
        base_url="http://gateway.test/v1",
        api_key=API_KEY,
        http_client=httpx.Client(transport=sse_transport([b"data: [DONE]\n\n"], seen)),
    )
    llm.chat([user("hi")])
    assert [str(r.url) for r in seen] == ["http://gateway.test/v1/chat/completions"]
    assert seen[0].headers["authorization"] == f"Bearer {API_KEY}"


def test_the_protocol_survives_to_dict_and_pickle(emulator: Emulator) -> None:
    llm = anthropic_llm(emulator, thinking_dict={"type": "enabled", "budget_tokens": 1024})
    dumped = llm.to_dict()
    assert (dumped["protocol"], dumped["auth"], dumped["path"]) == ("anthropic", None, None)
    assert API_KEY not in json.dumps(dumped)
    for again in (SSELLM(**dumped, api_key=API_KEY), pickle.loads(pickle.dumps(llm))):
        again.api_key = again.api_key or SecretStr(API_KEY)
        assert again.chat([user("echo: back")]).message.content == "back"
        record = emulator.last_request
        assert record is not None and record.path == "/anthropic/v1/messages"
        assert record.json()["thinking"] == {"type": "enabled", "budget_tokens": 1024}
        # No max_tokens given: room for the answer after the thinking budget.
        assert record.json()["max_tokens"] == 1024 + DEFAULT_MAX_TOKENS
    assert llm.metadata.num_output == 1024 + DEFAULT_MAX_TOKENS
