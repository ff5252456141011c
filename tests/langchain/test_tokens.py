"""Token counts (:mod:`langchain_sse._tokens`): tiktoken when installed, the model's own
encoding or ``o200k_base``; without tiktoken a clear ImportError naming the ``tokens`` extra;
never LangChain's GPT-2/transformers fallback or its warning.

tiktoken downloads an encoding's file on first use; tests stay offline, so the files come
from the cache that llama-index-core (a dev dependency) ships for the same purpose.
"""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path

import pytest
import tiktoken
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from langchain_sse import ChatSSE

TEXT = "hello world <|endoftext|> café"


@pytest.fixture(autouse=True)
def offline_encodings(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.find_spec("llama_index.core")
    assert spec is not None and spec.origin is not None, "llama-index-core ships the files"
    cache = Path(spec.origin).parent / "_static" / "tiktoken_cache"
    assert cache.is_dir(), cache
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))


def _model(name: str = "qwen3-32b") -> ChatSSE:
    return ChatSSE(model=name, base_url="http://gw.test/v1")


def _encode(encoding: str, text: str) -> list[int]:
    return tiktoken.get_encoding(encoding).encode(text, disallowed_special=())


def test_text_is_counted_with_tiktoken_and_nothing_warns() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # LangChain's GPT-2 fallback warns; this must not
        ids = _model().get_token_ids(TEXT)
        count = _model().get_num_tokens(TEXT)
    assert ids == _encode("o200k_base", TEXT)  # an unknown name: the fallback encoding
    assert count == len(ids)


@pytest.mark.parametrize(("name", "encoding"), [("gpt-4", "cl100k_base"), ("gpt-4o", "o200k_base")])
def test_a_model_tiktoken_knows_gets_its_own_encoding(name: str, encoding: str) -> None:
    assert _model(name).get_token_ids(TEXT) == _encode(encoding, TEXT)


def test_messages_are_counted_as_the_request_sends_them() -> None:
    messages: list[BaseMessage] = [
        SystemMessage("be brief"),
        HumanMessage("hello world", name="ada"),
        AIMessage("", tool_calls=[{"name": "f", "args": {"x": 1}, "id": "c1"}]),
    ]

    def size(text: str) -> int:
        return len(_encode("o200k_base", text))

    expected = 3  # the reply's priming
    expected += 3 + size("system") + size("be brief")
    expected += 3 + 1 + size("user") + size("hello world") + size("ada")
    expected += 3 + size("assistant") + size("f") + size('{"x": 1}')
    model = _model()
    assert model.get_num_tokens_from_messages(messages) == expected

    def f(x: int) -> int:
        """Double x."""
        return 2 * x

    assert model.get_num_tokens_from_messages(messages, tools=[f]) > expected


def test_without_tiktoken_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tiktoken", None)  # import tiktoken now fails
    monkeypatch.setitem(sys.modules, "transformers", None)  # and no GPT-2 fallback either
    model = _model()
    with pytest.raises(ImportError, match=r"pip install 'sse-connectors\[tokens\]'") as caught:
        model.get_num_tokens("hi")
    assert "usage_metadata" in str(caught.value)
    with pytest.raises(ImportError, match=r"sse-connectors\[tokens\]"):
        model.get_num_tokens_from_messages([HumanMessage("hi")])


def test_a_custom_tokenizer_is_used_instead(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tiktoken", None)
    model = ChatSSE(model="m", base_url="http://gw.test/v1",
                    custom_get_token_ids=lambda text: list(range(len(text))))  # fmt: skip
    assert model.get_num_tokens("abc") == 3
    assert model.get_num_tokens_from_messages([HumanMessage("abcd")]) > 0
