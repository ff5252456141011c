"""A minimal loopback SSE server for benchmarks: every POST gets the same prebuilt stream.

Run as a subprocess (so the client's CPU time is measured alone)::

    python benchmarks/stream_server.py --port 0 --chunks 10000

It prints its port on the first line of stdout. The body is written as one HTTP/1.1
chunk per frame; the first frame goes out with the head, so time-to-first-token is the
client's own overhead. It stops when stdin closes (bounded: at most --lifetime seconds).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys


def frames(chunks: int) -> list[bytes]:
    base = {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 1715000000,
        "model": "bench-model",
    }
    words = ["The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", "."]
    out = [
        {
            **base,
            "choices": [
                {"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}
            ],
        }
    ]
    out += [
        {
            **base,
            "choices": [{"index": 0, "delta": {"content": words[i % 10]}, "finish_reason": None}],
        }
        for i in range(chunks - 3)
    ]
    out.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    out.append(
        {
            **base,
            "choices": [],
            "usage": {"prompt_tokens": 5, "completion_tokens": chunks, "total_tokens": chunks + 5},
        }
    )
    data = [b"data: " + json.dumps(f, separators=(",", ":")).encode() + b"\n\n" for f in out]
    return [*data, b"data: [DONE]\n\n"]


def chunked(frame: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(frame), frame)


async def serve(port: int, chunks: int, lifetime: float) -> None:
    body = [chunked(f) for f in frames(chunks)]
    head = (
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
        b"transfer-encoding: chunked\r\ncache-control: no-cache\r\n\r\n"
    )
    rest = b"".join(body[1:]) + b"0\r\n\r\n"

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                request = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in request.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                await reader.readexactly(length)
                writer.write(head + body[0])
                await writer.drain()
                writer.write(rest)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port)
    print(server.sockets[0].getsockname()[1], flush=True)
    loop = asyncio.get_running_loop()
    stdin_closed = loop.run_in_executor(None, sys.stdin.read)
    await asyncio.wait([stdin_closed], timeout=lifetime)
    server.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--lifetime", type=float, default=600.0)
    args = parser.parse_args()
    asyncio.run(serve(args.port, args.chunks, args.lifetime))


if __name__ == "__main__":
    main()
