"""``with_structured_output`` for ChatSSE: bind the request, then parse the message.

Three methods, as in ChatOpenAI: ``function_calling`` (one forced tool call),
``json_schema`` (``response_format`` with the schema, which each protocol sends as its own
structured output: Anthropic's ``output_config.format``, as ChatAnthropic sends it; it works
with thinking on) and ``json_mode`` (any JSON object; with a schema, on a protocol without a
JSON mode, the same as ``json_schema``). Which one is used when none is asked for, and
whether ``json_schema`` is strict when ``strict`` is not given, are facts of the protocol's
table entry (:mod:`langchain_sse._protocols`): its LangChain class's defaults.
The parsers are langchain-core's; they raise ``ModelRefusalError`` when the message's
content blocks hold a refusal, which the ``sse`` translator adds for ``refusal`` text and
for a ``content_filter`` finish.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import (
    JsonOutputKeyToolsParser,
    JsonOutputParser,
    PydanticOutputParser,
    PydanticToolsParser,
)
from langchain_core.runnables import Runnable, RunnableLambda, RunnableMap, RunnablePassthrough
from langchain_core.utils.function_calling import convert_to_openai_tool
from langchain_core.utils.pydantic import is_basemodel_subclass

from langchain_sse._protocols import Method, mapping_of
from langchain_sse._tools import build_response_format
from sse_core.protocols import wire_protocol

if TYPE_CHECKING:
    from langchain_sse.model import ChatSSE

__all__ = ["Method", "build_structured_output"]

Schema = Mapping[str, Any] | type


def _is_pydantic(schema: object) -> bool:
    return isinstance(schema, type) and is_basemodel_subclass(schema)


def _pick_parser(schema: Schema | None, method: Method) -> Runnable[Any, Any]:
    if method == "function_calling":
        assert schema is not None
        if _is_pydantic(schema):
            return PydanticToolsParser(tools=[schema], first_tool_only=True)  # type: ignore[list-item]
        name = convert_to_openai_tool(schema)["function"]["name"]
        return JsonOutputKeyToolsParser(key_name=name, first_tool_only=True)
    if _is_pydantic(schema):
        return PydanticOutputParser(pydantic_object=schema)  # type: ignore[arg-type]
    return JsonOutputParser()


def _bind_request(
    model: ChatSSE, schema: Schema | None, method: Method, strict: bool | None, **kwargs: Any
) -> Runnable[LanguageModelInput, AIMessage]:
    traced = {"kwargs": {"method": method, "strict": strict}, "schema": schema}
    if method == "json_mode":
        traced["kwargs"] = {"method": method}
        return model.bind(
            response_format={"type": "json_object"}, ls_structured_output_format=traced, **kwargs
        )
    if schema is None:
        raise ValueError(f"with_structured_output(method={method!r}) needs a schema")
    if method == "json_schema":
        traced["schema"] = convert_to_openai_tool(schema)
        return model.bind(
            response_format=build_response_format(
                schema, strict=_schema_strict(model, schema, strict)
            ),
            ls_structured_output_format=traced,
            **kwargs,
        )
    if method == "function_calling":
        name = convert_to_openai_tool(schema)["function"]["name"]
        if not wire_protocol(model.protocol).forced_tools(model.thinking):
            return _unforced(model, schema, strict, traced, **kwargs)
        return model.bind_tools(
            [schema],
            tool_choice=name,
            parallel_tool_calls=False,
            strict=strict,
            ls_structured_output_format=traced,
            **kwargs,
        )
    raise ValueError(
        f"method must be 'function_calling', 'json_schema' or 'json_mode', got {method!r}"
    )


def _schema_strict(model: ChatSSE, schema: Schema, strict: bool | None) -> bool | None:
    """``strict`` of a ``json_schema`` request: as asked; else, where the protocol's table says
    so, as ChatOpenAI sends it (true for a Pydantic class, whose schema is then made strict;
    a JSON schema's own ``strict``, else false)."""
    if strict is not None or not mapping_of(model.protocol).strict_schema:
        return strict
    if _is_pydantic(schema):
        return True
    own = schema.get("strict") if isinstance(schema, Mapping) else None
    return own if isinstance(own, bool) else False


#: Said when the answer's tool call cannot be forced (thinking on, where the protocol refuses
#: a forced choice with it), as langchain-anthropic says it.
UNFORCED = (
    "structured output by a tool call cannot force the call while thinking is on (the "
    "protocol refuses it): the tool is offered, and an answer without the call raises "
    "OutputParserException. Consider method='json_schema', thinking=None, or a prompt that "
    "asks for the tool"
)


def _require_call(message: AIMessage) -> AIMessage:
    if not message.tool_calls:
        raise OutputParserException(UNFORCED, llm_output=str(message.content))
    return message


def _unforced(
    model: ChatSSE, schema: Schema, strict: bool | None, traced: dict[str, Any], **kwargs: Any
) -> Runnable[LanguageModelInput, AIMessage]:
    """The tool offered, not forced, with a warning now and a parse error for an answer
    without the call (what langchain-anthropic does with thinking on)."""
    warnings.warn(UNFORCED, UserWarning, stacklevel=4)
    bound = model.bind_tools(
        [schema],
        parallel_tool_calls=False,
        strict=strict,
        ls_structured_output_format=traced,
        **kwargs,
    )
    return bound | RunnableLambda(_require_call)


def build_structured_output(
    model: ChatSSE,
    schema: Schema | None,
    *,
    method: Method | None,
    include_raw: bool,
    strict: bool | None,
    **kwargs: Any,
) -> Runnable[LanguageModelInput, Any]:
    """The runnable ``ChatSSE.with_structured_output`` returns (see there)."""
    if method is None:  # the protocol's LangChain class's default
        method = mapping_of(model.protocol).structured_method
    if strict is not None and method == "json_mode":
        raise ValueError("strict is not supported with method='json_mode'")
    if method == "json_mode" and not mapping_of(model.protocol).json_mode:
        # No JSON mode in this protocol: the schema is asked for natively, as json_schema.
        if schema is None:
            raise ValueError(
                f"with_structured_output(method='json_mode') needs a schema with "
                f"protocol={model.protocol!r}, which has no JSON mode (the schema is sent as "
                "its structured output)"
            )
        method = "json_schema"
    bound = _bind_request(model, schema, method, strict, **kwargs)
    parser = _pick_parser(schema, method)
    if not include_raw:
        return bound | parser
    parsed = RunnablePassthrough.assign(
        parsed=itemgetter("raw") | parser, parsing_error=lambda _: None
    )
    failed = RunnablePassthrough.assign(parsed=lambda _: None)
    return RunnableMap(raw=bound) | parsed.with_fallbacks([failed], exception_key="parsing_error")
