"""The pure part of ChatSSE's own stream loop (:mod:`langchain_sse._run`): the langchain-core
private names it relies on (a test that fails loudly, naming them, when one moves), the
run plan handed to the callback manager, and the stamping of chunks.

The fallback itself (the base class's loop when a name is missing) is tested end to end in
``test_loop.py``.
"""

from __future__ import annotations

import importlib
from importlib.metadata import version
from typing import Any
from uuid import UUID

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessageChunk, HumanMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGenerationChunk

from langchain_sse import _run
from langchain_sse._run import (
    MODEL_METHODS,
    OWN_LOOP,
    Stamp,
    Unstamped,
    find_missing,
    plan_run,
)
from tests.langchain.lc_support import ModelFactory

RUN_ID = UUID("01234567-89ab-7def-8123-456789abcdef")
#: The module-level private functions, where langchain-core defines them.
PRIVATE_FUNCTIONS = (
    "langchain_core.language_models._utils._normalize_messages",
    "langchain_core.language_models.chat_models._format_for_tracing",
)


def _chunk(**fields: Any) -> ChatGenerationChunk:
    return ChatGenerationChunk(message=AIMessageChunk(**fields))


def test_langchain_core_still_has_every_private_name_the_own_loop_uses() -> None:
    missing = find_missing()
    assert not missing, (
        f"langchain-core {version('langchain-core')} lacks {', '.join(missing)}: ChatSSE now "
        "runs BaseChatModel's stream loop, which keeps every chunk of an answer; "
        "find where langchain-core moved it and update langchain_sse/_run.py"
    )
    assert OWN_LOOP.probe() is None


@pytest.mark.parametrize("dotted", PRIVATE_FUNCTIONS)
def test_each_private_function_is_where_langchain_core_defines_it(dotted: str) -> None:
    home, name = dotted.rsplit(".", 1)
    found = getattr(importlib.import_module(home), name, None)
    assert callable(found), f"langchain-core moved or renamed {dotted}; see langchain_sse/_run.py"


@pytest.mark.parametrize("name", MODEL_METHODS)
def test_each_model_method_is_on_the_base_class(name: str) -> None:
    assert hasattr(BaseChatModel, name), (
        f"BaseChatModel.{name} is gone from langchain-core {version('langchain-core')}; "
        "ChatSSE's own stream loop calls it (langchain_sse/_run.py)"
    )


def test_a_missing_function_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_run, "format_for_tracing", None)
    assert find_missing() == ["langchain_core.language_models.chat_models._format_for_tracing"]
    assert OWN_LOOP.probe() == (
        "langchain-core lacks langchain_core.language_models.chat_models._format_for_tracing"
    )


def test_a_missing_model_method_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_run, "MODEL_METHODS", (*MODEL_METHODS, "_renamed_in_a_later_release"))
    assert find_missing() == ["BaseChatModel._renamed_in_a_later_release"]


def test_the_plan_carries_what_on_chat_model_start_needs(make_model: ModelFactory) -> None:
    model = make_model(temperature=0.5, tags=["model-tag"])
    schema = {"title": "T", "type": "object", "properties": {}}
    structured = {"schema": schema, "kwargs": {"method": "json_schema"}}
    kwargs: dict[str, Any] = {"ls_structured_output_format": structured, "seed": 3}
    config: Any = {"run_id": RUN_ID, "run_name": "answer", "tags": ["t"], "metadata": {"m": 1}}
    plan = plan_run(model, "hi", config, ["STOP"], kwargs)
    assert "ls_structured_output_format" not in kwargs  # popped: not a request field
    assert [type(m) for m in plan.messages] == [HumanMessage]
    assert plan.start["run_id"] == RUN_ID and plan.start["name"] == "answer"
    assert plan.start["options"]["stop"] == ["STOP"]
    assert plan.start["options"]["seed"] == 3
    assert plan.start["options"]["ls_structured_output_format"]["kwargs"] == {
        "method": "json_schema"
    }
    assert plan.configure["inheritable_metadata"]["m"] == 1
    assert plan.configure["inheritable_metadata"]["ls_provider"] == "sse"
    assert plan.configure["inheritable_metadata"]["ls_temperature"] == 0.5
    assert plan.configure["local_tags"] == ["model-tag"]


def test_a_schema_that_cannot_be_traced_is_left_out(make_model: ModelFactory) -> None:
    kwargs: dict[str, Any] = {"ls_structured_output_format": {"schema": 42}}
    plan = plan_run(make_model(), "hi", None, None, kwargs)
    assert "ls_structured_output_format" not in plan.start["options"]


def test_stamp_names_each_chunk_after_the_run_and_keeps_a_provider_id() -> None:
    stamp = Stamp(RUN_ID, None)
    plain, named = _chunk(content="a"), _chunk(content="b", id="chatcmpl-1")
    assert stamp.token(plain) == "a"
    assert plain.message.id == f"lc_run--{RUN_ID}"
    stamp.token(named)
    assert named.message.id == "chatcmpl-1"
    whole = stamp.whole(AIMessageChunk(content="ab"))
    assert whole.message.id == f"lc_run--{RUN_ID}"


def test_stamp_numbers_v1_blocks_by_the_run_of_their_type() -> None:
    stamp = Stamp(RUN_ID, "v1")
    reasoning = _chunk(content="", additional_kwargs={"reasoning_content": "r"})
    tokens = [stamp.token(c) for c in (reasoning, _chunk(content="x"), _chunk(content="y"))]
    assert [[(b["type"], b["index"]) for b in token] for token in tokens] == [  # type: ignore[index, union-attr]
        [("reasoning", 0)],
        [("text", 1)],
        [("text", 1)],
    ]
    assert reasoning.message.response_metadata["output_version"] == "v1"


def test_stamp_numbers_each_tool_call_after_the_blocks_before_it() -> None:
    """A fragment carries its call's index (0 first): numbered as is, it would share the
    reasoning block's number, and merging would fold the call into the reasoning."""
    stamp = Stamp(RUN_ID, "v1")

    def piece(index: int, args: str, name: str | None = None) -> ChatGenerationChunk:
        fragment = tool_call_chunk(name=name, args=args, id=name and f"c{index}", index=index)
        return _chunk(content="", tool_call_chunks=[fragment])

    chunks = [
        _chunk(content="", additional_kwargs={"reasoning_content": "r"}),
        piece(0, "", "f"),
        piece(1, "", "g"),
        piece(0, '{"a": 1}'),  # a gateway may interleave the calls' fragments
        piece(1, "{}"),
        _chunk(content="done"),
    ]
    tokens = [stamp.token(c) for c in chunks]
    assert [[(b["type"], b["index"]) for b in token] for token in tokens] == [  # type: ignore[index, union-attr]
        [("reasoning", 0)],
        [("tool_call_chunk", 1)],
        [("tool_call_chunk", 2)],
        [("tool_call_chunk", 1)],
        [("tool_call_chunk", 2)],
        [("text", 3)],
    ]


def test_a_whole_v1_answer_leaves_finished_tool_calls_unnumbered() -> None:
    message = AIMessageChunk(
        content="ok",
        tool_call_chunks=[{"name": "f", "args": "{}", "id": "c", "index": 0,
                           "type": "tool_call_chunk"}],
        chunk_position="last",
    )  # fmt: skip
    blocks = Stamp(RUN_ID, "v1").whole(message).message.content
    assert [(b["type"], b.get("index")) for b in blocks] == [  # type: ignore[union-attr]
        ("text", 0),
        ("tool_call", None),
    ]


def test_unstamped_leaves_chunks_as_they_are() -> None:
    chunk = _chunk(content="a")
    assert Unstamped().token(chunk) == "a"
    assert chunk.message.id is None
    message = AIMessageChunk(content="ab")
    assert Unstamped().whole(message).message is message
