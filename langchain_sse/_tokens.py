"""Token counts for ChatSSE without transformers: tiktoken when installed (extra ``tokens``).

LangChain's default counts with GPT-2 through ``transformers`` (and warns when it is
missing); gateways serve many model families, none of them GPT-2. ChatSSE uses tiktoken's
encoding for the model name when tiktoken knows the name, else :data:`FALLBACK_ENCODING`
(GPT-4o's ``o200k_base``, a fair estimate for today's large BPE vocabularies). The counts are
estimates made before sending: the gateway's own count is in every answer's
``usage_metadata``. Without tiktoken, an ImportError names the extra to install.

tiktoken downloads an encoding's file on first use and keeps it in its cache
(``TIKTOKEN_CACHE_DIR``, else ``DATA_GYM_CACHE_DIR``, else ``<tmp>/data-gym-cache``). Offline
that download fails, so a file already on the machine is preferred: tiktoken's own cache
first, then the copies of ``cl100k_base`` and ``o200k_base`` that llama-index-core ships (for
the same purpose) in its private ``_static`` folder, a fast path of
:mod:`sse_core.fast_paths` (:data:`BUNDLED`: on the llama-index-core versions tested, when
the folder is there, unless ``SSE_CONNECTORS_FAST=0``). With no file and no network, one
:class:`ConfigurationError` says which file to download and where to put it, instead of the
network error.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import tempfile
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from langchain_core.messages import BaseMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_sse._turns import to_turns
from sse_core import ConfigurationError
from sse_core.fast_paths import FastPath, is_on, register
from sse_core.protocols.chat_completions import chat_messages

if TYPE_CHECKING:
    from tiktoken import Encoding

__all__ = ["BUNDLED", "FALLBACK_ENCODING", "count_messages", "encode", "load_encoding"]

#: The encoding for model names tiktoken does not know.
FALLBACK_ENCODING = "o200k_base"
#: What each message costs besides its text, a name, and the reply's priming (the chat
#: format of OpenAI's models; other gateways' templates are close to it).
_PER_MESSAGE = 3
_PER_NAME = 1
_REPLY_PRIMING = 3
#: Where tiktoken downloads the one-file encodings from (tiktoken_ext.openai_public); its
#: cache keeps each under the SHA-1 of this address.
_FILES = {
    "r50k_base": "r50k_base",
    "p50k_base": "p50k_base",
    "p50k_edit": "p50k_base",
    "cl100k_base": "cl100k_base",
    "o200k_base": "o200k_base",
    "o200k_harmony": "o200k_base",
}
_URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"
_ENV = "TIKTOKEN_CACHE_DIR"
#: Loading an encoding may point tiktoken's cache at a local copy for a moment: one at a time.
_LOADING = threading.Lock()
_LOADED: dict[str, Encoding] = {}


def load_encoding(model: str) -> Encoding:
    """tiktoken's encoding for ``model``, or :data:`FALLBACK_ENCODING` for unknown names.

    Raises:
        ImportError: tiktoken is not installed (the message names the ``tokens`` extra).
    """
    try:
        import tiktoken
    except ImportError as exc:
        raise ImportError(
            "ChatSSE counts tokens with tiktoken, which is not installed: "
            "pip install 'sse-connectors[tokens]'. The gateway's own count of each answer "
            "is in message.usage_metadata (input_tokens, output_tokens)."
        ) from exc
    try:
        name = tiktoken.encoding_name_for_model(model)
    except KeyError:
        name = FALLBACK_ENCODING
    with _LOADING:
        return _get_encoding(tiktoken, name)


def _get_encoding(tiktoken: ModuleType, name: str) -> Encoding:
    """tiktoken's encoding ``name``, from a file on this machine when there is one.

    Raises:
        ConfigurationError: The file is nowhere on the machine and could not be downloaded.
    """
    known = _LOADED.get(name)
    if known is not None:
        return known
    url = _URL.format(_FILES[name]) if name in _FILES else None
    key = hashlib.sha1(url.encode()).hexdigest() if url else ""  # tiktoken's cache key
    own = _tiktoken_cache()
    local = _bundled_copy(key) if url and not (own and Path(own, key).is_file()) else None
    try:
        encoding = _read_from(tiktoken, name, local) if local else tiktoken.get_encoding(name)
    except (OSError, ValueError) as exc:  # requests' errors are OSErrors; a bad hash too
        raise ConfigurationError(_unavailable(name, url, key, exc)) from exc
    _LOADED[name] = encoding
    return encoding


def _read_from(tiktoken: ModuleType, name: str, cache: Path) -> Encoding:
    """Load encoding ``name`` with tiktoken's cache pointed at ``cache`` for the moment."""
    before = os.environ.get(_ENV)
    os.environ[_ENV] = str(cache)
    try:
        encoding: Encoding = tiktoken.get_encoding(name)
        return encoding
    finally:
        if before is None:
            del os.environ[_ENV]
        else:
            os.environ[_ENV] = before


def _tiktoken_cache() -> str:
    """The cache directory tiktoken reads (its own rule, from tiktoken.load)."""
    for variable in (_ENV, "DATA_GYM_CACHE_DIR"):
        if variable in os.environ:
            return os.environ[variable]
    return os.path.join(tempfile.gettempdir(), "data-gym-cache")


def _bundled_folder() -> Path | None:
    """Where llama-index-core keeps its copy of tiktoken's cache, if it is installed."""
    try:
        spec = importlib.util.find_spec("llama_index.core")
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "_static" / "tiktoken_cache"


def _probe_bundled() -> str | None:
    """None if llama-index-core's copy holds cl100k_base and o200k_base."""
    where = _bundled_folder()
    for name in ("cl100k_base", "o200k_base"):
        key = hashlib.sha1(_URL.format(name).encode()).hexdigest()
        if where is None or not (where / key).is_file():
            return f"llama-index-core has no copy of {name} in {where}"
    return None


#: tiktoken's files read from llama-index-core's private folder (else tiktoken's cache only).
BUNDLED = register(
    FastPath(
        name="langchain.tiktoken_copy",
        shortcut="get_num_tokens loads cl100k_base and o200k_base from the copy llama-index-core "
        "keeps in its private _static folder when tiktoken's cache has none (counts offline)",
        tested={"llama-index-core": ">=0.14.16,<0.15"},
        probe=_probe_bundled,
        faithful="tiktoken's own cache, which its first use fills by download (offline without "
        "the file, a ConfigurationError says which file to save where)",
        uses={"langchain_sse._tokens": ("_static",)},
    )
)


def _bundled_copy(key: str) -> Path | None:
    """The directory of llama-index-core's copy of tiktoken's cache (cl100k_base and
    o200k_base), if :data:`BUNDLED` is on and it holds the file ``key``."""
    if not is_on(BUNDLED.name):
        return None
    where = _bundled_folder()
    return where if where is not None and (where / key).is_file() else None


def _unavailable(name: str, url: str | None, key: str, exc: BaseException) -> str:
    """What to do when encoding ``name`` is on no disk and the download failed."""
    cache = _tiktoken_cache() or "a directory of your choice"
    where = (
        f"download {url} and save it as {os.path.join(cache, key)}"
        if url
        else f"run tiktoken.get_encoding({name!r}) once with network access"
    )
    return (
        f"ChatSSE counts tokens with tiktoken's {name} encoding, whose file is not on this "
        f"machine and could not be downloaded ({type(exc).__name__}). To count offline, "
        f"{where}; or set {_ENV} to a directory that holds it (llama-index-core ships "
        "cl100k_base and o200k_base in its tiktoken_cache folder). The gateway's own count "
        "of each answer is in message.usage_metadata."
    )


def encode(text: str, model: str) -> list[int]:
    """The token ids of ``text`` (special-token strings count as plain text)."""
    return load_encoding(model).encode(text, disallowed_special=())


def count_messages(
    messages: Sequence[BaseMessage], model: str, *, tools: Sequence[Any] | None = None
) -> int:
    """An estimate of the prompt tokens of ``messages`` (and ``tools``) as sent.

    Counts the text the request carries in chat completions' shape (roles, contents, names,
    tool calls and results, the tool schemas as JSON); images, audio and files are not
    counted.
    """
    encoding = load_encoding(model)
    total = _REPLY_PRIMING
    for message in chat_messages(to_turns(messages)):
        total += _PER_MESSAGE + (_PER_NAME if "name" in message else 0)
        for text in _list_texts(message):
            total += len(encoding.encode(text, disallowed_special=()))
    if tools:
        schemas = json.dumps([convert_to_openai_tool(tool) for tool in tools])
        total += len(encoding.encode(schemas, disallowed_special=()))
    return total


def _list_texts(message: dict[str, Any]) -> Iterator[str]:
    """The strings of one request message that the model reads."""
    yield message["role"]
    content = message.get("content")
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        yield from (str(part.get("text", "")) for part in content if part.get("type") == "text")
    if name := message.get("name"):
        yield name
    for call in message.get("tool_calls", ()):
        yield call["function"]["name"] or ""
        yield call["function"]["arguments"]
