"""Shared helpers of the ChatSSE tests: dialect lists, SSE bodies, a recording transport."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

import httpx

from langchain_sse import ChatSSE

#: The five seed gateways, and plain OpenAI.
SEED_DIALECTS = ("shroud", "streamchat", "spass", "gateway", "aivene")
ALL_DIALECTS = ("openai", *SEED_DIALECTS)
#: Dialects whose wire carries reasoning text (the others keep it hidden).
REASONING_DIALECTS = ("openai", "shroud", "aivene")
#: SPASS rejects requests without this header.
SPASS_HEADERS = {"SPASS-User-Id": "user-1"}
#: Every await and read in these tests is bounded.
TIMEOUT = 10.0

#: ``make_model(dialect="openai", **fields)`` (the conftest fixture).
ModelFactory = Callable[..., ChatSSE]


def sse_body(*payloads: dict[str, Any] | str, done: bool = True) -> bytes:
    """An SSE body: each payload as one ``data:`` event (a str is sent as it is)."""
    events = [p if isinstance(p, str) else f"data: {json.dumps(p)}\n\n" for p in payloads]
    if done:
        events.append("data: [DONE]\n\n")
    return "".join(events).encode()


def chunk(delta: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    """A chat.completion.chunk with one choice (``finish_reason`` in ``fields``)."""
    finish = fields.pop("finish_reason", None)
    choice = {"index": 0, "delta": delta or {}, "finish_reason": finish}
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m",
            "choices": [choice], **fields}  # fmt: skip


class Recorder:
    """A MockTransport handler that answers fixed bodies and keeps the requests."""

    def __init__(self, bodies: Iterable[bytes], headers: dict[str, str] | None = None) -> None:
        self.bodies = list(bodies)
        self.requests: list[httpx.Request] = []
        self.headers = {"content-type": "text/event-stream", **(headers or {})}

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        body = self.bodies.pop(0) if len(self.bodies) > 1 else self.bodies[0]
        return httpx.Response(200, headers=self.headers, content=body)

    def payload(self, at: int = -1) -> Any:
        """The JSON body of a recorded request."""
        return json.loads(self.requests[at].content)
