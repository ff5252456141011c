"""``sse_core.errors``: the tree its docstring draws, ``is_retryable`` per class, the fields
each error carries, and the partial answer of stream errors."""

from __future__ import annotations

import copy
import pickle

import pytest

import sse_core
from sse_core import (
    AuthenticationError,
    BadRequestError,
    Choice,
    Completion,
    ConfigurationError,
    GatewayConnectionError,
    GatewayHTTPError,
    GatewayStreamError,
    IncompleteStreamError,
    NotImplementedByServerError,
    RateLimitError,
    RedirectError,
    RetryableRequestError,
    ServerError,
    SSEConnectorError,
    StreamError,
    StreamProtocolError,
    StreamTimeoutError,
    TextDelta,
    ToolArgumentsError,
    UnexpectedResponseError,
)
from sse_core import errors as errors_module

TREE = {
    ConfigurationError: SSEConnectorError,
    GatewayConnectionError: SSEConnectorError,
    GatewayHTTPError: SSEConnectorError,
    AuthenticationError: GatewayHTTPError,
    RateLimitError: GatewayHTTPError,
    ServerError: GatewayHTTPError,
    NotImplementedByServerError: ServerError,
    RetryableRequestError: GatewayHTTPError,
    BadRequestError: GatewayHTTPError,
    RedirectError: GatewayHTTPError,
    UnexpectedResponseError: GatewayHTTPError,
    StreamError: SSEConnectorError,
    GatewayStreamError: StreamError,
    IncompleteStreamError: StreamError,
    StreamTimeoutError: StreamError,
    StreamProtocolError: StreamError,
    ToolArgumentsError: StreamError,
}
RETRYABLE = {GatewayConnectionError, RateLimitError, ServerError, RetryableRequestError}


@pytest.mark.parametrize(("cls", "parent"), TREE.items(), ids=lambda c: c.__name__)
def test_the_tree(cls: type, parent: type) -> None:
    assert cls.__bases__[0] is parent
    assert cls.__name__ in errors_module.__doc__  # drawn in the module docstring
    assert getattr(sse_core, cls.__name__) is cls  # importable from sse_core


def test_every_class_of_the_module_is_in_the_tree() -> None:
    exported = {getattr(errors_module, name) for name in errors_module.__all__}
    assert exported == set(TREE) | {SSEConnectorError}


@pytest.mark.parametrize("cls", [SSEConnectorError, *TREE], ids=lambda c: c.__name__)
def test_is_retryable_on_the_class(cls: type[SSEConnectorError]) -> None:
    assert cls.is_retryable is (cls in RETRYABLE)


def test_a_configuration_error_is_a_value_error() -> None:
    assert issubclass(ConfigurationError, ValueError)
    assert ConfigurationError("x").message == "x" and SSEConnectorError().message == ""


def test_http_error_fields() -> None:
    error = RateLimitError(
        "slow down",
        status_code=429,
        type="rate_limit",
        code="rl",
        retry_after=2.5,
        headers={"retry-after": "2.5"},
    )
    assert (error.status_code, error.error_message, error.type, error.code) == (
        429,
        "slow down",
        "rate_limit",
        "rl",
    )
    assert error.retry_after == 2.5 and error.headers == {"retry-after": "2.5"}
    assert GatewayHTTPError("m", status_code=500).headers == {}


def test_a_redirect_says_where() -> None:
    error = RedirectError("moved", status_code=307, headers={"location": "https://x/v1"})
    assert error.location == "https://x/v1"
    assert RedirectError("moved", status_code=301).location is None


def test_stream_errors_carry_a_partial() -> None:
    bare = IncompleteStreamError("cut")
    assert not bare.has_partial and bare.partial == Completion() and bare.events == ()
    partial = Completion(done=True)
    error = StreamProtocolError("bad", partial=partial)
    assert error.has_partial and error.partial is partial
    bare.partial = partial
    assert bare.has_partial and bare.partial is partial


def test_gateway_stream_error_fields() -> None:
    error = GatewayStreamError("boom", type="t", code=5, data={"error": "boom"})
    assert (error.type, error.code, error.data) == ("t", 5, {"error": "boom"})
    assert not error.is_retryable and isinstance(error, StreamError)


def test_recast_keeps_everything_but_the_class() -> None:
    from sse_core.errors import recast

    class Framework(IncompleteStreamError):
        pass

    try:
        try:
            raise ValueError("below")
        except ValueError as cause:
            raise IncompleteStreamError("cut", partial=Completion()) from cause
    except IncompleteStreamError as error:
        original = error
    copy = recast(original, Framework)
    assert type(copy) is Framework and copy.args == original.args
    assert copy.partial is original.partial and copy.__cause__ is original.__cause__
    assert copy.__traceback__ is original.__traceback__
    with pytest.raises(TypeError, match="not a subclass"):
        recast(original, GatewayStreamError)


def _made(cls: type[SSEConnectorError]) -> SSEConnectorError:
    """An instance of ``cls`` with every field it takes set."""
    if issubclass(cls, GatewayHTTPError):
        return cls("m", status_code=502, error_message="upstream", type="t", code="c",
                   retry_after=1.5, headers={"location": "http://x"})  # fmt: skip
    if issubclass(cls, GatewayStreamError):
        return cls(
            "m",
            partial=Completion(choices=(Choice(content="so far"),)),
            type="t",
            code=7,
            data={"e": 1},
        )
    if issubclass(cls, StreamError):
        error = cls("m", partial=Completion(choices=(Choice(content="so far"),)))
        error.events = (TextDelta(text="x"),)
        return error
    return cls("m")


@pytest.mark.parametrize("cls", [*TREE, SSEConnectorError], ids=lambda c: c.__name__)
@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_every_error_survives_pickle_and_deepcopy(cls: type[SSEConnectorError], how: str) -> None:
    """A worker process or a job queue ships errors pickled; Exception's default (cls(*args))
    cannot give the keyword-only fields, so each class rebuilds from its state."""
    error = _made(cls)
    again = pickle.loads(pickle.dumps(error)) if how == "pickle" else copy.deepcopy(error)
    assert type(again) is cls and str(again) == str(error) and again.args == error.args
    assert {k: v for k, v in vars(again).items() if k != "_partial"} == {
        k: v for k, v in vars(error).items() if k != "_partial"
    }
    if isinstance(error, StreamError):
        assert isinstance(again, StreamError) and again.partial.content == "so far"
