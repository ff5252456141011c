"""A loopback HTTP/1.1 chat server that counts the connections it accepts (httpx's
MockTransport has no connections): ``serving(Behaviour(...))`` yields its base URL.
Used by the keep-alive tests and the adapters' close tests."""

from __future__ import annotations

import json
import socketserver
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

__all__ = ["FRAMES", "PAYLOAD", "Behaviour", "serving", "wait_until"]

PAYLOAD = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
FRAMES = (
    b"".join(
        b"data: " + json.dumps(chunk).encode() + b"\n\n"
        for chunk in (
            {"choices": [{"index": 0, "delta": {"content": "hello"}}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        )
    )
    + b"data: [DONE]\n\n"
)


def chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


@dataclass
class Behaviour:
    """How the server answers: ``framing`` ``chunked`` or ``length``; ``after``: bytes sent
    after the frames (before the end of the body); ``hold``: seconds the body stays open
    after ``[DONE]`` (chunked only). ``connections`` counts the connections accepted, ``ended``
    those the client closed."""

    framing: str = "chunked"
    after: bytes = b""
    hold: float = 0.0
    connections: int = 0
    ended: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def _answer(behaviour: Behaviour) -> tuple[bytes, bytes]:
    """The head and body up to the end, and the end."""
    if behaviour.framing == "length":
        body = FRAMES + behaviour.after
        head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: %d\r\n\r\n"
        return head % len(body) + body, b""
    head = (
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    )
    after = chunk(behaviour.after) if behaviour.after else b""
    return head + chunk(FRAMES) + after, b"0\r\n\r\n"


class _Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        behaviour: Behaviour = self.server.behaviour  # type: ignore[attr-defined]
        with behaviour.lock:
            behaviour.connections += 1
        while True:
            length = 0
            line = self.rfile.readline()
            if not line:  # the client closed the connection
                with behaviour.lock:
                    behaviour.ended += 1
                return
            while line not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                line = self.rfile.readline()
            self.rfile.read(length)
            body, end = _answer(behaviour)
            if behaviour.hold:
                self.wfile.write(body)
                self.wfile.flush()
                time.sleep(behaviour.hold)
                return
            self.wfile.write(body + end)
            self.wfile.flush()


@contextmanager
def serving(behaviour: Behaviour) -> Iterator[str]:
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    server.behaviour = behaviour  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def wait_until(predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Poll ``predicate`` every 10 ms until it holds or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True
