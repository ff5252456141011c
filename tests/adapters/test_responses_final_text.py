"""Both adapters on a Responses answer whose deltas lost a word the final output kept
(tests/core/responses/test_final_text.py, in vLLM's manner), served as sent by a loopback
server: a whole answer (ChatSSE ``invoke`` / ``ainvoke``, also with ``streaming=True``, its
tokens told as the deltas came; SSELLM ``chat`` / ``achat`` and its ``raw`` response) is the
final text; a stream (``stream`` / ``astream``, ``stream_chat`` / ``astream_chat``) shows the
deltas, and the ``response.output_mismatch`` gateway event keeps both either way."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from llama_index.core.llms import ChatMessage

from langchain_sse import ChatSSE
from langchain_sse._hooks import UNMERGED
from llamaindex_sse import SSELLM
from sse_core import fast_paths
from sse_core.pipeline.responses_items import MISMATCH
from tests.adapters.conftest import HOWS, Driver
from tests.core.responses.test_final_text import FINAL, STREAMED, VLLM_LOST
from tests.raw_server import response, serving

pytestmark = pytest.mark.timeout(60)

SETTINGS: dict[str, Any] = {"model": "m", "api_key": "sk-test", "protocol": "responses",
                            "max_retries": 0, "timeout": 10}  # fmt: skip


@pytest.mark.parametrize("how", HOWS)
def test_a_whole_answer_is_the_final_text_and_a_stream_the_deltas(driver: Driver, how: str) -> None:
    with serving(lambda n, request: response(VLLM_LOST)) as server:
        answer = driver.answer(driver.make(base_url=server.url, **SETTINGS), how)
    streamed = how.endswith("stream")
    assert answer.text == (STREAMED if streamed else FINAL)
    if streamed:
        assert answer.deltas == STREAMED
    kept = [(data["streamed"], data["final"]) for name, data in answer.gateway_events
            if name == MISMATCH]  # fmt: skip
    assert kept and set(kept) == {(STREAMED, FINAL)}


class _Tokens(BaseCallbackHandler):
    def __init__(self) -> None:
        self.tokens: list[str] = []

    def on_llm_new_token(self, token: str, **kwargs: Any) -> None:  # type: ignore[override]
        self.tokens.append(token)


def test_chatsse_invoke_with_its_tokens_told_is_the_final_text() -> None:
    seen = _Tokens()
    with serving(lambda n, request: response(VLLM_LOST)) as server:
        model = ChatSSE(base_url=server.url, streaming=True, **SETTINGS)
        message = model.invoke("hi", config={"callbacks": [seen]})
    assert "".join(seen.tokens) == STREAMED  # told as they came
    # ChatSSE's own invoke builds the answer from the Completion; LangChain's (the faithful
    # path) merges the chunks it streamed, which cannot be taken back (docs/protocols/
    # responses.md, "Deltas against the final output").
    own = fast_paths.is_on(UNMERGED.name)
    assert message.text == (FINAL if own else STREAMED)


def test_ssellm_chat_raw_is_the_final_text() -> None:
    with serving(lambda n, request: response(VLLM_LOST)) as server:
        model = SSELLM(base_url=server.url, **SETTINGS)
        answer = model.chat([ChatMessage(role="user", content="hi")])
        streamed = list(model.stream_chat([ChatMessage(role="user", content="hi")]))
    assert answer.message.content == FINAL
    assert isinstance(answer.raw, dict)
    (message,) = [item for item in answer.raw["output"] if item["type"] == "message"]
    assert message["content"][0]["text"] == FINAL
    assert streamed[-1].message.content == STREAMED
    assert "".join(r.delta or "" for r in streamed) == STREAMED
