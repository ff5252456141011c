"""The lazy running message: a real ChatMessage assembled on first read; the pydantic
internals and LlamaIndex field lists it leans on, checked loudly; and the faithful
(validated) build used when that fast path is off."""

from __future__ import annotations

import copy
import pickle
import time
from typing import Any

import pytest
from llama_index.core.base.llms.types import ChatMessage, ChatResponse, TextBlock
from pydantic import BaseModel

from llamaindex_sse import _lazy
from llamaindex_sse._lazy import Build, StreamMessage, default_build, probe, probe_pydantic
from sse_core import ReasoningDelta, TextDelta, ToolCallDelta, fast_paths
from tests.llamaindex.li_support import Feed, LLMFactory

LAZY = Build(lazy=True)


def test_the_installed_pydantic_supports_lazy_messages() -> None:
    reason = probe()
    assert reason is None, (
        f"pydantic or llama-index-core changed under llamaindex_sse._lazy: {reason}. SSELLM "
        "now builds validated messages joined per chunk (O(length) each); update _lazy.py"
    )
    decision = fast_paths.decide(_lazy.LAZY.name)
    assert decision.on is not fast_paths.switched_off(), decision.why
    assert default_build().lazy is decision.on


@pytest.mark.parametrize("slot", _lazy.PYDANTIC_SLOTS)
def test_each_pydantic_slot_is_a_data_descriptor(slot: str) -> None:
    descriptor = BaseModel.__dict__.get(slot)
    assert hasattr(descriptor, "__get__") and hasattr(descriptor, "__set__"), (
        f"pydantic's BaseModel.__dict__[{slot!r}] is no longer a slot descriptor "
        f"(got {descriptor!r}); llamaindex_sse._lazy writes instances through it"
    )


def test_a_missing_descriptor_is_named_and_turns_the_fallback_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_lazy, "PYDANTIC_SLOTS", (*_lazy.PYDANTIC_SLOTS, "__gone__"))
    reason = probe_pydantic()
    assert reason is not None and "BaseModel.__dict__['__gone__']" in reason


def test_a_model_that_no_longer_dumps_through_dict_is_detected(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # As if pydantic read the instance dict slot directly, past StreamMessage's hook.
    raw_dict = BaseModel.__dict__["__dict__"].__get__
    monkeypatch.setattr(StreamMessage, "_assembled", raw_dict)
    reason = probe_pydantic()
    assert reason is not None and ("cannot be dumped" in reason or "__dict__" in reason)


def test_the_fallback_gives_the_same_responses_as_plain_pydantic_models() -> None:
    batches = [
        [ReasoningDelta(text="hmm")],
        [TextDelta(text="Hi"), ToolCallDelta(index=0, id="c", name="f", arguments="{}")],
    ]
    lazy, plain = Feed(Build(lazy=True)), Feed(Build(lazy=False))
    for batch in batches:
        one, other = lazy.add(batch), plain.add(batch)
        assert one is not None and other is not None
        assert type(other.message) is ChatMessage and type(other) is ChatResponse
        assert one.model_dump() == other.model_dump()
        assert other == ChatResponse.model_validate(other.model_dump())


def test_the_lazy_message_behaves_as_a_chat_message() -> None:
    stream = Feed(LAZY)
    stream.add([ReasoningDelta(text="hmm")])
    response = stream.add([TextDelta(text="Hi"), ToolCallDelta(index=0, id="c", name="f")])
    assert response is not None
    message = response.message
    assert isinstance(message, StreamMessage) and isinstance(message, ChatMessage)
    plain = ChatMessage(
        role="assistant", blocks=message.blocks, additional_kwargs=message.additional_kwargs
    )
    dumped = response.model_dump()
    assert dumped["message"] == plain.model_dump(), "pydantic dumps no longer see the fields"
    assert message == plain and plain == message
    assert copy.deepcopy(message) == plain
    assert pickle.loads(pickle.dumps(message)) == plain
    assert ChatMessage.model_validate_json(message.model_dump_json()) == plain
    assert str(message) == "assistant: Hi"


def test_the_lazy_message_can_be_changed_like_any_other() -> None:
    response = Feed(LAZY).add([TextDelta(text="Hi")])
    assert response is not None
    response.message.additional_kwargs["extra"] = 1
    response.message.content = "Bye"
    assert response.message.content == "Bye"
    assert response.message.additional_kwargs == {"extra": 1}
    assert response.message.model_dump()["blocks"] == [{"block_type": "text", "text": "Bye"}]


def test_nothing_is_joined_until_a_message_is_read() -> None:
    stream = Feed(LAZY)
    responses = [stream.add([TextDelta(text=str(i % 10))]) for i in range(1000)]
    raw_dict = BaseModel.__dict__["__dict__"].__get__  # the instance dict, bypassing assembly
    assert all("blocks" not in raw_dict(r.message) for r in responses if r is not None)
    assert responses[-1] is not None and responses[-1].message.content == "0123456789" * 100
    assert responses[9] is not None and responses[9].message.content == "0123456789"
    assert responses[9].message.blocks == [TextBlock(text="0123456789")]


def _seconds_per_chunk(chunks: int) -> float:
    best = float("inf")
    for _ in range(3):
        stream = Feed(LAZY)
        started = time.perf_counter()
        for i in range(chunks):
            stream.add([TextDelta(text=f"w{i} "), ToolCallDelta(index=0, arguments="x")])
        best = min(best, (time.perf_counter() - started) / chunks)
    return best


def test_the_cost_per_chunk_stays_flat_for_long_streams() -> None:
    short, long = _seconds_per_chunk(1_000), _seconds_per_chunk(20_000)
    # A join per chunk would make the long stream's chunks about 20x dearer.
    assert long < 3 * short, (
        f"{long * 1e6:.1f} us per chunk at 20,000 vs {short * 1e6:.1f} at 1,000"
    )


def test_a_new_chat_response_field_turns_the_fast_path_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # As if llama-index-core added ``logprobs`` after this adapter was written.
    written = {
        **_lazy.WRITTEN_FIELDS,
        ChatResponse: ("message", "raw", "delta", "additional_kwargs"),
    }
    monkeypatch.setattr(_lazy, "WRITTEN_FIELDS", written)
    assert probe() == "ChatResponse has a new field 'logprobs'"
    fast_paths.reset()
    try:
        decision = fast_paths.decide(_lazy.LAZY.name)
        assert not decision.on
        if not fast_paths.switched_off():
            assert decision.why == "probe: ChatResponse has a new field 'logprobs'"
        assert not default_build().lazy
    finally:
        monkeypatch.undo()
        fast_paths.reset()
    assert default_build().lazy is not fast_paths.switched_off()


def test_a_block_that_lost_a_field_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = {**_lazy.BLOCK_FIELDS, TextBlock: ("block_type", "text", "gone")}
    monkeypatch.setattr(_lazy, "BLOCK_FIELDS", blocks)
    assert probe() == "TextBlock lost the field 'gone'"


def test_the_faithful_build_validates_and_streams_the_same_responses(
    make_llm: LLMFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the fast path off, every streamed ChatResponse and its ChatMessage is validated
    (LlamaIndex's own construction), and the responses equal the fast path's."""
    ask = [ChatMessage(role="user", content="count to 12")]
    llm = make_llm("shroud", model="emulator-think")
    validated: list[str] = []
    for cls in (ChatResponse, ChatMessage):
        original = cls.__init__

        def spy(self: Any, *args: Any, _original: Any = original, **kwargs: Any) -> None:
            validated.append(type(self).__name__)
            _original(self, *args, **kwargs)

        monkeypatch.setattr(cls, "__init__", spy)
    with fast_paths.forced(_lazy.LAZY.name, True):
        fast = list(llm.stream_chat(ask))
    assert "ChatResponse" not in validated and isinstance(fast[0].message, StreamMessage)
    with fast_paths.forced(_lazy.LAZY.name, False):
        faithful = list(llm.stream_chat(ask))
    assert validated.count("ChatResponse") >= len(faithful) > 3
    assert validated.count("ChatMessage") >= len(faithful)
    assert all(type(r.message) is ChatMessage for r in faithful)
    assert [r.model_dump() for r in faithful] == [r.model_dump() for r in fast]
    assert [r.model_dump_json() for r in faithful] == [r.model_dump_json() for r in fast]
