"""Gateway named events as LangChain custom callback events, under the chat model's own run.

Also the run link that lets them reach that run from the base class's streaming path.

Two traps decide the shape of this module (langchain-core 1.8):

- ``run_manager.on_custom_event`` on an LLM run manager is the no-op handler-mixin method:
  its calls are lost. A callback *manager* built from the run manager's handlers dispatches
  for real, with the model's ``run_id``.
- The base class's ``stream``/``astream`` (and ``invoke`` when LangChain streams it) call
  ``_stream``/``_astream`` without a run manager, and ``(a)dispatch_custom_event`` then
  either fails (no parent run) or files the event under the parent chain. So
  ChatSSE's ``invoke``/``ainvoke`` (and ChatSSE's ``stream``/``astream``
  when they leave the loop to the base class) choose the run id themselves (LangChain
  honours ``config["run_id"]``) and hand it, with the config, to ``_stream`` as a
  :class:`RunLink` keyword; the handlers are configured from it exactly as the base class
  configures them for the run. The keyword is kept out of traces and cache keys.

ChatSSE's own ``stream``/``astream`` loop holds the run manager itself and needs no link.

An Anthropic content block that ChatSSE does not read (a server tool's call and its result,
a block type not known yet) reaches it as GatewayEvents named by their wire event
(``content_block_start``, ``_delta``, ``_stop``, or ``content_block`` when it came whole):
their custom events are named after the block instead (:class:`_BlockNames`), the data as sent.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast
from uuid import UUID

from langchain_core.callbacks import (
    AsyncCallbackManager,
    AsyncCallbackManagerForLLMRun,
    CallbackManager,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableConfig, ensure_config
from langchain_core.runnables.config import merge_configs
from langchain_core.utils.uuid import uuid7

from langchain_sse._outbound import RUN_OPTIONS
from sse_core import GatewayEvent

__all__ = [
    "LINK_KEY",
    "LS_INTEGRATION",
    "AsyncEmit",
    "RunLink",
    "SyncEmit",
    "is_invoke",
    "link_config",
    "make_async_emitter",
    "make_emitter",
    "run_ls_params",
    "take_run_options",
]

#: The keyword under which ``stream``/``astream`` pass the :class:`RunLink` to ``_stream``.
LINK_KEY = "_sse_run_link"

#: What ``BaseChatModel`` adds to a run's LangSmith params (langchain-core 1.8, in its private
#: ``_get_ls_params_with_defaults``; tests/langchain/test_callbacks_and_custom_events.py
#: compares).
LS_INTEGRATION = {"ls_integration": "langchain_chat_model"}

SyncEmit = Callable[[GatewayEvent], None]
AsyncEmit = Callable[[GatewayEvent], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class RunLink:
    """The config and run id of a ``stream``/``astream`` call, for ``_stream`` to reach.

    ``invoke``: made by ``invoke``/``ainvoke``, so a ``_stream`` call that carries it answers
    an invoke that LangChain streams (for a v2 protocol handler).
    """

    config: RunnableConfig
    run_id: UUID
    invoke: bool = False
    ls_params: Mapping[str, Any] = field(default_factory=dict)
    """The LangSmith params LangChain adds to the run's metadata (``ls_provider``, ...):
    an event filed under the run carries the run's metadata, as on ChatSSE's own loop."""

    def __repr__(self) -> str:  # kept out of traces by ChatSSE; short if it ever shows
        return f"RunLink(run_id={self.run_id})"


def link_config(
    config: RunnableConfig | None,
    kwargs: dict[str, Any],
    *,
    invoke: bool = False,
    ls_params: Mapping[str, Any] | None = None,
) -> tuple[RunnableConfig, dict[str, Any]]:
    """The config with a fixed ``run_id``, and the call kwargs with the link added
    (``invoke``: the call is an ``invoke``/``ainvoke``; ``ls_params``: see :class:`RunLink`)."""
    config = ensure_config(config)
    run_id = config.get("run_id") or uuid7()
    config["run_id"] = run_id
    link = RunLink(config=config, run_id=run_id, invoke=invoke, ls_params=ls_params or {})
    return config, {**kwargs, LINK_KEY: link}


def run_ls_params(
    model: BaseChatModel, stop: list[str] | None, kwargs: dict[str, Any]
) -> dict[str, Any]:
    """The LangSmith params LangChain puts in the metadata of a run of ``model``: the
    model's own (``_get_ls_params``, the hook LangChain asks chat models to override) and the
    default LangChain adds to them for every chat model run (:data:`LS_INTEGRATION`)."""
    return {**model._get_ls_params(stop=stop, **kwargs), **LS_INTEGRATION}


def take_run_options(
    config: RunnableConfig | None, kwargs: dict[str, Any]
) -> tuple[RunnableConfig | None, dict[str, Any]]:
    """LangChain's run options given as call kwargs (``tags=``, ``callbacks=``, ...) moved
    into the config, where they belong (merged as LangChain merges configs), and out of the
    kwargs, whence they would reach the request body."""
    found = {key: kwargs[key] for key in RUN_OPTIONS if key in kwargs} if kwargs else None
    if not found:
        return config, kwargs
    rest = {key: value for key, value in kwargs.items() if key not in found}
    return merge_configs(config, cast("RunnableConfig", found)), rest


def is_invoke(kwargs: dict[str, Any]) -> bool:
    """Whether call kwargs carry the link of an ``invoke``/``ainvoke``."""
    link = kwargs.get(LINK_KEY)
    return isinstance(link, RunLink) and link.invoke


Manager = TypeVar("Manager", CallbackManager, AsyncCallbackManager)


def _build_target(
    kind: type[Manager],
    model: BaseChatModel,
    run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None,
    link: RunLink,
) -> tuple[Manager, UUID]:
    """A callback manager (sync or async ``kind``) over the run's handlers, and the run id."""
    if run_manager is not None:
        return kind(
            handlers=run_manager.handlers,
            inheritable_handlers=run_manager.inheritable_handlers,
            parent_run_id=run_manager.parent_run_id,
            tags=run_manager.tags,
            metadata=run_manager.metadata,
        ), run_manager.run_id
    config = link.config
    manager = kind.configure(
        config.get("callbacks"),
        model.callbacks,
        model.verbose,
        config.get("tags"),
        model.tags,
        {**(config.get("metadata") or {}), **link.ls_params},  # as the run's own metadata
        model.metadata,
    )
    return manager, link.run_id


_NO_LINK = RunLink(config=RunnableConfig(), run_id=UUID(int=0))

#: What the name of a block's custom event adds to its type, by the GatewayEvent's name.
_BLOCK_PARTS = {
    "content_block": "",
    "content_block_start": "",
    "content_block_delta": ".delta",
    "content_block_stop": ".stop",
}


class _BlockNames:
    """The custom-event name of each GatewayEvent of one call: a content block's own type
    (``web_search_tool_result``, ``server_tool_use``) where the event carries a block
    (its start, or the block whole), ``<type>.delta`` and ``<type>.stop`` for the pieces
    and the end of that block (by its ``index``); the GatewayEvent's name otherwise."""

    __slots__ = ("_types",)

    def __init__(self) -> None:
        self._types: dict[object, str] = {}  # the type of each block started, by index

    def __call__(self, event: GatewayEvent) -> str:
        part = _BLOCK_PARTS.get(event.name)
        data = event.data
        if part is None or type(data) is not dict:
            return event.name
        if event.name == "content_block":
            kind = data.get("type")
        elif event.name == "content_block_start":
            block = data.get("content_block")
            kind = block.get("type") if type(block) is dict else None
            if type(kind) is str and kind:
                self._types[data.get("index")] = kind
        elif event.name == "content_block_stop":
            kind = self._types.pop(data.get("index"), None)
        else:
            kind = self._types.get(data.get("index"))
        return kind + part if type(kind) is str and kind else event.name


def _drop(event: GatewayEvent) -> None:
    """Where gateway events go when no run hears them (they stay in ``response_metadata``)."""


async def _adrop(event: GatewayEvent) -> None:
    """Async twin of :func:`_drop`."""


def make_emitter(
    model: BaseChatModel, run_manager: CallbackManagerForLLMRun | None, link: RunLink | None
) -> SyncEmit:
    """A function that sends a GatewayEvent to the run's handlers (a no-op without a run).

    The callback manager is built on the first event: most streams have none.
    """
    if run_manager is None and link is None:
        return _drop
    target: list[tuple[CallbackManager, UUID]] = []
    name = _BlockNames()

    def emit(event: GatewayEvent) -> None:
        if not target:
            target.append(_build_target(CallbackManager, model, run_manager, link or _NO_LINK))
        manager, run_id = target[0]
        manager.on_custom_event(name(event), event.data, run_id=run_id)

    return emit


def make_async_emitter(
    model: BaseChatModel,
    run_manager: AsyncCallbackManagerForLLMRun | None,
    link: RunLink | None,
) -> AsyncEmit:
    """Async twin of :func:`make_emitter`."""
    if run_manager is None and link is None:
        return _adrop
    target: list[tuple[AsyncCallbackManager, UUID]] = []
    name = _BlockNames()

    async def emit(event: GatewayEvent) -> None:
        if not target:
            target.append(_build_target(AsyncCallbackManager, model, run_manager, link or _NO_LINK))
        manager, run_id = target[0]
        await manager.on_custom_event(name(event), event.data, run_id=run_id)

    return emit
