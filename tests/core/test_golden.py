"""Golden tests: decode captures and gateway-document seeds, compare with hand-written expectations.

Each ``*.expected.json`` under ``tests/fixtures/real`` and ``tests/fixtures/seeds`` was written by
reading the capture, not by running the decoder. The capture beside it is found by dropping
``.expected.json`` (real: ``foo.sse.expected.json`` -> ``foo.sse``) or by adding ``.sse`` to
the remaining name (seeds: ``foo.expected.json`` -> ``foo.sse``).

``*.payloads.jsonl`` captures are not wire bytes. Each non-empty line is one chunk payload,
framed here as ``data: <line>\\n\\n``, with no ``[DONE]``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import sse_core
from sse_core import Completion, GatewayStreamError, IncompleteStreamError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
EXPECTED_SUFFIX = ".expected.json"
EXPECTED_FILES = sorted(
    [
        *(FIXTURES / "real").glob("*" + EXPECTED_SUFFIX),
        *(FIXTURES / "seeds").glob("*" + EXPECTED_SUFFIX),
    ]
)
ERROR_CLASSES: dict[str, type[sse_core.StreamError]] = {
    "GatewayStreamError": GatewayStreamError,
    "IncompleteStreamError": IncompleteStreamError,
}


def _capture_path(expected_path: Path) -> Path:
    stem = expected_path.name[: -len(EXPECTED_SUFFIX)]
    direct = expected_path.with_name(stem)
    if direct.is_file():
        return direct
    with_sse = expected_path.with_name(stem + ".sse")
    if with_sse.is_file():
        return with_sse
    raise FileNotFoundError(f"no capture for {expected_path}")


def _body(capture: Path) -> bytes:
    raw = capture.read_bytes()
    if capture.name.endswith(".payloads.jsonl"):
        return b"".join(b"data: " + line + b"\n\n" for line in raw.splitlines() if line.strip())
    return raw


def _case_id(path: Path) -> str:
    return f"{path.parent.name}/{path.name[: -len(EXPECTED_SUFFIX)]}"


def completion_to_expected(c: Completion) -> dict[str, Any]:
    """Render a Completion in the shape of the expected JSON (without outcome/error)."""
    usage: dict[str, Any] | None = None
    if c.usage is not None:
        usage = {
            "prompt_tokens": c.usage.prompt_tokens,
            "completion_tokens": c.usage.completion_tokens,
            "total_tokens": c.usage.total_tokens,
            "cached_tokens": c.usage.cached_tokens,
            "cache_write_tokens": c.usage.cache_write_tokens,
            "reasoning_tokens": c.usage.reasoning_tokens,
        }
    return {
        "done": c.done,
        "id": c.id,
        "model": c.model,
        "system_fingerprint": c.system_fingerprint,
        "choices": [
            {
                "index": ch.index,
                "content": ch.content,
                "reasoning": ch.reasoning,
                "refusal": ch.refusal,
                "finish_reason": ch.finish_reason,
                "tool_calls": [
                    {"index": t.index, "id": t.id, "name": t.name, "arguments": t.arguments}
                    for t in ch.tool_calls
                ],
            }
            for ch in c.choices
        ],
        "usage": usage,
        "events": [{"name": e.name, "data": e.data} for e in c.events],
    }


def _expected_completion(expected: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in expected.items() if k not in ("outcome", "error")}


@pytest.mark.parametrize("expected_path", EXPECTED_FILES, ids=_case_id)
def test_golden(expected_path: Path) -> None:
    expected: dict[str, Any] = json.loads(expected_path.read_text(encoding="utf-8"))
    body = _body(_capture_path(expected_path))
    outcome = expected["outcome"]

    if outcome == "complete":
        completion = sse_core.decode(body)
        assert completion_to_expected(completion) == _expected_completion(expected)
        return

    error_class = ERROR_CLASSES[outcome]
    with pytest.raises(error_class) as info:
        sse_core.decode(body)
    exc = info.value
    assert type(exc) is error_class, f"raised {type(exc).__name__}, expected {outcome}"
    if isinstance(exc, GatewayStreamError):
        want_error = expected["error"]
        got_error = {
            "type": exc.type,
            "code": exc.code,
            "message_in_str": want_error["message"] in str(exc),
        }
        assert got_error == {
            "type": want_error["type"],
            "code": want_error["code"],
            "message_in_str": True,
        }, f"str(exc)={str(exc)!r}"
    assert completion_to_expected(exc.partial) == _expected_completion(expected)


def test_every_capture_has_an_expectation() -> None:
    captures = [
        p for p in (FIXTURES / "real").iterdir() if p.name.endswith((".sse", ".payloads.jsonl"))
    ] + list((FIXTURES / "seeds").glob("*.sse"))
    have = {_capture_path(p) for p in EXPECTED_FILES}
    missing = sorted(str(p.relative_to(FIXTURES)) for p in captures if p not in have)
    assert missing == []
