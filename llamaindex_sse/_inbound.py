"""Core values to LlamaIndex ``ChatResponse``s: pure mapping, no I/O, no state of its own.

Streaming: :class:`ResponseMapper` maps what each read added (the core's read,
:meth:`sse_core.pipeline.Accumulator.read`) to one ChatResponse, if the read changed the message:
``delta`` is the new text, ``message`` the whole message so far (a snapshot of the core's
:class:`~sse_core.pipeline.Accumulator` at the read's mark, assembled only when read, see
:mod:`llamaindex_sse._lazy`), ``raw`` an OpenAI-shaped chunk dict (chat completions) and
``additional_kwargs`` the reasoning delta, usage, finish reason and citations known so far,
so the last response carries them all. Per read the work is O(size of the read), whatever
the length of the answer; the mapper keeps nothing of the answer (no event is walked here).

Whole answers: :func:`to_chat_response` maps a :class:`~sse_core.Completion` (``chat``, and the
``partial_response`` of the stream errors), with blocks built as the streamed ones are.

Anthropic Messages answers map the same way, and as llama-index's ``Anthropic`` LLM shows
them: one ThinkingBlock per reasoning block, its signature in ``additional_information``
(a redacted block's ``data`` there too), so the message goes back byte-exact next turn;
a CitationBlock per search-result citation after the text. Where the protocol's table says
so (``message_usage``), the message's ``additional_kwargs`` hold ``usage`` (the gateway's
counts) and ``stop_reason``; where the protocol has an answer object of its own (the core's
:attr:`~sse_core.protocols.WireProtocol.answer`), ``raw`` is that object (a whole answer's,
or a streamed one's so far), as that protocol's llama-index LLM gives it. Elsewhere
``raw`` and the response's ``additional_kwargs`` add ``stop_reason`` and ``stop_sequence``
once the answer stopped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    CitationBlock,
    ContentBlock,
    MessageRole,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)

from llamaindex_sse._lazy import Build, default_build
from sse_core import Choice, Completion, Finish, ReasoningBlock, ToolCall, ToolCallDelta, Usage
from sse_core.pipeline import Accumulator, ReadDelta
from sse_core.protocols.answer import AnswerShape

__all__ = [
    "ResponseMapper",
    "build_message_parts",
    "to_chat_response",
    "to_token_kwargs",
    "to_usage_dict",
]

_NO_USAGE: dict[str, Any] = {}


def _make_call_id(index: int, call_id: str | None) -> str:
    # Some gateways send no id; the tool result must still name the call it answers.
    return call_id or f"call_{index}"


def _to_tool_block(call: ToolCall) -> ToolCallBlock:
    return ToolCallBlock(
        tool_call_id=_make_call_id(call.index, call.id),
        tool_name=call.name or "",
        tool_kwargs=call.arguments,
    )


def _to_tool_call_dict(call: ToolCall) -> dict[str, Any]:
    return {
        "id": _make_call_id(call.index, call.id),
        "type": "function",
        "function": {"name": call.name or "", "arguments": call.arguments},
    }


def thinking_blocks(reasoning: str, closed: Sequence[ReasoningBlock]) -> list[ContentBlock]:
    """The ThinkingBlocks of ``reasoning``: one per block the gateway signed or redacted,
    as llama-index's Anthropic LLM keeps them (``additional_information``: ``type`` and
    ``signature``, or a redacted block's ``data``), or the Responses API's reasoning item whole
    (``type``, ``id``, ``summary``, ``encrypted_content``, as llama-index's
    ``OpenAIResponses`` keeps it), and the text after them unsigned.

    ``closed`` may hold blocks that closed after ``reasoning`` was taken (a stream's
    snapshot): a block whose text goes past ``reasoning`` is shown as far as it goes,
    unsigned. No closed block at all (chat completions): one ThinkingBlock, if any text.
    """
    blocks: list[ContentBlock] = []
    at = 0
    for block in closed:
        if block.item is not None:  # the Responses API's reasoning item, kept whole
            end = at + len(block.text)
            if end > len(reasoning):
                break
            blocks.append(
                ThinkingBlock(content=block.text, additional_information=dict(block.item))
            )
            at = end
            continue
        if block.redacted is not None:
            info = {"type": "redacted_thinking", "data": block.redacted}
            blocks.append(ThinkingBlock(content="", additional_information=info))
            continue
        end = at + len(block.text)
        if end > len(reasoning):
            break
        signed = {} if block.signature is None else _signed(block.signature)
        blocks.append(ThinkingBlock(content=block.text, additional_information=signed))
        at = end
    if at < len(reasoning):
        blocks.append(ThinkingBlock(content=reasoning[at:]))
    return blocks


def with_citation_blocks(
    blocks: list[ContentBlock], citations: Sequence[Mapping[str, Any]]
) -> list[ContentBlock]:
    """``blocks`` with a CitationBlock after the text for each search-result citation (once
    each), as llama-index's Anthropic LLM gives them; other kinds are in the citations list
    only. The request side drops CitationBlocks, so history sent back is unchanged."""
    found: list[ContentBlock] = []
    seen: set[str] = set()
    for citation in citations:
        block = _citation_block(citation)
        if block is not None and (key := repr(sorted(citation.items()))) not in seen:
            seen.add(key)
            found.append(block)
    if not found:
        return blocks
    at = next((i + 1 for i, b in enumerate(blocks) if isinstance(b, TextBlock)), len(blocks))
    return [*blocks[:at], *found, *blocks[at:]]


def _citation_block(citation: Mapping[str, Any]) -> CitationBlock | None:
    cited, source, title = (citation.get(k) for k in ("cited_text", "source", "title"))
    if citation.get("type") != "search_result_location" or not (
        type(cited) is str and type(source) is str and type(title) is str
    ):
        return None
    places = ("start_block_index", "end_block_index", "search_result_index")
    location = {k: citation[k] for k in places if type(citation.get(k)) is int}
    return CitationBlock(cited_content=TextBlock(text=cited), source=source, title=title,
                         additional_location_info=location)  # fmt: skip


def _signed(signature: str) -> dict[str, Any]:
    return {"type": "thinking", "signature": signature}


def build_message_parts(
    content: str,
    reasoning: str,
    refusal: str,
    tool_calls: Sequence[ToolCall],
    reasoning_blocks: Sequence[ReasoningBlock] = (),
) -> tuple[list[ContentBlock], dict[str, Any]]:
    """The blocks and ``additional_kwargs`` of an assistant message.

    Blocks: the ThinkingBlocks (:func:`thinking_blocks`), one TextBlock (left out when it
    would be empty beside tool calls, as llama-index's Anthropic and OpenAI leave it out: an
    answer with no call keeps it, so its ``content`` is ``""``), a ToolCallBlock per call
    (arguments as the JSON text the model wrote); additional_kwargs: OpenAI-shaped
    ``tool_calls`` and the ``refusal``, when there are any.
    """
    blocks = thinking_blocks(reasoning, reasoning_blocks)
    if content or not tool_calls:
        blocks.append(TextBlock(text=content))
    kwargs: dict[str, Any] = {}
    if tool_calls:
        blocks.extend(_to_tool_block(call) for call in tool_calls)
        kwargs["tool_calls"] = [_to_tool_call_dict(call) for call in tool_calls]
    if refusal:
        kwargs["refusal"] = refusal
    return blocks, kwargs


def to_usage_dict(usage: Usage) -> dict[str, Any]:
    """The usage as an OpenAI-shaped dict: the gateway's own, with the standard counts set."""
    payload = dict(usage.raw)
    for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
        value = getattr(usage, key)
        if value is not None:
            payload[key] = value
    for details, key, value in (
        ("prompt_tokens_details", "cached_tokens", usage.cached_tokens),
        ("prompt_tokens_details", "cache_write_tokens", usage.cache_write_tokens),
        ("completion_tokens_details", "reasoning_tokens", usage.reasoning_tokens),
    ):
        if value is not None:
            known = payload.get(details)
            payload[details] = {**(known if isinstance(known, dict) else {}), key: value}
    return payload


def to_token_kwargs(usage: Usage) -> dict[str, int | None]:
    """The token counts LlamaIndex reads from ``additional_kwargs``."""
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
        "cached_tokens": usage.cached_tokens,
        "cache_write_tokens": usage.cache_write_tokens,
        "reasoning_tokens": usage.reasoning_tokens,
    }


def stop_fields(finish: Choice | Finish) -> dict[str, Any]:
    """The protocol's own stop reason and stop sequence (Anthropic's), when it sent one."""
    if finish.stop_reason is None:
        return _NO_USAGE
    return {"stop_reason": finish.stop_reason, "stop_sequence": finish.stop_sequence}


def message_extras(usage: Usage | None, stop_reason: str | None) -> dict[str, Any]:
    """What llama-index's Anthropic LLM keeps in a message's ``additional_kwargs``: the
    usage as the gateway counted it (input tokens without the cached ones, cache reads and
    writes apart), and the stop reason."""
    return {"usage": None if usage is None else dict(usage.raw), "stop_reason": stop_reason}


def _to_fragment(delta: ToolCallDelta) -> dict[str, Any]:
    function: dict[str, Any] = {"arguments": delta.arguments}
    if delta.name is not None:
        function["name"] = delta.name
    fragment: dict[str, Any] = {"index": delta.index, "type": "function", "function": function}
    if delta.id is not None:
        fragment["id"] = delta.id
    return fragment


def _to_delta_dict(read: ReadDelta) -> dict[str, Any]:
    """The OpenAI ``choices[0].delta`` of one read."""
    delta: dict[str, Any] = {}
    if read.text:
        delta["content"] = read.text
    if read.reasoning:
        delta["reasoning_content"] = read.reasoning
    if read.refusal:
        delta["refusal"] = read.refusal
    if read.tool_calls:
        delta["tool_calls"] = [_to_fragment(call) for call in read.tool_calls]
    return delta


class ResponseMapper:
    """Maps the reads of one stream to ChatResponses; the answer's state is the core's.

    Args:
        answer: The stream's accumulator (``stream.answer``); each read it gives
            (:meth:`~sse_core.pipeline.Accumulator.read`, once the read's events were added to it)
            is mapped by :meth:`respond`.
        build: How messages and responses are made (default: :func:`default_build`, lazy
            where that fast path is on).
        message_usage: Messages carry the usage and stop reason, as llama-index's Anthropic
            LLM's do.
        raw: The protocol's own shape of ``raw`` (None: chat completions' chunk).

    Attributes:
        yielded: How many responses :meth:`respond` and :meth:`last` have made.
    """

    __slots__ = ("_answer", "_anthropic", "_build", "_mapped", "_raw", "yielded")

    def __init__(
        self,
        answer: Accumulator,
        build: Build | None = None,
        *,
        message_usage: bool = False,
        raw: AnswerShape | None = None,
    ) -> None:
        self._answer = answer
        self._build = default_build() if build is None else build
        self._anthropic = message_usage
        self._raw = raw
        # The answer's usage mapped (the core's Usage, its token kwargs, its payload): mapped
        # again only when the core holds another.
        self._mapped: tuple[Usage | None, dict[str, Any], dict[str, Any] | None] = (
            None,
            _NO_USAGE,
            None,
        )
        self.yielded = 0

    @property
    def answer(self) -> Accumulator:
        """The stream's accumulator, whose reads this maps."""
        return self._answer

    def respond(self, read: ReadDelta) -> ChatResponse | None:
        """The ChatResponse for one read, or None if it changed nothing a reader sees.

        Its message shows the reasoning blocks closed and the citations given up to its
        read (the read's mark), however late it is assembled.
        """
        if not (read.has_delta or read.finished or read.usage):
            return None
        return self._response(read.text, read.reasoning, _to_delta_dict(read), read)

    def last(self) -> ChatResponse | None:
        """At the end of the stream: a response if none was made (one always is)."""
        return None if self.yielded else self._response("", "", {}, self._answer.read())

    def _response(
        self, text: str, reasoning: str, delta: dict[str, Any], read: ReadDelta
    ) -> ChatResponse:
        answer = self._answer
        if answer.usage is not self._mapped[0]:
            self._map_usage(answer.usage)
        usage, usage_kwargs, usage_payload = self._mapped
        kwargs: dict[str, Any] = {}
        finish = read.finish
        finish_reason = None if finish is None else finish.reason
        stop = _NO_USAGE
        if finish is not None:
            kwargs["finish_reason"] = finish_reason
            stop = stop_fields(finish)
            kwargs.update(stop)
        kwargs.update(usage_kwargs)
        mark = read.mark
        if mark is not None and mark[6]:  # citations so far
            kwargs["citations"] = [dict(citation) for citation in answer.citations()]
        if reasoning:
            kwargs["thinking_delta"] = reasoning
        self.yielded += 1
        at: Any = mark
        if self._anthropic:  # with the usage and stop reason the message must show then
            at = (mark, usage, stop.get("stop_reason"))
        message = self._build.make_message(self, at)
        meta = answer.metadata
        if self._raw is not None:  # the protocol's own object so far, built when read
            return self._build.make_response_later(
                message, text, self, (mark, meta, usage, stop), kwargs
            )
        raw = self._chunk_raw(meta, delta, finish_reason, usage_payload, stop)
        return self._build.make_response(message, text, raw, kwargs)

    def _chunk_raw(
        self,
        meta: Any,
        delta: dict[str, Any],
        finish_reason: str | None,
        usage_payload: dict[str, Any] | None,
        stop: dict[str, Any],
    ) -> dict[str, Any]:
        return {
            "id": meta.id,
            "object": "chat.completion.chunk",
            "created": meta.created,
            "model": meta.model,
            "choices": [
                {
                    "index": self._answer.followed or 0,
                    "delta": delta,
                    "finish_reason": finish_reason,
                }
            ],
            "usage": usage_payload,
            **stop,
        }

    def _map_usage(self, usage: Usage | None) -> None:
        self._mapped = (
            usage,
            _NO_USAGE if usage is None else to_token_kwargs(usage),
            None if usage is None else to_usage_dict(usage),
        )

    def raw_at(self, at: Any) -> dict[str, Any]:
        """The protocol's own object as of ``at`` (the read's mark, metadata, usage and stop
        fields): the choice's snapshot at the mark, in the protocol's raw shape."""
        mark, meta, usage, stop = at
        assert self._raw is not None, "only a protocol with a raw shape defers its raw"
        choice = None if mark is None else self._answer.snapshot(mark)
        return self._raw.streamed(meta, usage, stop, choice)

    def assemble(self, mark: Any) -> tuple[list[ContentBlock], dict[str, Any]]:
        """The blocks and additional_kwargs of the message as of ``mark`` (Anthropic: with
        the usage and the stop reason then)."""
        if not self._anthropic:
            return _message_parts(None if mark is None else self._answer.snapshot(mark))
        at, usage, stop_reason = mark
        blocks, kwargs = _message_parts(None if at is None else self._answer.snapshot(at))
        kwargs.update(message_extras(usage, stop_reason))
        return blocks, kwargs


def _message_parts(choice: Choice | None) -> tuple[list[ContentBlock], dict[str, Any]]:
    """:func:`build_message_parts` of a snapshot (None: no choice had arrived yet), with
    its CitationBlocks."""
    if choice is None:
        return build_message_parts("", "", "", ())
    blocks, kwargs = build_message_parts(
        choice.content,
        choice.reasoning,
        choice.refusal,
        choice.tool_calls,
        choice.reasoning_blocks,
    )
    return with_citation_blocks(blocks, choice.citations), kwargs


def to_chat_response(
    completion: Completion, *, message_usage: bool = False, raw_shape: AnswerShape | None = None
) -> ChatResponse:
    """The ChatResponse for a whole answer (``chat``/``achat``, and partial answers);
    ``message_usage``: the message carries usage and stop_reason, as Anthropic's LLM's do;
    ``raw_shape``: ``raw`` is the protocol's own object (None: chat completions')."""
    first = completion.choices[0] if completion.choices else Choice()
    blocks, kwargs = build_message_parts(
        completion.content,
        completion.reasoning,
        completion.refusal,
        completion.tool_calls,
        completion.reasoning_blocks,
    )
    message: dict[str, Any] = {"role": "assistant", "content": completion.content or None}
    if completion.reasoning:
        message["reasoning_content"] = completion.reasoning
    message.update(kwargs)
    usage = completion.usage
    extra: dict[str, Any] = {} if usage is None else to_token_kwargs(usage)
    if completion.finish_reason is not None:
        extra["finish_reason"] = completion.finish_reason
    stop = stop_fields(first)
    extra.update(stop)
    raw = {
        "id": completion.id,
        "object": "chat.completion",
        "created": completion.created,
        "model": completion.model,
        "choices": [{"index": 0, "message": message, "finish_reason": completion.finish_reason}],
        "usage": None if usage is None else to_usage_dict(usage),
        **stop,
    }
    if message_usage:
        kwargs.update(message_extras(usage, first.stop_reason))
    if raw_shape is not None:  # the protocol's own object, as its own client gives it
        raw = raw_shape.whole(completion)
    citations = [dict(citation) for citation in completion.citations]
    if citations:
        extra["citations"] = citations
        blocks = with_citation_blocks(blocks, citations)
    return ChatResponse(
        message=ChatMessage(role=MessageRole.ASSISTANT, blocks=blocks, additional_kwargs=kwargs),
        raw=raw,
        delta=None,
        additional_kwargs=extra,
    )
