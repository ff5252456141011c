"""``message_delta``'s usage counts are final where present, 0 included, for every count
(``input_tokens``, ``output_tokens``, ``cache_read_input_tokens``,
``cache_creation_input_tokens``), as the anthropic SDK's stream accumulator reads them
(``lib/streaming/_messages.py``: a count that is not None replaces the snapshot's). The one
exception is a relay's zero-fill (tests/core/anthropic/test_messages_wire.py,
``RELAY_ZEROS``; the dive capture): an input side of all zeros after ``message_start``
counted a prompt, which no answer has.

Each body is decoded whole and split at every byte.
"""

from __future__ import annotations

from sse_core import Usage
from tests.core.anthropic.messages_wire import (
    STOP,
    block,
    body,
    chop,
    message_delta,
    outcome,
    start,
    stop_block,
    text,
)

#: The shape of a real capture with server-side compaction (issue 36): ``message_start``
#: counts the prompt before compaction (cache reads included), ``message_delta`` the prompt
#: the model read after it, its cache counts 0. The API's prompt is 181 tokens, not 55,277.
COMPACTED = body(
    start(
        usage={
            "input_tokens": 181,
            "cache_read_input_tokens": 55_096,
            "cache_creation_input_tokens": 0,
            "output_tokens": 1,
        }
    ),
    block(0),
    text(0, "Summary done."),
    stop_block(0),
    message_delta(
        "end_turn",
        usage={
            "input_tokens": 181,
            "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0,
            "output_tokens": 412,
        },
    ),
    STOP,
)

#: A cache write that message_start reported and message_delta says was 0 (and the reverse
#: for the read count): each present count is final.
CACHE_WRITE_ZERO = body(
    start(
        usage={
            "input_tokens": 12,
            "cache_creation_input_tokens": 3_068,
            "cache_read_input_tokens": 0,
            "output_tokens": 1,
        }
    ),
    block(0),
    text(0, "ok"),
    stop_block(0),
    message_delta(
        "end_turn",
        usage={
            "input_tokens": 12,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 6_289,
            "output_tokens": 7,
        },
    ),
    STOP,
)


def counts(usage: Usage | None) -> tuple[int | None, ...]:
    assert usage is not None
    return (
        usage.prompt_tokens,
        usage.completion_tokens,
        usage.total_tokens,
        usage.cached_tokens,
        usage.cache_write_tokens,
    )


def test_a_zero_cache_read_count_in_message_delta_is_final() -> None:
    for cut in range(len(COMPACTED) + 1):
        verdict, completion = outcome(chop(COMPACTED, [cut]))
        assert verdict == "ok", cut
        assert counts(completion.usage) == (181, 412, 593, 0, 0), cut


def test_a_zero_cache_write_count_in_message_delta_is_final() -> None:
    for cut in range(len(CACHE_WRITE_ZERO) + 1):
        verdict, completion = outcome(chop(CACHE_WRITE_ZERO, [cut]))
        assert verdict == "ok", cut
        assert counts(completion.usage) == (12 + 6_289, 7, 12 + 6_289 + 7, 6_289, 0), cut


def test_a_zero_input_count_beside_a_cache_count_is_final() -> None:
    cached = body(
        start(usage={"input_tokens": 40, "output_tokens": 1}),
        message_delta(
            "end_turn",
            usage={"input_tokens": 0, "cache_read_input_tokens": 40, "output_tokens": 3},
        ),
        STOP,
    )
    verdict, completion = outcome([cached])
    assert verdict == "ok"
    assert counts(completion.usage) == (40, 3, 43, 40, None)
    usage = completion.usage
    assert usage is not None and usage.raw["input_tokens"] == 0
