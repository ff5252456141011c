"""The walker that reads a published request type (``TypedDict``\\ s of ``typing`` annotations)
as the APIs validate: every list checked (an SDK's ``Iterable`` too), a union of objects told
apart by its ``type`` or ``role``, the first thing wrong named by its path, in each API's words.
Pure: no server, no SDK."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, Optional, Union

import pytest
from typing_extensions import NotRequired, Required, TypedDict

from sse_emulator.schemas.walker import Compiler, Issue, Tag, json_kind
from sse_emulator.schemas.wording import anthropic_message, openai_path, openai_refusal


class Text(TypedDict, total=False):
    type: Required[Literal["text"]]
    text: Required[str]


class Image(TypedDict, total=False):
    type: Required[Literal["image"]]
    url: Required[str]
    detail: Literal["low", "high"]


class Message(TypedDict, total=False):
    role: Required[Literal["user", "assistant"]]
    content: Required[Union[str, Iterable[Union[Text, Image]]]]  # noqa: UP007 - as SDKs write it
    name: Optional[str]  # noqa: UP045


class Body(TypedDict):
    messages: Iterable[Message]
    temperature: NotRequired[float]
    choice: NotRequired[Union[Literal["auto", "none"], Text]]  # noqa: UP007


def check(body: Any, *, forbid: bool = True, nulls: bool = False) -> Issue | None:
    root = Compiler(forbid_extra=forbid, null_is_default=nulls).node(Body)
    return root.check(body, ())


def ask(*content: Any) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": list(content)}]}


def test_a_body_of_the_type_passes() -> None:
    body = ask({"type": "text", "text": "hi"}, {"type": "image", "url": "u", "detail": "low"})
    assert check(body | {"temperature": 1, "choice": "auto"}) is None


def test_every_element_of_an_iterable_is_checked() -> None:
    """pydantic validates an ``Iterable`` lazily: a wrong block would pass unseen."""
    issue = check(ask({"type": "text", "text": "hi"}, {"type": "text", "text": 5}))
    assert issue == Issue(
        path=("messages", 0, "content", 1, Tag("text"), "text"),
        kind="type",
        expected=("string",),
        got=5,
    )


def test_a_tagged_union_names_the_tag_and_its_members() -> None:
    issue = check(ask({"type": "file", "data": "x"}))
    assert issue is not None and (issue.kind, issue.got, issue.expected) == (
        "tag",
        "file",
        ("text", "image"),
    )
    said = anthropic_message(issue)
    assert said == (
        "messages.0.content.0: Input tag 'file' found using 'type' does not match any of the "
        "expected tags: 'text', 'image'"
    )
    assert openai_refusal(issue) == (
        "Invalid value: 'file'. Supported values are: 'text' and 'image'.",
        "messages[0].content[0].type",
        "invalid_value",
    )


def test_a_missing_field_an_unknown_one_and_a_wrong_value() -> None:
    missing = check(ask({"type": "image"}))
    assert missing is not None and anthropic_message(missing) == (
        "messages.0.content.0.image.url: Field required"
    )
    extra = check(ask({"type": "text", "text": "hi", "id": "msg_1"}))
    assert extra is not None and openai_refusal(extra) == (
        "Unknown parameter: 'messages[0].content[0].id'.",
        "messages[0].content[0].id",
        "unknown_parameter",
    )
    wrong = check(ask({"type": "image", "url": "u", "detail": "max"}))
    assert wrong is not None and anthropic_message(wrong).endswith(
        "detail: Input should be 'low' or 'high'"
    )


def test_unknown_fields_are_taken_where_the_api_takes_them() -> None:
    assert check(ask({"type": "text", "text": "hi", "id": "m"}), forbid=False) is None


def test_null_is_the_default_of_an_optional_field_on_openais_apis() -> None:
    body = {"messages": [{"role": "user", "content": "hi", "name": None}], "temperature": None}
    issue = check(body)
    assert issue is not None and openai_refusal(issue)[0] == (
        "Invalid type for 'temperature': expected a decimal, but got null instead."
    )
    assert check(body, nulls=True) is None


def test_a_union_of_strings_and_objects_takes_each_by_its_kind() -> None:
    assert check(ask() | {"choice": {"type": "text", "text": "x"}}) is None
    issue = check(ask() | {"choice": "sometimes"})
    assert issue is not None and issue.kind == "value" and issue.expected == ("auto", "none")
    issue = check(ask() | {"choice": 3})
    assert issue is not None and openai_refusal(issue)[2] == "invalid_type"


def test_a_role_tells_messages_apart() -> None:
    issue = check({"messages": [{"role": "robot", "content": "hi"}]})
    assert issue is not None and anthropic_message(issue) == (
        "messages.0.role: Input should be 'user' or 'assistant'"
    )


class Tree(TypedDict, total=False):
    name: Required[str]
    children: list[Tree]


def test_a_type_that_holds_itself_compiles() -> None:
    root = Compiler(forbid_extra=True).node(Tree)
    assert root.check({"name": "a", "children": [{"name": "b", "children": []}]}, ()) is None
    issue = root.check({"name": "a", "children": [{"children": []}]}, ())
    assert issue is not None and issue.path == ("children", 0, "name")


@pytest.mark.parametrize(
    ("value", "kind"),
    [(None, "null"), (True, "boolean"), (1, "integer"), (1.5, "number"), ("s", "string"),
     ([], "array"), ({}, "object")],
)  # fmt: skip
def test_json_kinds(value: Any, kind: str) -> None:
    assert json_kind(value) == kind


def test_openai_paths_drop_the_tags() -> None:
    assert openai_path(("input", 3, Tag("message"), "content", 0, "id")) == "input[3].content[0].id"
