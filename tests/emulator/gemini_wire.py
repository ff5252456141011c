"""A tiny reader of the ``gemini`` dialect's bytes for the emulator's tests.

It knows only what Google's documentation and captures show: ``data: <JSON>`` events, each
line ended by CRLF and each event by a blank line, no end marker; a JSON array for a stream
without ``alt=sse``; a whole ``GenerateContentResponse`` for ``:generateContent``. It is
written here, never with the decoder's code (the emulator's tests import no decoder).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx

ROOT = "/gemini/v1beta/models"
MODEL = "gemini-2.5-flash"
GEMINI3 = "gemini-3-flash-preview"
FAULT = "X-Emulator-Fault"
WEATHER = {
    "name": "get_weather",
    "description": "Get the weather for a city",
    "parameters": {
        "type": "OBJECT",
        "properties": {"city": {"type": "STRING"}},
        "required": ["city"],
    },
}


def url(model: str = MODEL, method: str = "streamGenerateContent", *, sse: bool = True) -> str:
    """The path of a call (``?alt=sse`` for an event stream)."""
    return f"{ROOT}/{model}:{method}" + ("?alt=sse" if sse and method != "generateContent" else "")


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "parts": [{"text": text}]}


def body_of(text: str = "count to 5", **fields: Any) -> dict[str, Any]:
    return {"contents": [user(text)]} | fields


def post(
    client: httpx.Client,
    text: str = "count to 5",
    *,
    model: str = MODEL,
    method: str = "streamGenerateContent",
    sse: bool = True,
    headers: dict[str, str] | None = None,
    **fields: Any,
) -> httpx.Response:
    """POST a request to the gemini dialect and read the whole response."""
    return client.post(url(model, method, sse=sse), json=body_of(text, **fields), headers=headers)


def sse_payloads(body: bytes) -> list[dict[str, Any]]:
    """Each event's JSON; every event is one ``data:`` line, CRLF-framed, nothing else."""
    text = body.decode("utf-8")
    assert text.endswith("\r\n\r\n"), text[-40:]
    found = []
    for block in text[: -len("\r\n\r\n")].split("\r\n\r\n"):
        assert block.startswith("data: ") and "\n" not in block, block
        found.append(json.loads(block[len("data: ") :]))
    return found


@dataclass
class Read:
    """A Gemini stream (or whole response) assembled: parts in order, usage last-wins."""

    text: str = ""
    thoughts: str = ""
    calls: list[dict[str, Any]] = field(default_factory=list)
    signatures: list[tuple[str, str]] = field(default_factory=list)
    finish: list[str] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    models: set[str] = field(default_factory=set)
    ids: set[str] = field(default_factory=set)
    error: dict[str, Any] | None = None

    def add(self, chunk: dict[str, Any]) -> None:
        if "error" in chunk:
            self.error = chunk["error"]
            return
        self.usage = chunk["usageMetadata"]
        self.models.add(chunk["modelVersion"])
        self.ids.add(chunk["responseId"])
        candidate = chunk["candidates"][0]
        if "finishReason" in candidate:
            self.finish.append(candidate["finishReason"])
        for part in candidate["content"]["parts"]:
            self._part(part)

    def _part(self, part: dict[str, Any]) -> None:
        if "functionCall" in part:
            self.calls.append(part["functionCall"])
        elif part.get("thought") is True:
            self.thoughts += part["text"]
        else:
            self.text += part["text"]
        if "thoughtSignature" in part:
            kind = "call" if "functionCall" in part else "text"
            self.signatures.append((kind, part["thoughtSignature"]))


def read(chunks: list[dict[str, Any]]) -> Read:
    found = Read()
    for chunk in chunks:
        found.add(chunk)
    return found


def model_turn(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The model's content as a client sends it back: the parts of every chunk, in order,
    text pieces joined into one part (a signature kept on the part it came on)."""
    parts: list[dict[str, Any]] = []
    for chunk in chunks:
        for part in chunk["candidates"][0]["content"]["parts"]:
            joinable = "text" in part and not part.get("thought") and parts
            if joinable and "text" in parts[-1] and not parts[-1].get("thought"):
                merged = parts[-1] | {"text": parts[-1]["text"] + part["text"]}
                parts[-1] = merged | {k: v for k, v in part.items() if k != "text"}
            else:
                parts.append(dict(part))
    return {"role": "model", "parts": parts}


def assert_google_error(
    response: httpx.Response, status: int, name: str, message: str | None = None
) -> dict[str, Any]:
    """A Google error body (indented JSON, a newline after it) with that code and status."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json; charset=UTF-8"
    assert response.text.startswith('{\n  "error": {\n') and response.text.endswith("}\n")
    error: dict[str, Any] = response.json()["error"]
    assert (error["code"], error["status"]) == (status, name), error
    if message is not None:
        assert error["message"] == message, error["message"]
    return error
