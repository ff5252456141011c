"""Shape a Responses answer into OpenAI's Responses stream, its whole response object, and
the gateway variants of that stream.

The stream is what api.openai.com sends (the API reference's streaming events, and real
captures): ``response.created`` and ``response.in_progress`` with the response object
(status ``in_progress``, no output), then per output item ``response.output_item.added``,
its own events and ``response.output_item.done``: a reasoning item (its summary in
``response.reasoning_summary_part.*`` / ``response.reasoning_summary_text.*`` when one was
asked, its ``encrypted_content`` only in the done item), a message (``content_part.added``,
``output_text.delta`` per word, ``output_text.done``, ``content_part.done``; a refusal in
``refusal.delta`` / ``refusal.done``), function calls (``function_call_arguments.delta`` in
pieces, then ``.done`` with the name); last ``response.completed``, or
``response.incomplete`` when ``max_output_tokens`` cut the answer. Every frame has an
``event:`` line naming the ``type`` in its data, and a ``sequence_number`` counting from 0.
There is no ``[DONE]``. Delta events carry an ``obfuscation`` padding unless
``stream_options.include_obfuscation`` is false.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote_plus

from sse_emulator.assistant.reply import CREATED, Reply
from sse_emulator.assistant.responses import ResponsesAnswer
from sse_emulator.assistant.sealing import seal
from sse_emulator.wire.dialects import Dialect
from sse_emulator.wire.faults import Fault, first
from sse_emulator.wire.frames import Frame, FrameKind, dumps

#: Faults that pick a gateway's variant of this wire (the API itself sends none of them).
VARIANTS = frozenset(
    {
        "output-empty",
        "output-reordered",
        "lost-delta",
        "item-id-per-event",
        "done-marker",
        "no-argument-deltas",
        "interleaved-arguments",
        "web-search",
        "reasoning-text",
        "incomplete-as-completed",
    }
)
#: The ``error`` of a ``response.failed`` (the fault ``response-failed``).
FAILED_ERROR = {
    "code": "server_error",
    "message": "The model failed to generate a response. Please try again.",
}

Event = tuple[str, dict[str, Any]]


@dataclass(slots=True)
class _Item:
    """One output item: the events that stream it, and the item as ``done`` shows it."""

    whole: dict[str, Any]
    events: list[Event] = field(default_factory=list)


class ResponsesWriter:
    """Builds one Responses response: its frames, or the whole response object."""

    def __init__(
        self, dialect: Dialect, answer: ResponsesAnswer, faults: tuple[Fault, ...] = ()
    ) -> None:
        """Prepare a writer.

        Args:
            dialect: The ``responses`` dialect.
            answer: The answer being sent.
            faults: The requested faults: the variants (:data:`VARIANTS`), and
                ``error-frame`` and ``response-failed``, which this writer places itself
                (each ends the stream with its event, after ``after`` frames).
        """
        self.dialect = dialect
        self.answer = answer
        self.reply: Reply = answer.reply
        self.variants: frozenset[str] = frozenset(fault.name for fault in faults) & VARIANTS
        self._error = first(faults, "error-frame")
        self._failed = first(faults, "response-failed")
        options = answer.body.get("stream_options")
        self._obfuscate = not (
            isinstance(options, dict) and options.get("include_obfuscation") is False
        )
        self._items = self._build_items()

    # The response object ---------------------------------------------------------------

    def response(self, status: str, output: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The response object with the request's settings echoed, as the API returns it."""
        body, a = self.answer.body, self.answer
        finished = status in ("completed", "incomplete")
        reasoning = body.get("reasoning")
        summary = reasoning.get("summary") if isinstance(reasoning, dict) else None
        return {
            "id": a.id,
            "object": "response",
            "created_at": CREATED,
            "status": status,
            "background": False,
            "error": FAILED_ERROR if status == "failed" else None,
            "incomplete_details": (
                {"reason": "max_output_tokens"} if status == "incomplete" else None
            ),
            "instructions": body.get("instructions"),
            "max_output_tokens": body.get("max_output_tokens"),
            "max_tool_calls": body.get("max_tool_calls"),
            "model": self.reply.model,
            "output": output or [],
            "parallel_tool_calls": body.get("parallel_tool_calls", True) is not False,
            "previous_response_id": body.get("previous_response_id"),
            "prompt_cache_key": body.get("prompt_cache_key"),
            "reasoning": {"effort": a.effort, "summary": summary},
            "safety_identifier": body.get("safety_identifier"),
            "service_tier": "default" if finished else "auto",
            "store": body.get("store") is not False,
            "temperature": body.get("temperature", 1.0),
            "text": body.get("text") or {"format": {"type": "text"}},
            "tool_choice": body.get("tool_choice", "auto"),
            "tools": body.get("tools") or [],
            "top_p": body.get("top_p", 1.0),
            "truncation": body.get("truncation") or "disabled",
            "usage": self.usage() if finished else None,
            "user": body.get("user"),
            "metadata": body.get("metadata") or {},
        }

    def usage(self) -> dict[str, Any]:
        """The usage object of the finished response."""
        counts = self.reply.usage
        return {
            "input_tokens": counts.prompt_tokens,
            "input_tokens_details": {"cached_tokens": counts.cached_tokens},
            "output_tokens": counts.completion_tokens,
            "output_tokens_details": {"reasoning_tokens": counts.reasoning_tokens},
            "total_tokens": counts.total_tokens,
        }

    def whole(self) -> dict[str, Any]:
        """The whole (non-streamed) response: what ``response.completed`` carries."""
        return self.response(self.answer.status, self._final_output())

    def _final_output(self) -> list[dict[str, Any]]:
        output = [item.whole for item in self._items]
        if "output-empty" in self.variants:  # vLLM: the terminal event's output is empty
            return []
        if "output-reordered" in self.variants:  # a proxy reassembling out of order
            return output[::-1]
        return output

    # The stream ------------------------------------------------------------------------

    def frames(self, *, think_tags: bool = False) -> list[Frame]:
        """Every frame of the stream (``think_tags`` does not apply here).

        Returns:
            Frames of kind ``chunk``, the terminal event as the one ``finish`` (an
            ``error`` event or ``response.failed`` when those faults ask), and a trailing
            ``[DONE]`` as ``done`` (the ``done-marker`` variant).
        """
        del think_tags
        events: list[Event] = [
            ("response.created", {"response": self.response("in_progress")}),
            ("response.in_progress", {"response": self.response("in_progress")}),
        ]
        for item in self._items:
            events += item.events
        terminal_type = "response." + self.answer.status
        if "incomplete-as-completed" in self.variants:  # the status says it, not the type
            terminal_type = "response.completed"
        events.append((terminal_type, {"response": self.whole()}))
        terminal = len(events) - 1
        ending = self._error or self._failed
        if ending is not None:
            events, terminal = self._cut(events, terminal, ending)
        frames = [self._frame(n, event, n == terminal) for n, event in enumerate(events)]
        if "done-marker" in self.variants:
            frames.append(Frame(kind="done", data="[DONE]"))
        return frames

    def _cut(self, events: list[Event], terminal: int, fault: Fault) -> tuple[list[Event], int]:
        """End the stream early with an ``error`` event or ``response.failed``."""
        at = min(fault.integer("after"), terminal)
        if fault is self._error:
            error = self.dialect.stream_error or {}
            ending: Event = (
                "error",
                {"code": error.get("code"), "message": error.get("message"), "param": None},
            )
        else:
            ending = ("response.failed", {"response": self.response("failed")})
        return [*events[:at], ending], at

    def _frame(self, number: int, event: Event, terminal: bool) -> Frame:
        kind, fields = event
        payload: dict[str, Any] = {"type": kind, "sequence_number": number, **fields}
        if "item-id-per-event" in self.variants:  # a gateway minting an id per event
            if "item_id" in payload:
                payload["item_id"] = f"{payload['item_id']}_{number}"
            if "item" in payload:
                payload["item"] = payload["item"] | {"id": f"{payload['item']['id']}_{number}"}
        if self._obfuscate and "delta" in payload and kind != "response.refusal.delta":
            payload["obfuscation"] = _padding(number, str(payload["delta"]))
        frame_kind: FrameKind = "finish" if terminal else "chunk"
        return Frame(kind=frame_kind, event=kind, data=dumps(payload))

    def chunk(self, delta: dict[str, Any]) -> dict[str, Any]:
        """An ``output_text.delta`` of ``delta["content"]`` (the invalid-json and oversized
        faults); it has no ``sequence_number``, being outside the API's count."""
        return {
            "type": "response.output_text.delta",
            "item_id": self.answer.item_id("msg"),
            "output_index": self._message_index(),
            "content_index": 0,
            "delta": str(delta.get("content", "")),
            "logprobs": [],
        }

    def error_frames(self) -> list[Frame]:
        """The mid-stream failure, an ``error`` event (placed by :meth:`frames` when the
        ``error-frame`` fault asks, so it carries the next ``sequence_number``)."""
        error = self.dialect.stream_error or {}
        payload = {"type": "error", "code": error.get("code"), "message": error.get("message")}
        return [Frame(kind="error", event="error", data=dumps(payload | {"param": None}))]

    # The output items ------------------------------------------------------------------

    def _message_index(self) -> int:
        reply = self.reply
        return (1 if reply.reasoning else 0) + (1 if "web-search" in self.variants else 0)

    def _build_items(self) -> list[_Item]:
        reply = self.reply
        items: list[_Item] = []
        if reply.reasoning:
            items.append(self._reasoning(len(items)))
        if "web-search" in self.variants:
            items.append(self._web_search(len(items)))
        if reply.content or reply.refusal or not reply.tool_calls:
            items.append(self._message(len(items)))
        calls = [self._call(len(items) + i, i) for i in range(len(reply.tool_calls))]
        if "interleaved-arguments" in self.variants and len(calls) > 1:
            calls = _interleaved(calls)
        return items + calls

    def _reasoning(self, index: int) -> _Item:
        text, rid = self.reply.reasoning_text, self.answer.item_id("rs")
        whole: dict[str, Any] = {"id": rid, "type": "reasoning", "summary": []}
        events: list[Event] = [_added(index, dict(whole))]
        ref = {"item_id": rid, "output_index": index}
        if self.answer.summary:
            part = {"type": "summary_text", "text": text}
            whole["summary"] = [part]
            summary = {**ref, "summary_index": 0}
            events.append(
                ("response.reasoning_summary_part.added", summary | {"part": part | {"text": ""}})
            )
            events += [
                ("response.reasoning_summary_text.delta", summary | {"delta": piece})
                for piece in self.reply.reasoning
            ]
            events.append(("response.reasoning_summary_text.done", summary | {"text": text}))
            events.append(("response.reasoning_summary_part.done", summary | {"part": part}))
        if "reasoning-text" in self.variants:  # gpt-oss behind vLLM: the raw reasoning
            whole["content"] = [{"type": "reasoning_text", "text": text}]
            events += _parts(ref, "reasoning_text", "text", self.reply.reasoning)
        if self.answer.encrypted:
            whole["encrypted_content"] = seal(text)
        events.append(_done(index, whole))
        return _Item(whole=whole, events=events)

    def _web_search(self, index: int) -> _Item:
        wid = self.answer.item_id("ws")
        ref = {"item_id": wid, "output_index": index}
        action = {"type": "search", "query": self.answer.question}
        whole = {"id": wid, "type": "web_search_call", "status": "completed", "action": action}
        events = [
            _added(index, {"id": wid, "type": "web_search_call", "status": "in_progress"}),
            ("response.web_search_call.in_progress", dict(ref)),
            ("response.web_search_call.searching", dict(ref)),
            ("response.web_search_call.completed", dict(ref)),
            _done(index, whole),
        ]
        return _Item(whole=whole, events=events)

    def _message(self, index: int) -> _Item:
        reply, mid = self.reply, self.answer.item_id("msg")
        ref = {"item_id": mid, "output_index": index}
        if reply.refusal:
            kind, key, pieces = "refusal", "refusal", list(reply.refusal)
        else:
            kind, key, pieces = "output_text", "text", list(reply.content)
        status = (
            "incomplete"
            if self.answer.status == "incomplete" and not reply.tool_calls
            else "completed"
        )
        head = {"id": mid, "type": "message", "status": "in_progress", "content": []}
        events = [_added(index, head | {"role": "assistant"})]
        parts = _parts(ref, kind, key, tuple(pieces), lost="lost-delta" in self.variants)
        if "web-search" in self.variants and kind == "output_text":
            parts = _cited(parts, self.answer.question)
        events += parts
        part = parts[-1][1]["part"]
        whole = head | {"status": status, "content": [part], "role": "assistant"}
        events.append(_done(index, whole))
        return _Item(whole=whole, events=events)

    def _call(self, index: int, number: int) -> _Item:
        call, fid = self.reply.tool_calls[number], self.answer.item_id("fc", number)
        ref = {"item_id": fid, "output_index": index}
        cut = self.answer.status == "incomplete" and number == len(self.reply.tool_calls) - 1
        head = {"id": fid, "type": "function_call", "status": "in_progress", "arguments": ""}
        head |= {"call_id": call.id, "name": call.name}
        whole = head | {"status": "incomplete" if cut else "completed", "arguments": call.arguments}
        events: list[Event] = [_added(index, head)]
        if "no-argument-deltas" not in self.variants:
            events += [
                ("response.function_call_arguments.delta", ref | {"delta": piece})
                for piece in call.pieces
            ]
        done = ref | {"name": call.name, "arguments": call.arguments}
        events.append(("response.function_call_arguments.done", done))
        events.append(_done(index, whole))
        return _Item(whole=whole, events=events)


def _added(index: int, item: dict[str, Any]) -> Event:
    return ("response.output_item.added", {"output_index": index, "item": item})


def _done(index: int, item: dict[str, Any]) -> Event:
    return ("response.output_item.done", {"output_index": index, "item": item})


def _parts(
    ref: dict[str, Any], kind: str, key: str, pieces: tuple[str, ...], *, lost: bool = False
) -> list[Event]:
    """One content part streamed: added, its deltas, the done event, part done.

    ``lost`` drops the second delta, as vLLM's deltas lose a token its ``.done`` keeps.
    """
    text = "".join(pieces)
    extra: dict[str, Any] = {"annotations": [], "logprobs": []} if kind == "output_text" else {}
    part = {"type": kind, **extra, key: text}
    where = ref | {"content_index": 0}
    event = {"output_text": "response.output_text", "refusal": "response.refusal"}.get(
        kind, "response.reasoning_text"
    )
    logprobs: dict[str, Any] = {"logprobs": []} if kind == "output_text" else {}
    sent = [p for i, p in enumerate(pieces) if not (lost and i == 1)]
    return [
        ("response.content_part.added", where | {"part": part | {key: ""}}),
        *((f"{event}.delta", where | {"delta": piece} | logprobs) for piece in sent),
        (f"{event}.done", where | {key: text} | logprobs),
        ("response.content_part.done", where | {"part": part}),
    ]


def _cited(parts: list[Event], query: str) -> list[Event]:
    """A message part that cites its web search: ``response.output_text.annotation.added``
    before ``output_text.done``, and a ``url_citation`` on the done part."""
    *head, done, part_done = parts
    text = str(done[1]["text"])
    note = {
        "type": "url_citation",
        "start_index": 0,
        "end_index": len(text),
        "title": "Emulated search result",
        "url": "https://example.com/search?q=" + quote_plus(query),
    }
    where = {k: done[1][k] for k in ("item_id", "output_index", "content_index")}
    added = where | {"annotation_index": 0, "annotation": note}
    cited = part_done[1] | {"part": part_done[1]["part"] | {"annotations": [note]}}
    return [
        *head,
        ("response.output_text.annotation.added", added),
        done,
        (part_done[0], cited),
    ]


def _interleaved(calls: list[_Item]) -> list[_Item]:
    """Two or more calls streamed at once: every ``added`` first, then their argument
    deltas in turn, then every ``.done``; the items themselves keep their order."""
    heads = [item.events[0] for item in calls]
    deltas = [[e for e in item.events[1:] if e[0].endswith(".delta")] for item in calls]
    tails = [[e for e in item.events[1:] if not e[0].endswith(".delta")] for item in calls]
    turns = [d[i] for i in range(max(map(len, deltas))) for d in deltas if i < len(d)]
    events = heads + turns + [e for tail in tails for e in tail]
    return [_Item(whole=calls[0].whole, events=events)] + [
        _Item(whole=item.whole) for item in calls[1:]
    ]


def _padding(number: int, delta: str) -> str:
    """The ``obfuscation`` field: characters that even out the event's size."""
    noise = hashlib.sha256(f"{number}:{delta}".encode()).hexdigest()
    return noise[: max(2, 16 - len(delta))]
