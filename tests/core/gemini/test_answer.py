"""The Gemini API's own answer object (``GenerateContentResponse``), built in the core from a
decoded answer: the parts in Gemini's order with each signed part's signature back on its
part, the finish reason in Gemini's word, the usage as counted (SSELLM gives it as ``raw``:
tests/adapters/test_gemini_raw.py)."""

from __future__ import annotations

import json
from pathlib import Path

from sse_core import decode
from sse_core.protocols.answer import metadata
from sse_core.protocols.gemini import RESPONSE, response_object

FIXTURES = Path(__file__).parent / "fixtures"


def _frames(*frames: dict[str, object]) -> bytes:
    return b"".join(b"data: " + json.dumps(frame).encode() + b"\r\n\r\n" for frame in frames)


CALL = {"name": "get_weather", "args": {"city": "Paris"}}
BODY = _frames(
    {
        "candidates": [{"content": {"role": "model", "parts": [
            {"text": "Let me look.", "thought": True},
            {"functionCall": CALL, "thoughtSignature": "c2lnLWNhbGw="},
        ]}}],
        "responseId": "resp-1",
        "modelVersion": "gemini-3-pro-preview",
    },
    {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "Checking"}]},
                        "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 7, "candidatesTokenCount": 5,
                          "thoughtsTokenCount": 3, "totalTokenCount": 15},
    },
)  # fmt: skip


def test_a_whole_answer_is_its_generate_content_response() -> None:
    made = response_object(decode(BODY, protocol="gemini"))
    (candidate,) = made["candidates"]
    assert candidate["finishReason"] == "STOP"
    assert candidate["content"]["parts"] == [
        {"text": "Let me look.", "thought": True},
        {"text": "Checking"},
        {"functionCall": CALL, "thoughtSignature": "c2lnLWNhbGw="},
    ]
    assert made["usageMetadata"]["promptTokenCount"] == 7
    assert (made["responseId"], made["modelVersion"]) == ("resp-1", "gemini-3-pro-preview")


def test_an_answer_so_far_has_no_finish_reason_yet() -> None:
    completion = decode(BODY, protocol="gemini")
    so_far = RESPONSE.streamed(completion_meta(completion), None, {}, completion.choices[0])
    assert "finishReason" not in so_far["candidates"][0]
    assert "usageMetadata" not in so_far


def completion_meta(completion: object) -> object:

    return metadata(completion)  # type: ignore[arg-type]


def test_every_real_capture_gives_its_signatures_back_on_their_parts() -> None:
    for path in sorted(FIXTURES.glob("*.sse")):
        try:
            completion = decode(path.read_bytes(), protocol="gemini")
        except Exception:
            continue
        sent = path.read_text()
        parts = response_object(completion)["candidates"][0]["content"]["parts"]
        for part in parts:
            signature = part.get("thoughtSignature")
            assert signature is None or signature in sent, path.name
