"""What googlegenai.md says of llama-index's GoogleGenAI, run on the anchor itself (the version
requirements/newest.txt pins, which the guide names) against the emulator, beside SSELLM on
the same answer. As test_anchor_claims.py, this file runs on the newest set alone."""

from __future__ import annotations

import importlib.metadata

import pytest
from google.genai import types
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.tools import FunctionTool
from llama_index.llms.google_genai import GoogleGenAI

from llamaindex_sse import SSELLM
from sse_emulator import Emulator

from .test_migrations import named_version

ASK = [ChatMessage(role="user", content="Tell me a long story about the sea and the wind.")]


def test_the_installed_googlegenai_is_the_version_the_guide_names() -> None:
    assert importlib.metadata.version("llama-index-llms-google-genai") == named_version(
        "googlegenai.md"
    )


def _googlegenai(emulator: Emulator, **settings: object) -> GoogleGenAI:
    # max_tokens and context_window given: GoogleGenAI asks models.get otherwise.
    options = types.HttpOptions(base_url=emulator.base_url("gemini"))
    return GoogleGenAI(model="gemini-2.5-flash-lite", api_key="k", max_retries=0,
                       context_window=100_000, http_options=options, **settings)  # fmt: skip


def test_an_answer_cut_at_max_tokens_is_an_error_in_googlegenai_not_in_ssellm(
    emulator: Emulator,
) -> None:
    """googlegenai.md: "An answer that ends for any reason but STOP ... is an error in
    GoogleGenAI, whole or streamed ...; SSELLM returns it"."""
    anchor = _googlegenai(emulator, max_tokens=5)
    with pytest.raises(RuntimeError, match="Response was terminated early: MAX_TOKENS"):
        anchor.chat(ASK)
    with pytest.raises(RuntimeError, match="Response was terminated early: MAX_TOKENS"):
        list(anchor.stream_chat(ASK))
    ours = SSELLM(model="gemini-2.5-flash-lite", protocol="gemini", api_key="k",
                  base_url=emulator.base_url("gemini"), max_tokens=5)  # fmt: skip
    response = ours.chat(ASK)
    assert response.message.content
    assert response.additional_kwargs["finish_reason"] == "length"
    assert response.additional_kwargs["stop_reason"] == "MAX_TOKENS"


def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return "sunny"


def test_a_call_without_an_id_is_named_by_its_function_in_googlegenai(emulator: Emulator) -> None:
    """googlegenai.md: "the id is the call's own, else the function's name"."""
    tool = FunctionTool.from_defaults(get_weather)
    anchor = _googlegenai(emulator, max_tokens=1024)
    response = anchor.chat_with_tools([tool], user_msg="weather in Paris?")
    (call,) = anchor.get_tool_calls_from_response(response)
    assert (call.tool_id, call.tool_name) == ("get_weather", "get_weather")
    ours = SSELLM(model="gemini-2.5-flash-lite", protocol="gemini", api_key="k",
                  base_url=emulator.base_url("gemini"))  # fmt: skip
    (mine,) = ours.get_tool_calls_from_response(
        ours.chat_with_tools([tool], user_msg="weather in Paris?")
    )
    assert mine.tool_id.startswith("gemini_call_")
