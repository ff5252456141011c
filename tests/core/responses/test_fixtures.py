"""The Responses stream fixtures of tests/fixtures/responses (constructed from OpenAI's
documented event shapes: SOURCES.md says which and what each checks), each decoded to its
expected outcome; ``test_splits`` feeds each one split at every byte too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.core.responses.responses_wire import outcome

FOLDER = Path(__file__).resolve().parents[2] / "fixtures" / "responses"
FIXTURES = {path.stem: path.read_bytes() for path in sorted(FOLDER.glob("*.sse"))}
SEALED = "gAAAAABor0A5" + "Q2lzY29uc2lkZXJpbmc" * 8 + "=="

#: name: (verdict, content, reasoning, [(call id, name, arguments)], finish, stop reason)
EXPECTED: dict[str, tuple[Any, ...]] = {
    "text": (
        "ok",
        "Under the soft glow of the moon, a unicorn named Lumina dreamed.",
        "",
        [],
        "stop",
        "completed",
    ),
    "reasoning-summary": (
        "ok",
        "2 + 2 = 4.",
        "**Evaluating the sum**\n\nI need 2 + 2.\n\n**Answering**\n\nIt is 4.",
        [],
        "stop",
        "completed",
    ),
    "function-calls": (
        "ok",
        "",
        "",
        [
            ("call_Xk3Nm8Q1", "get_weather", '{"location":"Paris, France"}'),
            ("call_P2cQa7Zd", "get_weather", '{"location":"Bogotá, Colombia"}'),
        ],
        "tool_calls",
        "completed",
    ),
    "incomplete": ("ok", "Once upon a time", "", [], "length", "max_output_tokens"),
    "failed": ("GatewayStreamError", "Partial", "", [], None, None),
    "web-search": ("ok", "A new park opened in Paris today.", "", [], "stop", "completed"),
    "vllm-unnamed-empty-output": ("ok", "4", "User asks for 2+2.", [], "stop", "completed"),
}


def test_every_fixture_has_its_expectation() -> None:
    assert sorted(FIXTURES) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_fixture_decodes_to_its_outcome(name: str) -> None:
    verdict, result = outcome([FIXTURES[name]])
    calls = [(c.id, c.name, c.arguments) for c in result.tool_calls]
    got = (
        verdict,
        result.content,
        result.reasoning,
        calls,
        result.finish_reason,
        result.stop_reason,
    )
    assert got == EXPECTED[name]
    assert [e.name for e in result.events if e.name == "response.output_mismatch"] == []


def test_the_reasoning_item_comes_back_byte_exact() -> None:
    _, result = outcome([FIXTURES["reasoning-summary"]])
    (block,) = result.reasoning_blocks
    assert block.signature == SEALED and block.item is not None
    assert block.item["id"] == "rs_68af40310c3c8193a4a3d4fb4e3b5ce805438e46b5f69a3b"
    assert block.item["encrypted_content"] == SEALED
    assert result.usage is not None and result.usage.reasoning_tokens == 1024


def test_the_web_search_is_gateway_events_and_its_citation_a_citation() -> None:
    _, result = outcome([FIXTURES["web-search"]])
    assert [e.name for e in result.events] == [
        "response.output_item.added",
        "response.web_search_call.in_progress",
        "response.web_search_call.searching",
        "response.web_search_call.completed",
        "response.output_item.done",
    ]
    (cited,) = result.citations
    assert cited["type"] == "url_citation" and cited["url"].startswith("https://example.org/")


def test_vllms_own_event_name_is_kept() -> None:
    _, result = outcome([FIXTURES["vllm-unnamed-empty-output"]])
    assert [e.name for e in result.events] == ["response.reasoning_part.added"]
    assert result.usage is not None and result.usage.prompt_tokens == 70
