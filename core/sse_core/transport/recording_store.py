"""Where recorded calls are kept: one number per call, claimed atomically, each call written
so that a recorder stopped at any point (SIGKILL, power loss) leaves it whole or no call at
all, even with several processes recording into one directory.

- A number is claimed by putting ``NNN.json`` in place whole, or not at all (a hard link to
  a claim written beforehand; created with ``O_EXCL`` where the file system has no links): a
  claim names this process's id and host. It comes after the highest ``NNN`` already there:
  two recorders, in one process or several, never take the same number.
- A call's two files are written under temporary names and synced, then renamed: the body
  to ``NNN.sse`` first, the directory synced, then the sidecar over its claim. A sidecar
  (a ``.json`` with a ``format``) is therefore the mark of a whole call: its body is in place
  before it. Whatever else a stopped recorder leaves (a claim, with or without the body; a
  temporary file) is no call, and replay skips it by name.
- Temporary files, and claims with their bodies, left by a process of this host that no
  longer runs are removed when a recorder starts on the directory.
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
_TEMPORARY = re.compile(r"^\.(?:\d+|claim)\.(?:sse|json)\.(\d+)\.\d+\.tmp$")
#: A claim is a few dozen bytes; a larger .json is a sidecar, never read to clean up.
_CLAIM_SIZE = 256

logger: logging.Logger = logging.getLogger("sse_core")


def _host() -> str:
    return socket.gethostname()


def _highest(directory: Path) -> int:
    names = (_NUMBERED.match(path.name) for path in directory.iterdir())
    return max((int(match[1]) for match in names if match), default=0)


def claim_number(directory: Path) -> int:
    """Claim the next call number in ``directory`` (``NNN.json``, put in place exclusively)."""
    number = _highest(directory) + 1
    claim = json.dumps({CLAIM: {"pid": os.getpid(), "host": _host()}}).encode()
    draft = _temporary(directory / "claim.json", claim, sync=False)
    try:
        while not _take(draft, directory / f"{number:03d}.json", claim):
            number += 1  # another recorder took it meanwhile: the next one
    finally:
        with contextlib.suppress(FileNotFoundError):
            draft.unlink()
    if number == 1000:
        logger.warning("%s holds 1000 calls: file names no longer sort in order", directory)
    return number


def _take(draft: Path, target: Path, claim: bytes) -> bool:
    """Put the claim at ``target`` unless something is there: linked whole, so a recorder
    stopped meanwhile never leaves an empty claim; False if ``target`` exists."""
    try:
        os.link(draft, target)
    except FileExistsError:
        return False
    except OSError:  # no hard links on this file system: created exclusively, then written
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        except FileExistsError:
            return False
        try:
            os.write(fd, claim)
        finally:
            os.close(fd)
    return True


def release(directory: Path, number: int) -> None:
    """Give up a claimed number whose call could not be written."""
    with contextlib.suppress(OSError):
        (directory / f"{number:03d}.json").unlink()


def write_pair(directory: Path, number: int, sidecar: bytes, body: bytes) -> None:
    """Write one call's files: both under temporary names and synced, then the body in place,
    then the sidecar over its claim, the mark of a whole call (see the module docstring)."""
    stem = directory / f"{number:03d}"
    ready = [
        _temporary(stem.with_suffix(".sse"), body),
        _temporary(stem.with_suffix(".json"), sidecar),
    ]
    try:
        os.replace(ready[0], stem.with_suffix(".sse"))
        _sync(directory)  # the body's name is on disk before the sidecar's can be
        os.replace(ready[1], stem.with_suffix(".json"))
        _sync(directory)
    finally:
        for path in ready:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


def _temporary(path: Path, data: bytes, *, sync: bool = True) -> Path:
    """``data`` written beside ``path`` under a name of this process and thread (and synced:
    a rename after a power loss must not find an empty file)."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with partial.open("wb") as file:
        file.write(data)
        if sync:
            file.flush()
            os.fsync(file.fileno())
    return partial


def _sync(directory: Path) -> None:
    """Sync a directory's entries (POSIX; elsewhere, and where refused, the renames stand)."""
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


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
    """Remove the temporary files, and the claims with the bodies beside them, of processes
    of this host that are gone."""
    for path in sorted(directory.iterdir()):
        temporary = _TEMPORARY.match(path.name)
        if temporary:
            stale = [path] if _gone(int(temporary[1])) else []
        elif path.suffix == ".json" and _stale_claim(path):
            stale = [path.with_suffix(".sse"), path]  # the claim last: it marks the body torn
        else:
            stale = []
        for leftover in stale:
            with contextlib.suppress(OSError):
                leftover.unlink()
                logger.info("removed %s, left by a recorder that is gone", leftover)


def sidecar_text(meta: dict[str, Any]) -> bytes:
    """A sidecar as written: one key per line (diffs of recordings stay readable)."""
    lines = (f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in meta.items())
    return ("{\n" + ",\n".join(lines) + "\n}\n").encode()
