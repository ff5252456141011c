"""A request type as the providers' SDKs publish it (``TypedDict``\\ s of ``typing``
annotations), compiled once into a checker of JSON values that finds the first thing wrong.

Why not pydantic's ``TypeAdapter`` over the same types: the SDKs type their lists as
``Iterable[...]``, which pydantic validates lazily (a generator: a wrong message would pass
unseen), and their unions of blocks carry no discriminator pydantic reads, so one unknown
block gives an error per member instead of the APIs' one error naming the tag. The APIs
validate a tagged union by its ``type`` (Anthropic's errors name the tag in the path:
``tool_choice.tool.name: Field required``), so this walker does too.

What each annotation accepts, read as JSON (:func:`json_kind`): ``str``, ``int`` (not a
boolean), ``float`` (an integer too), ``bool``, ``None``, ``Literal`` values (compared with
their type), lists (``Iterable``, ``Sequence``, ``List``), objects (``Dict``, ``Mapping``, a
``TypedDict``: its required keys there, each value of its type, unknown keys refused when the
API refuses them), unions; ``object`` and ``Any`` accept anything. The SDKs' client-side types
(``bytes``, file objects, paths, the response models some unions also take) match no JSON value.
"""

from __future__ import annotations

import collections.abc
import sys
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

if sys.version_info >= (3, 11):
    from typing import NotRequired, Required
else:  # pragma: no cover - Python 3.10
    from typing_extensions import NotRequired, Required

import typing_extensions

__all__ = ["Compiler", "Issue", "Node", "Path", "Tag", "json_kind"]


@dataclass(frozen=True, slots=True)
class Tag:
    """A step into the member of a tagged union chosen by its ``type`` (a path element)."""

    value: str


Path: TypeAlias = tuple["str | int | Tag", ...]
Kind: TypeAlias = Literal["missing", "extra", "type", "value", "tag"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Issue:
    """The first thing wrong with a value.

    Attributes:
        path: Where: keys, list indexes and the tags of the union members passed through.
        kind: ``missing`` (a required key), ``extra`` (a key the type does not have),
            ``type`` (a value of the wrong JSON kind), ``value`` (not one of a ``Literal``'s
            values), ``tag`` (a ``type`` no member of a tagged union has, or none).
        expected: The JSON kinds (``type``), or the values or tags allowed.
        got: The value found (for ``value`` and ``tag``; None: absent).
        key: For a ``tag`` issue, the key that tells the members apart (``type``, ``role``).
    """

    path: Path
    kind: Kind
    expected: tuple[str, ...] = ()
    got: Any = None
    key: str = "type"


Check: TypeAlias = Callable[[Any, Path], "Issue | None"]
_ALL = frozenset({"null", "boolean", "integer", "number", "string", "array", "object"})
_LISTS = (list, collections.abc.Iterable, collections.abc.Sequence, collections.abc.Collection)
_DICTS = (dict, collections.abc.Mapping)


def json_kind(value: object) -> str:
    """The JSON kind of a decoded value: ``null``, ``boolean``, ``integer``, ``number``,
    ``string``, ``array``, ``object``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


@dataclass(slots=True)
class Node:
    """A compiled annotation.

    Attributes:
        kinds: The JSON kinds it may accept (an empty set: none, a client-side type).
        check: ``(value, path) -> Issue | None``.
        tags: The string values a ``Literal`` takes; for an object type, its keys of
            ``Literal`` strings with those values (the keys that may tell a union's members
            apart: ``type``, ``role``).
        required: For an object type, its required keys.
    """

    kinds: frozenset[str]
    check: Check = field(default=lambda value, path: None)
    tags: tuple[str, ...] = ()
    keyed: dict[str, tuple[str, ...]] = field(default_factory=dict)
    required: frozenset[str] = frozenset()


def _accept(value: Any, path: Path) -> Issue | None:
    return None


_ANY = Node(kinds=_ALL, check=_accept)
_NEVER = Node(kinds=frozenset())


def _scalar(kind: str, *also: str) -> Node:
    kinds = frozenset((kind, *also))

    def check(value: Any, path: Path) -> Issue | None:
        found = json_kind(value)
        if found in kinds:
            return None
        return Issue(path=path, kind="type", expected=(kind,), got=value)

    return Node(kinds=kinds, check=check)


_SCALARS: dict[Any, Node] = {
    str: _scalar("string"),
    int: _scalar("integer"),
    float: _scalar("number", "integer"),
    bool: _scalar("boolean"),
    type(None): _scalar("null"),
}


class Compiler:
    """Compiles annotations into :class:`Node`\\ s, each type once (recursion allowed).

    Args:
        forbid_extra: An object key its ``TypedDict`` does not declare is an ``extra`` issue
            (the API refuses unknown fields); else it is taken unchecked.
        body_key: Maps a declared field to its JSON key, or None for a field that is not in
            the body (an SDK parameter sent as a header).
        amend: Annotations to read in place of others (a shape the API takes that its
            published type leaves out).
        null_is_default: Null is the default of an optional field (null given is the field
            left out: llama-index's OpenAIResponses sends ``"user": null``, and the API takes
            it), and a required field that may be null may be left out (OpenAI's OpenAPI
            documents mark such fields required, ``strict`` of a function tool; its APIs
            default them to null).
    """

    def __init__(
        self,
        *,
        forbid_extra: bool,
        body_key: Callable[[str, Any], str | None] | None = None,
        amend: dict[Any, Any] | None = None,
        null_is_default: bool = False,
    ) -> None:
        self.forbid_extra = forbid_extra
        self.null_is_default = null_is_default
        self.body_key: Callable[[str, Any], str | None] = body_key or _same_key
        self.amend: dict[Any, Any] = amend or {}
        self._done: dict[Any, Node] = {}

    def node(self, hint: Any) -> Node:
        """The node of ``hint`` (any annotation the SDKs use)."""
        try:
            hint = self.amend.get(hint, hint)
            return self._done[hint]
        except KeyError:
            made = self._make(hint)
        except TypeError:  # an annotation holding an unhashable marker: not kept
            return self._make(hint)
        if not typing_extensions.is_typeddict(hint):  # a TypedDict is kept before its fields
            self._done[hint] = made
        return made

    def _make(self, hint: Any) -> Node:
        if hint is Any or hint is object:
            return _ANY
        if hint in _SCALARS:
            return _SCALARS[hint]
        if typing_extensions.is_typeddict(hint):
            return self._typed_dict(hint)
        if hint in _DICTS:
            return _mapping(_ANY)
        if hint in _LISTS:
            return _array(_ANY)
        return self._generic(hint, typing.get_origin(hint), typing.get_args(hint))

    def _generic(self, hint: Any, origin: Any, args: tuple[Any, ...]) -> Node:
        """A parameterised annotation (``Union[...]``, ``List[...]``, ``Literal[...]``, ...)."""
        node = _NEVER  # bytes, IO, PathLike, an SDK's response model: no JSON value
        if origin in (typing.Annotated, Required, NotRequired):
            node = self.node(args[0])
        elif origin is Literal:
            node = _literal(args)
        elif origin is typing.Union or type(hint).__name__ == "UnionType":
            node = _union([self.node(arg) for arg in args])
        elif origin in _DICTS:
            node = _mapping(self.node(args[1]) if len(args) == 2 else _ANY)
        elif origin in _LISTS:
            node = _array(self.node(args[0]) if args else _ANY)
        return node

    def root(self, cls: Any, added: dict[str, Any]) -> Node:
        """The node of the ``TypedDict`` ``cls`` with the optional fields ``added``."""
        return self._typed_dict(cls, added)

    def _typed_dict(self, cls: Any, added: dict[str, Any] | None = None) -> Node:
        node = Node(kinds=frozenset({"object"}))
        if added is None:
            self._done[cls] = node  # a type that holds itself finds this one
        hints = typing.get_type_hints(cls, include_extras=True)
        hints.update({name: NotRequired[hint] for name, hint in (added or {}).items()})
        fields: list[tuple[str, bool, Node]] = []
        for name, hint in hints.items():
            key = self.body_key(name, hint)
            if key is not None:
                value = self.node(hint)
                required = _required(hint, cls.__total__)
                if required and self.null_is_default and "null" in value.kinds:
                    required = False
                fields.append((key, required, value))
        fields.sort(key=lambda field: field[0] != "type")  # what it is, before what it holds
        node.keyed = {key: n.tags for key, _, n in fields if n.tags}
        node.required = frozenset(key for key, req, _ in fields if req)
        node.check = _object(tuple(fields), forbid=self.forbid_extra, nulls=self.null_is_default)
        return node


def _same_key(name: str, hint: Any) -> str | None:
    """A field's JSON key is its name."""
    return name


def _required(hint: Any, total: bool) -> bool:
    """Whether a ``TypedDict`` field is required (``Required[...]``, or a total class's field
    that is not ``NotRequired[...]``), looking through ``Annotated``."""
    while True:
        origin = typing.get_origin(hint)
        if origin is Required:
            return True
        if origin is NotRequired:
            return False
        if origin is not typing.Annotated:
            return total
        hint = typing.get_args(hint)[0]


def _literal(values: Sequence[Any]) -> Node:
    allowed = tuple(values)
    kinds = frozenset(json_kind(v) for v in allowed) | (
        {"number"} if any(type(v) is int for v in allowed) else set()
    )

    def check(value: Any, path: Path) -> Issue | None:
        if any(type(value) is type(v) and value == v for v in allowed):
            return None
        shown = tuple(str(v) for v in allowed)
        if json_kind(value) not in kinds:
            return Issue(path=path, kind="type", expected=tuple(sorted(kinds)), got=value)
        return Issue(path=path, kind="value", expected=shown, got=value)

    node = Node(kinds=kinds, check=check)
    node.tags = tuple(v for v in allowed if isinstance(v, str))
    return node


def _array(item: Node) -> Node:
    def check(value: Any, path: Path) -> Issue | None:
        if not isinstance(value, list):
            return Issue(path=path, kind="type", expected=("array",), got=value)
        for at, element in enumerate(value):
            issue = item.check(element, (*path, at))
            if issue is not None:
                return issue
        return None

    return Node(kinds=frozenset({"array"}), check=check)


def _mapping(values: Node) -> Node:
    def check(value: Any, path: Path) -> Issue | None:
        if not isinstance(value, dict):
            return Issue(path=path, kind="type", expected=("object",), got=value)
        for key, element in value.items():
            issue = values.check(element, (*path, str(key)))
            if issue is not None:
                return issue
        return None

    return Node(kinds=frozenset({"object"}), check=check)


def _object(fields: tuple[tuple[str, bool, Node], ...], *, forbid: bool, nulls: bool) -> Check:
    declared = frozenset(key for key, _, _ in fields)

    def check(value: Any, path: Path) -> Issue | None:
        if not isinstance(value, dict):
            return Issue(path=path, kind="type", expected=("object",), got=value)
        for key, required, node in fields:
            issue = _field(value, key, required, node, path, nulls=nulls)
            if issue is not None:
                return issue
        extra = next((key for key in value if key not in declared), None) if forbid else None
        return None if extra is None else Issue(path=(*path, str(extra)), kind="extra")

    return check


#: The keys that tell the members of a union of objects apart, in the order tried.
_DISCRIMINATORS = ("type", "role")


def _field(
    value: dict[str, Any], key: str, required: bool, node: Node, path: Path, *, nulls: bool
) -> Issue | None:
    """The issue of one declared field of an object, if any."""
    if key not in value:
        return Issue(path=(*path, key), kind="missing") if required else None
    if nulls and not required and value[key] is None:
        return None  # null given: the field's default
    return node.check(value[key], (*path, key))


def _union(members: list[Node]) -> Node:
    """A union: the members that take the value's JSON kind; among objects told apart by a
    key (:data:`_DISCRIMINATORS`, a ``Literal`` in each), those the value's key names, or
    those where the key is optional when it names none. The first member that accepts the
    value wins; else the issue that got deepest."""
    members = [m for m in members if m.kinds]
    kinds = frozenset().union(*(m.kinds for m in members))
    objects = [m for m in members if m.keyed or "object" in m.kinds]
    key = next((k for k in _DISCRIMINATORS if objects and all(k in m.keyed for m in objects)), None)

    def check(value: Any, path: Path) -> Issue | None:
        kind = json_kind(value)
        fits = [m for m in members if kind in m.kinds]
        if not fits:
            return Issue(path=path, kind="type", expected=tuple(sorted(kinds)), got=value)
        step = path
        if kind == "object" and key is not None:
            fits, step, issue = _by_key(fits, key, value, path)
            if issue is not None:
                return issue
        issues = [m.check(value, step) for m in fits]
        if any(issue is None for issue in issues):
            return None
        return max((i for i in issues if i is not None), key=lambda i: len(i.path))

    node = Node(kinds=kinds, check=check)
    node.tags = tuple(tag for m in members if not m.keyed for tag in m.tags)
    return node


def _by_key(
    fits: list[Node], key: str, value: dict[str, Any], path: Path
) -> tuple[list[Node], Path, Issue | None]:
    """The members an object may be by its ``key``, the path into them (through the tag),
    or the issue of its tag."""
    tag = value.get(key)
    every = tuple(dict.fromkeys(t for m in fits for t in m.keyed.get(key, ())))
    named = [m for m in fits if tag in m.keyed.get(key, ())]
    if isinstance(tag, str) and named:
        return named, (*path, Tag(tag)), None
    optional = [m for m in fits if key not in m.required]
    if tag is None and optional:
        return optional, path, None
    return fits, path, Issue(path=path, kind="tag", expected=every, got=tag, key=key)
