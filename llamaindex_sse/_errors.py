"""The sse_core stream errors as SSELLM raises them: the same classes, plus the answer so far
as a LlamaIndex ``ChatResponse``.

The hierarchy (left: what SSELLM raises; right: its sse_core parent, which still catches it)::

    GatewayStreamError      sse_core.GatewayStreamError     an error frame or event: error
    IncompleteStreamError   sse_core.IncompleteStreamError  no finish_reason and no [DONE]
    StreamTimeoutError      sse_core.StreamTimeoutError     no bytes for too long
    StreamProtocolError     sse_core.StreamProtocolError    malformed frame, oversized event
    ToolArgumentsError      sse_core.ToolArgumentsError     cut tool input (also a ValueError)

Each of the first four keeps ``.partial`` (the sse_core Completion) and adds
``.partial_response``: the same answer as a ``ChatResponse`` built as ``chat()`` builds its
own (ThinkingBlock, TextBlock, ToolCallBlocks, usage). ToolArgumentsError is raised by
``get_tool_calls_from_response``, from the response it was given. Every other error (HTTP
statuses, connection, configuration) is sse_core's own, unchanged: LlamaIndex has no error
types to add to them. This module imports no llama_index code until ``partial_response`` is
read, so ``import llamaindex_sse`` stays cheap.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from types import TracebackType
from typing import TYPE_CHECKING, TypeVar

import sse_core
from sse_core.errors import recast

if TYPE_CHECKING:
    from llama_index.core.base.llms.types import ChatResponse

__all__ = [
    "GatewayStreamError",
    "IncompleteStreamError",
    "StreamProtocolError",
    "StreamTimeoutError",
    "ToolArgumentsError",
    "to_llamaindex_error",
    "translate_errors",
]


class _PartialResponse:
    """Adds ``partial_response``: the partial Completion as a LlamaIndex ``ChatResponse``."""

    partial: sse_core.Completion

    @property
    def partial_response(self) -> ChatResponse:
        """What arrived before the failure, as ``chat()`` would have returned it."""
        from llamaindex_sse._inbound import to_chat_response

        return to_chat_response(self.partial)


class GatewayStreamError(_PartialResponse, sse_core.GatewayStreamError):
    """The gateway sent an error frame or ``event: error`` inside the stream."""


class IncompleteStreamError(_PartialResponse, sse_core.IncompleteStreamError):
    """The stream ended without a finish_reason and without ``[DONE]``."""


class StreamTimeoutError(_PartialResponse, sse_core.StreamTimeoutError):
    """No bytes arrived for longer than the timeout allowed."""


class StreamProtocolError(_PartialResponse, sse_core.StreamProtocolError):
    """Malformed frame, invalid JSON, or an event over the size bound."""


class ToolArgumentsError(sse_core.ToolArgumentsError, ValueError):
    """A finished answer's tool call whose arguments are not a JSON object (most often cut
    at the token limit), refused by ``get_tool_calls_from_response`` rather than repaired
    into arguments that look usable; also a ``ValueError``, as that method raised before.
    ``call`` holds the call as the model wrote it, ``reason`` why it cannot be used."""


_BY_CORE_CLASS: dict[type[sse_core.StreamError], type[sse_core.StreamError]] = {
    sse_core.GatewayStreamError: GatewayStreamError,
    sse_core.IncompleteStreamError: IncompleteStreamError,
    sse_core.StreamTimeoutError: StreamTimeoutError,
    sse_core.StreamProtocolError: StreamProtocolError,
}

E = TypeVar("E", bound=sse_core.SSEConnectorError)


def to_llamaindex_error(error: E) -> E:
    """The same error as an instance of the class that adds ``partial_response``.

    The attributes (``partial``, ``type``, ``code``, ...), the cause and the traceback are
    carried over; an error with no counterpart here is returned unchanged.
    """
    cls = _BY_CORE_CLASS.get(type(error))  # type: ignore[arg-type]
    if cls is None:
        return error
    return recast(error, cls)


def _find_shown_cause(error: BaseException) -> BaseException | None:
    """What the traceback of ``error`` shows before it: its cause, else its context."""
    if error.__cause__ is not None or error.__suppress_context__:
        return error.__cause__
    return error.__context__


def translate_errors() -> AbstractContextManager[None]:
    """A block whose sse_core stream errors are re-raised as this module's classes.

    The new error shows the same chain as the original (its cause, or its context);
    ``GeneratorExit`` and ``CancelledError`` pass untouched.
    """
    return _TRANSLATE


class _Translate:
    """:func:`translate_errors`'s block: one stateless instance, as every call opens one
    (cheaper than a generator's context manager)."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if isinstance(exc, sse_core.StreamError):
            mapped = to_llamaindex_error(exc)
            if mapped is not exc:
                raise mapped from _find_shown_cause(exc)


_TRANSLATE = _Translate()
