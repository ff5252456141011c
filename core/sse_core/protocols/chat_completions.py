"""OpenAI chat completions, the default protocol, in every gateway dialect.

- Stream: ``data: <chat.completion.chunk>`` frames ending with ``data: [DONE]`` or a
  ``finish_reason`` (:class:`~sse_core.ChunkDecoder`, with the optional msgspec accelerator).
- Request: ``POST {base_url}/chat/completions`` with ``Authorization: Bearer``; the body asks
  for ``stream_options.include_usage`` when usage is wanted (and drops ``stream_options``
  from a whole-answer request, where OpenAI refuses it); more than one choice (``n``) is
  refused, as a stream of one answer cannot show several.
- ``max_tokens``: none unless set.

The messages themselves are OpenAI's, which both frameworks already speak: each adapter maps
its own (its table's chat-completions entry).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sse_core._choices import check_choices
from sse_core.pipeline.chunks import ChunkDecoder
from sse_core.protocols.registry import RequestShape, WireProtocol, register_protocol

__all__ = ["CHAT_COMPLETIONS", "chat_body"]


def chat_body(
    payload: Mapping[str, Any],
    extra_body: Mapping[str, Any] | None,
    *,
    streaming: bool,
    include_usage: bool,
) -> dict[str, Any]:
    """Chat completions: one choice at most; ``stream_options.include_usage`` when asked."""
    check_choices(payload, extra_body)
    body = {**payload, **(extra_body or {}), "stream": streaming}
    if not streaming:
        body.pop("stream_options", None)
    elif include_usage:
        options = body.get("stream_options")
        body["stream_options"] = {
            **(options if isinstance(options, dict) else {}),
            "include_usage": True,
        }
    return body


CHAT_COMPLETIONS = register_protocol(
    WireProtocol(
        name="chat_completions",
        decoder=ChunkDecoder,
        accelerated=lambda name: ChunkDecoder(accelerator=name),
        api="chat completions",
        ends="a finish_reason and without [DONE]",
        request=RequestShape(path=lambda base_url: "/chat/completions", body=chat_body),
    )
)
