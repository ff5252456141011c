"""LlamaIndex messages and call arguments to the request body (pure)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from llama_index.core.base.llms.types import (
    ChatMessage,
    DocumentBlock,
    ImageBlock,
    MessageRole,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    VideoBlock,
)

from llamaindex_sse._outbound import build_request, to_openai_messages
from sse_core import ConfigurationError, ToolCallDelta
from tests.llamaindex.li_support import Feed


def test_plain_messages_keep_role_and_text() -> None:
    messages = [
        ChatMessage(role="system", content="Be brief."),
        ChatMessage(role="user", content="Hi"),
        ChatMessage(role="assistant", content="Hello"),
    ]
    assert to_openai_messages(messages) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello"},
    ]


def test_assistant_tool_calls_and_tool_results_round_trip() -> None:
    assistant = ChatMessage(
        role="assistant",
        blocks=[
            ThinkingBlock(content="I should add."),
            TextBlock(text=""),
            ToolCallBlock(tool_call_id="call_1", tool_name="add", tool_kwargs='{"a": 1, "b": 2}'),
            ToolCallBlock(tool_call_id="call_2", tool_name="add", tool_kwargs={"a": 3, "b": 4}),
        ],
    )
    result = ChatMessage(role="tool", content="3", additional_kwargs={"tool_call_id": "call_1"})
    assert to_openai_messages([assistant, result]) == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'},
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "add", "arguments": '{"a": 3, "b": 4}'},
                },
            ],
        },
        {"role": "tool", "content": "3", "tool_call_id": "call_1"},
    ]


def test_thinking_is_sent_back_only_when_passback_is_on() -> None:
    message = ChatMessage(
        role="assistant", blocks=[ThinkingBlock(content="hmm"), TextBlock(text="Hi")]
    )
    assert to_openai_messages([message]) == [{"role": "assistant", "content": "Hi"}]
    assert to_openai_messages([message], reasoning_passback=True) == [
        {"role": "assistant", "content": "Hi", "reasoning_content": "hmm"}
    ]


def test_legacy_tool_calls_in_additional_kwargs_are_sent() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    message = ChatMessage(role="assistant", content="", additional_kwargs={"tool_calls": [call]})
    assert to_openai_messages([message]) == [
        {"role": "assistant", "content": None, "tool_calls": [call]}
    ]


def test_a_streamed_message_is_sent_back_as_the_gateway_wrote_it() -> None:
    stream = Feed()
    stream.add([ToolCallDelta(index=0, id="call_9", name="add", arguments='{"a": 1')])
    last = stream.add([ToolCallDelta(index=0, arguments=', "b": 2}')])
    assert last is not None
    (sent,) = to_openai_messages([last.message])
    assert sent["tool_calls"][0]["function"]["arguments"] == '{"a": 1, "b": 2}'
    assert sent["content"] is None


def test_user_images_become_content_parts() -> None:
    message = ChatMessage(
        role="user",
        blocks=[TextBlock(text="What is this?"), ImageBlock(url="https://x.test/a.png")],
    )
    assert to_openai_messages([message]) == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}},
            ],
        }
    ]


PDF = b"%PDF-1.4 a small document"


@pytest.mark.parametrize(
    ("block", "mimetype"),
    [
        (DocumentBlock(data=PDF, title="a.pdf"), "application/pdf"),  # from the bytes
        (DocumentBlock(data=b"plain words", document_mimetype="text/plain"), "text/plain"),
        (DocumentBlock(data=b"plain words"), "application/octet-stream"),  # nothing to go by
    ],
)
def test_user_documents_become_file_parts(block: DocumentBlock, mimetype: str) -> None:
    """Encoded and typed with LlamaIndex's public fields, the way its private helpers would."""
    message = ChatMessage(role="user", blocks=[block])
    (part,) = to_openai_messages([message])[0]["content"]
    assert isinstance(block.data, bytes)  # kept base64-encoded by the block
    raw = base64.b64decode(block.data)
    assert part == {
        "type": "file",
        "file": {
            "filename": block.title,
            "file_data": f"data:{mimetype};base64,{base64.b64encode(raw).decode()}",
        },
    }


def test_a_document_read_from_a_path_is_typed_by_its_suffix(tmp_path: Path) -> None:
    path = tmp_path / "notes.csv"
    path.write_bytes(b"a,b\n1,2\n")
    message = ChatMessage(role="user", blocks=[DocumentBlock(path=path)])
    (part,) = to_openai_messages([message])[0]["content"]
    assert (
        part["file"]["file_data"]
        == "data:text/csv;base64," + base64.b64encode(b"a,b\n1,2\n").decode()
    )


def test_unsupported_blocks_raise_a_clear_error() -> None:
    video = ChatMessage(role="user", blocks=[VideoBlock(url="https://x.test/v.mp4")])
    with pytest.raises(ConfigurationError, match="VideoBlock"):
        to_openai_messages([video])
    image = ChatMessage(role="system", blocks=[ImageBlock(url="https://x.test/a.png")])
    with pytest.raises(ConfigurationError, match="text only"):
        to_openai_messages([image])


def test_chatbot_and_model_roles_are_the_assistant() -> None:
    messages = [ChatMessage(role=MessageRole.CHATBOT, content="a")]
    assert to_openai_messages(messages)[0]["role"] == "assistant"


def test_request_body_layers_settings_and_call_arguments() -> None:
    body, headers = build_request(
        "m",
        [ChatMessage(role="user", content="hi")],
        settings={"temperature": 0.2, "max_tokens": None, "top_p": 0.9},
        call_kwargs={"top_p": 0.5, "seed": None, "extra_headers": {"X-Trace": "t1"}},
    )
    assert body == {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "temperature": 0.2,
        "top_p": 0.5,
    }
    assert headers == {"X-Trace": "t1"}


def test_request_body_passes_reasoning_back_when_asked() -> None:
    message = ChatMessage(
        role="assistant", blocks=[ThinkingBlock(content="hmm"), TextBlock(text="Hi")]
    )
    body, headers = build_request(
        "m", [message], settings={}, call_kwargs={}, reasoning_passback=True
    )
    assert body["messages"] == [{"role": "assistant", "content": "Hi", "reasoning_content": "hmm"}]
    assert headers is None


def test_mappings_are_taken_as_messages() -> None:
    """``llm.chat([{"role": "user", "content": "hi"}])``: LlamaIndex's own start event takes
    the dicts, so the request must too (it raised AttributeError: 'dict' has no 'role')."""
    as_dicts = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
    as_messages = [ChatMessage(role="system", content="Be brief."), ChatMessage(content="Hi")]
    assert to_openai_messages(as_dicts) == to_openai_messages(as_messages)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        (3, "messages must be ChatMessage objects, got int"),
        ("hi", "messages must be ChatMessage objects, got str"),
        ({"role": "nobody", "content": "sk-canary-77"}, "a message mapping that is no ChatMessage"),
    ],
)
def test_anything_else_is_a_type_error_that_shows_no_value(bad: object, said: str) -> None:
    with pytest.raises(TypeError, match=said) as caught:
        to_openai_messages([bad])  # type: ignore[list-item]
    assert "sk-canary" not in str(caught.value)
