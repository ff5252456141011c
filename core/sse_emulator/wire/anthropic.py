"""Shape a Messages answer into Anthropic's stream, its whole message, and its errors.

The stream is what api.anthropic.com sends: ``message_start`` (id, model, usage with the
cache counts, empty content), then per content block ``content_block_start``, its deltas
(``thinking_delta`` then a ``signature_delta``, ``text_delta``, ``input_json_delta`` in
several pieces) and ``content_block_stop``, a ``ping`` after the first block starts,
``message_delta`` (stop reason, stop sequence, the cumulative usage) and ``message_stop``.
Every frame has an ``event:`` line naming the ``type`` inside its data.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sse_emulator.assistant.anthropic import MessagesAnswer
from sse_emulator.assistant.reply import Reply
from sse_emulator.assistant.signing import sign
from sse_emulator.wire.dialects import Dialect
from sse_emulator.wire.frames import Frame, FrameKind, dumps

#: Faults that pick a gateway's variant of this wire (the API itself sends none of them).
VARIANTS = frozenset({"prefilled", "usage-late", "usage-output-only", "usage-twice"})
_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
#: The ping's data as the API writes it (with a space, unlike every other frame).
PING = '{"type": "ping"}'
#: Each HTTP status's Anthropic error type, and the API's wording where a fault asks for it.
ERROR_TYPES: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),  # the emulator's own checks say what was wrong
    401: ("authentication_error", "invalid x-api-key"),
    403: (
        "permission_error",
        "Your API key does not have permission to use the specified resource.",
    ),
    404: ("not_found_error", None),
    413: ("request_too_large", "Request exceeds the maximum allowed number of bytes."),
    429: ("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
    500: ("api_error", "Internal server error"),
    502: ("api_error", None),
    503: ("api_error", None),
    529: ("overloaded_error", "Overloaded"),
}


def short_id(prefix: str, seed: str, length: int = 22) -> str:
    """``prefix`` and ``length`` base-62 characters derived from ``seed``, as the API's ids look."""
    number = int(hashlib.sha256(seed.encode("utf-8")).hexdigest(), 16)
    chars = []
    for _ in range(length):
        number, rest = divmod(number, 62)
        chars.append(_BASE62[rest])
    return prefix + "".join(chars)


def request_id(seed: str) -> str:
    """A ``request-id`` in the API's form (``req_011...``)."""
    return short_id("req_011", seed, 21)


def error_object(status: int, message: str, kind: str, request: str | None) -> dict[str, Any]:
    """Anthropic's error body: ``{"type":"error","error":{...},"request_id":...}``.

    Args:
        status: The HTTP status (it picks the error type).
        message: The message, unless the API has its own wording for this status.
        kind: The error type when the status has none of its own.
        request: The request id, if known.
    """
    kind, wording = ERROR_TYPES.get(status, (kind, None))
    body: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": wording or message}}
    if request is not None:
        body["request_id"] = request
    return body


class MessagesWriter:
    """Builds one Messages response: its frames, or the whole message."""

    def __init__(
        self, dialect: Dialect, answer: MessagesAnswer, variants: frozenset[str] = frozenset()
    ) -> None:
        """Prepare a writer.

        Args:
            dialect: The ``anthropic`` dialect.
            answer: The answer being sent.
            variants: The gateway variants asked for (:data:`VARIANTS`).
        """
        self.dialect = dialect
        self.answer = answer
        self.variants = variants
        self.reply: Reply = answer.reply
        self.id: str = short_id(dialect.id_prefix, self.reply.digest)
        self._text_index = 1 if self.reply.reasoning else 0

    @property
    def signature(self) -> str:
        """The thinking block's signature: opaque base64, an HMAC of what was thought, which
        the emulator checks when the block comes back (:mod:`sse_emulator.assistant.signing`)."""
        return sign(self.reply.reasoning_text)

    def _thinking_block(self, *, whole: bool) -> dict[str, Any]:
        """The thinking block: whole, empty (its text follows in deltas), or redacted."""
        if self.answer.redacted:
            return {"type": "redacted_thinking", "data": self.signature}
        if not whole:
            return {"type": "thinking", "thinking": "", "signature": ""}
        return {
            "type": "thinking",
            "thinking": self.reply.reasoning_text,
            "signature": self.signature,
        }

    def tool_id(self, call_id: str) -> str:
        """A ``toolu_01...`` id for one of the assistant's calls."""
        return short_id("toolu_01", call_id)

    def usage(self, output_tokens: int) -> dict[str, Any]:
        """The usage object with every count the API reports."""
        a = self.answer
        return {
            "input_tokens": a.input_tokens,
            "cache_creation_input_tokens": a.cache_write,
            "cache_read_input_tokens": a.cache_read,
            "cache_creation": {
                "ephemeral_5m_input_tokens": a.cache_write,
                "ephemeral_1h_input_tokens": 0,
            },
            "output_tokens": output_tokens,
            "service_tier": "standard",
        }

    def message(self) -> dict[str, Any]:
        """The whole (non-streamed) message."""
        reply = self.reply
        content: list[dict[str, Any]] = []
        if reply.reasoning:
            content.append(self._thinking_block(whole=True))
        text = reply.refusal_text or reply.text
        if text or not (reply.reasoning or reply.tool_calls or self.answer.warm):
            content.append({"type": "text", "text": text})
        for call in reply.tool_calls:
            tool = {"type": "tool_use", "id": self.tool_id(call.id), "name": call.name}
            content.append(tool | {"input": _whole_input(call.arguments)})
        return self._envelope(content, self.answer.stop_reason, self.answer.stop_sequence) | {
            "usage": self.usage(reply.usage.completion_tokens)
        }

    def _envelope(
        self, content: list[dict[str, Any]], stop_reason: str | None, stop_sequence: str | None
    ) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": self.reply.model,
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": stop_sequence,
        }

    def chunk(self, delta: dict[str, Any]) -> dict[str, Any]:
        """A ``text_delta`` of ``delta["content"]`` (the invalid-json and oversized faults)."""
        text = str(delta.get("content", ""))
        return _delta(self._text_index, {"type": "text_delta", "text": text})

    def error_frames(self) -> list[Frame]:
        """The mid-stream failure: ``event: error`` with an ``overloaded_error``."""
        return [_event("error", {"type": "error", "error": self.dialect.stream_error}, "error")]

    def frames(self, *, think_tags: bool = False) -> list[Frame]:
        """Every frame of a successful stream (``think_tags`` does not apply here).

        Returns:
            Output frames of kind ``chunk``, ``message_delta`` as the one ``finish``,
            and ``message_stop`` as ``done``.
        """
        del think_tags
        reply = self.reply
        done = _event("message_stop", {"type": "message_stop"}, "done")
        if "prefilled" in self.variants:  # the whole message at once, no block events
            whole = {"type": "message_start", "message": self.message()}
            return [_event("message_start", whole, "finish"), done]
        start = self._envelope([], None, None)
        start["usage"] = self.usage(min(1, reply.usage.completion_tokens))
        if "usage-late" in self.variants:  # the input counts come only in message_delta
            start["usage"] = {"output_tokens": start["usage"]["output_tokens"]}
        frames = [_event("message_start", {"type": "message_start", "message": start})]
        blocks = self._blocks()
        for index, (block, deltas) in enumerate(blocks):
            frames.append(_event("content_block_start", _block_start(index, block)))
            if index == 0:
                frames.append(Frame(kind="chunk", event="ping", data=PING))
            frames += [_event("content_block_delta", _delta(index, d)) for d in deltas]
            stop = {"type": "content_block_stop", "index": index}
            frames.append(_event("content_block_stop", stop))
        return [*frames, *self._ending(), done]

    def _ending(self) -> list[Frame]:
        """``message_delta`` with the cumulative usage; a variant sends only the output
        count, or a first one with part of it (a client must not add the two up)."""
        a = self.answer
        usage = self.usage(self.reply.usage.completion_tokens)
        del usage["cache_creation"], usage["service_tier"]  # the API sends the counts only
        if "usage-output-only" in self.variants:
            usage = {"output_tokens": usage["output_tokens"]}
        delta = {"stop_reason": a.stop_reason, "stop_sequence": a.stop_sequence}
        final = {"type": "message_delta", "delta": delta, "usage": usage}
        frames = [_event("message_delta", final, "finish")]
        if "usage-twice" in self.variants:
            early = final | {"usage": usage | {"output_tokens": usage["output_tokens"] // 2}}
            frames.insert(0, _event("message_delta", early))
        return frames

    def _blocks(self) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
        """Each content block's start object and its deltas, in order."""
        reply = self.reply
        blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
        if reply.reasoning and self.answer.redacted:  # all of it in the start, no deltas
            blocks.append((self._thinking_block(whole=True), []))
        elif reply.reasoning:
            deltas = [{"type": "thinking_delta", "thinking": p} for p in reply.reasoning]
            deltas.append({"type": "signature_delta", "signature": self.signature})
            blocks.append((self._thinking_block(whole=False), deltas))
        pieces = reply.refusal or reply.content
        if pieces or not (reply.reasoning or reply.tool_calls or self.answer.warm):
            text = [{"type": "text_delta", "text": p} for p in pieces]
            blocks.append(({"type": "text", "text": ""}, text))
        for call in reply.tool_calls:
            head = {"type": "tool_use", "id": self.tool_id(call.id), "name": call.name, "input": {}}
            parts = ["", *call.pieces]  # the API opens every tool input with an empty piece
            blocks.append((head, [{"type": "input_json_delta", "partial_json": p} for p in parts]))
        return blocks


def _block_start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def _delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


def _event(name: str, payload: dict[str, Any], kind: FrameKind = "chunk") -> Frame:
    return Frame(kind=kind, event=name, data=dumps(payload))


def _whole_input(arguments: str) -> Any:
    """A tool_use block's input object; ``{}`` for arguments cut at ``max_tokens``, which the
    whole message cannot carry as a string (its ``stop_reason`` says the answer was cut)."""
    try:
        return json.loads(arguments or "{}")
    except ValueError:
        return {}
