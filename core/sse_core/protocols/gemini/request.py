"""A Gemini ``generateContent`` request from the core's turns (:mod:`sse_core.protocols.turns`):
the system instruction, the contents and their parts, and what of an earlier answer goes back
with its thought signatures (:func:`contents`); the whole body is :func:`contents_body`
(:mod:`.config` makes its settings, tools and tool choice).

The rules (the API reference's ``Content`` and ``Part``; the "Function calling" and "Thought
signatures" guides):

- **system** turns are ``systemInstruction`` (``{"parts": [{"text": ...}]}``); they carry text
  only (a RawPart as given);
- **user** and **assistant** turns are ``contents`` with the roles ``user`` and ``model``;
  consecutive turns of one role are merged into one content (the API reads a turn as one
  content); an empty text is not sent, nor a content left with no part;
- **images** are ``inlineData`` (base64 with its ``mimeType``; a ``data:`` URL read into it) or
  ``fileData`` (``fileUri``) for a URL; **documents** ``inlineData`` (a PDF by default),
  ``fileData`` for a URL, a plain-text document as text; a RawPart is a Gemini part as given;
- **tool calls** of an assistant turn are ``{"functionCall": {"name", "args", "id"?}}``: the
  ``id`` only when it was Gemini's own (the decoder names a call that came without one
  ``gemini_call_<n>``, :data:`~.candidates.GENERATED_ID_PREFIX`, which the API never saw);
- **tool results** are a ``user`` content of ``{"functionResponse": {"name", "response",
  "id"?}}``: ``response`` is ``{"result": <the text>}`` (``{"error": ...}`` for a failed tool,
  as the API reference's ``FunctionResponse.response`` says); the name is the one of the call
  with that id in an earlier assistant turn (Gemini matches a response to its call by name),
  and a result that answers no call is refused;
- **thought signatures** go back byte-exact, on the part they came on ("return signatures
  exactly as received", and never merge a signed part with another): an earlier answer's
  signed parts are the items of its reasoning (``gemini_signed_part``, a ReasoningPart's
  ``item`` or a RawPart of that type, as each adapter keeps it), each put back where it was:
  a ``function_call`` one on the call with its index (its id, else its place among the turn's
  calls), a ``text`` one at its offset in the turn's text (the text cut there, the signed part
  sent as it came), a ``thought`` or any other kind as the ``part`` was sent (the guide: send
  the whole response back; a thought summary is part of it and goes back with its
  signature). In a turn, signed thoughts and other signed parts come first (by their
  position), then the text, then the calls. A signed text part whose text was changed goes
  back without its signature, named in the warning. Reasoning without a Gemini item (another
  protocol's signed thinking, unsigned thought text) is not sent
  (:mod:`sse_core.protocols.history`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from sse_core.errors import ConfigurationError
from sse_core.protocols.gemini.candidates import GENERATED_ID_PREFIX, SIGNED_PART
from sse_core.protocols.history import reasoning_name, signed
from sse_core.protocols.turns import (
    DocumentPart,
    ImagePart,
    Part,
    RawPart,
    ReasoningPart,
    TextPart,
    ToolResultPart,
    ToolUsePart,
    Turn,
)

__all__ = ["contents", "signed_call_item", "signed_item", "signed_text_item", "taken"]

Block = dict[str, Any]
Content = dict[str, Any]


def signed_item(part: Part) -> Mapping[str, Any] | None:
    """The ``gemini_signed_part`` item ``part`` carries (a ReasoningPart's ``item``, or a
    RawPart of that type), else None."""
    if isinstance(part, ReasoningPart):
        item = part.item
    elif isinstance(part, RawPart):
        item = part.block
    else:
        return None
    if item is not None and item.get("type") == SIGNED_PART:
        return item
    return None


def taken(turns: Sequence[Turn], lost: list[str]) -> list[Turn]:
    """An earlier answer as the Gemini API takes it back: another protocol's signed reasoning
    and blocks (a RawPart with a ``type``: Gemini parts have none) are left out, named in
    ``lost``; unsigned reasoning is left out unnamed (:mod:`sse_core.protocols.history`)."""
    kept: list[Turn] = []
    for turn in turns:
        if turn.role != "assistant":
            kept.append(turn)
            continue
        parts: list[Part] = []
        for part in turn.parts:
            if signed_item(part) is not None:
                parts.append(part)
            elif isinstance(part, ReasoningPart):
                lost += [reasoning_name(part)] if signed(part) or part.item else []
            elif isinstance(part, RawPart) and "type" in part.block:
                lost.append(f"a {part.block.get('type')!r} block, which Gemini has no part for")
            else:
                parts.append(part)
        kept.append(Turn(role=turn.role, parts=tuple(parts)))
    return kept


def contents(turns: Sequence[Turn], lost: list[str]) -> tuple[Content | None, list[Content]]:
    """The ``systemInstruction`` (None: none) and the ``contents`` of a request; what of an
    earlier answer cannot go back as it came is named in ``lost``.

    Raises:
        ConfigurationError: A system turn with other than text, media in an assistant turn,
            or a tool result that answers no call of an earlier assistant turn.
    """
    system: list[Block] = []
    out: list[Content] = []
    names: dict[str, str] = {}
    for turn in turns:
        if turn.role == "system":
            system.extend(_system_part(part) for part in turn.parts if _sent(part))
            continue
        if turn.role == "assistant":
            names.update((p.id, p.name) for p in turn.parts if isinstance(p, ToolUsePart))
            role, parts = "model", _model_parts(turn, lost)
        else:
            role, parts = "user", [_user_part(part, names) for part in turn.parts if _sent(part)]
        if not parts:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["parts"].extend(parts)
        else:
            out.append({"role": role, "parts": parts})
    return ({"parts": system} if system else None), out


def _sent(part: Part) -> bool:
    return not (isinstance(part, TextPart) and not part.text)


def _system_part(part: Part) -> Block:
    if isinstance(part, TextPart):
        return {"text": part.text}
    if isinstance(part, RawPart) and "text" in part.block:
        return dict(part.block)
    raise ConfigurationError(
        f"a system message can carry text only in a Gemini request (systemInstruction), got a "
        f"{type(part).__name__}; send images and documents in a user message"
    )


def _user_part(part: Part, names: Mapping[str, str]) -> Block:
    """One part of a user (or tool) turn."""
    if isinstance(part, TextPart):
        return {"text": part.text}
    if isinstance(part, ImagePart):
        return _image(part)
    if isinstance(part, DocumentPart):
        return _document(part)
    if isinstance(part, ToolResultPart):
        return _function_response(part, names)
    if isinstance(part, RawPart):
        return dict(part.block)
    raise ConfigurationError(
        f"a user message cannot carry a {type(part).__name__} in a Gemini request; expected "
        "text, images, documents or tool results"
    )


def _image(part: ImagePart) -> Block:
    if part.url.startswith("data:") and ";base64," in part.url:
        media, _, data = part.url[5:].partition(";base64,")
        return {"inlineData": {"mimeType": media, "data": data}}
    if part.url:
        return {"fileData": {"fileUri": part.url}}  # the API fetches it
    return {"inlineData": {"mimeType": part.media_type or "image/png", "data": part.data}}


def _document(part: DocumentPart) -> Block:
    if part.text is not None:
        return {"text": part.text}
    if part.url:
        return {"fileData": {"mimeType": part.media_type or "application/pdf", "fileUri": part.url}}
    return {"inlineData": {"mimeType": part.media_type or "application/pdf", "data": part.data}}


def _own_id(call_id: str) -> bool:
    """Whether ``call_id`` is Gemini's own (not one the decoder made for a call without)."""
    return bool(call_id) and not call_id.startswith(GENERATED_ID_PREFIX)


def _function_response(part: ToolResultPart, names: Mapping[str, str]) -> Block:
    name = names.get(part.call_id)
    if name is None:
        raise ConfigurationError(
            f"a tool result answers call {part.call_id!r}, which no earlier assistant message "
            "makes: Gemini names a function response by its call's name, so send the AI "
            "message with its tool calls before their results"
        )
    response: Block = {"name": name, "response": {_result_key(part): _result(part)}}
    if _own_id(part.call_id):
        response["id"] = part.call_id
    return {"functionResponse": response}


def _result_key(part: ToolResultPart) -> str:
    return "error" if part.is_error else "result"


def _result(part: ToolResultPart) -> str:
    if isinstance(part.content, str):
        return part.content
    texts = []
    for inner in part.content:
        if not isinstance(inner, TextPart):
            raise ConfigurationError(
                f"a tool result can carry text only in a Gemini request, got a "
                f"{type(inner).__name__}"
            )
        texts.append(inner.text)
    return "".join(texts)


def _arguments(given: object) -> Any:
    """A call's arguments as the object ``args`` is (a JSON text parsed)."""
    if isinstance(given, str):
        try:
            given = json.loads(given or "{}")
        except ValueError:
            return {}
    return given if isinstance(given, Mapping) else {}


def _model_parts(turn: Turn, lost: list[str]) -> list[Block]:
    """An assistant turn's parts: signed thoughts and other signed parts, the text (cut where
    a signed text part starts), the calls (a signed one with its signature)."""
    items = [item for part in turn.parts if (item := signed_item(part)) is not None]
    for part in turn.parts:
        if isinstance(part, (ImagePart, DocumentPart, ToolResultPart)):
            raise ConfigurationError(
                f"an assistant message cannot carry a {type(part).__name__} in a Gemini "
                "request; send images and documents in a user message"
            )
    first = sorted(
        (item for item in items if item.get("kind") not in ("text", "function_call")),
        key=_position,
    )
    parts = [item.get("part") for item in first]
    out: list[Block] = [dict(part) for part in parts if isinstance(part, Mapping)]
    raw = [dict(p.block) for p in turn.parts if isinstance(p, RawPart) and signed_item(p) is None]
    text = "".join(p.text for p in turn.parts if isinstance(p, TextPart))
    out += raw + _texts(text, [item for item in items if item.get("kind") == "text"], lost)
    calls = [p for p in turn.parts if isinstance(p, ToolUsePart)]
    signatures = _call_signatures(calls, [i for i in items if i.get("kind") == "function_call"])
    for at, call in enumerate(calls):
        made: Block = {"name": call.name, "args": _arguments(call.input)}
        if _own_id(call.id):
            made["id"] = call.id
        block: Block = {"functionCall": made}
        if at in signatures:
            block["thoughtSignature"] = signatures[at]
        out.append(block)
    return out


def _position(item: Mapping[str, Any]) -> int:
    position = item.get("position")
    return position if isinstance(position, int) else 0


def _signature(item: Mapping[str, Any]) -> str | None:
    part = item.get("part")
    found = part.get("thoughtSignature") if isinstance(part, Mapping) else None
    return found if isinstance(found, str) else None


def _texts(text: str, items: Sequence[Mapping[str, Any]], lost: list[str]) -> list[Block]:
    """The turn's text as parts: cut where each signed text part starts, that part sent as it
    came (its text unchanged: else the text goes without the signature, named in ``lost``)."""
    out: list[Block] = []
    at = 0
    for item in sorted(items, key=lambda item: item.get("offset") or 0):
        part, offset = item.get("part"), item.get("offset")
        said = part.get("text") if isinstance(part, Mapping) else None
        if not (isinstance(said, str) and isinstance(offset, int) and offset >= at):
            continue
        if text[offset : offset + len(said)] != said:
            lost.append(f"the thought signature of the text at {offset}, whose text was changed")
            continue
        if offset > at:
            out.append({"text": text[at:offset]})
        assert isinstance(part, Mapping)
        out.append(dict(part))
        at = offset + len(said)
    if at < len(text):
        out.append({"text": text[at:]})
    return out


def _call_signatures(
    calls: Sequence[ToolUsePart], items: Sequence[Mapping[str, Any]]
) -> dict[int, str]:
    """The signature of each signed call, by its place in ``calls``: the call whose id is the
    signed part's (Gemini's own, or the one the decoder made of its index), else the call at
    its index."""
    found: dict[int, str] = {}
    ids = [call.id for call in calls]
    for item in items:
        signature, index = _signature(item), item.get("call")
        part = item.get("part")
        function = part.get("functionCall") if isinstance(part, Mapping) else None
        own = function.get("id") if isinstance(function, Mapping) else None
        wanted = own if isinstance(own, str) and own else f"{GENERATED_ID_PREFIX}{index}"
        if wanted in ids:
            at = ids.index(wanted)
        elif isinstance(index, int) and 0 <= index < len(calls):
            at = index
        else:
            continue
        if signature is not None:
            found[at] = signature
    return found


def signed_call_item(call: int, name: str, args: Any, signature: str) -> dict[str, Any]:
    """The signed-part item of an earlier answer's function call ``call`` (its place among
    the answer's calls), for a history that kept the signature apart from the part
    (ChatGoogleGenerativeAI's, llama-index GoogleGenAI's): it goes back on that call."""
    part = {"functionCall": {"name": name, "args": _arguments(args)}, "thoughtSignature": signature}
    return {"type": SIGNED_PART, "kind": "function_call", "position": None, "offset": None,
            "call": call, "part": part}  # fmt: skip


def signed_text_item(offset: int, text: str, signature: str) -> dict[str, Any]:
    """The signed-part item of an earlier answer's text part that began ``offset``
    characters into the answer's text, for a history that kept its signature beside it."""
    part = {"text": text, "thoughtSignature": signature}
    return {"type": SIGNED_PART, "kind": "text", "position": None, "offset": offset,
            "call": None, "part": part}  # fmt: skip
