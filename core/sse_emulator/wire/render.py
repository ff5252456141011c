"""Shape a :class:`Reply` into one dialect's chunks, completion body and error bodies.

Everything here reads a :class:`Dialect` table and builds plain dicts in the key order
the seed documents print them; :mod:`sse_emulator.wire.frames` turns them into bytes.
"""

from __future__ import annotations

from typing import Any

from sse_emulator.assistant.reply import CREATED, Reply, TokenCounts
from sse_emulator.wire.dialects import Dialect
from sse_emulator.wire.frames import Frame, data_frame, dumps

SYSTEM_FINGERPRINT = "fp_emulator"
_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def completion_id(dialect: Dialect, reply: Reply) -> str:
    """The completion id: a dialect prefix and a form of the request digest.

    ``stream:chat:`` ids carry a UUID (the seed's "typically stream:chat:<uuid>"),
    ``ilbs_`` ids 24 lowercase base-36 characters like the aivene seed, others hex.
    """
    digest = reply.digest
    if dialect.id_prefix == "stream:chat:":
        uuid = f"{digest[:8]}-{digest[8:12]}-4{digest[13:16]}-8{digest[17:20]}-{digest[20:32]}"
        return dialect.id_prefix + uuid
    if dialect.id_prefix == "ilbs_":
        number, chars = int(digest[:32], 16), []
        for _ in range(24):
            number, rest = divmod(number, 36)
            chars.append(_BASE36[rest])
        return dialect.id_prefix + "".join(chars)
    return dialect.id_prefix + digest[:24]


def usage_object(dialect: Dialect, reply: Reply) -> dict[str, Any]:
    """The usage object in the dialect's detail level."""
    usage: TokenCounts = reply.usage
    body: dict[str, Any] = {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
    }
    if dialect.usage_detail == "openai":
        body["prompt_tokens_details"] = {"cached_tokens": usage.cached_tokens, "audio_tokens": 0}
        body["completion_tokens_details"] = {
            "reasoning_tokens": usage.reasoning_tokens,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        }
    elif dialect.usage_detail == "aivene":
        details: dict[str, Any] = {"cached_tokens": usage.cached_tokens}
        if "claude" in reply.model.lower():  # Anthropic-style providers report cache writes
            details["cache_write_tokens"] = usage.cache_write_tokens
        body["prompt_tokens_details"] = details
    return body


def error_body(
    dialect: Dialect, message: str, kind: str, code: str | None, param: str | None = None
) -> dict[str, Any]:
    """The JSON body of an HTTP error in the dialect's shape (``param`` where it has one)."""
    error: dict[str, Any] = {"message": message, "type": kind}
    if dialect.error_param:
        error["param"] = param
    error["code"] = code
    return {"error": error}


class ChunkWriter:
    """Builds one response's chunks, numbering them for dialects whose ``created`` ticks."""

    def __init__(self, dialect: Dialect, reply: Reply, *, include_usage: bool) -> None:
        """Prepare a writer.

        Args:
            dialect: The dialect to shape chunks for.
            reply: The answer being streamed.
            include_usage: Whether the request set ``stream_options.include_usage``.
        """
        self.dialect = dialect
        self.reply = reply
        self.include_usage = include_usage
        self.id: str = completion_id(dialect, reply)
        self._count = 0

    def envelope(self, choices: list[dict[str, Any]]) -> dict[str, Any]:
        """A chunk around ``choices`` with the dialect's envelope fields."""
        d = self.dialect
        chunk: dict[str, Any] = {"id": self.id, "object": d.chunk_object}
        if "created" in d.envelope:
            chunk["created"] = CREATED + (self._count if d.created_step else 0)
        if "model" in d.envelope:
            chunk["model"] = self.reply.model if d.fixed_model is None else d.fixed_model
        if "system_fingerprint" in d.envelope:
            chunk["system_fingerprint"] = SYSTEM_FINGERPRINT
        chunk["choices"] = choices
        if d.usage_null and self.include_usage:
            chunk["usage"] = None
        self._count += 1
        return chunk

    def chunk(
        self, delta: dict[str, Any], finish: str | None = None, *, final: bool = False
    ) -> dict[str, Any]:
        """A chunk with one choice carrying ``delta`` (and ``finish`` when final)."""
        d = self.dialect
        choice: dict[str, Any] = {"index": 0} if d.index == "first" else {}
        choice["delta"] = delta
        if d.index == "after-delta":
            choice["index"] = 0
        if d.logprobs:
            choice["logprobs"] = None
        if final or d.null_finish:
            choice["finish_reason"] = finish
        return self.envelope([choice])

    def frames(self, *, think_tags: bool = False) -> list[Frame]:
        """Every frame of a successful stream (:func:`stream_frames`)."""
        return stream_frames(self, think_tags=think_tags)

    def usage_chunk(self) -> dict[str, Any]:
        """The ``choices: []`` chunk that carries usage."""
        chunk = self.envelope([])
        chunk["usage"] = usage_object(self.dialect, self.reply)
        return chunk

    def error_frames(self) -> list[Frame]:
        """A mid-stream failure in the dialect's shape (nothing for HTTP-502 dialects)."""
        d = self.dialect
        if d.mid_stream_error == "chunk":
            chunk = self.envelope([])
            chunk["error"] = d.stream_error
            return [data_frame("error", chunk)]
        if d.mid_stream_error == "http502":
            return []
        frames = [data_frame("error", {"error": d.stream_error})]
        return frames + ([Frame(kind="done", data="[DONE]")] if d.error_then_done else [])


def visible_pieces(
    dialect: Dialect, reply: Reply, *, think_tags: bool
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The reasoning and content pieces a dialect shows.

    Reasoning is hidden (still counted) where the seed shows no reasoning field; with
    ``think_tags`` it moves into the content inside ``<think>...</think>``.
    """
    refused = bool(reply.refusal) and dialect.refusal_style == "content"
    content = reply.refusal if refused else reply.content
    if think_tags and reply.reasoning:
        return (), ("<think>", *reply.reasoning, "</think>\n\n", *content)
    return (reply.reasoning if dialect.reasoning_field else ()), content


def finish_reason(dialect: Dialect, reply: Reply) -> str:
    """The finish reason, ``content_filter`` for a refusal where the dialect filters."""
    if reply.refusal and dialect.refusal_style == "content-filter":
        return "content_filter"
    return reply.finish_reason


def stream_frames(writer: ChunkWriter, *, think_tags: bool = False) -> list[Frame]:
    """Every frame of a successful stream, in order, ``[DONE]`` included where due.

    Args:
        writer: The response's chunk writer.
        think_tags: Put reasoning inside ``<think>`` tags at the start of the content.

    Returns:
        Frames of kind ``chunk`` (output), one ``finish``, then ``usage``/``event``
        trailers and ``done`` as the dialect has them.
    """
    d, reply = writer.dialect, writer.reply
    frames: list[Frame] = []
    if d.role_delta is not None:
        frames.append(data_frame("chunk", writer.chunk(dict(d.role_delta))))
    reasoning, content = visible_pieces(d, reply, think_tags=think_tags)
    field = d.reasoning_field or "reasoning_content"
    frames += [data_frame("chunk", writer.chunk({field: piece})) for piece in reasoning]
    if reply.refusal and d.refusal_style == "delta":
        frames += [data_frame("chunk", writer.chunk({"refusal": p})) for p in reply.refusal]
    frames += [data_frame("chunk", writer.chunk({"content": piece})) for piece in content]
    frames += [data_frame("chunk", writer.chunk(delta)) for delta in _tool_deltas(d, reply)]
    final = writer.chunk(dict(d.final_delta or {}), finish_reason(d, reply), final=True)
    if d.usage_style == "final" and writer.include_usage:
        final["usage"] = usage_object(d, reply)
    frames.append(data_frame("finish", final))
    if d.usage_style == "chunk" and writer.include_usage:
        frames.append(data_frame("usage", writer.usage_chunk()))
    if d.usage_style == "spass-event":
        cost = usage_object(d, reply)
        frames.append(Frame(kind="usage", event="spass.cost", data=dumps(cost)))
    if d.done:
        frames.append(Frame(kind="done", data="[DONE]"))
    return frames


def _tool_deltas(dialect: Dialect, reply: Reply) -> list[dict[str, Any]]:
    """The deltas that carry the tool calls: whole, or announced then in pieces."""
    if not reply.tool_calls:
        return []
    if dialect.tool_style == "whole":
        return [
            {
                "tool_calls": [
                    _whole_call(i, call.id, call.name, call.arguments)
                    for i, call in enumerate(reply.tool_calls)
                ]
            }
        ]
    indexed = dialect.tool_style == "indexed"
    deltas: list[dict[str, Any]] = []
    for i, call in enumerate(reply.tool_calls):
        head = _whole_call(i, call.id, call.name, "")
        deltas.append({"tool_calls": [head if indexed else _without_index(head)]})
        for piece in call.pieces:
            part: dict[str, Any] = {"index": i} if indexed else {}
            part["function"] = {"arguments": piece}
            deltas.append({"tool_calls": [part]})
    return deltas


def _whole_call(index: int, call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {
        "index": index,
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


def _without_index(call: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in call.items() if key != "index"}


def completion_body(dialect: Dialect, reply: Reply, *, think_tags: bool = False) -> dict[str, Any]:
    """The non-streaming ``chat.completion`` answer in the dialect's shape."""
    reasoning, content = visible_pieces(dialect, reply, think_tags=think_tags)
    finish = finish_reason(dialect, reply)
    text = "" if finish == "content_filter" else "".join(content)
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if reasoning and dialect.reasoning_field:
        message[dialect.reasoning_field] = "".join(reasoning)
    if dialect.refusal_style == "delta":
        message["refusal"] = reply.refusal_text or None
    if reply.tool_calls:
        message["tool_calls"] = [
            _without_index(_whole_call(0, c.id, c.name, c.arguments)) for c in reply.tool_calls
        ]
    choice: dict[str, Any] = {"index": 0, "message": message}
    if dialect.logprobs:
        choice["logprobs"] = None
    choice["finish_reason"] = finish
    body: dict[str, Any] = {
        "id": completion_id(dialect, reply),
        "object": "chat.completion",
        "created": CREATED,
        "model": reply.model if dialect.fixed_model is None else dialect.fixed_model,
        "choices": [choice],
        "usage": usage_object(dialect, reply),
    }
    if "system_fingerprint" in dialect.envelope:
        body["system_fingerprint"] = SYSTEM_FINGERPRINT
    return body
