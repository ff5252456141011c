"""A loopback HTTP/1.1 server that answers with whatever bytes a test scripts, for hostile
gateways (bytes after a body, informational responses, dribbled heads, redirects, bombs).

``serving(answer)`` yields a :class:`Served`: its ``url`` (a ``/v1`` base URL), and counts of
the connections and requests it saw. ``answer(n, request)`` returns the bytes to write for
request ``n`` (from 0; the request head and body as received), or a callable that gets the
socket and writes itself. Every connection and wait is bounded in time.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

__all__ = ["Served", "read_request", "response", "serving"]

Writer = Callable[[socket.socket], None]
Answer = Callable[[int, bytes], "bytes | Writer | None"]
_LIMIT = 20.0  # no connection lives longer than this


def response(
    body: bytes,
    *,
    status: str = "200 OK",
    headers: tuple[str, ...] = ("content-type: text/event-stream",),
) -> bytes:
    """A whole response with a content-length."""
    head = "\r\n".join((f"HTTP/1.1 {status}", *headers, f"content-length: {len(body)}"))
    return head.encode() + b"\r\n\r\n" + body


def read_request(conn: socket.socket) -> bytes | None:
    """One request (head and content-length body), or None when the client closed."""
    data = b""
    while b"\r\n\r\n" not in data:
        piece = conn.recv(65536)
        if not piece:
            return None
        data += piece
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    while len(body) < length:
        piece = conn.recv(65536)
        if not piece:
            return None
        body += piece
    return head + b"\r\n\r\n" + body


@dataclass
class Served:
    url: str = ""
    connections: int = 0
    requests: list[bytes] = field(default_factory=list)
    closed: threading.Event = field(default_factory=threading.Event)  # a client hung up
    lock: threading.Lock = field(default_factory=threading.Lock)


def _serve_connection(conn: socket.socket, answer: Answer, served: Served) -> None:
    conn.settimeout(_LIMIT)
    try:
        while True:
            request = read_request(conn)
            if request is None:
                served.closed.set()
                return
            with served.lock:
                number = len(served.requests)
                served.requests.append(request)
            reply = answer(number, request)
            if reply is None:
                return
            if callable(reply):
                reply(conn)
            else:
                conn.sendall(reply)
    except OSError:
        served.closed.set()
    finally:
        conn.close()


@contextmanager
def serving(answer: Answer) -> Iterator[Served]:
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    served = Served(url=f"http://127.0.0.1:{listener.getsockname()[1]}/v1")
    stop = threading.Event()

    def accept() -> None:
        deadline = time.monotonic() + 120
        while not stop.is_set() and time.monotonic() < deadline:
            try:
                conn, _ = listener.accept()
            except (TimeoutError, OSError):
                continue
            with served.lock:
                served.connections += 1
            threading.Thread(
                target=_serve_connection, args=(conn, answer, served), daemon=True
            ).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        stop.set()
        thread.join(5)
        listener.close()
