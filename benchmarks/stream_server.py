"""A minimal loopback SSE server for benchmarks: every POST gets the same prebuilt stream.

Run as a subprocess (so the client's CPU time is measured alone)::

    python benchmarks/stream_server.py --port 0 --chunks 10000 [--shape text]

It prints its port on the first line of stdout. The body is written as one HTTP/1.1
chunk per frame (``--framing chunked``, what an SSE server that flushes every event sends),
or with a ``content-length`` in 64 KiB writes (``--framing length``, as
``bench_langchain.py``'s replay server: a fast gateway, no per-frame HTTP framing to
parse); the first frame goes out with the head, so time-to-first-token is the client's own
overhead. It stops when stdin closes (bounded: at most --lifetime seconds).
Benchmarks start it with :func:`running`, which stops it however the run ends.

Shapes (``--shape``), each a role frame, the middle frames, a finish frame, a usage frame
and ``[DONE]`` (``--chunks`` counts them all but ``[DONE]``):

- ``text``: content words (``The quick brown fox ...``), one per frame;
- ``numbered``: content ``w<n> `` where ``n`` is the frame's number (1 = the first content
  frame), so a client can tell which frame a chunk came from;
- ``tools``: one tool call (``id`` and ``name`` on its first fragment) whose JSON arguments
  arrive in ``chunks - 4`` pieces of about 10.6 bytes (212 KB at 20,000 pieces), the shape
  of ``bench_decoder.py``'s "tool fragments".

It holds thousands of connections at once (``backlog`` 4096, the soft open-files limit
raised to the hard one).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import resource
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

BASE = {
    "id": "chatcmpl-bench",
    "object": "chat.completion.chunk",
    "created": 1715000000,
    "model": "bench-model",
}
WORDS = ["The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", "."]
SHAPES = ("text", "numbered", "tools")
#: The tool call of the ``tools`` shape.
CALL_ID, CALL_NAME = "call_bench", "write"


def _chunk(delta: dict[str, Any] | None, finish: str | None = None) -> dict[str, Any]:
    return {**BASE, "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}]}


def text_words(count: int) -> list[str]:
    """The content pieces of the ``text`` shape with ``count`` content frames."""
    return [WORDS[i % len(WORDS)] for i in range(count)]


def numbered_words(count: int) -> list[str]:
    """The content pieces of the ``numbered`` shape (frame ``n`` says ``w<n> ``)."""
    return [f"w{n} " for n in range(1, count + 1)]


def tool_arguments(pieces: int) -> list[str]:
    """The argument pieces of the ``tools`` shape: a JSON object cut into ``pieces``."""
    size = max(pieces * 106 // 10, 60)
    filler = ("lorem ipsum dolor sit amet, " * (size // 28 + 2))[: size - 40]
    arguments = json.dumps({"path": "notes.txt", "content": filler})
    cuts = [len(arguments) * i // pieces for i in range(pieces + 1)]
    return [arguments[a:b] for a, b in itertools.pairwise(cuts)]


def _middle(chunks: int, shape: str) -> list[dict[str, Any]]:
    if shape == "tools":
        head = {"index": 0, "id": CALL_ID, "type": "function"}
        opening = {"tool_calls": [{**head, "function": {"name": CALL_NAME, "arguments": ""}}]}
        pieces = [
            {"tool_calls": [{"index": 0, "function": {"arguments": part}}]}
            for part in tool_arguments(max(chunks - 4, 1))
        ]
        return [_chunk(opening), *(_chunk(piece) for piece in pieces)]
    words = (numbered_words if shape == "numbered" else text_words)(max(chunks - 3, 1))
    return [_chunk({"content": word}) for word in words]


def frames(chunks: int, shape: str = "text") -> list[bytes]:
    """The frames of one answer (``[DONE]`` last)."""
    out = [_chunk({"role": "assistant", "content": ""}), *_middle(chunks, shape)]
    out.append(_chunk({}, "tool_calls" if shape == "tools" else "stop"))
    out.append(
        {
            **BASE,
            "choices": [],
            "usage": {"prompt_tokens": 5, "completion_tokens": chunks, "total_tokens": chunks + 5},
        }
    )
    data = [b"data: " + json.dumps(f, separators=(",", ":")).encode() + b"\n\n" for f in out]
    return [*data, b"data: [DONE]\n\n"]


def chunked(frame: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(frame), frame)


def raise_open_files() -> int:
    """Raise the soft limit on open files to the hard one (thousands of sockets); the new
    soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def _prepare(chunks: int, shape: str, framing: str) -> tuple[bytes, list[bytes]]:
    """The first write (head and first frame) and the writes after it."""
    data = frames(chunks, shape)
    if framing == "length":
        size = sum(len(frame) for frame in data)
        head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: %d\r\n\r\n"
        rest = b"".join(data[1:])
        return head % size + data[0], [rest[at : at + 65536] for at in range(0, len(rest), 65536)]
    body = [chunked(f) for f in data]
    head = (
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
        b"transfer-encoding: chunked\r\ncache-control: no-cache\r\n\r\n"
    )
    return head + body[0], [b"".join(body[1:]) + b"0\r\n\r\n"]


async def serve(
    port: int, chunks: int, lifetime: float, shape: str = "text", framing: str = "chunked"
) -> None:
    first, rest = _prepare(chunks, shape, framing)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                request = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in request.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                await reader.readexactly(length)
                writer.write(first)
                await writer.drain()
                for part in rest:
                    writer.write(part)
                    await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        except asyncio.CancelledError:
            # The server is stopping with this connection open: end quietly (a cancelled
            # handler makes asyncio 3.11 log a traceback for the connection).
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=4096)
    print(server.sockets[0].getsockname()[1], flush=True)
    loop = asyncio.get_running_loop()
    stdin_closed = loop.run_in_executor(None, sys.stdin.read)
    await asyncio.wait([stdin_closed], timeout=lifetime)
    server.close()


@contextlib.contextmanager
def serving(script: str, args: list[str]) -> Iterator[str]:
    """A server script in a subprocess (it prints its port, and stops when its stdin
    closes); yields ``http://127.0.0.1:<port>``. Killed if it does not stop within 10 s."""
    proc = subprocess.Popen(
        [sys.executable, script, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        yield f"http://127.0.0.1:{proc.stdout.readline().strip()}"
    finally:
        assert proc.stdin is not None
        proc.stdin.close()  # the server stops when its stdin closes
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        with contextlib.suppress(OSError):
            proc.stdout.close()  # type: ignore[union-attr]


@contextlib.contextmanager
def running(
    chunks: int, shape: str = "text", framing: str = "chunked", lifetime: float = 900.0
) -> Iterator[str]:
    """This server in a subprocess; yields its base URL (``http://127.0.0.1:<port>/v1``)."""
    args = ["--chunks", str(chunks), "--shape", shape, "--framing", framing,
            "--lifetime", str(lifetime)]  # fmt: skip
    with serving(__file__, args) as root:
        yield f"{root}/v1"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--shape", choices=SHAPES, default="text")
    parser.add_argument("--framing", choices=("chunked", "length"), default="chunked")
    parser.add_argument("--lifetime", type=float, default=600.0)
    args = parser.parse_args()
    raise_open_files()
    asyncio.run(serve(args.port, args.chunks, args.lifetime, args.shape, args.framing))


if __name__ == "__main__":
    main()
