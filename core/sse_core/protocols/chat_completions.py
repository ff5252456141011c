"""OpenAI chat completions, the default protocol, in every gateway dialect.

- Stream: ``data: <chat.completion.chunk>`` frames ending with ``data: [DONE]`` or a
  ``finish_reason`` (:class:`~sse_core.pipeline.ChunkDecoder`, with the optional msgspec
  accelerator).
- Request: ``POST {base_url}/chat/completions`` with ``Authorization: Bearer``; the body asks
  for ``stream_options.include_usage`` when usage is wanted (and drops ``stream_options``
  from a whole-answer request, where OpenAI refuses it); more than one choice (``n``) is
  refused, as a stream of one answer cannot show several.
- ``max_tokens``: none unless set.

The rules OpenAI documents for a request, applied to every body before it is sent
(:func:`check_request`; the emulator refuses the same requests, docs/emulator.md):

- ``stream_options`` only with ``stream: true`` (dropped from a whole-answer request);
- ``reasoning_effort`` is one of :data:`EFFORTS` (another value is refused by name: the API
  answers 400 ``invalid_value``; a gateway's own value goes in ``extra_body``, sent as given);
- a model that does not reason (:func:`does_not_reason`: gpt-4o, gpt-4.1, gpt-5-chat-latest)
  refuses ``reasoning_effort`` ("Unrecognized request argument supplied: reasoning_effort",
  coroot/coroot#698): not sent, with a warning, as the Responses API's ``reasoning.effort``;
- a reasoning model (o1, o3, o4, gpt-5 families) takes ``max_completion_tokens`` and refuses
  ``max_tokens``: ``max_tokens`` is sent as ``max_completion_tokens`` to those models, as
  langchain-openai sends it;
- a ``tool`` message answers a call of the assistant message before its run of tool
  messages (an orphan result is refused before it is sent, naming the message);
- a tool call no ``tool`` message answers, in a conversation that goes on after it (an
  interrupted answer), is left out with a warning (:mod:`sse_core.protocols.history`).

A conversation of neutral turns (:mod:`sse_core.protocols.turns`) becomes the ``messages``
of :func:`turns_body`, with the rules of turns (:mod:`sse_core.protocols.history`) and these:

- a system turn is a ``system`` message (its texts joined); a user turn of one text is a
  string, of more parts a list of OpenAI parts (``image_url``, a PDF as a ``file`` with its
  ``file_data`` URL, a text document as text, a raw part as given); a document by URL is
  refused (the API takes files as data or an uploaded id, given raw);
- an image or a document (not a text one) on a system or assistant turn, or a raw part other
  than text on a system turn, is refused by name (the API takes text parts only there);
- an earlier answer is an ``assistant`` message: its texts, and its tool calls as
  ``tool_calls`` (arguments as JSON text; ``content`` null beside them); its reasoning goes
  back as ``reasoning_content`` only when asked (``reasoning_passback``) and only on the
  answers after the last user turn, which is what DeepSeek's and Qwen's thinking modes want
  inside a tool loop and nowhere else; another API's signed or encrypted reasoning is left
  out, named in the warning;
- each tool result is a ``tool`` message (its texts joined; other parts as a list);
- a turn's ``name`` is the message's ``name``.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from sse_core._choices import check_choices
from sse_core.errors import ConfigurationError
from sse_core.pipeline.chunks import ChunkDecoder
from sse_core.protocols import prompt
from sse_core.protocols.history import reasoning_name, settle, signed, warn_left_out
from sse_core.protocols.prompt import Part, Prompt
from sse_core.protocols.registry import RequestShape, WireProtocol, register_protocol
from sse_core.protocols.turns import (
    DocumentPart,
    ImagePart,
    RawPart,
    ReasoningPart,
    TextPart,
    ToolResultPart,
    ToolUsePart,
    Turn,
)

__all__ = [
    "CHAT_COMPLETIONS",
    "EFFORTS",
    "PASSBACK",
    "chat_body",
    "chat_messages",
    "check_request",
    "does_not_reason",
    "reasoning_model",
    "turns_body",
]

#: The ``reasoning_effort`` values OpenAI takes (openai-python's ``ReasoningEffort``).
EFFORTS: tuple[str, ...] = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
_REASONING_MODEL = re.compile(r"(?:.*/)?(?:o1|o3|o4|gpt-5)(?:$|[-.:_])", re.IGNORECASE)


def reasoning_model(model: object) -> bool:
    """Whether ``model`` names an OpenAI reasoning model (the o1, o3, o4 and gpt-5 families,
    also behind a gateway's ``provider/`` prefix), which refuses ``max_tokens``."""
    return isinstance(model, str) and _REASONING_MODEL.match(model) is not None


#: Models that do not reason (OpenAI's GPT-3.5 and GPT-4 families, ChatGPT's and GPT-5's chat
#: models), which refuse an effort (chat completions: "Unrecognized request argument supplied:
#: reasoning_effort"; Responses: "Unsupported parameter: 'reasoning.effort' is not supported
#: with this model."); another name (a gateway's own model) may reason.
_NOT_REASONING = re.compile(r"(?:.*/)?(?:gpt-3\.5|gpt-4|chatgpt-|gpt-5(?:\.\d+)?-chat)", re.I)


def does_not_reason(model: object) -> bool:
    """Whether ``model`` names an OpenAI model known not to reason (gpt-4o, gpt-4.1,
    gpt-5-chat-latest, ...), which refuses ``reasoning.effort``."""
    return isinstance(model, str) and _NOT_REASONING.match(model) is not None


def check_request(body: dict[str, Any], extra_body: Mapping[str, Any] | None = None) -> None:
    """Apply OpenAI's request rules to ``body`` in place (see the module's docstring); what
    the caller put in ``extra_body`` is sent as given.

    Raises:
        ConfigurationError: An unknown ``reasoning_effort``, or a ``tool`` message that
            answers no call of the assistant message before it.
    """
    given = extra_body or {}
    effort = body.get("reasoning_effort")
    if effort is not None and effort not in EFFORTS and "reasoning_effort" not in given:
        raise ConfigurationError(
            f"reasoning_effort must be one of {', '.join(map(repr, EFFORTS))} on "
            f"chat completions, got {effort!r} (a gateway's own value: extra_body)"
        )
    if effort in EFFORTS and "reasoning_effort" not in given and does_not_reason(body.get("model")):
        warnings.warn(
            f"reasoning_effort {effort!r} is not sent: {body.get('model')} does not reason and "
            "the API refuses the field for it ('Unrecognized request argument supplied: "
            "reasoning_effort'; choose a reasoning model, such as gpt-5 or o4-mini, to reason)",
            UserWarning,
            stacklevel=4,
        )
        del body["reasoning_effort"]
    if (
        body.get("max_tokens") is not None
        and "max_tokens" not in given
        and "max_completion_tokens" not in body
        and reasoning_model(body.get("model"))
    ):
        body["max_completion_tokens"] = body.pop("max_tokens")
    messages = body.get("messages")
    if isinstance(messages, list):
        lost: list[str] = []
        if "messages" not in given:
            body["messages"] = messages = _settled(messages, lost)
        _check_tool_messages(messages)
        warn_left_out("chat completions", lost, stacklevel=3)


def _settled(messages: list[Any], lost: list[str]) -> list[Any]:
    """The messages with each tool call no ``tool`` message right after answers left out, when
    the conversation goes on after it (an interrupted answer kept in a thread: the API refuses
    it, "An assistant message with 'tool_calls' must be followed by tool messages responding to
    each 'tool_call_id'"), each named in ``lost`` (:mod:`sse_core.protocols.history`); an
    assistant message left with nothing is left out."""
    kept: list[Any] = []
    for at, message in enumerate(messages):
        calls = message.get("tool_calls") if isinstance(message, Mapping) else None
        if not calls or message.get("role") != "assistant" or at == len(messages) - 1:
            kept.append(message)
            continue
        answered = set()
        for later in messages[at + 1 :]:
            if not isinstance(later, Mapping) or later.get("role") != "tool":
                break
            answered.add(later.get("tool_call_id"))
        left = [c for c in calls if isinstance(c, Mapping) and c.get("id") in answered]
        lost += [_call_name(c) for c in calls if c not in left]
        mended = {k: v for k, v in message.items() if k != "tool_calls"}
        if left:
            kept.append({**mended, "tool_calls": left})
        elif mended.get("content"):
            kept.append(mended)
    return kept


def _call_name(call: Any) -> str:
    function = call.get("function") if isinstance(call, Mapping) else None
    name = function.get("name") if isinstance(function, Mapping) else None
    return f"the tool call {call.get('id')!r} ({name}), which no tool result answers"


def _check_tool_messages(messages: list[Any]) -> None:
    open_calls: set[Any] | None = None  # the calls the current tool run may answer
    for i, message in enumerate(messages):
        if not isinstance(message, Mapping):
            continue
        role = message.get("role")
        if role != "tool":
            calls = message.get("tool_calls") if role == "assistant" else None
            listed = calls if isinstance(calls, list) and calls else None
            open_calls = (
                None if listed is None else {c.get("id") for c in listed if isinstance(c, Mapping)}
            )
            continue
        answered = message.get("tool_call_id")
        if open_calls is None or answered not in open_calls:
            raise ConfigurationError(
                f"messages[{i}] is a tool result for call {answered!r}, which the assistant "
                "message before it did not make (the API refuses a tool message that "
                "answers no preceding tool_calls)"
            )


def chat_body(
    payload: Mapping[str, Any],
    extra_body: Mapping[str, Any] | None,
    *,
    streaming: bool,
    include_usage: bool,
) -> dict[str, Any]:
    """Chat completions: one choice at most; ``stream_options.include_usage`` when asked."""
    check_choices(payload, extra_body)
    body = {**payload, **(extra_body or {}), "stream": streaming}
    check_request(body, extra_body)
    if not streaming:
        body.pop("stream_options", None)
    elif include_usage:
        options = body.get("stream_options")
        body["stream_options"] = {
            **(options if isinstance(options, dict) else {}),
            "include_usage": True,
        }
    return body


#: The setting that sends an earlier answer's reasoning back (``reasoning_content``).
PASSBACK = "reasoning_passback"
#: Request keys that only make sense with tools, dropped when there are none.
_TOOL_KEYS = ("tools", "tool_choice", "parallel_tool_calls")


def turns_body(model: str, turns: Sequence[Turn], params: Mapping[str, Any]) -> dict[str, Any]:
    """A whole request body (without ``stream``, which the transport sets) from turns.

    Args:
        model: The model's name.
        turns: The conversation.
        params: The request's settings and fields (None values are not sent; the tool keys
            not without tools); ``reasoning_passback`` (:data:`PASSBACK`) is no field: it
            sends reasoning back (see the module).

    Raises:
        ConfigurationError: A part chat completions cannot carry (a document by URL).
    """
    passback = bool(params.get(PASSBACK))
    kept, lost = settle(turns)
    body: dict[str, Any] = {"model": model, "messages": chat_messages(kept, passback, lost)}
    body.update((k, v) for k, v in params.items() if v is not None and k != PASSBACK)
    if not body.get("tools"):
        for key in _TOOL_KEYS:
            body.pop(key, None)
    warn_left_out("chat completions", lost, stacklevel=4)
    return body


def chat_messages(
    turns: Sequence[Turn], passback: bool = False, lost: list[str] | None = None
) -> list[dict[str, Any]]:
    """The ``messages`` of ``turns`` (already settled), naming in ``lost`` the signed
    reasoning they leave out."""
    last_user = max((at for at, t in enumerate(turns) if t.role == "user"), default=-1)
    messages: list[dict[str, Any]] = []
    for at, turn in enumerate(turns):
        if turn.role == "tool":
            messages += [_tool_message(part) for part in turn.parts]
            continue
        if turn.role == "assistant":
            said = _assistant(turn, passback and at > last_user, lost)
            if len(said) == 2 and not said["content"]:
                continue  # nothing of it goes back (reasoning not asked for): no message
        elif turn.role == "system":
            _text_only(turn)
            said = {"role": "system", "content": _content(turn.parts, joined=True)}
        else:
            said = {"role": "user", "content": _content(turn.parts, joined=False)}
        if turn.name:
            said["name"] = turn.name
        messages.append(said)
    return messages


def _text_only(turn: Turn) -> None:
    """Refuse an image or a document (not its text) on a system or assistant turn: the API
    takes text parts only there."""
    for part in turn.parts:
        media = isinstance(part, ImagePart) or (
            isinstance(part, DocumentPart) and part.text is None
        )
        if turn.role == "system" and isinstance(part, RawPart):
            media = part.block.get("type") != "text"
        if media:
            raise ConfigurationError(
                f"a {turn.role} message can carry text only in a chat completions request, got "
                f"a {type(part).__name__}; send images, audio and documents in a user message"
            )


def _assistant(turn: Turn, passback: bool, lost: list[str] | None) -> dict[str, Any]:
    _text_only(turn)
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    reasoning: list[str] = []
    for part in turn.parts:
        if isinstance(part, TextPart):
            texts.append(part.text)
        elif isinstance(part, ToolUsePart):
            calls.append(_call(part))
        elif isinstance(part, ReasoningPart):
            _reasoning(part, passback, reasoning, lost)
        elif isinstance(part, RawPart) and part.block.get("type") == "text":
            texts.append(str(part.block.get("text") or ""))
    said: dict[str, Any] = {"role": "assistant", "content": "".join(texts)}
    if calls:
        said["tool_calls"] = calls
        said["content"] = said["content"] or None  # OpenAI: null content beside tool calls
    if reasoning:
        said["reasoning_content"] = "".join(reasoning)
    return said


def _call(part: ToolUsePart) -> dict[str, Any]:
    """A tool call: its arguments as JSON text (a text the model gave that was no JSON, as
    it was)."""
    given = part.input
    arguments = given if isinstance(given, str) else json.dumps(given, ensure_ascii=False)
    return {
        "id": part.id,
        "type": "function",
        "function": {"name": part.name, "arguments": arguments},
    }


def _reasoning(
    part: ReasoningPart, passback: bool, kept: list[str], lost: list[str] | None
) -> None:
    """Plain reasoning, kept where it goes back; another API's signed reasoning, lost."""
    if signed(part) or part.item is not None:
        if lost is not None:
            lost.append(reasoning_name(part))
    elif passback and part.text:
        kept.append(part.text)


def _tool_message(part: object) -> dict[str, Any]:
    if isinstance(part, RawPart):
        return dict(part.block)  # a tool message already in this shape
    if not isinstance(part, ToolResultPart):
        raise ConfigurationError(
            f"a tool turn holds tool results only, got a {type(part).__name__}"
        )
    content = part.content
    said = content if isinstance(content, str) else _content(content, joined=True)
    return {"role": "tool", "tool_call_id": part.call_id, "content": said or ""}


def _content(parts: Sequence[Any], *, joined: bool) -> str | list[dict[str, Any]]:
    """Parts as one string where they are all text (``joined``: any number; else one), else
    as OpenAI parts."""
    found = [_part(part) for part in parts]
    texts = [p for p in found if p.get("type") == "text" and set(p) == {"type", "text"}]
    if len(texts) == len(found) and (joined or len(found) == 1):
        return "".join(str(p["text"]) for p in texts)
    return found


def _part(part: object) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, RawPart):
        return dict(part.block)
    if isinstance(part, ImagePart):
        url = part.url or f"data:{part.media_type or 'image/png'};base64,{part.data}"
        image: dict[str, Any] = {"url": url}
        if part.detail:
            image["detail"] = part.detail
        return {"type": "image_url", "image_url": image}
    if isinstance(part, DocumentPart):
        if part.text is not None:
            return {"type": "text", "text": part.text}
        if part.data:
            kind = part.media_type or "application/pdf"
            file = {"file_data": f"data:{kind};base64,{part.data}"}
            if part.filename:
                file["filename"] = part.filename
            return {"type": "file", "file": file}
        raise ConfigurationError(
            "chat completions takes a document as base64 data or text, not by URL "
            f"({part.url!r}); an uploaded file's id goes as a raw part: "
            '{"type": "file", "file": {"file_id": ...}}'
        )
    raise ConfigurationError(f"chat completions cannot carry a {type(part).__name__} here")


def read_prompt(body: Mapping[str, Any]) -> Prompt:
    """A chat completions body's content (telemetry's content capture): ``system`` and
    ``developer`` messages are the instructions; ``reasoning_content`` a reasoning part."""
    system: list[Part] = []
    messages: list[dict[str, Any]] = []
    for said in body.get("messages") or ():
        if not isinstance(said, Mapping):
            continue
        role, content = said.get("role"), said.get("content")
        if role in ("system", "developer"):
            system += prompt.texts(content)
            continue
        parts: list[Part] = []
        if said.get("reasoning_content"):
            parts.append(prompt.reasoning(said["reasoning_content"]))
        if role == "tool":
            parts.append(prompt.tool_result(said.get("tool_call_id"), content))
        else:
            parts += prompt.texts(content)
        for call in said.get("tool_calls") or ():
            function = call.get("function") if isinstance(call, Mapping) else None
            if isinstance(function, Mapping):
                name, arguments = function.get("name"), function.get("arguments")
                parts.append(prompt.tool_call(call.get("id"), name, arguments))
        messages.append(prompt.message(role, parts))
    tools = [
        prompt.tool(f.get("name"), f.get("description"), f.get("parameters"))
        for entry in body.get("tools") or ()
        if isinstance(entry, Mapping) and isinstance(f := entry.get("function"), Mapping)
    ]
    return Prompt(system, messages, tools)


CHAT_COMPLETIONS = register_protocol(
    WireProtocol(
        name="chat_completions",
        decoder=ChunkDecoder,
        accelerated=lambda name: ChunkDecoder(accelerator=name),
        api="chat completions",
        ends="a finish_reason and without [DONE]",
        request=RequestShape(path=lambda base_url: "/chat/completions", body=chat_body),
        turns_body=turns_body,
        json_mode=True,
        settings=(PASSBACK,),
        provider="openai",
        prompt=read_prompt,
    )
)
