"""Content capture: a call's messages on its span, only when the application asks.

Nothing of a conversation is recorded unless ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``
(or :class:`~sse_core.telemetry.Telemetry`'s ``capture_content``) asks for it, as
``opentelemetry-util-genai`` reads it:

- ``NO_CONTENT`` (the default), ``false``, or unset: nothing;
- ``SPAN_ONLY``: the span's ``gen_ai.system_instructions``, ``gen_ai.input.messages``,
  ``gen_ai.tool.definitions`` and ``gen_ai.output.messages``;
- ``EVENT_ONLY``: the same attributes on the span's ``gen_ai.client.inference.operation.details``
  event, not on the span;
- ``SPAN_AND_EVENT``, or the older spelling ``true``: both.

Each attribute is a JSON text in the conventions' message shape, read from the request body
the protocol sent (its ``prompt`` fact) and from the answer (what arrived, where the stream was
cut). Each is held to ``content_limit`` characters: the oldest messages go first, then long
texts are cut, and ``sse.content.truncated`` says so. Secrets (the key, a secret header's
value, a bearer token) are masked in it as in every error message; media are not copied.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any, NamedTuple

from sse_core._redact import redact
from sse_core.completion import Completion
from sse_core.protocols.prompt import Prompt, reasoning, text, tool_call
from sse_core.telemetry import names

__all__ = ["Capture", "capture_mode", "input_content", "output_content"]

logger: logging.Logger = logging.getLogger("sse_core.telemetry")

_MODES = {
    "no_content": (False, False),
    "false": (False, False),
    "": (False, False),
    "span_only": (True, False),
    "event_only": (False, True),
    "span_and_event": (True, True),
    "true": (True, True),
}
_TRUNCATED = "…[truncated]"


class Capture(NamedTuple):
    """Where content goes: the span's attributes, its event, or both."""

    span: bool
    event: bool


def capture_mode(setting: bool | str | None, environ: Mapping[str, str]) -> Capture | None:
    """Where content is recorded (None: nowhere), from ``setting`` (a bool, or a mode name),
    else the environment variable. An unknown value records nothing, with a warning."""
    value = environ.get(names.CAPTURE_CONTENT_ENV, "") if setting is None else setting
    if isinstance(value, bool):
        return Capture(True, True) if value else None
    found = _MODES.get(value.strip().lower())
    if found is None:
        logger.warning(
            "%s=%r is none of NO_CONTENT, SPAN_ONLY, EVENT_ONLY, SPAN_AND_EVENT, true, false: "
            "no content is recorded",
            names.CAPTURE_CONTENT_ENV,
            value,
        )
        return None
    return Capture(*found) if any(found) else None


def input_content(
    prompt: Prompt, *, limit: int, secrets: tuple[str, ...]
) -> tuple[dict[str, str], bool]:
    """The request's content attributes (only those it has) and whether one was cut."""
    found: dict[str, str] = {}
    cut = False
    for name, value in (
        (names.SYSTEM_INSTRUCTIONS, prompt.system),
        (names.INPUT_MESSAGES, prompt.messages),
        (names.TOOL_DEFINITIONS, prompt.tools),
    ):
        if value:
            found[name], shortened = _bounded(list(value), limit, secrets)
            cut = cut or shortened
    return found, cut


def output_content(answer: Completion, *, limit: int, secrets: tuple[str, ...]) -> tuple[str, bool]:
    """The answer's ``gen_ai.output.messages`` (one message per choice) and whether it was
    cut."""
    messages: list[dict[str, Any]] = []
    for choice in answer.choices:
        parts = [reasoning(choice.reasoning)] if choice.reasoning else []
        if choice.content:
            parts.append(text(choice.content))
        parts += [tool_call(call.id, call.name, call.arguments) for call in choice.tool_calls]
        said: dict[str, Any] = {"role": "assistant", "parts": parts}
        said["finish_reason"] = choice.finish_reason or "error"
        messages.append(said)
    return _bounded(messages, limit, secrets)


def _bounded(items: list[Any], limit: int, secrets: tuple[str, ...]) -> tuple[str, bool]:
    """``items`` as JSON text of at most ``limit`` characters: the oldest items dropped first
    (the last one stays), then every string cut to an equal share; secrets masked."""
    pieces = [_json(item, secrets) for item in items]  # each item's JSON, written once
    size = sum(map(len, pieces)) + len(pieces) + 1  # with the brackets and commas
    if size <= limit:
        return "[" + ",".join(pieces) + "]", False
    first = 0
    while first < len(pieces) - 1 and size > limit:
        size -= len(pieces[first]) + 1
        first += 1
    items = items[first:]
    found = "[" + ",".join(pieces[first:]) + "]"
    share = max(limit // 4, 16)
    while len(found) > limit and share > 16:
        found = _json(_cut(items, share), secrets)
        share //= 2
    return (found if len(found) <= limit else "[]"), True


def _json(value: Any, secrets: tuple[str, ...]) -> str:
    said = json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))
    return redact(said, secrets)


def _cut(value: Any, share: int) -> Any:
    if isinstance(value, str):
        return value if len(value) <= share else value[:share] + _TRUNCATED
    if isinstance(value, Mapping):
        return {key: _cut(item, share) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_cut(item, share) for item in value]
    return value
