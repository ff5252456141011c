"""Every error sse_core raises, in one place.

The hierarchy::

    SSEConnectorError                 root of everything raised by sse_core
    ├── ConfigurationError            caller misuse: a bad argument or setting (also a ValueError)
    ├── GatewayConnectionError        the gateway could not be reached (connect error, DNS, refused)
    ├── GatewayHTTPError              an answer that is not a stream, before the stream began
    │   ├── AuthenticationError       401, 403
    │   ├── RateLimitError            429
    │   ├── ServerError               5xx
    │   │   └── NotImplementedByServerError  501: the server does not implement the request
    │   ├── RetryableRequestError     408, 409: the gateway asks to send it again
    │   ├── BadRequestError           any other 4xx
    │   ├── RedirectError             3xx: base_url points at a redirect (not followed)
    │   └── UnexpectedResponseError   2xx, but neither an event stream nor a JSON completion
    └── StreamError                   the stream began but did not end well; ``.partial`` holds
        │                             the Completion received before the failure
        ├── GatewayStreamError        an error frame or ``event: error`` inside the stream
        ├── IncompleteStreamError     the stream ended without finish_reason and without [DONE],
        │                             or in the middle of an event
        ├── StreamTimeoutError        no bytes for longer than the timeout allowed, or no
        │                             whole response head within first_byte
        ├── StreamProtocolError       malformed frame, invalid JSON, event over the size bound,
        │                             a body whose content-encoding cannot be decoded
        └── ToolArgumentsError        a tool call's arguments are not a JSON object (most often
                                      cut at the token limit), where a flag cannot travel

``is_retryable`` is a class attribute: True where repeating the same request may succeed and
nothing was delivered yet (connection errors, 408/409/429/5xx but 501 before the stream), and
the retry policy retries exactly these. Stream errors are never retryable: output had begun,
and there is no resume.

Messages say what happened and what to do; they never contain the API key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

if TYPE_CHECKING:
    from sse_core.completion import Completion, ToolCall
    from sse_core.events import StreamEvent

__all__ = [
    "AuthenticationError",
    "BadRequestError",
    "ConfigurationError",
    "GatewayConnectionError",
    "GatewayHTTPError",
    "GatewayStreamError",
    "IncompleteStreamError",
    "NotImplementedByServerError",
    "RateLimitError",
    "RedirectError",
    "RetryableRequestError",
    "SSEConnectorError",
    "ServerError",
    "StreamError",
    "StreamProtocolError",
    "StreamTimeoutError",
    "ToolArgumentsError",
    "UnexpectedResponseError",
]


class SSEConnectorError(Exception):
    """Root of every error raised by sse_core."""

    is_retryable: ClassVar[bool] = False

    @property
    def message(self) -> str:
        """The human-readable message."""
        return str(self.args[0]) if self.args else ""

    def __reduce__(self) -> tuple[Any, ...]:
        # Exception pickles as cls(*args), which the keyword-only fields of the subclasses
        # (status_code, partial, ...) cannot take: rebuild from args and state instead, so
        # an error crosses processes (multiprocessing, job queues) and copy.deepcopy whole.
        return (_rebuild, (type(self), self.args, self.__dict__))


def _rebuild(cls: type[SSEConnectorError], args: tuple[Any, ...], state: dict[str, Any]) -> Any:
    """An error of ``cls`` with ``args`` and attributes ``state``, no ``__init__`` run."""
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error


class ConfigurationError(SSEConnectorError, ValueError):
    """A bad argument or setting given by the caller."""


class GatewayConnectionError(SSEConnectorError):
    """The gateway could not be reached, or the connection failed before any response."""

    is_retryable = True


class GatewayHTTPError(SSEConnectorError):
    """The gateway answered with a non-2xx status before streaming began.

    Attributes:
        status_code: The HTTP status.
        error_message: The gateway's own message, parsed from a JSON body, or a one-line summary.
        type: The gateway's error type, when the body gave one.
        code: The gateway's error code, when the body gave one.
        retry_after: Seconds to wait before retrying, from ``Retry-After``, when given.
        headers: The response headers.
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int,
        error_message: str | None = None,
        type: str | None = None,
        code: str | None = None,
        retry_after: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status_code: int = status_code
        self.error_message: str = error_message if error_message is not None else message
        self.type: str | None = type
        self.code: str | None = code
        self.retry_after: float | None = retry_after
        self.headers: Mapping[str, str] = dict(headers or {})


class AuthenticationError(GatewayHTTPError):
    """401 or 403: the key is missing, wrong, or lacks permission."""


class RateLimitError(GatewayHTTPError):
    """429: too many requests; honour ``retry_after``."""

    is_retryable = True


class ServerError(GatewayHTTPError):
    """5xx: the gateway or its upstream failed."""

    is_retryable = True


class NotImplementedByServerError(ServerError):
    """501: the server does not implement the request (a path or protocol it does not
    offer); the next try would get the same answer, so it is not retryable."""

    is_retryable = False


class RetryableRequestError(GatewayHTTPError):
    """408 or 409: the gateway timed out reading the request or hit a conflict; retry."""

    is_retryable = True


class BadRequestError(GatewayHTTPError):
    """Any other 4xx: the request was rejected as it is."""


class RedirectError(GatewayHTTPError):
    """3xx: the URL redirects elsewhere; redirects are not followed (a POST would be lost).

    Attributes:
        location: Where the gateway redirects to (the ``Location`` header), if it said.
    """

    @property
    def location(self) -> str | None:
        """The ``Location`` header of the redirect."""
        return self.headers.get("location")


class UnexpectedResponseError(GatewayHTTPError):
    """A 2xx answer whose content type is neither an event stream nor a JSON completion
    (a base_url that points at a web page, a proxy's sign-in page). ``error_message``
    says what arrived: the content type and the first bytes."""


class StreamError(SSEConnectorError):
    """The stream began but did not end well.

    Attributes:
        partial: The Completion assembled from everything received before the failure.
        events: StreamEvents decoded from the same bytes before the failure and not yet
            returned by the decoder (set by :class:`~sse_core.StreamDecoder`).
    """

    def __init__(self, message: str, *, partial: Completion | None = None) -> None:
        super().__init__(message)
        self._partial = partial
        self.events: tuple[StreamEvent, ...] = ()

    @property
    def partial(self) -> Completion:
        """What was received before the failure (an empty Completion when nothing was)."""
        if self._partial is None:
            from sse_core.completion import Completion

            self._partial = Completion()
        return self._partial

    @partial.setter
    def partial(self, value: Completion) -> None:
        self._partial = value

    @property
    def has_partial(self) -> bool:
        """Whether a partial Completion was attached."""
        return self._partial is not None


class GatewayStreamError(StreamError):
    """The gateway sent an error frame (``{"error": ...}``) or ``event: error`` in the stream.

    Attributes:
        type: The gateway's error type, when given.
        code: The gateway's error code, when given.
        data: The decoded error payload as sent.
    """

    def __init__(
        self,
        message: str,
        *,
        partial: Completion | None = None,
        type: str | None = None,
        code: str | int | None = None,
        data: object = None,
    ) -> None:
        super().__init__(message, partial=partial)
        self.type = type
        self.code = code
        self.data = data


class IncompleteStreamError(StreamError):
    """The stream ended without a finish_reason and without ``[DONE]`` (the protocol's ends),
    or in the middle of an event, by a close or a reset: the answer is cut."""


class StreamTimeoutError(StreamError):
    """No bytes arrived for longer than the configured timeout, or the response head did not
    arrive whole within ``first_byte`` (the message names the setting and its value)."""


class StreamProtocolError(StreamError):
    """The bytes broke the protocol: malformed frame, invalid JSON, an event too large, or a
    body that cannot be decoded (corrupt compressed bytes, or a content-encoding other than
    the gzip and deflate the request accepts; the message names the coding)."""


class ToolArgumentsError(StreamError):
    """A finished answer has a tool call whose arguments are not a JSON object (most often
    input cut at the token limit), raised where a flag on the call cannot travel.

    The core never raises it: a Completion keeps such a call as written and flags it
    (:attr:`ToolCall.arguments_error`). An adapter raises it where its framework would
    re-parse the call and repair the arguments (LangChain merging a stream's chunks), after
    the last chunk, so nothing that arrived is lost.

    Attributes:
        call: The first such call, its arguments as the model wrote them.
        reason: Why its arguments cannot be used (``call.arguments_error``).
    """

    def __init__(
        self, message: str, *, partial: Completion | None = None, call: ToolCall | None = None
    ) -> None:
        super().__init__(message, partial=partial)
        self.call: ToolCall | None = call
        self.reason: str | None = call.arguments_error if call is not None else None


E = TypeVar("E", bound=SSEConnectorError)


def recast(error: E, cls: type[SSEConnectorError]) -> E:
    """``error`` as an instance of ``cls`` (a subclass of its class, as the adapters define to
    add their framework's own base classes): the same message, attributes, cause, context
    and traceback. For the adapters' error mapping; ``error`` itself is left unchanged.
    """
    if not issubclass(cls, type(error)):
        raise TypeError(f"{cls.__name__} is not a subclass of {type(error).__name__}")
    recast_error: E = cls.__new__(cls)
    recast_error.args = error.args
    recast_error.__dict__.update(error.__dict__)
    recast_error.__cause__ = error.__cause__
    recast_error.__context__ = error.__context__
    recast_error.__suppress_context__ = error.__suppress_context__
    return recast_error.with_traceback(error.__traceback__)
