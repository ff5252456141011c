"""The Google clients' names for settings point at ours: each of ChatGoogleGenerativeAI's
(langchain-google-genai) and llama-index's GoogleGenAI's arguments that the adapter takes
otherwise is refused by name with where it goes, not with the generic ``model_kwargs`` /
``additional_kwargs`` hint (which would send a key or a client option in the body); and the
places the hints name take the setting on the gemini protocol."""

from __future__ import annotations

from typing import Any

import pytest
from llama_index.core.base.llms.types import ChatMessage

from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM
from sse_core import ConfigurationError
from sse_emulator import Emulator

BASE = "http://127.0.0.1:9"


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("google_api_key", "use api_key (or set SSE_API_KEY, or GOOGLE_API_KEY or GEMINI_API_KEY"),
        ("max_output_tokens", "use max_tokens (sent as maxOutputTokens with protocol='gemini'"),
        ("additional_headers", "use default_headers"),
        ("client_args", "give http_client=httpx.Client(...)"),
        ("thinking_level", "use reasoning_effort (sent as thinkingLevel on Gemini 3"),
        ("thinking_budget", "model_kwargs={'generationConfig': {'thinkingConfig'"),
        ("include_thoughts", "use reasoning_effort"),
        ("response_mime_type", "model_kwargs={'generationConfig'"),
        ("convert_system_message_to_human", "sent as the request's systemInstruction"),
        ("vertexai", "not a cloud SDK: give the Gemini endpoint of the Vertex AI gateway"),
        ("credentials", "not a cloud SDK"),
    ],
)
def test_chatgooglegenerativeai_names_point_at_chatsse(name: str, hint: str) -> None:
    with pytest.raises(ConfigurationError) as refused:
        ChatSSE(model="gemini-2.5-flash", base_url=BASE, protocol="gemini", **{name: "x"})
    said = str(refused.value)
    assert f"'{name}': " in said and hint in said, said


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("http_options", "base_url (the root, as http_options.base_url), default_headers"),
        ("generation_config", "additional_kwargs={'generationConfig': {...}}"),
        ("built_in_tool", "tools=[{'googleSearch': {}}]"),
        ("file_mode", "inline (inlineData) and a URL as fileData"),
        ("debug_config", "http_client=sse_core.recording_client(DIR)"),
        ("vertexai_config", "not a cloud SDK: give the Gemini endpoint of the Vertex AI gateway"),
        ("max_output_tokens", "maxOutputTokens with protocol='gemini'"),
    ],
)
def test_googlegenai_names_point_at_ssellm(name: str, hint: str) -> None:
    with pytest.raises(ConfigurationError) as refused:
        SSELLM(model="gemini-2.5-flash", base_url=BASE, protocol="gemini", **{name: "x"})
    said = str(refused.value)
    assert f"'{name}': " in said and hint in said, said


THINKING = {"thinkingConfig": {"thinkingBudget": 1024, "includeThoughts": True}}


def _generation_config(emulator: Emulator) -> Any:
    record = emulator.last_request
    assert record is not None
    return record.json()["generationConfig"]


def test_the_generation_config_the_hints_name_is_sent(emulator: Emulator) -> None:
    """model_kwargs / additional_kwargs={'generationConfig': {...}}: what the hints for
    thinking_budget, response_mime_type and generation_config say, as sent."""
    base = emulator.base_url("gemini")
    config = {**THINKING, "responseMimeType": "application/json"}
    chat = ChatSSE(model="gemini-2.5-flash", protocol="gemini", base_url=base, api_key="k",
                   model_kwargs={"generationConfig": config})  # fmt: skip
    message = chat.invoke("hi")
    assert _generation_config(emulator) == config
    assert message.additional_kwargs.get("reasoning_content")
    llm = SSELLM(model="gemini-2.5-flash", protocol="gemini", base_url=base, api_key="k",
                 additional_kwargs={"generationConfig": THINKING})  # fmt: skip
    llm.chat([ChatMessage(role="user", content="hi")])
    assert _generation_config(emulator)["thinkingConfig"] == THINKING["thinkingConfig"]
