"""LlamaIndex messages and call arguments to the chat-completions request body (pure): SSELLM's
turns (llamaindex_sse/_turns.py), the core's body (sse_core.protocols.chat_completions)."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from pathlib import Path
from typing import Any

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
    VideoBlock,
)

from llamaindex_sse._outbound import Headers
from llamaindex_sse._protocols import mapping_of
from sse_core import ConfigurationError, ToolCallDelta
from tests.llamaindex.li_support import Feed


def build_request(
    model: str,
    messages: Sequence[object],
    *,
    settings: dict[str, Any],
    call_kwargs: dict[str, Any],
    reasoning_passback: bool = False,
) -> tuple[dict[str, Any], Headers]:
    """SSELLM's chat-completions request of a call."""
    return mapping_of("chat_completions").build_request(
        model,
        messages,  # type: ignore[arg-type]
        settings=settings,
        call_kwargs=call_kwargs,
        reasoning_passback=reasoning_passback,
    )


def to_openai_messages(
    messages: Sequence[object], *, reasoning_passback: bool = False
) -> list[dict[str, Any]]:
    """The ``messages`` SSELLM sends in chat completions."""
    body, _ = build_request(
        "m", messages, settings={}, call_kwargs={}, reasoning_passback=reasoning_passback
    )
    messages_sent: list[dict[str, Any]] = body["messages"]
    return messages_sent


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
    # Each call answered: the core leaves out a call no tool message answers when the
    # conversation goes on (the API refuses it; the transport's rule did it before too).
    other = ChatMessage(role="tool", content="7", additional_kwargs={"tool_call_id": "call_2"})
    assert to_openai_messages([assistant, result, other]) == [
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
        {"role": "tool", "content": "7", "tool_call_id": "call_2"},
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
        (DocumentBlock(data=PDF), "application/pdf"),  # LlamaIndex's own title
        (DocumentBlock(data=b"plain words"), "application/octet-stream"),  # nothing to go by
    ],
)
def test_user_documents_become_file_parts(block: DocumentBlock, mimetype: str) -> None:
    """Encoded and typed with LlamaIndex's public fields, the way its private helpers would;
    named by the block's title (OpenAI's ``filename``)."""
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


def test_a_text_document_is_sent_as_its_text() -> None:
    """The core's rule for a text document (it was a ``text/plain`` file part before: OpenAI
    reads files as PDFs, so text is what a model can read of it)."""
    words = DocumentBlock(data=b"plain words", document_mimetype="text/plain")
    message = ChatMessage(role="user", blocks=[TextBlock(text="Read:"), words])
    assert to_openai_messages([message])[0]["content"] == [
        {"type": "text", "text": "Read:"},
        {"type": "text", "text": "plain words"},
    ]


def test_a_document_read_from_a_path_is_typed_by_its_suffix(tmp_path: Path) -> None:
    # A text type (CSV) is sent as its text (the core's rule; a text/csv file part before);
    # another type by its suffix.
    path = tmp_path / "notes.csv"
    path.write_bytes(b"a,b\n1,2\n")
    message = ChatMessage(role="user", blocks=[TextBlock(text="Sum:"), DocumentBlock(path=path)])
    assert to_openai_messages([message])[0]["content"][1] == {"type": "text", "text": "a,b\n1,2\n"}
    sheet = tmp_path / "notes.xlsx"
    sheet.write_bytes(b"PK\x03\x04")
    (part,) = to_openai_messages([ChatMessage(role="user", blocks=[DocumentBlock(path=sheet)])])[0][
        "content"
    ]
    kind = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    assert (
        part["file"]["file_data"]
        == f"data:{kind};base64," + base64.b64encode(b"PK\x03\x04").decode()
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


# --- what the turns carry in chat completions (#37: one request path) ------------------------


def test_a_messages_name_is_sent_on_it_but_not_on_a_tool_result() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    messages = [
        ChatMessage(role="system", content="Be brief.", additional_kwargs={"name": "ops"}),
        ChatMessage(role="user", content="Hi", additional_kwargs={"name": "ada"}),
        ChatMessage(
            role="assistant", content="", additional_kwargs={"name": "bot", "tool_calls": [call]}
        ),
        ChatMessage(
            role="tool", content="1", additional_kwargs={"tool_call_id": "c1", "name": "f"}
        ),
    ]
    sent = to_openai_messages(messages)
    assert [m.get("name") for m in sent] == ["ops", "ada", "bot", None]


def test_reasoning_goes_back_only_after_the_last_user_message() -> None:
    """The core's rule (DeepSeek's and Qwen's thinking modes want it inside a tool loop and
    nowhere else); SSELLM's converter sent it on every assistant message before."""
    call = ToolCallBlock(tool_call_id="c1", tool_name="f", tool_kwargs={})
    messages = [
        ChatMessage(role="user", content="first"),
        ChatMessage(role="assistant", blocks=[ThinkingBlock(content="old"), TextBlock(text="a")]),
        ChatMessage(role="user", content="second"),
        ChatMessage(role="assistant", blocks=[ThinkingBlock(content="new"), call]),
        ChatMessage(role="tool", content="1", additional_kwargs={"tool_call_id": "c1"}),
    ]
    sent = to_openai_messages(messages, reasoning_passback=True)
    assert "reasoning_content" not in sent[1]
    assert sent[3]["reasoning_content"] == "new"
    assert all("reasoning_content" not in m for m in to_openai_messages(messages))


def test_a_function_message_is_refused_naming_the_tool_message() -> None:
    message = ChatMessage(
        role=MessageRole.FUNCTION, content="3", additional_kwargs={"tool_call_id": "c1"}
    )
    with pytest.raises(ConfigurationError, match="function message") as caught:
        to_openai_messages([ChatMessage(role="user", content="hi"), message])
    assert "role='tool'" in str(caught.value) and "tool_call_id" in str(caught.value)


def test_developer_messages_are_system_messages() -> None:
    messages = [
        ChatMessage(role=MessageRole.DEVELOPER, content="Be brief."),
        {"role": "developer", "content": "Kind."},
    ]
    sent = to_openai_messages([*messages, ChatMessage(role="user", content="Hi")])
    assert sent[:2] == [
        {"role": "system", "content": "Be brief."},
        {"role": "system", "content": "Kind."},
    ]


def test_audio_and_an_images_detail_go_as_openai_parts() -> None:
    audio = AudioBlock(audio=b"RIFF....WAVE", format="wav")
    image = ImageBlock(url="https://x.test/a.png", detail="low")
    (sent,) = to_openai_messages([ChatMessage(role="user", blocks=[audio, image])])
    assert sent["content"] == [
        {
            "type": "input_audio",
            "input_audio": {"data": base64.b64encode(b"RIFF....WAVE").decode(), "format": "wav"},
        },
        {"type": "image_url", "image_url": {"url": "https://x.test/a.png", "detail": "low"}},
    ]


@pytest.mark.parametrize("role", ["system", "assistant", "tool"])
def test_media_outside_a_user_message_is_refused_clearly(role: str) -> None:
    kwargs = {"tool_call_id": "c1"} if role == "tool" else {}
    calls = [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    before = [ChatMessage(role="assistant", content="", additional_kwargs={"tool_calls": calls})]
    audio = ChatMessage(role=role, blocks=[AudioBlock(audio=b"RIFF")], additional_kwargs=kwargs)
    with pytest.raises(ConfigurationError, match=f"a {role} message can carry text only"):
        to_openai_messages([*before, audio] if role == "tool" else [audio])
    if role != "tool":  # an image in a tool result: the core keeps it (tests/core)
        image = ChatMessage(role=role, blocks=[ImageBlock(url="https://x.test/a.png")])
        with pytest.raises(ConfigurationError, match=f"a {role} message can carry text only"):
            to_openai_messages([image])


def test_cache_points_are_not_sent() -> None:
    """Chat completions has no prompt caching: a CachePoint is not read (as OpenAILike), even
    where Anthropic's request would refuse it (first in a message, after thinking or a file)."""
    point = CachePoint(cache_control=CacheControl(type="ephemeral"))
    pdf = DocumentBlock(data=PDF, title="a.pdf")
    message = ChatMessage(
        role="user",
        blocks=[point, TextBlock(text="long"), point, pdf, point, TextBlock(text="q")],
        additional_kwargs={"cache_control": {"type": "ephemeral"}},
    )
    thought = ChatMessage(
        role="assistant", blocks=[ThinkingBlock(content="hm"), point, TextBlock(text="ok")]
    )
    (sent, answer) = to_openai_messages([message, thought])
    assert [part["type"] for part in sent["content"]] == ["text", "file", "text"]
    assert all("cache_control" not in part for part in sent["content"])
    assert answer == {"role": "assistant", "content": "ok"}
