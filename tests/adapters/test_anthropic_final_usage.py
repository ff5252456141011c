"""Both adapters on Anthropic usage counts that ``message_delta`` says are final, 0 included
(tests/core/anthropic/test_final_usage.py): the prompt of a compacted conversation is the one
the API counted, not the cache reads ``message_start`` reported before compaction. Read the
four ways, served as sent by a loopback server: ChatSSE's ``usage_metadata``
(``input_token_details``), SSELLM's ``additional_kwargs`` and ``raw`` usage.
"""

from __future__ import annotations

from typing import Any

import pytest
from llama_index.core.llms import ChatMessage

from llamaindex_sse import SSELLM
from tests.adapters.answers import Usage
from tests.adapters.conftest import HOWS, Driver
from tests.core.anthropic.test_final_usage import CACHE_WRITE_ZERO, COMPACTED
from tests.raw_server import response, serving

pytestmark = pytest.mark.timeout(60)


def answer(driver: Driver, body: bytes, how: str) -> Any:
    with serving(lambda n, request: response(body)) as server:
        model = driver.make(model="claude-test", base_url=server.url, api_key="sk-ant-test",
                            protocol="anthropic", max_retries=0, timeout=10)  # fmt: skip
        return driver.answer(model, how)


@pytest.mark.parametrize("how", HOWS)
def test_a_compacted_prompt_is_the_count_message_delta_gives(driver: Driver, how: str) -> None:
    got = answer(driver, COMPACTED, how)
    assert got.text == "Summary done."
    assert got.usage == Usage(prompt=181, completion=412, total=593, cached=0, cache_write=0)


@pytest.mark.parametrize("how", HOWS)
def test_a_zero_cache_write_in_message_delta_is_final(driver: Driver, how: str) -> None:
    got = answer(driver, CACHE_WRITE_ZERO, how)
    assert got.usage == Usage(
        prompt=12 + 6_289, completion=7, total=12 + 6_289 + 7, cached=6_289, cache_write=0
    )


@pytest.mark.parametrize("streamed", [False, True], ids=["chat", "stream_chat"])
def test_ssellm_raw_usage_is_the_final_counts(streamed: bool) -> None:
    with serving(lambda n, request: response(COMPACTED)) as server:
        model = SSELLM(model="claude-test", base_url=server.url, api_key="sk-ant-test",
                       protocol="anthropic", max_retries=0, timeout=10)  # fmt: skip
        messages = [ChatMessage(role="user", content="hi")]
        last = list(model.stream_chat(messages))[-1] if streamed else model.chat(messages)
    assert isinstance(last.raw, dict)
    usage = last.raw["usage"]
    assert (usage["input_tokens"], usage["output_tokens"]) == (181, 412)
    assert (usage["cache_read_input_tokens"], usage["cache_creation_input_tokens"]) == (0, 0)
    assert last.additional_kwargs["prompt_tokens"] == 181
