"""Real OpenAI Responses streams (``POST /v1/responses``, ``stream: true``) recorded by public
projects' test suites, decoded with ``protocol="responses"`` (provenance, and what was changed:
the framing of the vercel/ai files only, in tests/fixtures/responses/real/SOURCES.md).

The expected values are read off the captures by hand: the text the deltas carry, the calls
with their arguments, the usage numbers of the terminal response, the verdict, the reasoning
item as its ``output_item.done`` gave it (its ``encrypted_content`` matched against the file's
bytes, not against our output), the annotation as sent. Each capture also decodes the same
split at every byte and at random cuts.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

import sse_core
from sse_core import Completion, GatewayStreamError
from sse_core.pipeline.responses_items import MISMATCH
from tests.core.responses.responses_wire import chop, outcome

FOLDER = Path(__file__).resolve().parents[2] / "fixtures" / "responses" / "real"
CAPTURES = {path.name: path.read_bytes() for path in sorted(FOLDER.glob("*.sse"))}

WEB_SEARCH = "pydantic-ai__gpt52-web-search-url-citation.sse"
OPENROUTER = "pydantic-ai__openrouter-gpt-oss-raw-reasoning-closed-after-message.sse"
AZURE = "vercel-ai__azure-gpt51-tool-call-content-filters.sse"
COPILOT = "vercel-ai__github-copilot-codex-item-id-per-event.sse"
ERROR = "vercel-ai__gpt5-nano-error-event-then-failed.sse"
SEALED = "vercel-ai__gpt52-encrypted-reasoning-rewritten-per-event-tool-call.sse"

COPILOT_TEXT = (
    "There are **3** letter **“r”**s in **“strawberry.”**\n\n"
    "Breakdown: **s t r a w b e r r y**  \nYou can see **r** at positions **3, 8, and 9**."
)
ALBERTA = (
    "The tallest mountain in Alberta is **Mount Columbia** (3,747 m / 12,294 ft). "
    "([britannica.com](https://www.britannica.com/place/Mount-Columbia?utm_source=openai))"
)
THOUGHT = 'The user asks: "What is 2+2?" They expect a straightforward answer: 4. Just answer 4.'


def ok(name: str) -> Completion:
    verdict, completion = outcome([CAPTURES[name]])
    assert verdict == "ok", verdict
    assert completion.done
    assert [e for e in completion.events if e.name == MISMATCH] == []
    return completion


def payloads(name: str) -> list[dict[str, Any]]:
    """The capture's data payloads, read off the file (not through the decoder)."""
    return [
        json.loads(line[6:])
        for line in CAPTURES[name].decode().split("\n")
        if line.startswith("data: {")
    ]


def usage_of(completion: Completion) -> tuple[Any, ...]:
    usage = completion.usage
    assert usage is not None
    return (
        usage.prompt_tokens,
        usage.completion_tokens,
        usage.total_tokens,
        usage.cached_tokens,
        usage.cache_write_tokens,
        usage.reasoning_tokens,
    )


def test_every_capture_is_checked_here() -> None:
    assert sorted(CAPTURES) == sorted([WEB_SEARCH, OPENROUTER, AZURE, COPILOT, ERROR, SEALED])


def test_openai_web_search_calls_are_gateway_events_and_the_annotation_a_citation() -> None:
    completion = ok(WEB_SEARCH)
    assert completion.content == ALBERTA
    assert completion.tool_calls == ()  # the two searches ran on OpenAI's side
    (cited,) = completion.citations  # added once, restated in the done part, item and output
    assert cited == {
        "type": "url_citation",
        "end_index": 162,
        "start_index": 77,
        "title": "Mount Columbia | mountain, Alberta, Canada | Britannica",
        "url": "https://www.britannica.com/place/Mount-Columbia?utm_source=openai",
    }
    # The API's offsets are code points into the text: they span the markdown link.
    assert ALBERTA[77:162] == (
        "([britannica.com](https://www.britannica.com/place/Mount-Columbia?utm_source=openai))"
    )
    search = [
        "response.output_item.added",
        "response.web_search_call.in_progress",
        "response.web_search_call.searching",
        "response.web_search_call.completed",
        "response.output_item.done",
    ]
    assert [e.name for e in completion.events] == search * 2
    queries = [e.data["item"]["action"]["queries"] for e in completion.events
               if e.name == "response.output_item.done"]  # fmt: skip
    assert queries == [
        ["tallest mountain in Alberta highest peak Alberta Mount Columbia elevation"],
        [
            "Mount Columbia highest point in Alberta 3747 m highest mountain in Alberta",
            "Mount Columbia tallest mountain in Alberta official source",
        ],
    ]
    assert usage_of(completion) == (12243, 140, 12383, 0, None, 100)
    assert (completion.finish_reason, completion.stop_reason) == ("stop", "completed")
    assert (completion.id, completion.model) == (
        "resp_0a4bc5e23769d65c00696d5e657050819db65effaff8424729",
        "gpt-5.2-2025-12-11",
    )
    assert completion.reasoning == "" and completion.reasoning_blocks == ()


def test_openrouter_raw_reasoning_closed_after_the_message_is_one_block() -> None:
    completion = ok(OPENROUTER)
    assert completion.content == "4"
    assert completion.reasoning == THOUGHT
    (block,) = completion.reasoning_blocks
    assert block.text == THOUGHT
    assert block.signature is None  # no encrypted_content in an OpenRouter reasoning item
    # The item as its output_item.done gave it (sequence 38, after the message's); the final
    # output names the same item rs_tmp_ku4i7pagjwn, which is no disagreement of its text.
    assert block.item == {
        "type": "reasoning",
        "id": "rs_tmp_2kbe7x16sax",
        "summary": [],
        "content": [{"type": "reasoning_text", "text": THOUGHT}],
    }
    assert completion.tool_calls == ()
    assert usage_of(completion) == (78, 37, 115, 0, None, 22)
    usage = completion.usage
    assert usage is not None and usage.raw["cost"] == 0.0000113 and usage.raw["is_byok"] is False
    assert (completion.finish_reason, completion.stop_reason) == ("stop", "completed")
    assert (completion.id, completion.model) == (
        "gen-1764265411-Fu1iEX7h5MRWiL79lb94",
        "openai/gpt-oss-20b",
    )
    # ": OPENROUTER PROCESSING" is an SSE comment, "data: [DONE]" no event of this protocol.
    assert completion.events == ()
    assert CAPTURES[OPENROUTER].startswith(b": OPENROUTER PROCESSING\n\ndata: {")
    assert CAPTURES[OPENROUTER].endswith(b"\n\ndata: [DONE]\n\n")


def test_azure_function_call_with_content_filters_in_the_terminal_response() -> None:
    completion = ok(AZURE)
    assert completion.content == ""
    ((call),) = completion.tool_calls
    assert (call.index, call.id, call.name, call.arguments) == (
        0,
        "call_H5DxLSFnsGhiROnUiDHmgyc8",
        "weather",
        '{"location":"San Francisco"}',
    )
    assert call.arguments_error is None
    assert usage_of(completion) == (45, 24, 69, 0, None, 0)
    assert (completion.finish_reason, completion.stop_reason) == ("tool_calls", "completed")
    assert (completion.id, completion.model) == (
        "resp_04041325ab8ae30400698c519fb7fc81979972618138fc336d",
        "gpt-5.1",
    )
    assert completion.events == ()
    assert [f["source_type"] for f in payloads(AZURE)[-1]["response"]["content_filters"]] == [
        "prompt",
        "completion",
    ]


def test_github_copilot_item_ids_changing_on_every_event_lose_and_double_nothing() -> None:
    completion = ok(COPILOT)
    events = payloads(COPILOT)
    ids = [e.get("item_id") or e.get("item", {}).get("id") for e in events[2:-1]]
    assert len(set(ids)) == len(ids) == 66  # every item event names its item anew
    assert completion.content == COPILOT_TEXT
    assert completion.reasoning == "**Counting character occurrences**"
    (block,) = completion.reasoning_blocks
    assert block.signature is None  # encrypted_content: null
    assert block.item == {
        "content": [],
        "encrypted_content": None,
        "id": "capture-id-8",
        "summary": [{"text": "**Counting character occurrences**", "type": "summary_text"}],
        "type": "reasoning",
    }
    assert completion.tool_calls == ()
    assert usage_of(completion) == (19, 105, 124, 0, 0, 44)
    usage = completion.usage
    assert usage is not None and "copilot_usage" not in usage.raw  # beside the response
    assert (completion.finish_reason, completion.stop_reason) == ("stop", "completed")
    # The response id changes too (sanitized upstream: capture-id-1, -2, -69): the first kept.
    assert (completion.id, completion.model) == ("capture-id-1", "gpt-5.3-codex")
    assert completion.events == ()


def test_an_error_event_before_response_failed_raises_with_its_code() -> None:
    with pytest.raises(GatewayStreamError) as caught:
        sse_core.decode(CAPTURES[ERROR], protocol="responses")
    error = caught.value
    assert error.code == "insufficient_quota"
    sent = payloads(ERROR)[2]["error"]["message"]
    assert sent.startswith("You exceeded your current quota, please check your plan")
    assert error.message.endswith(": " + sent)
    partial = error.partial
    assert partial is not None
    assert (partial.content, partial.tool_calls, partial.usage) == ("", (), None)
    assert (partial.id, partial.model) == (
        "resp_05500b38c2cd9bfc00691c7c9d222481a3b595421266dab424",
        "gpt-5-nano-2025-08-07",
    )
    assert [p["type"] for p in payloads(ERROR)] == [
        "response.created",
        "response.in_progress",
        "error",
        "response.failed",  # after the error: nothing after it is decoded
    ]


def test_reasoning_re_encrypted_per_event_is_kept_as_its_done_event_gave_it() -> None:
    completion = ok(SEALED)
    raw = CAPTURES[SEALED].decode()
    added, done, final = re.findall(r'"encrypted_content":"(gAAAA[^"]+)"', raw)
    assert len({added, done, final}) == 3  # the API re-encrypts at each event
    assert (len(added), len(done), len(final)) == (1228, 1572, 1572)
    (block,) = completion.reasoning_blocks
    assert block.signature == done
    assert block.item == {
        "id": "rs_0039ff4ed0aeca1e016ac948b4e4c887d2bbf14d31fdc26ccd",
        "type": "reasoning",
        "content": [],
        "encrypted_content": done,
        "summary": [],
    }
    assert block.text == "" and completion.reasoning == ""
    ((call),) = completion.tool_calls
    assert (call.index, call.id, call.name, call.arguments) == (
        0,  # the first call, at output_index 1
        "call_LUBOONF2cY8HDQdBwiEQ9fk1",
        "lookupCode",
        "{}",
    )
    assert completion.content == ""
    assert usage_of(completion) == (55, 25, 80, 0, 0, 9)
    assert (completion.finish_reason, completion.stop_reason) == ("tool_calls", "completed")
    assert (completion.id, completion.model) == (
        "resp_0039ff4ed0aeca1e016ac948b4252887d2bae0ca8764f6a08e",
        "gpt-5.2-2025-12-11",
    )


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_byte_by_byte_and_random_cuts_decode_as_the_whole(name: str) -> None:
    body = CAPTURES[name]
    whole = outcome([body])
    assert outcome(body[i : i + 1] for i in range(len(body))) == whole
    rng = random.Random(name)
    for _ in range(20):
        cuts = rng.sample(range(1, len(body)), min(len(body) - 1, rng.randint(1, 40)))
        assert outcome(chop(body, cuts)) == whole
