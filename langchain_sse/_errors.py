"""The sse_core errors as LangChain sees them: each class is both, so either catch works.

The hierarchy (left: the sse_core parent, right: the langchain-core parent)::

    AuthenticationError        sse_core.AuthenticationError   ModelAuthenticationError   401
    PermissionDeniedError      AuthenticationError            ModelPermissionDeniedError 403
    RateLimitError             sse_core.RateLimitError        ModelRateLimitError        429
    ServerError                sse_core.ServerError           ModelAPIError              5xx
    NotImplementedByServerError ServerError, sse_core.NotImplementedByServerError     501
    RetryableRequestError      sse_core.RetryableRequestError ModelAPIError              408/409
    BadRequestError            sse_core.BadRequestError       ModelInvalidRequestError   4xx
    NotFoundError              BadRequestError                ModelNotFoundError         404
    RedirectError              sse_core.RedirectError         ModelInvalidRequestError   3xx
    UnexpectedResponseError    sse_core.UnexpectedResponseError ModelInvalidRequestError 2xx page
    ContextOverflowError       BadRequestError                lc ContextOverflowError    too long
    GatewayConnectionError     sse_core.GatewayConnectionError ModelConnectionError
    GatewayStreamError         sse_core.GatewayStreamError    ModelAPIError      error frame
    IncompleteStreamError      sse_core.IncompleteStreamError ModelAPIError      cut short
    StreamTimeoutError         sse_core.StreamTimeoutError    ModelTimeoutError  idle/total
    StreamProtocolError        sse_core.StreamProtocolError   ModelAPIError      bad bytes
    ToolArgumentsError         sse_core.ToolArgumentsError    ModelAPIError      cut tool input

``is_retryable`` is sse_core's (a stream that began is never retryable: there is no resume).
Stream errors keep ``.partial`` (the sse_core Completion) and add ``.partial_message``, the
same answer as a LangChain ``AIMessage``. :class:`sse_core.ConfigurationError` (caller
misuse, a ``ValueError``) is raised unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from langchain_core import exceptions as lc

import sse_core
from sse_core.errors import recast

if TYPE_CHECKING:
    from langchain_core.messages import AIMessage

__all__ = [
    "AuthenticationError",
    "BadRequestError",
    "ContextOverflowError",
    "GatewayConnectionError",
    "GatewayStreamError",
    "IncompleteStreamError",
    "NotFoundError",
    "NotImplementedByServerError",
    "PermissionDeniedError",
    "RateLimitError",
    "RedirectError",
    "RetryableRequestError",
    "ServerError",
    "StreamProtocolError",
    "StreamTimeoutError",
    "ToolArgumentsError",
    "UnexpectedResponseError",
    "convert_error",
]


class AuthenticationError(sse_core.AuthenticationError, lc.ModelAuthenticationError):
    """401: the key is missing or wrong."""


class PermissionDeniedError(AuthenticationError, lc.ModelPermissionDeniedError):
    """403: the key lacks permission for this request."""


class RateLimitError(sse_core.RateLimitError, lc.ModelRateLimitError):
    """429: too many requests; ``retry_after`` says how long to wait."""


class ServerError(sse_core.ServerError, lc.ModelAPIError):
    """5xx: the gateway or its upstream failed."""


class NotImplementedByServerError(sse_core.NotImplementedByServerError, ServerError):
    """501: the server does not implement the request; not retryable."""


class RetryableRequestError(sse_core.RetryableRequestError, lc.ModelAPIError):
    """408 or 409: the gateway asks for the request again."""


class BadRequestError(sse_core.BadRequestError, lc.ModelInvalidRequestError):
    """Any other 4xx: the request was rejected as sent."""


class NotFoundError(BadRequestError, lc.ModelNotFoundError):
    """404: the model (or the path) does not exist on this gateway."""


class RedirectError(sse_core.RedirectError, lc.ModelInvalidRequestError):
    """3xx: base_url points at a redirect (not followed); ``location`` says where to."""


class UnexpectedResponseError(sse_core.UnexpectedResponseError, lc.ModelInvalidRequestError):
    """A 2xx answer that is neither an event stream nor a JSON completion (a web page)."""


class ContextOverflowError(BadRequestError, lc.ContextOverflowError):
    """The prompt is longer than the model's context window."""


class GatewayConnectionError(sse_core.GatewayConnectionError, lc.ModelConnectionError):
    """The gateway could not be reached."""


class _PartialMessage:
    """Adds ``partial_message``: the partial Completion as a LangChain ``AIMessage``."""

    partial: sse_core.Completion

    @property
    def partial_message(self) -> AIMessage:
        """What arrived before the failure, as an ``AIMessage``."""
        from langchain_sse._inbound import convert_completion

        return convert_completion(self.partial)


class GatewayStreamError(_PartialMessage, sse_core.GatewayStreamError, lc.ModelAPIError):
    """The gateway sent an error frame or ``event: error`` inside the stream."""


class IncompleteStreamError(_PartialMessage, sse_core.IncompleteStreamError, lc.ModelAPIError):
    """The stream ended without a finish_reason and without ``[DONE]``."""


class StreamTimeoutError(_PartialMessage, sse_core.StreamTimeoutError, lc.ModelTimeoutError):
    """No bytes arrived for longer than the timeout allowed."""


class StreamProtocolError(_PartialMessage, sse_core.StreamProtocolError, lc.ModelAPIError):
    """Malformed frame, invalid JSON, or an event over the size bound."""


class ToolArgumentsError(_PartialMessage, sse_core.ToolArgumentsError, lc.ModelAPIError):
    """A streamed answer ended with a tool call whose arguments are not a JSON object.

    Raised by ``stream``/``astream`` after the last chunk: merging the chunks would re-parse
    the call's fragments and repair them into arguments that look usable. ``invoke`` gives
    the call in ``invalid_tool_calls`` instead, as does ``partial_message`` here.
    """


_BY_CORE_CLASS: dict[type[sse_core.SSEConnectorError], type[sse_core.SSEConnectorError]] = {
    sse_core.AuthenticationError: AuthenticationError,
    sse_core.RateLimitError: RateLimitError,
    sse_core.ServerError: ServerError,
    sse_core.NotImplementedByServerError: NotImplementedByServerError,
    sse_core.RetryableRequestError: RetryableRequestError,
    sse_core.BadRequestError: BadRequestError,
    sse_core.RedirectError: RedirectError,
    sse_core.UnexpectedResponseError: UnexpectedResponseError,
    sse_core.GatewayConnectionError: GatewayConnectionError,
    sse_core.GatewayStreamError: GatewayStreamError,
    sse_core.IncompleteStreamError: IncompleteStreamError,
    sse_core.StreamTimeoutError: StreamTimeoutError,
    sse_core.StreamProtocolError: StreamProtocolError,
    sse_core.ToolArgumentsError: ToolArgumentsError,
}

# Codes and phrases gateways use for an over-long prompt (OpenAI, vLLM, OpenRouter, LiteLLM).
_OVERFLOW_CODES = frozenset({"context_length_exceeded", "string_above_max_length"})
_OVERFLOW_WORDS = ("maximum context length", "context window", "context length exceeded")

E = TypeVar("E", bound=sse_core.SSEConnectorError)


def _pick_class(error: sse_core.SSEConnectorError) -> type[sse_core.SSEConnectorError] | None:
    """The adapter class for ``error``, refined by status and code where LangChain has one."""
    cls = _BY_CORE_CLASS.get(type(error))
    if isinstance(error, sse_core.GatewayHTTPError):
        if cls is AuthenticationError and error.status_code == 403:
            return PermissionDeniedError
        if cls is BadRequestError:
            text = (error.error_message or "").lower()
            if error.code in _OVERFLOW_CODES or any(word in text for word in _OVERFLOW_WORDS):
                return ContextOverflowError
            if error.status_code == 404:
                return NotFoundError
    return cls


def convert_error(error: E) -> E:
    """The same error as an instance of the class that also inherits LangChain's type.

    The attributes (status, retry_after, partial, ...) and the traceback are carried over;
    an error with no LangChain counterpart is returned unchanged.

    Args:
        error: An error raised by sse_core.

    Returns:
        An instance of a subclass of ``type(error)``, or ``error`` itself.
    """
    cls = _pick_class(error)
    if cls is None or type(error) is cls:
        return error
    return recast(error, cls)
