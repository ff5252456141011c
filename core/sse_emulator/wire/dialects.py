"""The wire dialects, each a table of the choices its seed document shows.

A :class:`Dialect` is data, not code: which envelope fields a chunk carries, where the
``index`` of a choice sits, how tool calls travel, where usage goes, whether
``[DONE]`` ends the stream and what a mid-stream failure looks like. The renderer in
:mod:`sse_emulator.wire.render` reads these tables; the seed each row comes from is
named on the row. ``anthropic``, ``responses`` and ``gemini`` speak other protocols
(Anthropic's Messages API at ``/v1/messages``, OpenAI's Responses API at ``/v1/responses``,
Google's Gemini API at ``/v1beta/models/{model}:generateContent`` and
``:streamGenerateContent``); only their name, path, headers and error shape live here, their
wires are :mod:`sse_emulator.wire.anthropic`, :mod:`sse_emulator.wire.openai_responses` and
:mod:`sse_emulator.wire.gemini`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from sse_emulator.wire.frames import Newline

ToolStyle = Literal["indexed", "unindexed", "whole"]
UsageStyle = Literal["chunk", "final", "spass-event"]
UsageDetail = Literal["basic", "openai", "aivene"]
IndexStyle = Literal["first", "after-delta", "none"]
MidStreamError = Literal["frame", "chunk", "http502"]
RefusalStyle = Literal["delta", "content", "content-filter"]
Protocol = Literal["chat_completions", "anthropic", "responses", "gemini"]


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Dialect:
    """How one gateway puts a chat completion on the wire.

    Attributes:
        name: The dialect's name (``openai``, ``shroud``, ...).
        prefix: The URL prefix before ``/v1`` (``""`` for plain OpenAI).
        id_prefix: What completion ids start with.
        chunk_object: The ``object`` of streamed chunks.
        envelope: The optional chunk fields present: ``created``, ``model``,
            ``system_fingerprint``.
        fixed_model: A model name that replaces the requested one (``""``).
        created_step: Whether ``created`` grows by one per chunk.
        index: Where a choice's ``index`` goes: first, after ``delta``, or nowhere.
        null_finish: Whether non-final chunks carry ``"finish_reason": null``.
        logprobs: Whether choices carry ``"logprobs": null``.
        role_delta: The first chunk's delta, or ``None`` for no role chunk.
        reasoning_field: The delta field reasoning travels in, or ``None`` (hidden).
        tool_style: Arguments in indexed pieces, unindexed pieces, or whole.
        final_delta: The delta of the chunk carrying ``finish_reason``.
        usage_style: A ``choices: []`` chunk, the final chunk, or ``event: spass.cost``.
        usage_detail: Which detail objects the usage carries.
        usage_null: Whether chunks carry ``"usage": null`` when usage is requested.
        done: Whether ``data: [DONE]`` ends the stream.
        mid_stream_error: An error frame, an error chunk, or an HTTP 502 instead.
        error_then_done: Whether ``[DONE]`` follows a mid-stream error frame.
        stream_error: The ``error`` object of a mid-stream failure.
        refusal_style: ``delta.refusal``, refusal text as content, or a
            ``content_filter`` finish with no content.
        headers: Headers of a streaming response.
        error_param: Whether JSON error objects carry ``"param": null``.
        protocol: ``chat_completions``, ``anthropic`` (the Messages API), ``responses``
            (OpenAI's Responses API) or ``gemini`` (Google's Gemini API).
        path: The chat path after the prefix.
        newline: The line terminator of its SSE frames (Gemini's are CRLF).
    """

    name: str
    prefix: str
    id_prefix: str
    chunk_object: str = "chat.completion.chunk"
    envelope: tuple[str, ...] = ("created", "model")
    fixed_model: str | None = None
    created_step: bool = False
    index: IndexStyle = "first"
    null_finish: bool = True
    logprobs: bool = False
    role_delta: dict[str, Any] | None = None
    reasoning_field: str | None = None
    tool_style: ToolStyle = "indexed"
    final_delta: dict[str, Any] | None = None
    usage_style: UsageStyle = "chunk"
    usage_detail: UsageDetail = "basic"
    usage_null: bool = False
    done: bool = True
    mid_stream_error: MidStreamError = "frame"
    error_then_done: bool = False
    stream_error: dict[str, Any] | None = None
    refusal_style: RefusalStyle = "content"
    headers: tuple[tuple[str, str], ...] = ()
    error_param: bool = False
    protocol: Protocol = "chat_completions"
    path: str = "/v1/chat/completions"
    newline: Newline = "lf"


_SSE = ("content-type", "text/event-stream")
_SSE_UTF8 = ("content-type", "text/event-stream; charset=utf-8")
_NO_CACHE = ("cache-control", "no-cache")
_KEEP_ALIVE = ("connection", "keep-alive")

#: Plain OpenAI, as api.openai.com streams it (reasoning in ``delta.reasoning`` as
#: vLLM and OpenRouter send it, since OpenAI itself streams none).
OPENAI = Dialect(
    name="openai",
    prefix="",
    id_prefix="chatcmpl-",
    envelope=("created", "model", "system_fingerprint"),
    logprobs=True,
    role_delta={"role": "assistant", "content": "", "refusal": None},
    reasoning_field="reasoning",
    usage_detail="openai",
    usage_null=True,
    done=True,
    stream_error={
        "message": "The server had an error while processing your request. Sorry about that!",
        "type": "server_error",
        "param": None,
        "code": None,
    },
    refusal_style="delta",
    headers=(_SSE_UTF8, _NO_CACHE, _KEEP_ALIVE),
    error_param=True,
)

#: Seed 000 (Shroud): OpenAI's exact wire format, finish_reason only on the final chunk.
SHROUD = Dialect(
    name="shroud",
    prefix="/shroud",
    id_prefix="chatcmpl-",
    null_finish=False,
    role_delta={"role": "assistant"},
    reasoning_field="reasoning_content",
    error_then_done=True,
    stream_error={
        "message": "upstream worker disconnected",
        "type": "upstream_error",
        "code": "inference_failed",
    },
    headers=(_SSE_UTF8, _NO_CACHE, _KEEP_ALIVE),
)

#: Seed 001 (stream:chat): object "chat.completion", model "", whole tool calls, no [DONE].
STREAMCHAT = Dialect(
    name="streamchat",
    prefix="/streamchat",
    id_prefix="stream:chat:",
    chunk_object="chat.completion",
    fixed_model="",
    created_step=True,
    tool_style="whole",
    final_delta={"content": ""},
    usage_style="final",
    done=False,
    mid_stream_error="chunk",
    stream_error={"message": "upstream model failed", "type": "server_error"},
    headers=(_SSE, _NO_CACHE),
)

#: Seed 002 (SPASS): no index, unindexed tool pieces, event: spass.cost, 502 on failure.
SPASS = Dialect(
    name="spass",
    prefix="/spass",
    id_prefix="chatcmpl-",
    envelope=(),
    index="none",
    null_finish=False,
    tool_style="unindexed",
    usage_style="spass-event",
    mid_stream_error="http502",
    stream_error={
        "message": "upstream connection dropped",
        "type": "upstream_error",
        "code": "upstream_unavailable",
    },
    headers=(_SSE, _NO_CACHE),
)

#: Seed 003 (gateway): {"delta":...,"index":0} choices, X-Accel-Buffering: no.
GATEWAY = Dialect(
    name="gateway",
    prefix="/gateway",
    id_prefix="chatcmpl-",
    envelope=(),
    index="after-delta",
    null_finish=False,
    stream_error={"message": "upstream provider stream failed", "type": "stream_error"},
    headers=(_SSE, _NO_CACHE, _KEEP_ALIVE, ("x-accel-buffering", "no")),
)

#: Seed 004 (aivene): ilbs_ ids, role chunk with content "", cached/cache-write usage.
AIVENE = Dialect(
    name="aivene",
    prefix="/aivene",
    id_prefix="ilbs_",
    role_delta={"role": "assistant", "content": ""},
    reasoning_field="reasoning_content",
    usage_detail="aivene",
    error_then_done=True,
    stream_error={"message": "upstream timeout", "type": "stream_error"},
    refusal_style="content-filter",
    headers=(_SSE, _NO_CACHE, _KEEP_ALIVE),
)

#: Anthropic's Messages API as api.anthropic.com streams it (the mid-stream failure is
#: its ``event: error`` with an ``overloaded_error``).
ANTHROPIC = Dialect(
    name="anthropic",
    prefix="/anthropic",
    id_prefix="msg_01",
    stream_error={"type": "overloaded_error", "message": "Overloaded"},
    headers=(_SSE_UTF8, _NO_CACHE, _KEEP_ALIVE),
    protocol="anthropic",
    path="/v1/messages",
)

#: OpenAI's Responses API as api.openai.com streams it (``event:`` lines naming each
#: ``response.*`` type; the mid-stream failure is its ``error`` event). Its base URL is
#: OpenAI's (``/v1``): clients append ``/responses``.
RESPONSES = Dialect(
    name="responses",
    prefix="",
    id_prefix="resp_",
    stream_error={
        "message": "The server had an error while processing your request. Sorry about that!",
        "type": "server_error",
        "param": None,
        "code": "server_error",
    },
    headers=(_SSE_UTF8, _NO_CACHE, _KEEP_ALIVE),
    error_param=True,
    protocol="responses",
    path="/v1/responses",
)

#: Google's Gemini API (``generativelanguage.googleapis.com``): ``data: <JSON>`` frames with
#: CRLF line ends and no end marker; the mid-stream failure is an ``{"error": ...}`` frame.
#: Its clients take the root and append ``/v1beta/models/{model}:<method>``.
GEMINI = Dialect(
    name="gemini",
    prefix="/gemini",
    id_prefix="",
    stream_error={
        "code": 500,
        "message": "An internal error has occurred. Please retry or report in "
        "https://developers.generativeai.google/guide/troubleshooting",
        "status": "INTERNAL",
    },
    headers=(
        ("content-type", "text/event-stream"),
        ("content-disposition", "attachment"),
        ("vary", "Origin, X-Origin, Referer"),
        ("x-xss-protection", "0"),
        ("x-frame-options", "SAMEORIGIN"),
        ("x-content-type-options", "nosniff"),
        ("server", "scaffolding on HTTPServer2"),
    ),
    protocol="gemini",
    path="/v1beta/models",
    newline="crlf",
)
#: The Gemini API's two generation methods, at ``{root}/v1beta/models/{model}:<method>``.
GEMINI_METHODS = ("generateContent", "streamGenerateContent")
_GEMINI_CALL = re.compile(r"^(?:/gemini)?/v1beta/models/([^/:]+):([A-Za-z]+)$")

#: Every chat-completions dialect by name: the choices of the default dialect, the one
#: of the unprefixed ``/v1/chat/completions``.
DIALECTS: dict[str, Dialect] = {
    d.name: d for d in (OPENAI, SHROUD, STREAMCHAT, SPASS, GATEWAY, AIVENE)
}
#: Every dialect served, whatever its protocol.
ALL_DIALECTS: dict[str, Dialect] = DIALECTS | {d.name: d for d in (ANTHROPIC, RESPONSES, GEMINI)}


def gemini_call(path: str) -> tuple[str, str] | None:
    """The model and method a Gemini API path names, or ``None`` for another path.

    Args:
        path: The request path, e.g. ``/gemini/v1beta/models/gemini-2.5-flash:generateContent``
            (the ``/gemini`` prefix is optional: nothing else serves ``/v1beta``).

    Returns:
        ``(model, method)`` for ``generateContent`` and ``streamGenerateContent``.
    """
    match = _GEMINI_CALL.match(path.rstrip("/"))
    if match is None or match.group(2) not in GEMINI_METHODS:
        return None
    return match.group(1), match.group(2)


def route(path: str, *, default: Dialect = OPENAI) -> Dialect | None:
    """Find the dialect that serves a chat path.

    Args:
        path: The request path, e.g. ``/shroud/v1/chat/completions``.
        default: The dialect of the unprefixed ``/v1/chat/completions``.

    Returns:
        The dialect, or ``None`` when the path is not a chat path. The unprefixed
        ``/v1/messages`` is Anthropic's, ``/v1/responses`` OpenAI's Responses API and
        ``/v1beta/models/{model}:<method>`` Gemini's, whatever the default.
    """
    path = path.rstrip("/")
    if gemini_call(path) is not None:
        return GEMINI
    if path == "/spass/c1/chat":
        return SPASS
    if path == ANTHROPIC.path:
        return ANTHROPIC
    if path in (RESPONSES.path, "/responses"):
        return RESPONSES
    for dialect in ALL_DIALECTS.values():
        if dialect.prefix and dialect is not GEMINI and path == dialect.prefix + dialect.path:
            return dialect
    return default if path in ("/v1/chat/completions", "/chat/completions") else None


def base_path(dialect: Dialect) -> str:
    """The base URL path of a dialect.

    OpenAI's convention carries ``/v1``; Anthropic's and Google's clients take the root and
    append ``/v1/messages`` or ``/v1beta/models/...`` themselves, so their base path is the
    bare prefix.
    """
    if dialect.protocol in ("anthropic", "gemini"):
        return dialect.prefix
    return f"{dialect.prefix}/v1"
