"""Masking secrets in the text and data the library builds (messages, error payloads)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["redact", "redact_data", "scrub"]

_BEARER = re.compile(r"(?i)(bearer\s+)[^\s'\"]+")
_MASK = "***"


def redact(text: str, secrets: Sequence[str] = ()) -> str:
    """``text`` with every secret (and any bearer token) masked as ``***``."""
    for value in secrets:
        if len(value) >= 4 and value in text:
            text = text.replace(value, _MASK)
    return _BEARER.sub(r"\1" + _MASK, text)


def redact_data(data: Any, secrets: Sequence[str] = ()) -> Any:
    """A copy of decoded JSON ``data`` with every string (keys too) redacted."""
    if isinstance(data, str):
        return redact(data, secrets)
    if isinstance(data, dict):
        return {redact(str(k), secrets): redact_data(v, secrets) for k, v in data.items()}
    if isinstance(data, list):
        return [redact_data(item, secrets) for item in data]
    return data


def scrub(error: BaseException, secrets: Sequence[str]) -> None:
    """Redact ``error`` in place: its message, and the string and data attributes it carries
    (``error_message``, ``type``, ``code``, ``data``), down its ``__cause__``/``__context__``
    chain (an httpx exception may quote a header it refused)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        current.args = tuple(
            redact(arg, secrets) if isinstance(arg, str) else arg for arg in current.args
        )
        for name in ("error_message", "type", "code", "data"):
            value = getattr(current, name, None)
            if isinstance(value, (str, dict, list)):
                # A read-only attribute is not one of ours: nothing to mask there.
                with contextlib.suppress(AttributeError):
                    setattr(current, name, redact_data(value, secrets))
        current = current.__cause__ or current.__context__
