"""A tiny reader of the emulator's wire bytes for its tests, independent of the decoder.

It knows only what the seeds print: events separated by a blank line, ``event:`` and
``data:`` lines, ``:`` comments. A bug in the project's SSE parser cannot hide here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx

CHAT = "/chat/completions"


@dataclass
class Event:
    """One blank-line-separated block of the body."""

    event: str | None = None
    data: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.data)

    def json(self) -> Any:
        return json.loads(self.text)


def events(body: bytes) -> list[Event]:
    """Split an LF-framed body into events."""
    found = []
    for block in body.decode("utf-8").split("\n\n"):
        if not block:
            continue
        event = Event()
        for line in block.split("\n"):
            if line.startswith(":"):
                event.comments.append(line[1:].strip())
            elif line.startswith("event: "):
                event.event = line[len("event: ") :]
            elif line.startswith("data: "):
                event.data.append(line[len("data: ") :])
            else:
                raise AssertionError(f"unexpected line {line!r} in {block!r}")
        found.append(event)
    return found


def payloads(body: bytes) -> list[Any]:
    """The data of every event: JSON decoded, ``[DONE]`` kept as the string."""
    return [e.text if e.text == "[DONE]" else e.json() for e in events(body) if e.data]


def deltas(body: bytes) -> list[dict[str, Any]]:
    """The ``choices[0].delta`` of every chunk that has a choice."""
    return [
        p["choices"][0]["delta"] for p in payloads(body) if isinstance(p, dict) and p.get("choices")
    ]


def text_of(body: bytes, field_name: str = "content") -> str:
    """The concatenation of one delta field over the stream."""
    return "".join(d.get(field_name) or "" for d in deltas(body))


def chat(
    client: httpx.Client,
    dialect: str = "openai",
    content: str = "echo: Hello there",
    *,
    headers: dict[str, str] | None = None,
    path: str | None = None,
    **fields: Any,
) -> httpx.Response:
    """POST a streaming chat request to a dialect and read the whole response."""
    body: dict[str, Any] = {
        "model": "test-model",
        "messages": [{"role": "user", "content": content}],
    }
    body["stream"] = True
    body.update(fields)
    prefix = "" if dialect == "openai" else f"/{dialect}"
    all_headers = {"SPASS-User-Id": "user-1"} if dialect == "spass" else {}
    all_headers.update(headers or {})
    return client.post(path or f"{prefix}/v1{CHAT}", json=body, headers=all_headers)
