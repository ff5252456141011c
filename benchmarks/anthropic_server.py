"""A minimal loopback server of Anthropic's Messages stream for benchmarks.

The sibling of ``stream_server.py`` (whose helpers it uses) for ``POST /v1/messages``: every
request there gets the same prebuilt stream, in Anthropic's wire format (``event:`` and
``data:`` lines). Run as a subprocess, so the client's CPU time is measured alone::

    python benchmarks/anthropic_server.py --port 0 --deltas 10000 [--shape text]

It prints its port on the first line of stdout. A stream is what the API sends:

- ``message_start`` (an id, the model, empty content, usage with ``input_tokens``,
  ``cache_creation_input_tokens``, ``cache_read_input_tokens`` and ``output_tokens`` 1);
- ``content_block_start`` of block 0, a ``ping``;
- ``--deltas`` ``content_block_delta`` events: ``text_delta`` words (``--shape text``,
  ``The quick brown fox ...``) or ``input_json_delta`` pieces of one ``tool_use`` block's
  input (``--shape tools``: a JSON object of about 10.6 bytes per piece, 212 KB at 20,000,
  as ``stream_server.py``'s tool fragments);
- ``content_block_stop``, ``message_delta`` (``stop_reason`` ``end_turn`` or ``tool_use``,
  ``stop_sequence`` null, the cumulative usage again with ``output_tokens`` the delta count),
  ``message_stop``.

The response head carries ``content-type: text/event-stream; charset=utf-8`` and a
``request-id``; the body is one HTTP/1.1 chunk per event (``--framing chunked``) or a
``content-length`` body in 64 KiB writes (``--framing length``), the first event with the
head. A request to another path is a 404, one without ``anthropic-version``, a key
(``x-api-key`` or ``authorization``) or ``"stream": true`` a 400 or 401, each with the API's
error body: a client that asks the wrong thing fails its benchmark's checks instead of being
measured. It stops when stdin closes (bounded: at most --lifetime seconds); benchmarks start
it with :func:`running`, which stops it however the run ends.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from typing import Any

from stream_server import chunked, raise_open_files, serving, text_words, tool_arguments

SHAPES = ("text", "tools")
MODEL = "claude-sonnet-4-5"
MESSAGE_ID, REQUEST_ID = "msg_bench01", "req_bench01"
#: The tool_use block of the ``tools`` shape.
TOOL_ID, TOOL_NAME = "toolu_bench01", "write"
#: The usage of every stream (``output_tokens`` grows to the delta count at the end).
INPUT_TOKENS, CACHE_WRITE, CACHE_READ = 25, 3, 7


def _usage(output: int) -> dict[str, int]:
    return {
        "input_tokens": INPUT_TOKENS,
        "cache_creation_input_tokens": CACHE_WRITE,
        "cache_read_input_tokens": CACHE_READ,
        "output_tokens": output,
    }


def _frame(event: dict[str, Any]) -> bytes:
    data = json.dumps(event, separators=(",", ":"))
    return f"event: {event['type']}\ndata: {data}\n\n".encode()


def events(deltas: int, shape: str = "text") -> list[dict[str, Any]]:
    """The events of one stream, in order."""
    message = {
        "id": MESSAGE_ID, "type": "message", "role": "assistant", "model": MODEL,
        "content": [], "stop_reason": None, "stop_sequence": None, "usage": _usage(1),
    }  # fmt: skip
    if shape == "tools":
        block: dict[str, Any] = {"type": "tool_use", "id": TOOL_ID, "name": TOOL_NAME, "input": {}}
        pieces = [{"type": "input_json_delta", "partial_json": p} for p in tool_arguments(deltas)]
        stop = "tool_use"
    else:
        block = {"type": "text", "text": ""}
        pieces = [{"type": "text_delta", "text": word} for word in text_words(deltas)]
        stop = "end_turn"
    return [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": block},
        {"type": "ping"},
        *({"type": "content_block_delta", "index": 0, "delta": piece} for piece in pieces),
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": _usage(deltas),
        },
        {"type": "message_stop"},
    ]


def frames(deltas: int, shape: str = "text") -> list[bytes]:
    """The SSE frames of one stream."""
    return [_frame(event) for event in events(deltas, shape)]


_HEAD = (
    "HTTP/1.1 {status}\r\ncontent-type: {kind}\r\nrequest-id: " + REQUEST_ID + "\r\n"
    "anthropic-organization-id: org-bench\r\n{length}\r\n"
)


def _prepare(deltas: int, shape: str, framing: str) -> tuple[bytes, list[bytes]]:
    """The first write (head and first event) and the writes after it."""
    data = frames(deltas, shape)
    kind = "text/event-stream; charset=utf-8"
    if framing == "length":
        length = f"content-length: {sum(len(frame) for frame in data)}\r\n"
        head = _HEAD.format(status="200 OK", kind=kind, length=length).encode()
        rest = b"".join(data[1:])
        return head + data[0], [rest[at : at + 65536] for at in range(0, len(rest), 65536)]
    length = "transfer-encoding: chunked\r\ncache-control: no-cache\r\n"
    head = _HEAD.format(status="200 OK", kind=kind, length=length).encode()
    body = [chunked(frame) for frame in data]
    return head + body[0], [b"".join(body[1:]) + b"0\r\n\r\n"]


def _refusal(request: bytes, body: bytes) -> bytes | None:
    """The error answer for a request the API would refuse; None for a good one."""
    line, *lines = request.decode("latin-1").split("\r\n")
    headers = {name.strip().lower() for name, _, _ in (item.partition(":") for item in lines)}
    if line.split(" ")[:2] != ["POST", "/v1/messages"]:
        status, kind, text = "404 Not Found", "not_found_error", f"no route: {line}"
    elif "x-api-key" not in headers and "authorization" not in headers:
        status, kind, text = "401 Unauthorized", "authentication_error", "no key"
    elif "anthropic-version" not in headers:
        status, kind, text = "400 Bad Request", "invalid_request_error", "no anthropic-version"
    elif not streams_requested(body):
        status, kind, text = "400 Bad Request", "invalid_request_error", "stream is not true"
    else:
        return None
    error = json.dumps({"type": "error", "error": {"type": kind, "message": text}}).encode()
    length = f"content-length: {len(error)}\r\n"
    return _HEAD.format(status=status, kind="application/json", length=length).encode() + error


def streams_requested(body: bytes) -> bool:
    """Whether a request's JSON body asks for a stream (``"stream": true``)."""
    try:
        request = json.loads(body)
    except ValueError:
        return False
    return isinstance(request, dict) and request.get("stream") is True


Refusal = Callable[[bytes, bytes], "bytes | None"]


async def serve_answer(
    port: int, lifetime: float, first: bytes, rest: list[bytes], refusal: Refusal
) -> None:
    """Serve one prepared answer (``first``, then ``rest``) to every request on ``port``, or
    the error ``refusal`` makes of a request's head and body; print the port, stop when stdin
    closes or after ``lifetime`` seconds."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                request = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in request.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                body = await reader.readexactly(length)
                refused = refusal(request, body)
                for part in [refused] if refused is not None else [first, *rest]:
                    writer.write(part)
                    await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass  # the client went, or the server is stopping with this connection open
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=4096)
    print(server.sockets[0].getsockname()[1], flush=True)
    loop = asyncio.get_running_loop()
    stdin_closed = loop.run_in_executor(None, sys.stdin.read)
    await asyncio.wait([stdin_closed], timeout=lifetime)
    server.close()


async def serve(
    port: int, deltas: int, lifetime: float, shape: str = "text", framing: str = "length"
) -> None:
    first, rest = _prepare(deltas, shape, framing)
    await serve_answer(port, lifetime, first, rest, _refusal)


@contextlib.contextmanager
def running(
    deltas: int, shape: str = "text", framing: str = "length", lifetime: float = 1800.0
) -> Iterator[str]:
    """This server in a subprocess; yields its root URL (``http://127.0.0.1:<port>``, the
    base URL Anthropic clients append ``/v1/messages`` to)."""
    args = ["--deltas", str(deltas), "--shape", shape, "--framing", framing,
            "--lifetime", str(lifetime)]  # fmt: skip
    with serving(__file__, args) as root:
        yield root


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--deltas", type=int, default=10_000)
    parser.add_argument("--shape", choices=SHAPES, default="text")
    parser.add_argument("--framing", choices=("chunked", "length"), default="length")
    parser.add_argument("--lifetime", type=float, default=1800.0)
    args = parser.parse_args()
    raise_open_files()
    asyncio.run(serve(args.port, args.deltas, args.lifetime, args.shape, args.framing))


if __name__ == "__main__":
    main()
