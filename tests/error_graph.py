"""Secrets must not be reachable from an error: the whole object graph of an exception is
walked (``__cause__``, ``__context__``, ``args``, every attribute, private and slotted ones
included, and containers, recursively, bounded), and no canary (the key, secret header values)
may appear in any string or bytes on it. Frames and tracebacks are not followed (they hold the
locals of the code that ran, the test's own included).

``FAILURES`` are six loopback gateways that fail in the six ways a transport fails: refused,
connect timeout, head timeout, reset before the head, read timeout mid-stream, reset
mid-stream. Each is a context manager that yields a base URL.
"""

from __future__ import annotations

import socket
import struct
import time
import types
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from typing import Any

from tests.raw_server import serving

__all__ = ["CANARIES", "FAILURES", "HEADERS", "KEY", "leaks"]

KEY = "sk-graph-canary-key-4f0e2b"
API_KEY = "apikey-graph-canary-91cd"
X_API_KEY = "xapikey-graph-canary-3a77"
TENANT = "tenant-graph-canary-6b58"
CANARIES = (KEY, API_KEY, X_API_KEY, TENANT)
HEADERS = {"api-key": API_KEY, "x-api-key": X_API_KEY, "x-tenant-secret": TENANT}
_SKIP = (
    type,
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.FrameType,
    types.TracebackType,
    types.CodeType,
    int,
    float,
    complex,
    bool,
    type(None),
)
_LIMIT = 100_000


def _children(obj: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(obj, BaseException):
        yield "__cause__", obj.__cause__
        yield "__context__", obj.__context__
        yield "args", obj.args
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield "key", key
            yield f"[{key!r}]", value
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for index, item in enumerate(obj):
            yield f"[{index}]", item
    for name, value in getattr(obj, "__dict__", {}).items():
        yield f".{name}", value
    for cls in type(obj).__mro__:
        for name in getattr(cls, "__slots__", ()):
            try:
                yield f".{name}", getattr(obj, name)
            except AttributeError:
                continue


def leaks(root: BaseException) -> list[str]:
    """The paths from ``root`` to every string or bytes holding a canary."""
    found: list[str] = []
    seen: set[int] = set()
    pending: list[tuple[str, Any]] = [("error", root)]
    while pending and len(seen) < _LIMIT:
        path, obj = pending.pop()
        if isinstance(obj, _SKIP) or id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, (str, bytes, bytearray, memoryview)):
            text = obj if isinstance(obj, str) else bytes(obj).decode("latin-1")
            if any(canary in text for canary in CANARIES):
                found.append(f"{path} = {text[:80]!r}")
            continue
        pending += [(path + step, child) for step, child in _children(obj)]
    assert len(seen) < _LIMIT, "the graph is larger than the walk's bound"
    return found


# --- six ways a transport fails ---

_HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
_FRAME = b'data: {"choices": [{"index": 0, "delta": {"content": "hi"}}]}\n\n'
_STARTED = _HEAD + b"%x\r\n%s\r\n" % (len(_FRAME), _FRAME)


def _reset(conn: socket.socket) -> None:
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()  # RST, not FIN


def _reset_after(data: bytes) -> Callable[[socket.socket], None]:
    def write(conn: socket.socket) -> None:
        conn.sendall(data)
        time.sleep(0.2)
        _reset(conn)

    return write


def _stall_after(data: bytes) -> Callable[[socket.socket], None]:
    def write(conn: socket.socket) -> None:
        conn.sendall(data)
        time.sleep(3)

    return write


@contextmanager
def _refused() -> Iterator[str]:
    probe = socket.create_server(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    yield f"http://127.0.0.1:{port}/v1"


@contextmanager
def _connect_timeout() -> Iterator[str]:
    """A listener whose backlog is full: the SYN of one more connection is dropped."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = []
    for _ in range(4):
        filler = socket.socket()
        filler.setblocking(False)
        with suppress(BlockingIOError):
            filler.connect(("127.0.0.1", port))
        fillers.append(filler)
    time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        for filler in fillers:
            filler.close()
        listener.close()


@contextmanager
def _scripted(write: Callable[[socket.socket], None]) -> Iterator[str]:
    with serving(lambda n, request: write) as served:
        yield served.url


FAILURES: dict[str, Callable[[], AbstractContextManager[str]]] = {
    "refused": _refused,
    "connect-timeout": _connect_timeout,
    "head-timeout": lambda: _scripted(_stall_after(b"")),
    "reset-before-head": lambda: _scripted(_reset_after(b"")),
    "read-timeout-mid-stream": lambda: _scripted(_stall_after(_STARTED)),
    "reset-mid-stream": lambda: _scripted(_reset_after(_STARTED)),
}
