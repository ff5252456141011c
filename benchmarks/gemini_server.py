"""A minimal loopback server of Google's Gemini API stream for benchmarks.

The sibling of ``stream_server.py`` and ``anthropic_server.py`` (whose helpers it uses) for
``POST /v1beta/models/{model}:streamGenerateContent?alt=sse``: every request there gets the
same prebuilt stream, in the wire format generativelanguage.googleapis.com sends. Run as a
subprocess, so the client's CPU time is measured alone::

    python benchmarks/gemini_server.py --port 0 --deltas 10000 [--shape text]

It prints its port on the first line of stdout. A stream is ``--deltas`` frames, each
``data: <GenerateContentResponse>`` and a blank line, every line ending ``\\r\\n`` (Google's
framing), no end marker; each frame holds one candidate (no ``index``: the API leaves index 0
out) whose ``content`` (role ``model``) has one part:

- ``--shape text``: a ``text`` part, a word of ``The quick brown fox ...``;
- ``--shape calls``: a ``functionCall`` part, whole (Gemini sends no partial call): ``name``
  ``write``, ``args`` ``{"path": "notes<n>.txt", "content": ...}``, no ``id`` (the Gemini API
  sends none);

and ``usageMetadata`` (cumulative: ``promptTokenCount`` 25, ``candidatesTokenCount`` the
frames so far, ``totalTokenCount``), ``modelVersion`` and ``responseId``; the last frame's
candidate also has ``finishReason`` ``STOP`` (what the API says after a function call too).

The response head carries ``content-type: text/event-stream`` and Google's
``x-gemini-service-tier`` and ``server-timing`` headers; the body is one HTTP/1.1 chunk per
frame (``--framing chunked``) or a ``content-length`` body in 64 KiB writes (``--framing
length``), the first frame with the head. A request to another path (or without
``alt=sse``) is a 404, one without ``x-goog-api-key`` a 403 (the API's "Method doesn't allow
unregistered callers"), one whose body has no ``contents`` a 400, each with Google's error
body: a client that asks the wrong thing fails its benchmark's checks instead of being
measured. It stops when stdin closes (bounded: at most --lifetime seconds); benchmarks start
it with :func:`running`, which stops it however the run ends.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
from collections.abc import Iterator
from typing import Any

from anthropic_server import serve_answer
from stream_server import chunked, raise_open_files, serving, text_words

SHAPES = ("text", "calls")
MODEL = "gemini-2.5-flash"
PATH = f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse"
RESPONSE_ID = "bench01gemini"
#: The function every frame of the ``calls`` shape calls.
CALL_NAME = "write"
#: ``promptTokenCount`` of every frame.
PROMPT_TOKENS = 25


def call_arg(n: int) -> dict[str, str]:
    """The ``args`` of the ``calls`` shape's function call ``n`` (from 0)."""
    return {"path": f"notes{n}.txt", "content": f"line {n} of the notes"}


def _part(shape: str, n: int, word: str) -> dict[str, Any]:
    if shape == "calls":
        return {"functionCall": {"name": CALL_NAME, "args": call_arg(n)}}
    return {"text": word}


def responses(deltas: int, shape: str = "text") -> list[dict[str, Any]]:
    """The ``GenerateContentResponse`` of each frame, in order."""
    out = []
    for n, word in enumerate(text_words(deltas)):
        candidate: dict[str, Any] = {"content": {"parts": [_part(shape, n, word)], "role": "model"}}
        if n == deltas - 1:
            candidate["finishReason"] = "STOP"
        usage = {
            "promptTokenCount": PROMPT_TOKENS,
            "candidatesTokenCount": n + 1,
            "totalTokenCount": PROMPT_TOKENS + n + 1,
        }
        out.append({
            "candidates": [candidate], "usageMetadata": usage,
            "modelVersion": MODEL, "responseId": RESPONSE_ID,
        })  # fmt: skip
    return out


def frames(deltas: int, shape: str = "text") -> list[bytes]:
    """The SSE frames of one stream (Google's ``\\r\\n`` line ends)."""
    return [
        b"data: " + json.dumps(response, separators=(",", ":")).encode() + b"\r\n\r\n"
        for response in responses(deltas, shape)
    ]


_HEAD = (
    "HTTP/1.1 {status}\r\ncontent-type: {kind}\r\nvary: Origin, X-Origin, Referer\r\n"
    "x-gemini-service-tier: standard\r\nserver-timing: gfet4t7; dur=120\r\n{length}\r\n"
)


def _prepare(deltas: int, shape: str, framing: str) -> tuple[bytes, list[bytes]]:
    """The first write (head and first frame) and the writes after it."""
    data = frames(deltas, shape)
    kind = "text/event-stream"
    if framing == "length":
        length = f"content-length: {sum(len(frame) for frame in data)}\r\n"
        head = _HEAD.format(status="200 OK", kind=kind, length=length).encode()
        rest = b"".join(data[1:])
        return head + data[0], [rest[at : at + 65536] for at in range(0, len(rest), 65536)]
    head = _HEAD.format(status="200 OK", kind=kind, length="transfer-encoding: chunked\r\n")
    body = [chunked(frame) for frame in data]
    return head.encode() + body[0], [b"".join(body[1:]) + b"0\r\n\r\n"]


def _refusal(request: bytes, body: bytes) -> bytes | None:
    """Google's error answer for a request the API would refuse; None for a good one."""
    line, *lines = request.decode("latin-1").split("\r\n")
    headers = {name.strip().lower() for name, _, _ in (item.partition(":") for item in lines)}
    if line.split(" ")[:2] != ["POST", PATH]:
        code, status, text = 404, "NOT_FOUND", f"no route: {line}"
    elif "x-goog-api-key" not in headers:
        code, status, text = 403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers"
    elif not _has_contents(body):
        code, status = 400, "INVALID_ARGUMENT"
        text = "* GenerateContentRequest.contents: contents is not specified"
    else:
        return None
    error = json.dumps({"error": {"code": code, "message": text, "status": status}}).encode()
    phrase = {404: "Not Found", 403: "Forbidden", 400: "Bad Request"}[code]
    length = f"content-length: {len(error)}\r\n"
    head = _HEAD.format(status=f"{code} {phrase}", kind="application/json; charset=UTF-8",
                        length=length)  # fmt: skip
    return head.encode() + error


def _has_contents(body: bytes) -> bool:
    try:
        request = json.loads(body)
    except ValueError:
        return False
    return isinstance(request, dict) and bool(request.get("contents"))


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
    base URL Google's clients append ``/v1beta/models/...`` to)."""
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
