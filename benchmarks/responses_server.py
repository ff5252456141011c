"""A minimal loopback server of OpenAI's Responses stream for benchmarks.

The sibling of ``stream_server.py`` (whose helpers it uses) and ``anthropic_server.py`` for
``POST /v1/responses``: every request there gets the same prebuilt stream, in the wire format
api.openai.com sends (an ``event:`` line naming each event's ``type``, ``sequence_number``
counting from 0, no ``[DONE]``). Run as a subprocess, so the client's CPU time is measured
alone::

    python benchmarks/responses_server.py --port 0 --deltas 10000 [--shape text]

It prints its port on the first line of stdout. A stream is what the API sends:

- ``response.created`` and ``response.in_progress``, each with the response object (status
  ``in_progress``, no output, no usage);
- ``response.output_item.added`` of item 0: a message (``--shape text``), then
  ``response.content_part.added`` of an empty ``output_text`` part; or a ``function_call``
  with its ``call_id``, name and empty arguments (``--shape tools``);
- ``--deltas`` ``response.output_text.delta`` words (``The quick brown fox ...``), or
  ``response.function_call_arguments.delta`` pieces of the call's JSON arguments (about 10.6
  bytes per piece, 212 KB at 20,000, as ``stream_server.py``'s tool fragments); each delta
  with the ``obfuscation`` padding the API adds by default;
- ``response.output_text.done`` (the whole text), ``response.content_part.done``, or
  ``response.function_call_arguments.done`` (the whole arguments and the name); then
  ``response.output_item.done`` with the whole item;
- ``response.completed`` with the whole response object: status ``completed``, the output,
  and the usage (``input_tokens`` with ``input_tokens_details.cached_tokens`` and
  ``cache_write_tokens``,
  ``output_tokens`` the delta count with ``output_tokens_details.reasoning_tokens``,
  ``total_tokens``).

The shapes are those of the openai SDK's ``ResponseStreamEvent`` types (every field they
require is sent), so ``ChatOpenAI(use_responses_api=True)``, llama-index's
``OpenAIResponses`` and ``client.responses.create(stream=True)`` all parse it. The response
head carries ``content-type: text/event-stream; charset=utf-8`` and an ``x-request-id``; the
body is one HTTP/1.1 chunk per event (``--framing chunked``) or a ``content-length`` body in
64 KiB writes (``--framing length``), the first event with the head. A request to another
path is a 404, one without a key (``authorization``) a 401, one without ``"stream": true`` a
400, each with OpenAI's error body (``{"error": {"message", "type", "param", "code"}}``): a
client that asks the wrong thing fails its benchmark's checks instead of being measured. It
stops when stdin closes (bounded: at most --lifetime seconds); benchmarks start it with
:func:`running`, which stops it however the run ends.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
from collections.abc import Iterator
from typing import Any

from anthropic_server import serve_answer, streams_requested
from stream_server import chunked, raise_open_files, serving, text_words, tool_arguments

SHAPES = ("text", "tools")
MODEL = "gpt-5-mini"
RESPONSE_ID, REQUEST_ID = "resp_bench01", "req_bench01"
MESSAGE_ID = "msg_bench01"
#: The function call of the ``tools`` shape: its item id, call id and name.
ITEM_ID, CALL_ID, TOOL_NAME = "fc_bench01", "call_bench01", "write"
#: The usage of every stream (``output_tokens`` is the delta count).
INPUT_TOKENS, CACHED_TOKENS, CACHE_WRITE_TOKENS, REASONING_TOKENS = 25, 7, 3, 0
CREATED = 1764000000


def usage(output: int) -> dict[str, Any]:
    """The usage object of the finished response."""
    return {
        "input_tokens": INPUT_TOKENS,
        "input_tokens_details": {
            "cached_tokens": CACHED_TOKENS,
            "cache_write_tokens": CACHE_WRITE_TOKENS,
        },
        "output_tokens": output,
        "output_tokens_details": {"reasoning_tokens": REASONING_TOKENS},
        "total_tokens": INPUT_TOKENS + output,
    }


def _response(status: str, output: list[dict[str, Any]], deltas: int) -> dict[str, Any]:
    """The response object, with the request's settings echoed as the API returns them."""
    finished = status == "completed"
    return {
        "id": RESPONSE_ID, "object": "response", "created_at": CREATED, "status": status,
        "background": False, "error": None, "incomplete_details": None, "instructions": None,
        "max_output_tokens": None, "max_tool_calls": None, "model": MODEL, "output": output,
        "parallel_tool_calls": True, "previous_response_id": None, "prompt_cache_key": None,
        "reasoning": {"effort": None, "summary": None}, "safety_identifier": None,
        "service_tier": "default" if finished else "auto", "store": False, "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"}, "tool_choice": "auto",
        "tools": [], "top_logprobs": 0, "top_p": 1.0, "truncation": "disabled",
        "usage": usage(deltas) if finished else None, "user": None, "metadata": {},
    }  # fmt: skip


def _padding(number: int, delta: str) -> str:
    """The ``obfuscation`` field: characters that even out a delta event's size."""
    return hashlib.sha256(f"{number}:{delta}".encode()).hexdigest()[: max(2, 16 - len(delta))]


def _text_item(deltas: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The events of a message item streamed in ``deltas`` words, and the whole item."""
    words = text_words(deltas)
    text = "".join(words)
    at = {"item_id": MESSAGE_ID, "output_index": 0, "content_index": 0}
    part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
    whole = {"id": MESSAGE_ID, "type": "message", "status": "completed",
             "content": [{**part, "text": text}], "role": "assistant"}  # fmt: skip
    opened = {**whole, "status": "in_progress", "content": []}
    return [
        {"type": "response.output_item.added", "output_index": 0, "item": opened},
        {"type": "response.content_part.added", **at, "part": part},
        *({"type": "response.output_text.delta", **at, "delta": w, "logprobs": []} for w in words),
        {"type": "response.output_text.done", **at, "text": text, "logprobs": []},
        {"type": "response.content_part.done", **at, "part": {**part, "text": text}},
        {"type": "response.output_item.done", "output_index": 0, "item": whole},
    ], whole


def _call_item(deltas: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The events of a function call whose arguments come in ``deltas`` pieces, and the
    whole item."""
    pieces = tool_arguments(deltas)
    arguments = "".join(pieces)
    at = {"item_id": ITEM_ID, "output_index": 0}
    whole = {"id": ITEM_ID, "type": "function_call", "status": "completed",
             "arguments": arguments, "call_id": CALL_ID, "name": TOOL_NAME}  # fmt: skip
    opened = {**whole, "status": "in_progress", "arguments": ""}
    done = {"type": "response.function_call_arguments.done", **at, "arguments": arguments}
    return [
        {"type": "response.output_item.added", "output_index": 0, "item": opened},
        *({"type": "response.function_call_arguments.delta", **at, "delta": p} for p in pieces),
        {**done, "name": TOOL_NAME},
        {"type": "response.output_item.done", "output_index": 0, "item": whole},
    ], whole


def events(deltas: int, shape: str = "text") -> list[dict[str, Any]]:
    """The events of one stream, in order, numbered."""
    items, whole = (_call_item if shape == "tools" else _text_item)(deltas)
    stream = [
        {"type": "response.created", "response": _response("in_progress", [], deltas)},
        {"type": "response.in_progress", "response": _response("in_progress", [], deltas)},
        *items,
        {"type": "response.completed", "response": _response("completed", [whole], deltas)},
    ]
    numbered = []
    for number, fields in enumerate(stream):
        event = {"type": fields["type"], "sequence_number": number, **fields}
        if event["type"].endswith(".delta"):
            event["obfuscation"] = _padding(number, event["delta"])
        numbered.append(event)
    return numbered


def _frame(event: dict[str, Any]) -> bytes:
    data = json.dumps(event, separators=(",", ":"))
    return f"event: {event['type']}\ndata: {data}\n\n".encode()


def frames(deltas: int, shape: str = "text") -> list[bytes]:
    """The SSE frames of one stream."""
    return [_frame(event) for event in events(deltas, shape)]


_HEAD = (
    "HTTP/1.1 {status}\r\ncontent-type: {kind}\r\nx-request-id: " + REQUEST_ID + "\r\n"
    "openai-version: 2020-10-01\r\nopenai-processing-ms: 42\r\n{length}\r\n"
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
    method, path = [*line.split(" "), "", ""][:2]
    param = None
    if (method, path) != ("POST", "/v1/responses"):
        status, code, text = "404 Not Found", None, f"Invalid URL ({method} {path})"
    elif "authorization" not in headers:
        status, code = "401 Unauthorized", None
        text = "You didn't provide an API key. (an Authorization: Bearer header)"
    elif not streams_requested(body):
        status, code, param = "400 Bad Request", "invalid_value", "stream"
        text = "This benchmark server only streams: send 'stream': true."
    else:
        return None
    error = {"message": text, "type": "invalid_request_error", "param": param, "code": code}
    data = json.dumps({"error": error}).encode()
    length = f"content-length: {len(data)}\r\n"
    return _HEAD.format(status=status, kind="application/json", length=length).encode() + data


async def serve(
    port: int, deltas: int, lifetime: float, shape: str = "text", framing: str = "length"
) -> None:
    first, rest = _prepare(deltas, shape, framing)
    await serve_answer(port, lifetime, first, rest, _refusal)


@contextlib.contextmanager
def running(
    deltas: int, shape: str = "text", framing: str = "length", lifetime: float = 1800.0
) -> Iterator[str]:
    """This server in a subprocess; yields its base URL (``http://127.0.0.1:<port>/v1``, the
    one OpenAI clients append ``/responses`` to)."""
    args = ["--deltas", str(deltas), "--shape", shape, "--framing", framing,
            "--lifetime", str(lifetime)]  # fmt: skip
    with serving(__file__, args) as root:
        yield f"{root}/v1"


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
