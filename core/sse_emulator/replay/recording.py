"""Load a recording of model calls for replay, and refuse anything that is not one.

A recording is what the client's recorder writes per model call: ``NNN.sse`` (the
response body, byte for byte as the decoder saw it) and beside it ``NNN.json``::

    {"format": "sse-connectors/recording@1",
     "request": {...}, "status": 200,
     "headers": [["content-type", "text/event-stream"], ...],
     "head_time": 0.0123, "reads": [[0.0150, 45], [0.0410, 120]], "elapsed": 1.234}

``reads`` holds one ``[seconds since the request was sent, size]`` pair per network
read; the sizes add up to the ``.sse`` file's length, and ``body_sha256`` (when present)
is the body's digest, so a body paired with another call's sidecar is refused. ``partial``
and ``ended`` say whether the recorded client read the body to its end.

A ``.sse`` file without its ``.json`` (a capture made by hand) is served as a 200
``text/event-stream``, one SSE event per read.

The recorder puts a call's body in place before its sidecar, so in a directory a sidecar is
the mark of a whole call. What a recorder stopped mid-call (or still recording) leaves is a
torn call, skipped with a :class:`TornCallWarning` naming its files, while the whole calls
are served: a ``.json`` without its ``.sse``, a ``.sse`` beside a recorder's claim on its
number (``{"claimed_by": ...}``) instead of a sidecar, a ``.sse`` without any ``.json``
among recorded calls, and a recorder's temporary file (``.NNN.sse.PID.TID.tmp``). Every
other problem refuses the recording, found here when the emulator is built and named with
its file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The ``format`` a recording's ``.json`` sidecar must declare.
FORMAT = "sse-connectors/recording@1"
#: The one key of a recorder's claim on a call number (written before the call's files).
CLAIM = "claimed_by"
#: Headers that describe one connection's framing, not the response: never replayed.
HOP_BY_HOP = frozenset(
    {
        "content-length",
        "transfer-encoding",
        "connection",
        "content-encoding",
        "keep-alive",
        "date",
        "server",
    }
)
_EVENT_STREAM = (("content-type", "text/event-stream"),)
#: A recorder's file being written (``.NNN.sse.PID.TID.tmp``, ``.claim.json.PID.TID.tmp``).
_TEMPORARY = re.compile(r"^\.(?:\d+|claim)\.(?:sse|json)\.\d+\.\d+\.tmp$")
# WHATWG: a line ends with CRLF, LF or a lone CR; an empty line ends an event.
_LINE_END = re.compile(rb"\r\n|\r|\n")


class RecordingError(ValueError):
    """The replay path is not a recording (missing, empty, or a malformed sidecar)."""


_WHAT_TO_DO = (
    " (a recorder started on this directory removes what one that is gone left; else delete it)"
)


class TornCallWarning(UserWarning):
    """A call of a recording directory is not whole (its recorder stopped mid-call, or is
    still recording it): it is skipped, the whole calls are served."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Read:
    """One network read of a recorded response body.

    Attributes:
        at: Seconds since the request was sent, or ``None`` when not recorded.
        data: The bytes of the read.
    """

    at: float | None
    data: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedResponse:
    """One model call's response, as recorded.

    Attributes:
        source: The ``.sse`` file it came from (for messages).
        status: The HTTP status.
        headers: The headers to send: lowercased, framing headers removed.
        head_time: Seconds from the request until the response head arrived.
        reads: The body in its recorded reads.
    """

    source: str
    status: int
    headers: tuple[tuple[str, str], ...]
    head_time: float
    reads: tuple[Read, ...]

    @property
    def body(self) -> bytes:
        """The whole body."""
        return b"".join(read.data for read in self.reads)


@dataclass(frozen=True, slots=True, kw_only=True)
class Recording:
    """Recorded responses to serve, in order.

    Attributes:
        path: Where the recording was loaded from.
        responses: The responses, in file-name order.
        repeat: Serve the one response for every request (a single ``.sse`` file).
        skipped: What was skipped as torn calls, one message per call naming its files.
    """

    path: str
    responses: tuple[RecordedResponse, ...]
    repeat: bool
    skipped: tuple[str, ...] = ()


def load_recording(path: str | os.PathLike[str]) -> Recording:
    """Load a recording: one ``.sse`` file, or a directory of ``NNN.sse`` files.

    Args:
        path: A ``.sse`` file (served for every chat request) or a directory whose
            ``.sse`` files, sorted by name, are served one per chat request.

    Returns:
        The recording.

    Raises:
        RecordingError: When the path is missing, holds no whole call, or a sidecar
            ``.json`` is not a recording.

    Warns:
        TornCallWarning: Once per torn call skipped in a directory (see the module
            docstring).
    """
    where = Path(path)
    if where.is_dir():
        files, torn = _whole_and_torn(where)
        if not files:
            raise RecordingError(
                f"replay directory {where} holds no whole call; expected NNN.sse beside its"
                " NNN.json, or .sse files alone" + "".join(f"; {why}" for why in torn)
            )
        for why in torn:  # stacklevel 1: one warning per call, however often it is loaded
            warnings.warn(
                f"replay skips a torn call: {why}{_WHAT_TO_DO}", TornCallWarning, stacklevel=1
            )
        responses = tuple(map(_response, files))
        return Recording(path=str(where), responses=responses, repeat=False, skipped=torn)
    if where.is_file() and where.suffix == ".json":
        raise RecordingError(f"replay path {where} is a sidecar; give the .sse file beside it")
    if where.is_file():
        return Recording(path=str(where), responses=(_response(where),), repeat=True)
    raise RecordingError(f"replay path {where} does not exist; expected a .sse file or a directory")


def _whole_and_torn(directory: Path) -> tuple[list[Path], tuple[str, ...]]:
    """The bodies of the whole calls, and a message naming each torn call's files."""
    torn = [
        f"{path} is a recorder's file being written, or left by a recorder that stopped"
        for path in sorted(directory.iterdir())
        if _TEMPORARY.match(path.name)
    ]
    for sidecar in sorted(directory.glob("*.json")):
        if not sidecar.with_suffix(".sse").is_file():
            owner = _claimant(sidecar)
            claim = "" if owner is None else f" (it is only a recorder's claim, {owner!r})"
            torn.append(f"{sidecar} has no {sidecar.with_suffix('.sse').name} beside it{claim}")
    bodies = sorted(directory.glob("*.sse"))
    claimed = [body for body in bodies if _claimant(body.with_suffix(".json")) is not None]
    torn += [
        f"{body} has only a recorder's claim beside it, {body.with_suffix('.json').name}"
        f" ({_claimant(body.with_suffix('.json'))!r}), no sidecar: that call is still being"
        " recorded, or its recorder stopped"
        for body in claimed
    ]
    bodies = [body for body in bodies if body not in claimed]
    lone = [body for body in bodies if not body.with_suffix(".json").is_file()]
    if len(lone) < len(bodies) or claimed:  # recorded calls: a body alone is one torn
        torn += [
            f"{body} has no {body.with_suffix('.json').name} beside it, while recorded calls"
            " here have theirs: it is not served as a plain 200 stream"
            for body in lone
        ]
        bodies = [body for body in bodies if body not in lone]
    return bodies, tuple(torn)


def _claimant(sidecar: Path) -> Any:
    """Who claimed the number if ``sidecar`` is only a recorder's claim, else None."""
    try:
        meta = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return _claim_in(meta)


def _claim_in(meta: Any) -> Any:
    """The claimant if ``meta`` is a recorder's claim (no ``format``, a ``claimed_by``)."""
    if isinstance(meta, dict) and "format" not in meta and CLAIM in meta:
        return meta[CLAIM]
    return None


def _response(body_path: Path) -> RecordedResponse:
    """One response from its ``.sse`` file and, if present, its ``.json`` sidecar."""
    try:
        body = body_path.read_bytes()
    except OSError as error:
        raise RecordingError(f"cannot read {body_path}: {error.strerror}") from None
    sidecar = body_path.with_suffix(".json")
    if not sidecar.is_file():
        reads = tuple(Read(at=None, data=event) for event in split_events(body))
        return RecordedResponse(
            source=str(body_path), status=200, headers=_EVENT_STREAM, head_time=0.0, reads=reads
        )
    return _from_sidecar(body_path, body, _load_json(sidecar))


def _load_json(sidecar: Path) -> dict[str, Any]:
    try:
        meta = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise RecordingError(f"{sidecar} is not readable JSON: {error}") from None
    found = meta.get("format") if isinstance(meta, dict) else None
    _refuse_a_claim(sidecar, meta)
    if not isinstance(meta, dict) or found != FORMAT:
        raise RecordingError(
            f"{sidecar} is not a recording: expected format {FORMAT!r}, got {found!r}"
        )
    return meta


def _refuse_a_claim(sidecar: Path, meta: Any = None) -> None:
    """A recorder's claim on a number is no sidecar yet: say which call it is."""
    owner = _claimant(sidecar) if meta is None else _claim_in(meta)
    if owner is not None:
        raise RecordingError(
            f"{sidecar} is only a recorder's claim on its number ({owner!r}): that call is"
            " still being recorded, or its recorder stopped before writing it (then delete it)"
        )


def _from_sidecar(body_path: Path, body: bytes, meta: dict[str, Any]) -> RecordedResponse:
    sidecar = body_path.with_suffix(".json")
    status = meta.get("status")
    if not isinstance(status, int) or not 100 <= status <= 599:
        raise RecordingError(f"{sidecar}: expected an HTTP status 100..599, got {status!r}")
    digest = meta.get("body_sha256")
    if digest is not None and digest != hashlib.sha256(body).hexdigest():
        raise RecordingError(
            f"{sidecar} does not describe {body_path.name}: the body's SHA-256 differs from the "
            "recorded one (a pair mixed up, or a body changed after recording)"
        )
    head_time = meta.get("head_time", 0.0)
    if not _is_seconds(head_time):
        raise RecordingError(f"{sidecar}: expected head_time in seconds, got {head_time!r}")
    return RecordedResponse(
        source=str(body_path),
        status=status,
        headers=_headers(sidecar, meta.get("headers", [])),
        head_time=float(head_time),
        reads=_reads(sidecar, body, meta.get("reads")),
    )


def _headers(sidecar: Path, raw: Any) -> tuple[tuple[str, str], ...]:
    """The recorded headers as sent again: lowercased, without framing headers."""
    pairs = raw if isinstance(raw, list) else None
    if pairs is None or not all(_is_pair(pair, _is_text, _is_text) for pair in pairs):
        raise RecordingError(f"{sidecar}: expected headers as [[name, value], ...], got {raw!r}")
    lowered = ((str(name).lower(), str(value)) for name, value in pairs)
    return tuple((name, value) for name, value in lowered if name not in HOP_BY_HOP)


def _reads(sidecar: Path, body: bytes, raw: Any) -> tuple[Read, ...]:
    """Cut the body at the recorded read sizes; they must add up to the body."""
    if raw is None:
        return tuple(Read(at=None, data=event) for event in split_events(body))
    if not isinstance(raw, list) or not all(_is_pair(pair, _is_seconds, _is_size) for pair in raw):
        raise RecordingError(f"{sidecar}: expected reads as [[seconds, size], ...], got {raw!r}")
    total = sum(int(size) for _, size in raw)
    if total != len(body):
        found = f"{total} bytes in reads, {len(body)} in {sidecar.with_suffix('.sse').name}"
        raise RecordingError(f"{sidecar}: expected the read sizes to add up to the body; {found}")
    reads: list[Read] = []
    offset = 0
    for at, size in raw:
        if size:
            reads.append(Read(at=float(at), data=body[offset : offset + int(size)]))
        offset += int(size)
    return tuple(reads)


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


def _is_seconds(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


def _is_size(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_pair(pair: Any, first: Callable[[Any], bool], second: Callable[[Any], bool]) -> bool:
    """Whether ``pair`` is a two-item list whose items pass ``first`` and ``second``."""
    return isinstance(pair, list) and len(pair) == 2 and first(pair[0]) and second(pair[1])


def split_events(body: bytes) -> list[bytes]:
    """Cut a body after each blank line, so each piece holds one SSE event.

    Args:
        body: An event-stream body with LF, CRLF or CR line ends.

    Returns:
        Pieces whose concatenation is ``body``; a tail without a blank line is the
        last piece.
    """
    pieces: list[bytes] = []
    start = line_start = 0
    for match in _LINE_END.finditer(body):
        if match.start() == line_start and line_start > start:
            pieces.append(body[start : match.end()])
            start = match.end()
        line_start = match.end()
    if start < len(body):
        pieces.append(body[start:])
    return pieces
