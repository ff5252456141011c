"""Both adapters on numbers no reader expects (tests/core/test_hostile_numbers.py): a real
capture of each protocol with every number it holds written as ``1e999``, ``NaN`` or an
integer of 4,000 digits, served as sent by a loopback server and read the four ways, gives an
answer or the adapter's own StreamError, never an OverflowError or ValueError; a Responses
``created_at`` of 1e999 or NaN leaves the answer whole, with no time (issue 36)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sse_core import StreamError
from tests.adapters.conftest import HOWS, PROTOCOLS, Driver
from tests.core.test_hostile_numbers import _created_at
from tests.raw_server import response, serving

pytestmark = pytest.mark.timeout(60)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
#: One capture of each protocol.
CAPTURES = {
    "chat_completions": FIXTURES / "real" / "openai__gpt4o-finish-length.sse",
    "anthropic": FIXTURES / "real" / "anthropic" / "llm-anthropic__haiku35-two-parallel-tool-calls-padded.sse",  # noqa: E501
    "responses": FIXTURES / "responses" / "function-calls.sse",
    "gemini": FIXTURES.parent / "core" / "gemini" / "fixtures" / "louter__gemini25-flash-signed-function-call-finish-message.sse",  # noqa: E501
}  # fmt: skip


def every_number(data: bytes, number: str) -> bytes:
    """``data`` with every number of every JSON data line written as ``number``."""

    def marked(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: marked(item) for key, item in value.items()}
        if isinstance(value, list):
            return [marked(item) for item in value]
        return "\x00number\x00" if type(value) in (int, float) else value

    lines = []
    for line in data.replace(b"\r\n", b"\n").split(b"\n"):
        if line.startswith(b"data:") and line[5:].strip()[:1] == b"{":
            written = json.dumps(marked(json.loads(line[5:])))
            lines.append(b"data: " + written.replace('"\\u0000number\\u0000"', number).encode())
        else:
            lines.append(line)
    return b"\n".join(lines)


def served(driver: Driver, data: bytes, protocol: str, how: str) -> Any:
    with serving(lambda n, request: response(data)) as server:
        model = driver.make(model="m", base_url=server.url, api_key="sk-test", protocol=protocol,
                            max_retries=0, timeout=10)  # fmt: skip
        return driver.answer(model, how)


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("number", ["1e999", "NaN", "9" * 4000])
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_any_number_gives_an_answer_or_a_typed_error(
    driver: Driver, protocol: str, number: str, how: str
) -> None:
    data = every_number(CAPTURES[protocol].read_bytes(), number)
    assert data.count(number.encode()) > 3
    try:
        served(driver, data, protocol, how)
    except StreamError as error:
        assert type(error).__module__.startswith(("langchain_sse", "llamaindex_sse"))


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("number", ["1e999", "NaN"])
def test_a_responses_created_at_no_int_holds_leaves_the_answer_whole(
    driver: Driver, number: str, how: str
) -> None:
    answer = served(driver, _created_at(number), "responses", how)
    assert (answer.text, answer.finish_reason) == ("Hello", "stop")
    assert answer.id is not None and answer.id.startswith("resp_")
