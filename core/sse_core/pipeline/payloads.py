"""The payload parsers of the chunk decoder: JSON frames, usage objects, error bodies, and
the text inside reasoning parts. Pure functions, tolerant of every dialect's shapes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic_core import from_json, to_json

from sse_core.completion import Usage
from sse_core.errors import StreamProtocolError
from sse_core.events import ErrorFrame

__all__ = [
    "details_text",
    "messages_usage",
    "parse_chunk_json",
    "parse_error",
    "parse_loose",
    "parse_usage",
    "thinking_text",
]

_PREVIEW = 200


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _first_int(*values: object) -> int | None:
    for value in values:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _dict(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


_USAGE_FIELDS = (
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "cached_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "raw",
)
(
    _set_prompt,
    _set_completion,
    _set_total,
    _set_cached,
    _set_cache_write,
    _set_reasoning,
    _set_raw,
) = (Usage.__dict__[name].__set__ for name in _USAGE_FIELDS)
_new = object.__new__


def _usage(
    prompt: int | None,
    completion: int | None,
    total: int | None,
    cached: int | None,
    cache_write: int | None,
    reasoning: int | None,
    raw: Mapping[str, Any],
) -> Usage:
    """``Usage(...)`` with every field given, built without the frozen ``__init__``."""
    usage: Usage = _new(Usage)
    _set_prompt(usage, prompt)
    _set_completion(usage, completion)
    _set_total(usage, total)
    _set_cached(usage, cached)
    _set_cache_write(usage, cache_write)
    _set_reasoning(usage, reasoning)
    _set_raw(usage, raw)
    return usage


def _plain_counts(raw: Mapping[str, Any]) -> tuple[int, int, int] | None:
    """The counts of a usage in the plain OpenAI shape (the three counts as ints, no other
    key: every other field absent), else None."""
    if len(raw) == 3 and type(raw) is dict:
        prompt = raw.get("prompt_tokens")
        completion = raw.get("completion_tokens")
        total = raw.get("total_tokens")
        if type(prompt) is int and type(completion) is int and type(total) is int:
            return prompt, completion, total
    return None


def _plain_usage(counts: tuple[int, int, int], raw: Mapping[str, Any]) -> Usage:
    """:func:`parse_usage` of ``raw``, whose :func:`_plain_counts` are ``counts``."""
    prompt, completion, total = counts
    return _usage(prompt, completion, total, None, None, None, raw)


def parse_usage(raw: Mapping[str, Any]) -> Usage:
    """Normalise a usage object from any dialect into :class:`Usage`."""
    counts = _plain_counts(raw)
    if counts is not None:
        return _plain_usage(counts, raw)
    prompt_details = _dict(raw.get("prompt_tokens_details"))
    completion_details = _dict(raw.get("completion_tokens_details"))
    prompt = _first_int(raw.get("prompt_tokens"), raw.get("input_tokens"))
    completion = _first_int(raw.get("completion_tokens"), raw.get("output_tokens"))
    total = _int(raw.get("total_tokens"))
    if total is None and prompt is not None and completion is not None:
        total = prompt + completion
    return _usage(
        prompt,
        completion,
        total,
        # OpenAI: prompt_tokens_details.cached_tokens; DeepSeek: prompt_cache_hit_tokens;
        # Together: a top-level cached_tokens; Anthropic-shaped: cache_read_input_tokens.
        _first_int(
            prompt_details.get("cached_tokens"),
            raw.get("prompt_cache_hit_tokens"),
            raw.get("cached_tokens"),
            raw.get("cache_read_input_tokens"),
        ),
        _first_int(
            prompt_details.get("cache_write_tokens"),
            prompt_details.get("cache_creation_tokens"),
            raw.get("cache_write_tokens"),
            raw.get("cache_creation_input_tokens"),
        ),
        _first_int(completion_details.get("reasoning_tokens"), raw.get("reasoning_tokens")),
        raw,
    )


def messages_usage(raw: Mapping[str, Any]) -> Usage:
    """The Usage of Anthropic Messages counts. ``input_tokens`` leaves out the cached part,
    which ``prompt_tokens`` (as chat completions count it) includes; the thinking tokens are
    ``output_tokens_details.thinking_tokens`` (part of ``output_tokens``)."""
    given = _int(raw.get("input_tokens"))
    output = _int(raw.get("output_tokens"))
    read = _int(raw.get("cache_read_input_tokens"))
    write = _int(raw.get("cache_creation_input_tokens"))
    prompt = None if given is None else given + (read or 0) + (write or 0)
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=output,
        total_tokens=None if prompt is None or output is None else prompt + output,
        cached_tokens=read,
        cache_write_tokens=write,
        reasoning_tokens=_int(_dict(raw.get("output_tokens_details")).get("thinking_tokens")),
        raw=raw,
    )


def parse_error(payload: object) -> ErrorFrame:
    """Make an :class:`ErrorFrame` of ``{"error": {...}}``, ``{"error": "text"}`` or text."""
    err = payload.get("error", payload) if isinstance(payload, dict) else payload
    if isinstance(err, dict):
        message = err.get("message") or err.get("detail") or err.get("msg")
        code = err.get("code")
        kind = err.get("type")
        return ErrorFrame(
            message=str(message) if message else to_json(err).decode(),
            type=kind if isinstance(kind, str) else None,
            code=code if isinstance(code, (str, int)) and not isinstance(code, bool) else None,
            data=payload,
        )
    return ErrorFrame(message=str(err) if err else "the gateway reported an error", data=payload)


def details_text(details: object) -> str:
    if not isinstance(details, list):
        return ""
    pieces = []
    for detail in details:
        if isinstance(detail, dict):
            text = detail.get("text") or detail.get("summary")
            if text and isinstance(text, str):
                pieces.append(text)
    return "".join(pieces)


def thinking_text(thinking: object) -> str:
    if isinstance(thinking, str):
        return thinking
    if isinstance(thinking, list):
        return "".join(
            part["text"]
            for part in thinking
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


def parse_chunk_json(data: bytes, *, where: str = "in a data frame") -> Mapping[str, Any]:
    """Parse a payload that must be a JSON object, or raise StreamProtocolError.

    Args:
        data: The payload.
        where: Where it came from, for the message (a frame, or a whole response body).
    """
    try:
        value = from_json(data)
    except ValueError as exc:
        value = _parse_replacing(data, exc, where)
    if type(value) is not dict:
        raise StreamProtocolError(
            f"expected a JSON object {where}, got {type(value).__name__}: {_preview(data)}"
        )
    return value


def _parse_replacing(data: bytes, error: ValueError, where: str) -> Any:
    """Retry with invalid UTF-8 replaced (as an SSE text decoder would); else a protocol error."""
    try:
        return from_json(data.decode("utf-8", "replace"))
    except ValueError:
        raise StreamProtocolError(
            f"expected a JSON object {where}, got invalid JSON ({error}): {_preview(data)}"
        ) from None


def _preview(data: bytes) -> str:
    return repr(data[:_PREVIEW].decode("utf-8", "replace"))


def parse_loose(data: bytes) -> Any:
    """Named events may carry JSON or plain text."""
    try:
        return from_json(data, cache_strings="keys")
    except ValueError:
        text = data.decode("utf-8", "replace")
        try:
            return from_json(text)
        except ValueError:
            return text
