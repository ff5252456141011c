"""What of a recorded call may be written: no credential, every secret masked, a body as the
decoder saw it (its content-coding undone, with the clients' bounded inflater).

:mod:`.recording` records; this module decides what of it reaches the disk: headers whose
names look like credentials are left out, secret values (the key, a bearer key without its
scheme, cookies, the caller's extra secrets) are masked as ``***`` wherever they occur (URL,
request body, response headers and body, the read sizes moved with the mask), and a
compressed body is stored decoded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import httpx

from sse_core._redact import redact, redact_data
from sse_core.transport.body import codings, decoded
from sse_core.transport.urls import SECRET_QUERY

__all__ = [
    "MAX_DECODED",
    "MIN_SECRET",
    "decode_reads",
    "kept",
    "mask_reads",
    "public_url",
    "request_body",
    "secret_name",
    "secret_values",
]

_MASK = b"***"
#: Values under this many characters are not searched for (they would mask at random).
MIN_SECRET = 4
_SECRET_NAME = SECRET_QUERY


def secret_name(name: str, hidden: frozenset[str]) -> bool:
    lowered = name.lower()
    return lowered in hidden or bool(_SECRET_NAME.search(lowered))


def secret_values(name: str, value: str) -> list[str]:
    """A credential's value and its parts: ``Bearer KEY`` gives both; a cookie its values."""
    value = value.strip()
    found = [value, value.partition(" ")[2].strip()]
    if name.lower() == "cookie":
        found += [cookie.partition("=")[2].strip() for cookie in value.split(";")]
    return [v for v in found if len(v) >= MIN_SECRET]


def kept(
    headers: Iterable[tuple[str, str]], hidden: frozenset[str], secrets: Sequence[str]
) -> list[tuple[str, str]]:
    """The headers that may be written: no credential, and every secret masked."""
    return [(k, redact(v, secrets)) for k, v in headers if not secret_name(k, hidden)]


def public_url(url: httpx.URL, secrets: Sequence[str]) -> str:
    """The URL without user info, fragment or credential-like query parameters."""
    params = url.params.multi_items()
    query = [(k, redact(v, secrets)) for k, v in params if not _SECRET_NAME.search(k)]
    clean = url.copy_with(username=None, password=None, fragment=None, params=query)
    return redact(str(clean), secrets)


def request_body(content: bytes, secrets: Sequence[str]) -> Any:
    """The request body as JSON (every string masked), else as masked text, else None."""
    if not content:
        return None
    try:
        return redact_data(json.loads(content), secrets)
    except ValueError:
        return redact(content.decode("utf-8", "replace"), secrets)


def _shifted(offset: int, spans: Sequence[tuple[int, int]]) -> int:
    """Where ``offset`` of the body lands in the masked body (a mask arrives with its start)."""
    moved = offset
    for start, end in spans:
        if offset >= end:
            moved -= (end - start) - len(_MASK)
        elif offset > start:
            moved -= (offset - start) - len(_MASK)
    return moved


def mask_reads(
    reads: Sequence[tuple[float, bytes]], secrets: Iterable[str]
) -> tuple[bytes, list[tuple[float, int]]]:
    """The body with every secret masked, and its reads as ``(time, size)`` of that body."""
    body = b"".join(data for _, data in reads)
    longest_first = sorted({s.encode() for s in secrets if len(s) >= MIN_SECRET}, key=len)[::-1]
    pattern = re.compile(b"|".join(map(re.escape, longest_first))) if longest_first else None
    spans = [m.span() for m in pattern.finditer(body)] if pattern else []
    sizes: list[tuple[float, int]] = []
    offset = done = 0
    for at, data in reads:
        offset += len(data)
        end = _shifted(offset, spans)
        sizes.append((at, end - done))
        done = end
    return (pattern.sub(_MASK, body) if pattern else body), sizes


#: The most bytes a recorded body may inflate to (a bomb the client refused mid-body stays
#: as it came, compressed, instead of filling memory here).
MAX_DECODED = 64 * 1024 * 1024


def decode_reads(
    encoding: str, reads: Sequence[tuple[float, bytes]]
) -> list[tuple[float, bytes]] | None:
    """Undo a content-encoding read by read, with the clients' bounded inflater; None if it
    cannot be undone (a coding they refuse, corrupt bytes) or inflates past MAX_DECODED."""
    clock = [0.0]

    def raw() -> Iterator[bytes]:
        for at, data in reads:
            clock[0] = at
            yield data

    out: list[tuple[float, bytes]] = []
    total = 0
    try:
        for piece in decoded(raw(), codings(httpx.Headers({"content-encoding": encoding}))):
            total += len(piece)
            if total > MAX_DECODED:
                return None
            out.append((clock[0], piece))
    except httpx.DecodingError:
        return None
    return out
