"""SSELLM makes what a call derives from its fields (the client configuration, the request
parameters, LlamaIndex's payload) once per settings (llamaindex_sse._settings): a field set
after construction, or a dict or list field changed in place, still reaches the next
request and the next payload, on both protocols and through all four chat methods; a
setting made invalid fails every call until it is fixed; a copy with other settings sends
its own; the cache's copies and pickles start empty and hold no secret."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import pytest
from llama_index.core.base.llms.types import ChatMessage, ImageBlock, LLMMetadata
from pydantic import SecretStr

from llamaindex_sse import SSELLM
from llamaindex_sse._settings import SettingsCache
from sse_core import ConfigurationError
from sse_core.protocols.anthropic import DEFAULT_MAX_TOKENS
from sse_emulator import Emulator, RequestRecord
from tests.llamaindex.anthropic_support import MODES, anthropic_llm, read
from tests.llamaindex.li_support import API_KEY, LLMFactory, collect_events

pytestmark = pytest.mark.timeout(60)

ASK = [ChatMessage(role="user", content="hi")]
PROTOCOLS = ("chat_completions", "anthropic")


def _llm(protocol: str, make_llm: LLMFactory, emulator: Emulator, **fields: Any) -> SSELLM:
    if protocol == "anthropic":
        return anthropic_llm(emulator, **fields)
    return make_llm(**fields)


def _sent(llm: SSELLM, emulator: Emulator, mode: str = "stream_chat") -> RequestRecord:
    """The request one call of ``mode`` sent (the answer read whole)."""
    before = len(emulator.requests)
    assert read(llm, ASK, mode)
    assert len(emulator.requests) == before + 1
    record = emulator.last_request
    assert record is not None
    return record


def _header(record: RequestRecord, name: str) -> str | None:
    return dict(record.headers).get(name.lower())


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_field_set_after_construction_reaches_the_next_request(
    protocol: str, make_llm: LLMFactory, emulator: Emulator
) -> None:
    llm = _llm(protocol, make_llm, emulator, default_headers={"X-Team": "a"}, max_tokens=64)
    stop = "stop_sequences" if protocol == "anthropic" else "stop"
    first = _sent(llm, emulator)
    assert _header(first, "X-Team") == "a" and first.json()["max_tokens"] == 64
    llm.temperature = 0.25
    llm.max_tokens = 77
    llm.stop = ["END"]
    llm.additional_kwargs = {"top_k": 3}
    llm.default_headers = {"X-Team": "b"}
    record = _sent(llm, emulator)
    body = record.json()
    sent = (body["temperature"], body["max_tokens"], body[stop], body["top_k"])
    assert sent == (0.25, 77, ["END"], 3)
    assert _header(record, "X-Team") == "b"
    llm.model = "other-model"
    assert _sent(llm, emulator).json()["model"] == "other-model"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_field_changed_in_place_reaches_the_next_request(
    protocol: str, mode: str, make_llm: LLMFactory, emulator: Emulator
) -> None:
    llm = _llm(
        protocol,
        make_llm,
        emulator,
        default_headers={"X-Team": "a"},
        additional_kwargs={"top_k": 3},
        extra_body={"top_p": 0.5},  # a field both APIs take (Messages refuses chat's seed)
        default_query={"v": "1"},
        stop=["END"],
    )
    stop = "stop_sequences" if protocol == "anthropic" else "stop"
    first = _sent(llm, emulator, mode)
    assert (first.json()["top_k"], first.json()["top_p"], first.query) == (3, 0.5, "v=1")
    llm.additional_kwargs["top_k"] = 4
    llm.extra_body["top_p"] = 0.75
    llm.default_headers["X-Team"] = "b"
    llm.default_query["v"] = "2"
    llm.stop.append("HALT")  # type: ignore[union-attr]
    record = _sent(llm, emulator, mode)
    body = record.json()
    assert (body["top_k"], body["top_p"], body[stop]) == (4, 0.75, ["END", "HALT"])
    assert (_header(record, "X-Team"), record.query) == ("b", "v=2")


def test_thinking_changed_in_place_reaches_the_request_and_the_payload(
    emulator: Emulator,
) -> None:
    """max_tokens, when not set, follows the thinking budget (Anthropic wants it above)."""
    llm = anthropic_llm(emulator, max_tokens=None, thinking_dict={"type": "enabled"})
    llm.thinking_dict["budget_tokens"] = 1024  # type: ignore[index]
    assert _sent(llm, emulator).json()["max_tokens"] == 1024 + DEFAULT_MAX_TOKENS
    assert _payload(llm)["num_output"] == 1024 + DEFAULT_MAX_TOKENS
    llm.thinking_dict["budget_tokens"] = 2048  # type: ignore[index]
    body = _sent(llm, emulator).json()
    assert body["thinking"]["budget_tokens"] == 2048
    assert body["max_tokens"] == 2048 + DEFAULT_MAX_TOKENS
    assert _payload(llm)["num_output"] == 2048 + DEFAULT_MAX_TOKENS


def _payload(llm: SSELLM) -> dict[str, Any]:
    """The model payload of LlamaIndex's call events (``to_payload``, or before
    llama-index-core 0.14.23 ``to_dict``), with the metadata's ``num_output``."""
    with collect_events() as seen:
        llm.stream_chat(ASK).close()
    (start,) = seen.named("LLMChatStartEvent")
    shown = dict(start.model_dict)  # type: ignore[attr-defined]
    if not hasattr(llm, "to_payload"):  # to_dict has the fields, not the metadata
        shown["num_output"] = llm.metadata.num_output
    return shown


def test_the_payload_follows_the_settings_and_is_a_fresh_dict_each_time(
    make_llm: LLMFactory,
) -> None:
    llm = make_llm(context_window=4096)
    first = _payload(llm)
    assert first["context_window"] == 4096 and first["is_function_calling_model"] is True
    first["context_window"] = 1  # a handler changing what it was given changes nothing
    assert _payload(llm)["context_window"] == 4096
    llm.context_window = 999
    llm.is_function_calling_model = False
    again = _payload(llm)
    assert (again["context_window"], again["is_function_calling_model"]) == (999, False)


def test_a_subclass_metadata_reaches_the_payload(make_llm: LLMFactory) -> None:
    class Renamed(SSELLM):
        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata(context_window=5, model_name="renamed", is_chat_model=True)

    llm = Renamed(**make_llm().model_dump(), api_key=API_KEY)
    # to_payload (llama-index-core 0.14.23 on) reports the metadata; to_dict the fields.
    expected = 5 if hasattr(llm, "to_payload") else llm.context_window
    assert _payload(llm)["context_window"] == expected


def test_a_setting_made_invalid_fails_every_call_until_fixed(
    make_llm: LLMFactory, emulator: Emulator
) -> None:
    """As before the cache: the call starts (LlamaIndex's start event, with the payload),
    a message that cannot be sent is said first, and nothing of the failure is kept."""
    llm = make_llm(context_window=4096)
    good = llm.base_url
    _sent(llm, emulator)
    llm.base_url = "ftp://gateway.test/v1"
    for _ in range(2):
        with collect_events() as seen, pytest.raises(ConfigurationError, match="base_url"):
            list(llm.stream_chat(ASK))
        (start,) = seen.named("LLMChatStartEvent")
        assert start.model_dict["context_window"] == 4096  # type: ignore[attr-defined]
    unsendable = ChatMessage(role="system", blocks=[ImageBlock(url="http://gw.test/a.png")])
    with pytest.raises(ConfigurationError, match="can carry text only"):
        llm.chat([unsendable])
    llm.base_url = good
    _sent(llm, emulator)


def test_a_copy_with_other_settings_sends_its_own(make_llm: LLMFactory, emulator: Emulator) -> None:
    """model_copy shares the private attributes (the cache among them) with the original."""
    llm = make_llm(temperature=0.1, default_headers={"X-Team": "a"})
    other = llm.model_copy(update={"temperature": 0.9, "default_headers": {"X-Team": "b"}})
    for _ in range(2):
        for model, temperature, team in ((llm, 0.1, "a"), (other, 0.9, "b")):
            record = _sent(model, emulator)
            assert (record.json()["temperature"], _header(record, "X-Team")) == (temperature, team)


def test_copies_and_pickles_of_the_settings_cache_start_empty(make_llm: LLMFactory) -> None:
    llm = make_llm(default_headers={"X-Token": "header-canary-77"})
    cache = SettingsCache()
    derived = cache.get(llm)
    assert cache.get(llm) is derived
    dumped = pickle.dumps(cache)
    assert API_KEY.encode() not in dumped and b"header-canary-77" not in dumped
    assert pickle.loads(dumped).get(llm) is not derived
    assert copy.deepcopy(cache).get(llm) is not derived


def test_the_models_cache_is_no_field_and_keeps_no_secret(make_llm: LLMFactory) -> None:
    """The cache lives in the instance dict (a cached_property): dumps, reprs, LlamaIndex's
    to_dict and pickles leave it out, or hold it empty; a loaded pickle makes its own."""
    llm = make_llm(default_headers={"X-Token": "header-canary-77"})
    config = llm._make_config()
    assert llm._make_config() is config  # made once, kept by the model
    shown = [repr(llm), str(llm), llm.model_dump_json(), llm.to_json(), json.dumps(llm.to_dict())]
    assert all("_settings" not in text and "SettingsCache" not in text for text in shown)
    assert "_settings" not in llm.model_dump() and "_settings" not in dict(llm)
    dumped = pickle.dumps(llm)
    assert API_KEY.encode() not in dumped and b"header-canary-77" not in dumped
    loaded = pickle.loads(dumped)
    loaded.api_key = SecretStr("sk-loaded")
    assert loaded._make_config() is not config
    assert loaded._make_config().secrets()[0] == "sk-loaded"
    assert copy.deepcopy(llm)._make_config() is not config
