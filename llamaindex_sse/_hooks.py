"""SSELLM's overrides of LlamaIndex methods whose names are private.

``_prepare_chat_with_tools`` is abstract on ``FunctionCallingLLM`` (every function-calling LLM
writes it) and ``_validate_chat_with_tools_response`` is its hook for checking a tool-calling
answer (a no-op there, there to be overridden). ``_structured_stream_call`` and its async
twin are ``LLM``'s undocumented step under the public ``stream_structured_predict``: SSELLM
overrides them to ask for the program's one tool as ``required`` when streaming (see
:func:`._tools.streaming_program`); overriding the public method instead would mean rewriting
its instrumentation. Each set is a :class:`~sse_core.fast_paths.Hook` whose probe checks that
the base class still has them.
"""

from __future__ import annotations

from llama_index.core.llms.function_calling import FunctionCallingLLM

from sse_core.fast_paths import Hook, hook

__all__ = ["FUNCTION_CALLING", "STRUCTURED_STREAM"]

_FUNCTION_CALLING = ("_prepare_chat_with_tools", "_validate_chat_with_tools_response")
_STRUCTURED_STREAM = ("_structured_astream_call", "_structured_stream_call")


def _lacking(names: tuple[str, ...]) -> str | None:
    gone = [name for name in names if not hasattr(FunctionCallingLLM, name)]
    return f"FunctionCallingLLM has no {', '.join(gone)}" if gone else None


#: The hooks a function-calling LLM is written with.
FUNCTION_CALLING = hook(
    Hook(
        name="llamaindex.function_calling_hooks",
        base="llama_index.core.llms.function_calling.FunctionCallingLLM",
        documented="_prepare_chat_with_tools is abstract on FunctionCallingLLM; "
        "_validate_chat_with_tools_response is its hook for a tool-calling answer",
        uses={"llamaindex_sse.model": _FUNCTION_CALLING},
        probe=lambda: _lacking(_FUNCTION_CALLING),
    )
)
#: The step under ``stream_structured_predict``, with no public alternative.
STRUCTURED_STREAM = hook(
    Hook(
        name="llamaindex.structured_stream_hooks",
        base="llama_index.core.llms.llm.LLM",
        documented="not documented: the step LLM.stream_structured_predict and "
        "astream_structured_predict call, between their instrumentation events",
        uses={"llamaindex_sse.model": _STRUCTURED_STREAM},
        probe=lambda: _lacking(_STRUCTURED_STREAM),
    )
)
