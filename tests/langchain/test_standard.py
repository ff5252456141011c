"""LangChain's standard test suites for ChatSSE: unit tests, and integration tests against the
emulator in every dialect (plain OpenAI, the five seed gateways, and Anthropic Messages with
``protocol="anthropic"``).

Offline stand-ins, not skips: ``test_image_inputs`` and ``test_image_tool_message`` (an image
from raw.githubusercontent.com), ``test_pdf_inputs`` (a PDF from w3.org) and
``test_audio_inputs`` (a WAV from wikimedia.org) download their media with ``httpx.get``
before calling the model. Those four exact URLs are answered here from small files made in
memory; any other ``httpx.get`` fails the test, so nothing leaves 127.0.0.1. The model call
and every assertion of those tests run as written.

What the suite skips through its own switches, and why:

- ``test_serdes``: ChatSSE is not ``lc_serializable`` (langchain-core's load allowlist has no
  third-party chat models; the key never goes into a serialized form).
- ``test_stream_time``: needs VCR cassettes (``enable_vcr_tests``); the emulator is live.
- ``test_anthropic_inputs``: Anthropic-format content is for Anthropic-compatible APIs (run
  with ``protocol="anthropic"``); there, ``test_audio_inputs`` is skipped: the Messages
  API takes no audio (JSON mode is a forced tool call there).
"""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Any

import httpx
import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_tests.integration_tests import ChatModelIntegrationTests
from langchain_tests.unit_tests import ChatModelUnitTests

from langchain_sse import ChatSSE
from sse_emulator import Emulator
from tests.langchain.lc_support import SPASS_HEADERS


def _png() -> bytes:
    """A valid 1x1 PNG."""

    def part(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + part(b"IHDR", header) + part(b"IDAT", pixels) + part(b"IEND", b"")


def _wav() -> bytes:
    """A valid, silent 10 ms WAV."""
    samples = b"\x00\x00" * 80
    fmt = struct.pack("<HHIIHH", 1, 1, 8000, 16000, 2, 16)
    chunks = b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt
    chunks += b"data" + struct.pack("<I", len(samples)) + samples
    return b"RIFF" + struct.pack("<I", len(chunks)) + chunks


_PDF = (
    b"%PDF-1.1\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    b"2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
    b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 72 72]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF"
)
#: The media the standard tests download, answered locally (see the module docstring).
OFFLINE_MEDIA = {
    "https://raw.githubusercontent.com/langchain-ai/docs/4d11d08b6b0e210bd456943f7a22febbd168b543"
    "/src/images/agentic-rag-output.png": _png(),
    "https://www.w3.org/WAI/ER/tests/xhtml/testfiles/resources/pdf/dummy.pdf": _PDF,
    "https://upload.wikimedia.org/wikipedia/commons/6/6a/Northern_Flicker_202280456.wav": _wav(),
}


def _offline_get(url: str, *args: Any, **kwargs: Any) -> httpx.Response:
    if url not in OFFLINE_MEDIA:
        raise AssertionError(f"a standard test tried to download {url}; tests stay offline")
    return httpx.Response(200, content=OFFLINE_MEDIA[url], request=httpx.Request("GET", url))


class TestChatSSEUnit(ChatModelUnitTests):
    """The standard unit tests (no I/O)."""

    @property
    def chat_model_class(self) -> type[BaseChatModel]:
        return ChatSSE

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {"model": "emulator", "base_url": "http://127.0.0.1:9/v1"}

    @property
    def supports_json_mode(self) -> bool:
        return True

    @property
    def init_from_env_params(self) -> tuple[dict[str, str], dict[str, Any], dict[str, Any]]:
        env = {"SSE_API_KEY": "sk-from-env", "SSE_BASE_URL": "http://env.test/v1"}
        return env, {"model": "emulator"}, {"api_key": "sk-from-env",
                                            "base_url": "http://env.test/v1"}  # fmt: skip


class TestChatSSEAnthropicUnit(TestChatSSEUnit):
    """The standard unit tests with ``protocol="anthropic"``."""

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {"model": "claude", "base_url": "http://127.0.0.1:9", "protocol": "anthropic"}


class _Integration(ChatModelIntegrationTests):
    """The standard integration tests against one emulator dialect."""

    dialect = "openai"
    model_name = "emulator"
    usage_details: tuple[Any, ...] = ()

    @pytest.fixture(autouse=True)
    def _emulator(self, emulator_server: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
        self.base_url = emulator_server.base_url(self.dialect)
        monkeypatch.setattr(httpx, "get", _offline_get)

    @property
    def chat_model_class(self) -> type[BaseChatModel]:
        return ChatSSE

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {
            "model": self.model_name,
            "base_url": self.base_url,
            "api_key": "sk-emulator",
            "default_headers": SPASS_HEADERS,
        }

    @property
    def supports_json_mode(self) -> bool:
        return True

    @property
    def supports_image_inputs(self) -> bool:
        return True

    @property
    def supports_image_urls(self) -> bool:
        return True

    @property
    def supports_image_tool_message(self) -> bool:
        return True

    @property
    def supports_pdf_inputs(self) -> bool:
        return True

    @property
    def supports_audio_inputs(self) -> bool:
        return True

    @property
    def model_override_value(self) -> str:
        return "emulator-think"

    @property
    def supported_usage_metadata_details(self) -> dict[Any, list[Any]]:
        return {"invoke": list(self.usage_details), "stream": list(self.usage_details)}

    def _ask(self, stream: bool, prompt: Any, **fields: Any) -> AIMessage:
        model = ChatSSE(**{**self.chat_model_params, **fields})
        if not stream:
            return model.invoke(prompt)
        chunks = list(model.stream(prompt))
        whole = chunks[0] + chunks[1:]
        assert isinstance(whole, AIMessageChunk)
        return whole

    def invoke_with_reasoning_output(self, *, stream: bool = False) -> AIMessage:
        return self._ask(stream, "Why is the sky blue?", reasoning_effort="high")

    def invoke_with_cache_read_input(self, *, stream: bool = False) -> AIMessage:
        history = [("user", "My name is Ada."), ("assistant", "Hello Ada."), ("user", "Hi")]
        return self._ask(stream, history)

    def invoke_with_cache_creation_input(self, *, stream: bool = False) -> AIMessage:
        return self._ask(stream, "Remember this long context.", model="claude-emulator")


class TestStandardOpenAI(_Integration):
    """Plain OpenAI wire: usage with cached and reasoning tokens."""

    dialect = "openai"
    usage_details = ("reasoning_output", "cache_read_input")


class TestStandardShroud(_Integration):
    """Seed 000: OpenAI's shape, reasoning_content, error frame then [DONE]."""

    dialect = "shroud"


class TestStandardStreamChat(_Integration):
    """Seed 001: ``chat.completion`` chunks, model "", whole tool calls, no [DONE]."""

    dialect = "streamchat"


class TestStandardSpass(_Integration):
    """Seed 002: no index, unindexed tool pieces, usage as ``event: spass.cost``."""

    dialect = "spass"


class TestStandardGateway(_Integration):
    """Seed 003: ``{"delta", "index"}`` choices."""

    dialect = "gateway"


class TestStandardAivene(_Integration):
    """Seed 004: cached and cache-write tokens, refusals as ``content_filter``."""

    dialect = "aivene"
    usage_details = ("cache_read_input", "cache_creation_input")


def test_offline_media_are_valid_files() -> None:
    media = list(OFFLINE_MEDIA.values())
    assert media[0].startswith(b"\x89PNG") and media[1].startswith(b"%PDF")
    assert media[2][:4] == b"RIFF" and media[2][8:12] == b"WAVE"
    assert base64.b64encode(media[0])


class TestStandardAnthropic(_Integration):
    """Anthropic Messages (``protocol="anthropic"``): thinking with signatures, tool_use
    blocks, usage in ``message_start`` and a cumulative ``message_delta``, cache tokens."""

    dialect = "anthropic"
    model_name = "claude-emulator"
    usage_details = ("cache_read_input", "cache_creation_input")

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {**super().chat_model_params, "protocol": "anthropic"}

    @property
    def supports_audio_inputs(self) -> bool:
        return False  # the Messages API takes no audio

    @property
    def supports_anthropic_inputs(self) -> bool:
        return True

    @property
    def supports_pdf_tool_message(self) -> bool:
        return True

    @property
    def model_override_value(self) -> str:
        return "claude-emulator-2"

    def invoke_with_reasoning_output(self, *, stream: bool = False) -> AIMessage:
        thinking = {"type": "enabled", "budget_tokens": 1024}
        return self._ask(stream, "Why is the sky blue?", thinking=thinking)


# The API has no stop sequences: test_stop_sequence's are not sent, with this warning (its
# own test: tests/core/protocols/test_responses_request.py).
@pytest.mark.filterwarnings("ignore:stop is not sent:UserWarning")
class TestStandardResponses(_Integration):
    """OpenAI's Responses API (``protocol="responses"``): reasoning summaries with their
    encrypted items, flat function tools, usage from the terminal event (cached and reasoning
    tokens), structured output as ``text.format``."""

    dialect = "responses"
    model_name = "gpt-emulator"
    usage_details = ("cache_read_input", "reasoning_output")

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {**super().chat_model_params, "protocol": "responses"}

    @property
    def supports_audio_inputs(self) -> bool:
        return False  # the Responses API's input has no audio part

    @property
    def model_override_value(self) -> str:
        return "gpt-emulator-2"

    def invoke_with_reasoning_output(self, *, stream: bool = False) -> AIMessage:
        reasoning = {"effort": "high", "summary": "auto"}
        return self._ask(stream, "Why is the sky blue?", model_kwargs={"reasoning": reasoning})
