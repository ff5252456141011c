"""The msgspec structs of the accelerator (:mod:`._accel`); imported only when it is asked for.

``forbid_unknown_fields``: a key the structs do not name makes msgspec refuse the chunk, and
the pure path takes it. The keys named but not read are those the pure path ignores too. A
delta's fields default to ``UNSET`` (falsy), which tells an absent key from a null one.
"""

from __future__ import annotations

from typing import Any

import msgspec  # type: ignore[import-not-found, unused-ignore]

__all__ = ["DECODER", "DELTA_FIELDS", "ERRORS", "UNSET"]

UNSET = msgspec.UNSET
#: What a payload msgspec cannot decode raises: msgspec's errors are ValueErrors only from
#: 0.19 on (before, MsgspecError derives from Exception); UnicodeDecodeError is a ValueError.
ERRORS: tuple[type[Exception], ...] = (ValueError, msgspec.MsgspecError)
_MAYBE = msgspec.UnsetType

#: The fields of a delta: the pure path starts a choice's state on a delta with any key.
DELTA_FIELDS = (
    "content",
    "reasoning_content",
    "reasoning",
    "refusal",
    "tool_calls",
    "role",
    "function_call",
)
_TEXT = str | _MAYBE | None
_Function = msgspec.defstruct(
    "Function",
    [("name", _TEXT, UNSET), ("arguments", Any, UNSET)],
    forbid_unknown_fields=True,
    gc=False,
)
_Call = msgspec.defstruct(
    "Call",
    [
        ("index", int | _MAYBE | None, UNSET),
        ("id", _TEXT, UNSET),
        ("type", Any, UNSET),
        ("function", _Function | _MAYBE | None, UNSET),
    ],
    forbid_unknown_fields=True,
    gc=False,
)
_CALLS = list[_Call] | _MAYBE | None  # type: ignore[valid-type, unused-ignore]
_DELTA_TYPES = (_TEXT, _TEXT, _TEXT, _TEXT, _CALLS, Any, Any)
_Delta = msgspec.defstruct(
    "Delta",
    [(name, kind, UNSET) for name, kind in zip(DELTA_FIELDS, _DELTA_TYPES, strict=True)],
    forbid_unknown_fields=True,
    gc=False,
)
_Choice = msgspec.defstruct(
    "Choice",
    [
        ("index", int | None, 0),
        ("delta", _Delta | None, None),
        ("finish_reason", str | None, None),
        ("logprobs", Any, None),
        ("stop_reason", Any, None),
        ("matched_stop", Any, None),
        ("native_finish_reason", Any, None),
        ("content_filter_results", Any, None),
    ],
    forbid_unknown_fields=True,
    gc=False,
)
_Chunk = msgspec.defstruct(
    "Chunk",
    [
        ("id", str | None, None),
        ("object", Any, None),
        ("created", int | None, None),
        ("model", str | None, None),
        ("system_fingerprint", str | None, None),
        ("choices", list[_Choice] | None, None),  # type: ignore[valid-type, unused-ignore]
        ("usage", dict[str, Any] | None, None),
        ("service_tier", Any, None),
        ("obfuscation", Any, None),
        ("provider", Any, None),
        ("prompt_filter_results", Any, None),
    ],
    forbid_unknown_fields=True,
    gc=False,
)

#: Decodes one chunk payload into the structs (raises a ValueError for anything else).
DECODER: Any = msgspec.json.Decoder(_Chunk)
