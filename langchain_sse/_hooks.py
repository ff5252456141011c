"""ChatSSE's overrides of ``BaseChatModel`` methods whose names are private.

Most are how LangChain asks a chat model to be written: ``_generate`` and ``_llm_type``
(required), ``_stream``, ``_astream``, ``_agenerate`` and ``_identifying_params`` (LangChain's
guide to custom chat models), ``_get_ls_params`` (its docstring: subclasses should override
it). Four more have no public alternative and are overridden by LangChain's own integrations
too (langchain-openai's ``ChatOpenAI``): ``_combine_llm_outputs`` (the batch's
``llm_output``), ``_get_invocation_params`` (the traced params, without the run link),
``_get_llm_string`` (the cache key, without secrets) and ``_should_use_protocol_streaming``
(``invoke_streaming=False`` honoured on the v2 event path). Each set is a
:class:`~sse_core.fast_paths.Hook` whose probe checks that the base class still has them.

One override is a shortcut, not a hook: ``_should_stream`` answering no when LangChain's
``invoke`` asks with a run manager, so that ``_generate`` streams the answer, sends the same
tokens and keeps no chunk, where the base class would stream ``_stream`` and merge every
chunk. It is the fast path :data:`UNMERGED`, installed on ChatSSE at import only where it is
on (:func:`install`); otherwise ChatSSE has no ``_should_stream`` of its own.
"""

from __future__ import annotations

import inspect
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel

from sse_core.fast_paths import FastPath, Hook, hook, is_on, register

__all__ = ["DOCUMENTED", "INTEGRATION", "UNMERGED", "install", "streams_invoke", "use"]

#: The hooks LangChain documents for chat models, as ChatSSE overrides them.
_DOCUMENTED = (
    "_agenerate", "_astream", "_generate", "_get_ls_params", "_identifying_params", "_llm_type",
    "_stream",
)  # fmt: skip
#: The hooks with no public alternative that LangChain's own integrations override too.
_INTEGRATION = (
    "_combine_llm_outputs",
    "_get_invocation_params",
    "_get_llm_string",
    "_should_use_protocol_streaming",
)


def _lacking(names: tuple[str, ...]) -> str | None:
    gone = [name for name in names if not hasattr(BaseChatModel, name)]
    return f"BaseChatModel has no {', '.join(gone)}" if gone else None


#: The documented hooks.
DOCUMENTED = hook(
    Hook(
        name="langchain.chat_model_hooks",
        base="langchain_core.language_models.BaseChatModel",
        documented="LangChain's guide to custom chat models (_generate, _llm_type required; "
        "_stream, _astream, _agenerate, _identifying_params optional); _get_ls_params's "
        "docstring asks subclasses to override it",
        uses={"langchain_sse.model": _DOCUMENTED},
        probe=lambda: _lacking(_DOCUMENTED),
    )
)
#: The hooks LangChain's integrations override, with no public alternative.
INTEGRATION = hook(
    Hook(
        name="langchain.integration_hooks",
        base="langchain_core.language_models.BaseChatModel",
        documented="not in LangChain's guide: the base class's extension points for the "
        "batch's llm_output, the traced params, the cache key and the v2 event path, "
        "overridden by langchain-openai's ChatOpenAI too (all but the last two)",
        uses={"langchain_sse.model": _INTEGRATION},
        probe=lambda: _lacking(_INTEGRATION),
    )
)


def _probe_unmerged() -> str | None:
    """None if ``BaseChatModel._should_stream`` takes the run manager it is asked with."""
    method = getattr(BaseChatModel, "_should_stream", None)
    if method is None:
        return "BaseChatModel has no _should_stream"
    if "run_manager" not in inspect.signature(method).parameters:
        return "BaseChatModel._should_stream takes no run_manager"
    return None


#: ``invoke`` streamed by ChatSSE's ``_generate``, no chunk kept (else LangChain's merge).
UNMERGED = register(
    FastPath(
        name="langchain.unmerged_invoke",
        shortcut="an invoke LangChain would stream (a streaming handler, streaming=True) runs "
        "ChatSSE._generate, which sends the same tokens and keeps no chunk: ChatSSE "
        "overrides BaseChatModel._should_stream to answer no when a run manager asks",
        tested={"langchain-core": ">=1.8,<1.9"},
        probe=_probe_unmerged,
        faithful="BaseChatModel's invoke streams ChatSSE._stream and merges the chunks",
        uses={"langchain_sse._hooks": ("_should_stream",)},
    )
)

_installed: list[bool] = [False]


def _should_stream(
    self: BaseChatModel,
    *,
    async_api: bool,
    run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None = None,
    **kwargs: Any,
) -> bool:
    """False on the generate path (a run manager is given): where LangChain's ``invoke``
    would stream through ``_stream``, keeping every chunk, ChatSSE's ``_generate`` sends
    the same tokens and keeps none."""
    if run_manager is not None:
        return False
    return BaseChatModel._should_stream(
        self, async_api=async_api, run_manager=run_manager, **kwargs
    )


def use(model_class: type[BaseChatModel], fast: bool) -> None:
    """Give ``model_class`` the ``_should_stream`` of :data:`UNMERGED` (``fast``), or take it
    away (tests switch it; :func:`install` decides it at import)."""
    if fast:
        model_class._should_stream = _should_stream  # type: ignore[method-assign]
    elif vars(model_class).get("_should_stream") is _should_stream:
        del model_class._should_stream
    _installed[0] = fast


def install(model_class: type[BaseChatModel]) -> None:
    """:func:`use` where :data:`UNMERGED` is on (decided at import, as the chunk constructors
    are)."""
    if is_on(UNMERGED.name):
        use(model_class, True)


def streams_invoke(
    model: BaseChatModel,
    run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None,
    kwargs: dict[str, Any],
    *,
    async_api: bool,
) -> bool:
    """Whether ``_generate`` answers an invoke that LangChain would have streamed (its tokens
    then go to the run): the base class's rule, which ChatSSE's override answers for it.
    Without the override, LangChain streams such an invoke itself and ``_generate`` answers
    only the others."""
    return (
        _installed[0]
        and run_manager is not None
        and BaseChatModel._should_stream(
            model, async_api=async_api, run_manager=run_manager, **kwargs
        )
    )
