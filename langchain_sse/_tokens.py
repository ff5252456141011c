"""Token counts for ChatSSE without transformers: tiktoken when installed (extra ``tokens``).

LangChain's default counts with GPT-2 through ``transformers`` (and warns when it is
missing); gateways serve many model families, none of them GPT-2. ChatSSE uses tiktoken's
encoding for the model name when tiktoken knows the name, else :data:`FALLBACK_ENCODING`
(GPT-4o's ``o200k_base``, a fair estimate for today's large BPE vocabularies). The counts are
estimates made before sending: the gateway's own count is in every answer's
``usage_metadata``. Without tiktoken, an ImportError names the extra to install.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.messages import BaseMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_sse._outbound import convert_messages

if TYPE_CHECKING:
    from tiktoken import Encoding

__all__ = ["FALLBACK_ENCODING", "count_messages", "encode", "load_encoding"]

#: The encoding for model names tiktoken does not know.
FALLBACK_ENCODING = "o200k_base"
#: What each message costs besides its text, a name, and the reply's priming (the chat
#: format of OpenAI's models; other gateways' templates are close to it).
_PER_MESSAGE = 3
_PER_NAME = 1
_REPLY_PRIMING = 3


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
        return tiktoken.encoding_for_model(model)
    except KeyError:
        return tiktoken.get_encoding(FALLBACK_ENCODING)


def encode(text: str, model: str) -> list[int]:
    """The token ids of ``text`` (special-token strings count as plain text)."""
    return load_encoding(model).encode(text, disallowed_special=())


def count_messages(
    messages: Sequence[BaseMessage], model: str, *, tools: Sequence[Any] | None = None
) -> int:
    """An estimate of the prompt tokens of ``messages`` (and ``tools``) as sent.

    Counts the text the request carries (roles, contents, names, tool calls and results,
    the tool schemas as JSON); images, audio and files are not counted.
    """
    encoding = load_encoding(model)
    total = _REPLY_PRIMING
    for message in convert_messages(messages):
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
