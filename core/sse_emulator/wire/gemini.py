"""Shape a Gemini answer into the API's stream, its whole response, and its errors.

The stream is what ``generativelanguage.googleapis.com`` sends for
``:streamGenerateContent?alt=sse``: one ``data: <GenerateContentResponse>`` event per
chunk, lines ended by CRLF, no ``event:`` line and no end marker (the body simply ends).
Each chunk has ``candidates[0].content.parts`` (thought summaries as ``{"text", "thought":
true}``, text pieces, whole ``functionCall`` parts), the ``usageMetadata`` so far (repeated
on every chunk, cumulative; a zero count left out, as proto JSON leaves it out),
``modelVersion`` and ``responseId``; the last has ``finishReason``. Without ``alt=sse`` the
same chunks are the elements of a JSON array written as they come (``[{...}\\r\\n,\\r\\n{...}
\\r\\n]``, each element indented); ``:generateContent`` answers the whole response, indented.
The JSON is the API's: ``": "`` after a key, ``,`` alone between members, ``<`` and ``>``
escaped, other characters as they are. The shapes follow the API reference
("GenerateContentResponse") and real captures (the ``\\r\\n\\r\\n`` framing, the key order,
``finishMessage`` on a function call, Gemini 3's signature on an empty last text part,
``serviceTier``; ``tests/core/gemini/fixtures/SOURCES.md`` names them).
"""

from __future__ import annotations

import json
from typing import Any

from sse_emulator.assistant.gemini import GeminiAnswer
from sse_emulator.assistant.thought_signatures import issue
from sse_emulator.wire.dialects import Dialect
from sse_emulator.wire.frames import Frame, FrameKind

#: Headers of a JSON answer (a whole response, a JSON-array stream, an error).
JSON_HEADERS = (
    ("content-type", "application/json; charset=UTF-8"),
    ("vary", "Origin, X-Origin, Referer"),
    ("x-xss-protection", "0"),
    ("x-frame-options", "SAMEORIGIN"),
    ("x-content-type-options", "nosniff"),
    ("server", "scaffolding on HTTPServer2"),
)
#: Between two elements of a JSON-array stream, and after the last.
ARRAY_SEPARATOR = "\r\n,\r\n"
ARRAY_END = "\r\n]"
#: The ``finishMessage`` the API puts on an answer that calls functions.
CALLS_MESSAGE = "Model generated function call(s)."
#: Each HTTP status's ``google.rpc`` code name (the error's ``status``).
STATUS_NAMES: dict[int, str] = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    413: "INVALID_ARGUMENT",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "UNIMPLEMENTED",
    502: "UNAVAILABLE",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
    529: "UNAVAILABLE",
}
_QUOTA = (
    "You exceeded your current quota, please check your plan and billing details. For more "
    "information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. "
    "To monitor your current usage, head to: https://ai.dev/rate-limit. \n* Quota exceeded for "
    "metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 15, "
    "model: {model}"
)
_RPC = "type.googleapis.com/google.rpc."


def dumps(value: Any) -> str:
    """JSON as the API writes a stream event: ``": "`` after keys, ``<`` ``>`` escaped."""
    return _escaped(json.dumps(value, separators=(",", ": "), ensure_ascii=False))


def pretty(value: Any) -> str:
    """JSON as the API writes a whole body: indented by two, ``<`` ``>`` escaped."""
    return _escaped(json.dumps(value, indent=2, ensure_ascii=False))


def _escaped(text: str) -> str:
    # Both can only occur inside strings in JSON text, so a plain replace is exact.
    return text.replace("<", "\\u003c").replace(">", "\\u003e")


def error_body(
    status: int, message: str, name: str | None = None, details: tuple[dict[str, Any], ...] = ()
) -> dict[str, Any]:
    """Google's error body: ``{"error": {"code", "message", "status", "details"?}}``.

    Args:
        status: The HTTP status (the ``code``).
        message: The ``message``.
        name: The ``status`` (``INVALID_ARGUMENT``); by default the status's own.
        details: The ``details``, left out when empty.
    """
    error: dict[str, Any] = {
        "code": status,
        "message": message,
        "status": name or STATUS_NAMES.get(status, "UNKNOWN"),
    }
    if details:
        error["details"] = list(details)
    return {"error": error}


def fault_error(
    status: int, model: str, retry_after: str
) -> tuple[str, str, tuple[dict[str, Any], ...]]:
    """What the API says for a status fault's status: message, status name, details.

    Args:
        status: The fault's HTTP status.
        model: The model the URL names.
        retry_after: The fault's ``retry-after`` seconds (429: ``RetryInfo.retryDelay``).
    """
    if status == 429:
        message = _QUOTA.format(model=model)
        details: list[dict[str, Any]] = [_quota_failure(model)]
        if retry_after:
            message += f"\nPlease retry in {retry_after}s."
            details.append({"@type": _RPC + "RetryInfo", "retryDelay": f"{retry_after}s"})
        return message, "RESOURCE_EXHAUSTED", tuple(details)
    wording = {
        401: "Request had invalid authentication credentials. Expected OAuth 2 access token, "
        "login cookie or other valid authentication credential. See "
        "https://developers.google.com/identity/sign-in/web/devconsole-project.",
        403: "The caller does not have permission",
        404: f"models/{model} is not found for API version v1beta, or is not supported for "
        "generateContent. Call ListModels to see the list of available models and their "
        "supported methods.",
        413: "Request payload size exceeds the limit: 20971520 bytes.",
        500: "An internal error has occurred. Please retry or report in "
        "https://developers.generativeai.google/guide/troubleshooting",
        502: "Bad gateway: the upstream provider did not answer.",
    }
    message = wording.get(status, "The model is overloaded. Please try again later.")
    return message, STATUS_NAMES.get(status, "UNAVAILABLE"), ()


#: The models ``GET {root}/v1beta/models`` lists (any other name is answered too).
MODELS = (
    ("gemini-2.5-flash", "Gemini 2.5 Flash"),
    ("gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite"),
    ("gemini-2.5-pro", "Gemini 2.5 Pro"),
    ("gemini-3-flash-preview", "Gemini 3 Flash Preview"),
    ("gemini-3-pro-preview", "Gemini 3 Pro Preview"),
)


def list_models() -> dict[str, Any]:
    """The body of ``GET {root}/v1beta/models``: the API's ``ListModelsResponse``."""
    models = [
        {
            "name": f"models/{name}",
            "version": "001",
            "displayName": display,
            "description": f"{display}, as the sse-connectors gateway emulator answers it",
            "inputTokenLimit": 1048576,
            "outputTokenLimit": 65536,
            "supportedGenerationMethods": ["generateContent"],
            "temperature": 1,
            "topP": 0.95,
            "topK": 64,
            "maxTemperature": 2,
            "thinking": True,
        }
        for name, display in MODELS
    ]
    return {"models": models}


def _quota_failure(model: str) -> dict[str, Any]:
    violation = {
        "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
        "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
        "quotaDimensions": {"location": "global", "model": model},
        "quotaValue": "15",
    }
    return {"@type": _RPC + "QuotaFailure", "violations": [violation]}


class GeminiWriter:
    """Builds one Gemini response: its stream frames, or the whole response."""

    def __init__(self, dialect: Dialect, answer: GeminiAnswer, *, array: bool = False) -> None:
        """Prepare a writer.

        Args:
            dialect: The ``gemini`` dialect.
            answer: The answer being sent.
            array: Write the stream as a JSON array (``:streamGenerateContent`` without
                ``alt=sse``): each frame is one element and its separator, written as it is.
        """
        self.dialect = dialect
        self.answer = answer
        self.array = array

    def usage(self, produced: int) -> dict[str, Any]:
        """``usageMetadata`` once ``produced`` output tokens are out (thoughts counted whole)."""
        reply = self.answer.reply
        prompt, thoughts = reply.usage.prompt_tokens, reply.usage.reasoning_tokens
        usage: dict[str, Any] = {"promptTokenCount": prompt}
        if produced:
            usage["candidatesTokenCount"] = produced
        usage["totalTokenCount"] = prompt + produced + thoughts
        usage["promptTokensDetails"] = [{"modality": "TEXT", "tokenCount": prompt}]
        if thoughts:
            usage["thoughtsTokenCount"] = thoughts
        usage["serviceTier"] = "standard"
        return usage

    def _response(
        self, parts: list[dict[str, Any]], produced: int, *, last: bool
    ) -> dict[str, Any]:
        answer = self.answer
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}}
        if last:
            candidate["finishReason"] = answer.finish_reason
        candidate["index"] = 0
        if last and answer.calls and answer.finish_reason == "STOP":
            candidate["finishMessage"] = CALLS_MESSAGE
        return {
            "candidates": [candidate],
            "usageMetadata": self.usage(produced),
            "modelVersion": answer.model,
            "responseId": answer.response_id,
        }

    def _call_parts(self) -> list[dict[str, Any]]:
        """The function calls, whole; the first carries the signature when signed."""
        parts: list[dict[str, Any]] = []
        for index, call in enumerate(self.answer.calls):
            part: dict[str, Any] = {"functionCall": {"name": call.name, "args": call.args}}
            if index == 0 and self.answer.signed:
                part["thoughtSignature"] = issue(self.answer.response_id, "call")
            parts.append(part)
        return parts

    def _signed_text(self, text: str) -> dict[str, Any]:
        """A text part; the answer's last one carries the signature when signed (and no
        function call does)."""
        part: dict[str, Any] = {"text": text}
        if self.answer.signed and not self.answer.calls:
            part["thoughtSignature"] = issue(self.answer.response_id, "text")
        return part

    def whole(self) -> dict[str, Any]:
        """The whole (non-streamed) ``GenerateContentResponse``."""
        answer = self.answer
        parts: list[dict[str, Any]] = []
        if answer.show_thoughts:
            parts.append({"text": answer.reply.reasoning_text, "thought": True})
        text = "".join(answer.text)
        if text or not answer.calls:
            parts.append(self._signed_text(text))
        parts += self._call_parts()
        return self._response(parts, answer.output_tokens, last=True)

    def payloads(self) -> list[dict[str, Any]]:
        """Every chunk of the stream, in order; the last one finishes it.

        A signed answer without calls ends, as Gemini 3 streams it, with an empty text part
        that carries the signature and the finish (vercel/ai's Gemini 3 captures); an
        unsigned one finishes on its last text chunk.
        """
        answer = self.answer
        steps: list[tuple[list[dict[str, Any]], int]] = []
        if answer.show_thoughts:
            steps += [([{"text": piece, "thought": True}], 0) for piece in answer.reply.reasoning]
        steps += [([{"text": piece}], count) for count, piece in enumerate(answer.text, start=1)]
        if answer.calls:
            steps.append((self._call_parts(), answer.output_tokens))
        elif answer.signed:
            steps.append(([self._signed_text("")], answer.output_tokens))
        elif not answer.text:
            steps.append(([{"text": ""}], 0))  # the finish needs a chunk of its own
        chunks = [self._response(parts, produced, last=False) for parts, produced in steps[:-1]]
        chunks.append(self._response(steps[-1][0], answer.output_tokens, last=True))
        return chunks

    def frames(self, *, think_tags: bool = False) -> list[Frame]:
        """Every frame of a successful stream (``think_tags`` does not apply here).

        Returns:
            One frame per chunk, the last of kind ``finish``.
        """
        del think_tags
        payloads = self.payloads()
        last = len(payloads) - 1
        return [
            self._frame(payload, "finish" if index == last else "chunk", last=index == last)
            for index, payload in enumerate(payloads)
        ]

    def _frame(self, payload: dict[str, Any], kind: FrameKind, *, last: bool) -> Frame:
        if not self.array:
            return Frame(kind=kind, data=dumps(payload))
        return Frame(kind=kind, data=pretty(payload) + (ARRAY_END if last else ARRAY_SEPARATOR))

    def chunk(self, delta: dict[str, Any]) -> dict[str, Any]:
        """A text chunk of ``delta["content"]`` (the invalid-json and oversized faults)."""
        return self._response([{"text": str(delta.get("content", ""))}], 0, last=False)

    def error_frames(self) -> list[Frame]:
        """The mid-stream failure: an ``{"error": {...}}`` chunk, then the end of the body."""
        error = {"error": self.dialect.stream_error}
        if self.array:
            return [Frame(kind="error", data=pretty(error) + ARRAY_END)]
        return [Frame(kind="error", data=dumps(error))]
