"""Token counts (:mod:`langchain_sse._tokens`): tiktoken when installed, the model's own
encoding or ``o200k_base``; without tiktoken a clear ImportError naming the ``tokens`` extra;
never LangChain's GPT-2/transformers fallback or its warning.

tiktoken downloads an encoding's file on first use; tests stay offline, so the files come
from the cache that llama-index-core (a dev dependency) ships for the same purpose. With the
network blocked and tiktoken's cache empty, ChatSSE itself finds that copy; without one, a
ConfigurationError says which file to download and where to put it.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import os
import shutil
import socket
import sys
import tempfile
import warnings
from pathlib import Path

import pytest
import tiktoken
import tiktoken.load
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from langchain_sse import ChatSSE, _tokens
from sse_core import ConfigurationError
from sse_core.fast_paths import forced

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


# --- offline: no network, an empty tiktoken cache -----------------------------------------------


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[object]:
    """No network (every connect fails at once, and is noted), tiktoken's cache an empty
    directory, and no encoding loaded yet in this process."""
    tried: list[object] = []

    def refuse(self: socket.socket, address: object) -> None:
        tried.append(address)
        raise OSError(101, "Network is unreachable (blocked by the test)")

    def unresolved(host: object, *args: object, **kwargs: object) -> None:
        tried.append(host)
        raise socket.gaierror(-3, "Temporary failure in name resolution (blocked by the test)")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", unresolved)
    empty = tmp_path / "tiktoken-cache"
    empty.mkdir()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(empty))
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})
    monkeypatch.setattr(_tokens, "_LOADED", {})
    return tried


def _ranks(path: Path) -> dict[bytes, int]:
    """A .tiktoken file's ranks (a base64 token and its rank per line), read here: tiktoken
    before 0.8 opens a local path only through blobfile."""
    ranks = {}
    for line in path.read_bytes().splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


@pytest.mark.parametrize(("name", "encoding"), [("gpt-4", "cl100k_base"), ("qwen3", "o200k_base")])
def test_offline_the_copy_llama_index_core_ships_is_used(
    offline: list[object], name: str, encoding: str, tmp_path: Path
) -> None:
    model = _model(name)
    with forced(_tokens.BUNDLED.name, True):
        ids = model.get_token_ids(TEXT)
        assert model.get_num_tokens_from_messages([HumanMessage(TEXT)]) > len(ids)
    assert offline == []  # no connection was even tried
    assert os.environ["TIKTOKEN_CACHE_DIR"] == str(tmp_path / "tiktoken-cache")  # restored
    assert list((tmp_path / "tiktoken-cache").iterdir()) == []  # nothing written to it
    bundled = Path(importlib.util.find_spec("llama_index.core").origin).parent  # type: ignore[union-attr, arg-type]
    ranks = _ranks(bundled / "_static" / "tiktoken_cache" / _key(encoding))
    assert ids == [ranks[piece] for piece in _pieces(ids, model)]


def test_offline_with_the_default_cache_empty_too(
    offline: list[object], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR")
    monkeypatch.delenv("DATA_GYM_CACHE_DIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # tiktoken's <tmp>/data-gym-cache
    with forced(_tokens.BUNDLED.name, True):
        assert _model("gpt-4o").get_num_tokens("hello world") == 2
    assert offline == [] and "TIKTOKEN_CACHE_DIR" not in os.environ


def test_with_the_fast_path_off_the_copy_is_not_read(offline: list[object]) -> None:
    """llama-index-core's folder is private: off, only tiktoken's own cache and download."""
    with forced(_tokens.BUNDLED.name, False), pytest.raises(ConfigurationError) as info:
        _model("gpt-4").get_num_tokens("hello")
    assert offline  # tiktoken tried to download, and could not
    assert "save it as" in str(info.value)


def test_offline_without_any_copy_the_error_says_what_to_download(
    offline: list[object], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(_tokens, "_bundled_copy", lambda key: None)  # no llama-index-core copy
    model = _model("gpt-4")
    with pytest.raises(ConfigurationError) as info:
        model.get_num_tokens("hello")
    message = str(info.value)
    assert offline  # tiktoken tried to download, and could not
    assert "cl100k_base" in message and "could not be downloaded" in message
    url = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
    assert f"download {url} and save it as" in message
    assert str(tmp_path / "tiktoken-cache" / _key("cl100k_base")) in message
    assert "TIKTOKEN_CACHE_DIR" in message and "usage_metadata" in message
    with pytest.raises(ConfigurationError, match="cl100k_base"):
        model.get_num_tokens_from_messages([HumanMessage("hello")])


def test_the_file_saved_where_the_error_says_is_then_used(
    offline: list[object], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(_tokens, "_bundled_copy", lambda key: None)
    with pytest.raises(ConfigurationError) as info:
        _model("gpt-4o").get_num_tokens("hello")
    target = str(info.value).split("save it as ")[1].split(";")[0]
    bundled = Path(importlib.util.find_spec("llama_index.core").origin).parent  # type: ignore[union-attr, arg-type]
    source = bundled / "_static" / "tiktoken_cache" / _key("o200k_base")
    shutil.copyfile(source, target)  # what the user does with the download
    offline.clear()
    assert _model("gpt-4o").get_num_tokens("hello world") == 2
    assert offline == []


def _key(encoding: str) -> str:
    url = f"https://openaipublic.blob.core.windows.net/encodings/{encoding}.tiktoken"
    return hashlib.sha1(url.encode()).hexdigest()


def _pieces(ids: list[int], model: ChatSSE) -> list[bytes]:
    encoding = _tokens.load_encoding(model.model_name)
    return [encoding.decode_single_token_bytes(i) for i in ids]
