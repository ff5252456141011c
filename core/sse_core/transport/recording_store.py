"""Where recorded calls are kept: one number per call, claimed atomically, each pair written
so that no reader ever takes half of it, even with several processes recording into one
directory.

- A number is claimed by creating ``NNN.json`` with ``O_CREAT | O_EXCL`` (a claim: this
  process's id and host), after the highest ``NNN`` already there: two recorders, in one
  process or several, never take the same number.
- A pair is written under temporary names, then renamed: the sidecar over its claim first,
  then the body. So at no moment is there a ``.sse`` without its sidecar, which replay would
  serve as a plain 200 event stream; a claim or a sidecar without its body (a call still
  being recorded, or a recorder that died) is refused by replay by name.
- Temporary files and claims left by a process of this host that no longer runs are removed
  when a recorder starts on the directory.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import socket
import threading
from pathlib import Path
from typing import Any

__all__ = ["FORMAT", "claim_number", "remove_stale", "write_pair"]

#: The ``format`` of every sidecar written here (what the emulator's replay expects).
FORMAT = "sse-connectors/recording@1"
#: The one key of a claim's JSON (what replay recognises a claim by).
CLAIM = "claimed_by"
_NUMBERED = re.compile(r"^(\d+)\.(?:sse|json)$")
_TEMPORARY = re.compile(r"^\.\d+\.(?:sse|json)\.(\d+)\.\d+\.tmp$")
#: A claim is a few dozen bytes; a larger .json is a sidecar, never read to clean up.
_CLAIM_SIZE = 256

logger: logging.Logger = logging.getLogger("sse_core")


def _host() -> str:
    return socket.gethostname()


def _highest(directory: Path) -> int:
    names = (_NUMBERED.match(path.name) for path in directory.iterdir())
    return max((int(match[1]) for match in names if match), default=0)


def claim_number(directory: Path) -> int:
    """Claim the next call number in ``directory`` (``NNN.json``, created exclusively)."""
    number = _highest(directory) + 1
    claim = json.dumps({CLAIM: {"pid": os.getpid(), "host": _host()}}).encode()
    while True:
        try:
            fd = os.open(directory / f"{number:03d}.json", os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        except FileExistsError:  # another recorder took it meanwhile: the next one
            number += 1
            continue
        try:
            os.write(fd, claim)
        finally:
            os.close(fd)
        if number == 1000:
            logger.warning("%s holds 1000 calls: file names no longer sort in order", directory)
        return number


def release(directory: Path, number: int) -> None:
    """Give up a claimed number whose call could not be written."""
    with contextlib.suppress(OSError):
        (directory / f"{number:03d}.json").unlink()


def write_pair(directory: Path, number: int, sidecar: bytes, body: bytes) -> None:
    """Write one call's files: both under temporary names, then the sidecar over its claim,
    then the body (see the module docstring)."""
    stem = directory / f"{number:03d}"
    ready = [
        _temporary(stem.with_suffix(".json"), sidecar),
        _temporary(stem.with_suffix(".sse"), body),
    ]
    try:
        os.replace(ready[0], stem.with_suffix(".json"))
        os.replace(ready[1], stem.with_suffix(".sse"))
    finally:
        for path in ready:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


def _temporary(path: Path, data: bytes) -> Path:
    partial = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    partial.write_bytes(data)
    return partial


def _gone(pid: int) -> bool:
    """Whether no process ``pid`` runs on this host (unknowable off POSIX: assumed running)."""
    if os.name != "posix" or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # it exists, owned by someone else
        return False
    return False


def _stale_claim(path: Path) -> bool:
    try:
        if path.stat().st_size > _CLAIM_SIZE:
            return False
        owner = json.loads(path.read_bytes()).get(CLAIM)
    except (OSError, ValueError, AttributeError):
        return False
    if not isinstance(owner, dict) or owner.get("host") != _host():
        return False
    pid = owner.get("pid")
    return isinstance(pid, int) and _gone(pid)


def remove_stale(directory: Path) -> None:
    """Remove the temporary files and claims of processes of this host that are gone."""
    for path in directory.iterdir():
        temporary = _TEMPORARY.match(path.name)
        stale = (
            _gone(int(temporary[1])) if temporary else path.suffix == ".json" and _stale_claim(path)
        )
        if stale:
            with contextlib.suppress(OSError):
                path.unlink()
                logger.info("removed %s, left by a recorder that is gone", path)


def sidecar_text(meta: dict[str, Any]) -> bytes:
    """A sidecar as written: one key per line (diffs of recordings stay readable)."""
    lines = (f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in meta.items())
    return ("{\n" + ",\n".join(lines) + "\n}\n").encode()
