"""The streamed chunks built without validation are the chunks validation builds.

:func:`langchain_sse._chunks.make_chunk` skips pydantic's validation (and LangChain's partial
JSON parse of every tool-call fragment); whatever it builds must equal, value by value and
type by type, what ``ChatGenerationChunk(message=AIMessageChunk(...))`` gives, and must behave
the same when LangChain merges, copies, dumps or mutates it.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessageChunk
from langchain_core.messages.tool import tool_call_chunk

from langchain_sse import _chunks
from langchain_sse._chunks import _same, make_validated
from sse_core import fast_paths
from tests.langchain.lc_support import ModelFactory

#: The builder without validation, tested whether or not the fast path is on here.
make_chunk = _chunks._make_fast
make_fragment_chunk = _chunks._fragment_fast


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny in {city}"


#: Argument pieces at the edges of LangChain's rule (empty, could start an object or not).
PIECES = [
    "",
    " ",
    "\n",
    "{",
    " {",
    "\t\n{",
    '{"a": 1',
    '{"a": 1}',
    "{}",
    "}",
    "]",
    "5",
    "5, ",
    '"x"',
    "null",
    "m ipsum do",
    "\u00a0{",  # not JSON whitespace: no object can start here
    'abc{"a": 1}',
]


def test_chunks_are_built_without_validation_unless_switched_off() -> None:
    """If this fails, langchain-core or pydantic changed (the reason says what; every chunk
    is validated then: correct, slower). Fix ``langchain_sse/_chunks.py``."""
    assert _chunks.probe() is None
    decision = fast_paths.decide(_chunks.CHUNKS.name)
    if fast_paths.switched_off():
        assert not decision.on and decision.why == "SSE_CONNECTORS_FAST=0"
        assert _chunks.make_chunk is make_validated
        assert _chunks.make_fragment_chunk is _chunks._fragment_validated
    else:
        assert decision.on, decision.why
        assert _chunks.make_chunk is _chunks._make_fast
        assert _chunks.make_fragment_chunk is _chunks._fragment_fast


def _fields(
    content: str, pieces: list[tuple[str, str | None, str | None]], extra: bool, tag: bool
) -> dict[str, Any]:
    fields: dict[str, Any] = {"content": content}
    if extra:
        fields["additional_kwargs"] = {"reasoning_content": "r"}
    if pieces:
        fields["tool_call_chunks"] = [
            tool_call_chunk(name=name, args=args, id=call_id, index=at)
            for at, (args, name, call_id) in enumerate(pieces)
        ]
    if tag:
        fields["response_metadata"] = {"model_provider": "sse"}
    return fields


def _check(fields: dict[str, Any]) -> None:
    built = make_chunk(**copy.deepcopy(fields))
    validated = make_validated(**copy.deepcopy(fields))
    assert _same(built, validated), (built, validated)
    assert built == validated
    assert built.message.model_dump() == validated.message.model_dump()


@pytest.mark.parametrize("args", PIECES)
@pytest.mark.parametrize("opening", [False, True])
def test_a_fragment_is_what_validation_makes(args: str, opening: bool) -> None:
    name, call_id = ("write", "call_1") if opening else (None, None)
    _check(_fields("", [(args, name, call_id)], extra=False, tag=False))


@pytest.mark.parametrize("extra", [False, True])
@pytest.mark.parametrize("tag", [False, True])
@pytest.mark.parametrize("content", ["", "hi"])
def test_text_reasoning_and_merged_reads(content: str, extra: bool, tag: bool) -> None:
    _check(_fields(content, [], extra, tag))
    pieces = [("", "f", "c1"), ("m ipsum", None, None), ('{"a"', "g", "c2"), ("}", None, None)]
    _check(_fields(content, pieces, extra, tag))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(alphabet=st.sampled_from(' \t\n\r{}[]":,5ax\\'), max_size=8),
            st.none() | st.just("f"),
            st.none() | st.just("c"),
        ),
        max_size=3,
    ),
    st.booleans(),
)
def test_any_fragments(pieces: list[tuple[str, str | None, str | None]], extra: bool) -> None:
    _check(_fields("", pieces, extra, tag=False))


def test_a_built_chunk_behaves_as_a_validated_one() -> None:
    """Merged, copied, pickled and changed the way LangChain and callers do."""
    piece = [tool_call_chunk(name=None, args="m ipsum", id=None, index=0)]
    built = [make_chunk("a"), make_chunk("", tool_call_chunks=piece)]
    validated = [make_validated("a"), make_validated("", tool_call_chunks=copy.deepcopy(piece))]
    assert built[0] + built[1] == validated[0] + validated[1]
    assert pickle.loads(pickle.dumps(built[1])) == validated[1]
    assert built[1].model_copy(deep=True) == validated[1]
    for chunks in (built, validated):
        chunks[0].message.id = "lc_run--x"
        chunks[0].message.response_metadata = {"model_provider": "sse"}
    assert _same(built[0], validated[0])
    message = built[1].message
    assert isinstance(message, AIMessageChunk)
    assert message.invalid_tool_calls[0]["args"] == "m ipsum"


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(' \t\n\r{}[]":,5ax\\'), max_size=8),
    st.none() | st.just("f"),
    st.none() | st.just("c"),
    st.none() | st.integers(0, 3),
)
def test_one_fragment(args: str, name: str | None, call_id: str | None, index: int | None) -> None:
    built = make_fragment_chunk(name, args, call_id, index)
    piece = tool_call_chunk(name=name, args=args, id=call_id, index=index)
    validated = make_validated("", tool_call_chunks=[piece])
    assert _same(built, validated), (built, validated)
    assert _same(_chunks._fragment_validated(name, args, call_id, index), validated)


@pytest.mark.parametrize("extra", [False, True])
def test_a_chunk_made_with_its_run_id_is_a_stamped_one(extra: bool) -> None:
    """The id a run stamps on each chunk, given when the chunk is made: what setting it on a
    validated chunk gives (``message.id = ...``, as the stamp does)."""
    fields = _fields("hi", [("m ipsum", None, None)], extra, tag=True)
    built = make_chunk(**copy.deepcopy(fields), message_id="lc_run--x")
    validated = make_validated(**copy.deepcopy(fields), message_id="lc_run--x")
    stamped = make_validated(**copy.deepcopy(fields))
    stamped.message.id = "lc_run--x"
    assert _same(built, validated) and _same(built, stamped)
    piece = make_fragment_chunk(None, "m ipsum", None, 0, "lc_run--x")
    assert _same(piece, _chunks._fragment_validated(None, "m ipsum", None, 0, "lc_run--x"))


@pytest.fixture
def chunk_builder() -> Iterator[None]:
    """Restores the chunk builder chosen at import."""
    fast = _chunks.make_chunk is _chunks._make_fast
    yield
    _chunks.use(fast)


async def _stream_data(model: Any, prompt: str) -> list[dict[str, Any]]:
    config: Any = {"run_id": UUID(int=7)}
    return [message.model_dump() async for message in model.astream(prompt, config)]


@pytest.mark.usefixtures("chunk_builder")
async def test_the_faithful_builder_validates_every_chunk_and_gives_the_same_stream(
    make_model: ModelFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the fast path off (SSE_CONNECTORS_FAST=0, a version outside the tested range, a
    failed probe) every chunk is LangChain's validated construction; the stream is the same."""
    validated: list[str] = []

    def spy(content: str, **fields: Any) -> Any:
        validated.append(content)
        return make_validated(content, **fields)

    monkeypatch.setattr(_chunks, "make_validated", spy)
    model = make_model().bind_tools([get_weather])
    prompt = "echo: the weather in Paris"
    _chunks.use(True)
    fast = await _stream_data(model, prompt)
    by_fast = len(validated)  # only a fragment that needs LangChain's partial-JSON parse
    assert by_fast < len(fast) - 2
    validated.clear()
    _chunks.use(False)
    faithful = await _stream_data(model, prompt)
    assert len(validated) == len(faithful) - 1  # every streamed chunk but the last (whole)
    assert faithful == fast
    fragments = [c for c in faithful if c["tool_call_chunks"]]
    assert fragments, "the stream had no tool-call fragment to build"
