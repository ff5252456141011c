"""Moving from ChatAnthropic or llama-index's ``Anthropic``: each of their constructor
arguments is accepted by the adapter, or refused with a pointer to ours (a setting of ours, or
where a request field goes), never dropped."""

from __future__ import annotations

import pytest
from langchain_anthropic import ChatAnthropic
from langchain_openai import ChatOpenAI
from llama_index.llms.anthropic import Anthropic
from llama_index.llms.openai import OpenAIResponses

from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM
from sse_core import ConfigurationError


def _names(cls: type) -> set[str]:
    found: set[str] = set()
    for name, field in cls.model_fields.items():
        found |= {name, field.alias} if field.alias else {name}
    return found


LC_THEIRS = sorted(_names(ChatAnthropic) - _names(ChatSSE))
LI_THEIRS = sorted(_names(Anthropic) - _names(SSELLM))


@pytest.mark.parametrize("name", LC_THEIRS)
def test_chat_anthropics_names_point_at_chatsses(name: str) -> None:
    with pytest.raises(ConfigurationError, match=f"no such setting: '{name}': ") as raised:
        ChatSSE(model="m", base_url="http://127.0.0.1:9", api_key="k", protocol="anthropic",
                **{name: 1})  # fmt: skip
    pointer = str(raised.value).partition(f"'{name}': ")[2]
    assert pointer.startswith(("use ", "give ", "send ", "request parameters")), pointer


@pytest.mark.parametrize("name", LI_THEIRS)
def test_llamaindex_anthropics_names_point_at_ssellms(name: str) -> None:
    with pytest.raises(ConfigurationError, match=f"no such setting: '{name}': ") as raised:
        SSELLM(model="m", base_url="http://127.0.0.1:9", api_key="k", protocol="anthropic",
               **{name: 1})  # fmt: skip
    pointer = str(raised.value).partition(f"'{name}': ")[2]
    assert "additional_kwargs" in pointer or pointer.startswith(("put ", "offer ", "send "))


@pytest.mark.parametrize("name", ["region", "project_id", "aws_region"])
def test_cloud_client_settings_point_at_a_gateway_url(name: str) -> None:
    with pytest.raises(ConfigurationError, match="as base_url"):
        SSELLM(model="m", base_url="http://127.0.0.1:9", api_key="k", **{name: "x"})


def test_the_shared_names_are_accepted() -> None:
    common = {"model", "max_tokens", "temperature", "api_key", "base_url", "timeout",
              "max_retries", "default_headers"}  # fmt: skip
    assert common | {"thinking_dict", "additional_kwargs"} <= _names(SSELLM)
    assert common | {"thinking", "model_kwargs", "stop_sequences"} <= _names(ChatSSE)


#: Where the generic "request parameters go in model_kwargs" hint would mislead: each of these
#: is a client setting, or a request field of another name or place.
LC_POINTED = ["use_responses_api", "use_previous_response_id", "verbosity", "client",
              "root_client", "async_client", "root_async_client", "openai_organization",
              "stream_chunk_timeout", "http_socket_options", "tiktoken_model_name"]  # fmt: skip
LI_POINTED = ["built_in_tools", "call_metadata", "max_output_tokens", "reasoning_options",
              "track_previous_responses", "strict"]  # fmt: skip


@pytest.mark.parametrize("name", LC_POINTED)
def test_chat_openais_client_settings_point_at_chatsses(name: str) -> None:
    assert name in _names(ChatOpenAI) - _names(ChatSSE)
    with pytest.raises(ConfigurationError, match=f"'{name}': ") as raised:
        ChatSSE(model="m", base_url="http://127.0.0.1:9/v1", api_key="k", **{name: 1})
    pointer = str(raised.value).partition(f"'{name}': ")[2]
    assert not pointer.startswith(("request parameters", "did you mean")), pointer


@pytest.mark.parametrize("name", LI_POINTED)
def test_openai_responses_settings_point_at_ssellms(name: str) -> None:
    assert name in _names(OpenAIResponses) - _names(SSELLM)
    with pytest.raises(ConfigurationError, match=f"'{name}': ") as raised:
        SSELLM(model="m", base_url="http://127.0.0.1:9/v1", api_key="k", **{name: 1})
    pointer = str(raised.value).partition(f"'{name}': ")[2]
    assert not pointer.startswith(("request parameters", "did you mean")), pointer
