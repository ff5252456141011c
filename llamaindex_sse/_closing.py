"""Close a stream's generators when the caller stops reading: the llm_chat_callback gap.

llama-index-core's ``llm_chat_callback`` (and ``llm_completion_callback``) wraps the
generator a streaming method returns in one of its own, which iterates it and never closes
it. After ``break`` + ``close()``/``aclose()`` the inner generator, and with it the HTTP
response, lives on until garbage collection, and for ever while a handler keeps the
exception event (``LlamaDebugHandler`` does: traceback -> frame -> closure -> generator).

The fix keeps the decorator for its events and closes deterministically:

1. The public method opens a :func:`collecting` scope and calls a decorated private method.
2. That method :func:`track`\\ s each generator it creates (a ContextVar carries the list:
   the decorated call runs in the caller's context, sync or async).
3. The public method returns :func:`close_after` / :func:`aclose_after` over the decorated
   generator, whose ``finally`` closes it and then every tracked generator, newest first.

``CancelledError`` and ``GeneratorExit`` pass through untouched.

What this leans on in llama-index-core (``tests/llamaindex/test_closing.py`` fails loudly,
naming the change, if it moves): the decorated call runs in the caller's context, and the
decorator wraps the generator without closing it. Fallback: if a decorated call tracked no
generator (the context did not reach it), :func:`collecting` warns once with a
``RuntimeWarning`` and the streams still work; only the wrapper is closed, the HTTP
response then closes when its generator is collected.
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncGenerator, Generator
from contextlib import AbstractContextManager
from contextvars import ContextVar, Token
from types import TracebackType
from typing import Any, TypeVar

__all__ = ["UNTRACKED", "aclose_after", "close_after", "collecting", "track"]

#: The warning :func:`collecting` gives when a decorated call tracked no generator.
UNTRACKED = (
    "llamaindex_sse: llama-index-core's llm_chat_callback no longer runs the stream method "
    "in the caller's context, so stopping a stream early closes its HTTP response only when "
    "the generator is garbage-collected; please report this with your llama-index-core version"
)

T = TypeVar("T")
G = TypeVar("G", Generator[Any, None, None], AsyncGenerator[Any, None])

_opened: ContextVar[list[Any] | None] = ContextVar("llamaindex_sse_opened", default=None)


def collecting() -> AbstractContextManager[list[Any]]:
    """A scope in which :func:`track` records generators into the list it gives.

    Warns (``RuntimeWarning``, once per call site) if the scope ends without an error and
    nothing was tracked: see the module docstring.
    """
    return _Collecting()


class _Collecting:
    """:func:`collecting`'s scope: a class, as every stream call opens one (cheaper than a
    generator's context manager)."""

    __slots__ = ("_opened", "_token")

    def __init__(self) -> None:
        self._opened: list[Any] = []
        self._token: Token[list[Any] | None] | None = None

    def __enter__(self) -> list[Any]:
        self._token = _opened.set(self._opened)
        return self._opened

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        assert self._token is not None, "entered first"
        _opened.reset(self._token)
        if exc_type is None and not self._opened:
            warnings.warn(UNTRACKED, RuntimeWarning, stacklevel=2)  # at the caller's with


def track(generator: G) -> G:
    """Record ``generator`` in the current :func:`collecting` scope (if any); return it."""
    opened = _opened.get()
    if opened is not None:
        opened.append(generator)
    return generator


def close_after(
    wrapped: Generator[T, None, None], opened: list[Generator[Any, None, None]]
) -> Generator[T, None, None]:
    """Yield from ``wrapped``; on any exit close it, then the tracked generators."""
    try:
        yield from wrapped
    finally:
        try:
            wrapped.close()
        finally:
            _close_all(opened)


def _close_all(opened: list[Generator[Any, None, None]]) -> None:
    first: BaseException | None = None
    while opened:
        try:
            opened.pop().close()
        except BaseException as exc:  # close the rest, then re-raise the first
            first = first or exc
    if first is not None:
        raise first


async def aclose_after(
    wrapped: AsyncGenerator[T, None], opened: list[AsyncGenerator[Any, None]]
) -> AsyncGenerator[T, None]:
    """Async twin of :func:`close_after`."""
    try:
        async for item in wrapped:
            yield item
    finally:
        try:
            await _aclose(wrapped)
        finally:
            await _aclose_all(opened)


async def _aclose(generator: AsyncGenerator[Any, None]) -> None:
    try:
        await generator.aclose()
    except RuntimeError as exc:
        # The loop's shutdown_asyncgens() closes every live async generator at once: this
        # one is being closed by it right now, which is all we wanted.
        if "already running" not in str(exc):
            raise


async def _aclose_all(opened: list[AsyncGenerator[Any, None]]) -> None:
    first: BaseException | None = None
    while opened:
        try:
            await _aclose(opened.pop())
        except BaseException as exc:  # close the rest, then re-raise the first
            first = first or exc
    if first is not None:
        raise first
