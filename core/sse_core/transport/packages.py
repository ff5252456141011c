"""The HTTP client packages the transport speaks: httpx, and httpx2 (Pydantic's fork of it).

openai 3 and anthropic 2 send with ``httpx2``, and a LangChain environment holds both
packages (langsmith needs httpx2, langchain-core httpx). A client of either is taken as it is:
its package is found from its class (:func:`package_of`), and every object the transport
hands that client (URL, Timeout) comes from that package, since each refuses the other's.
What each package raises is read by class name through :func:`error_names`, so one mapping
(:func:`sse_core.transport.http.map_transport_error`) serves both trees, and the few
exceptions that escape a transport unmapped (``ssl.SSLError``, anyio's stream errors) with
them. Anything else given as a client is a :class:`~sse_core.errors.ConfigurationError` that
names the field.

The clients the library makes itself are httpx's (the frameworks require httpx), or
httpx2's when ``SSE_CONNECTORS_HTTP=httpx2`` (the ``httpx2`` extra installs it). The
transport's fast paths were probed on httpx and httpcore: a client of another package runs
the faithful path (httpx's public API), whatever the registry decided for httpx.

``httpx2.alias_httpx()`` makes ``import httpx`` give httpx2 itself. Then the transport's own
``httpx`` is httpx2, every client is httpx2's, and the registry judges the module loaded
(:func:`sse_core.fast_paths.stand_in`): the fast paths are off, the faithful path runs.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

import httpx

from sse_core.errors import ConfigurationError

if TYPE_CHECKING:
    from typing import TypeAlias

    import httpx2

    #: A response of either package (the same public API).
    AnyResponse: TypeAlias = httpx.Response | httpx2.Response
    #: A sync client of either package, as a setting takes it.
    HttpClient: TypeAlias = httpx.Client | httpx2.Client
    #: An async client of either package, as a setting takes it.
    AsyncHttpClient: TypeAlias = httpx.AsyncClient | httpx2.AsyncClient
else:  # httpx2 is optional: at run time the settings take any object, and package_of checks it
    HttpClient = AsyncHttpClient = Any

__all__ = [
    "ENV",
    "AsyncHttpClient",
    "HttpClient",
    "HttpPackage",
    "default_package",
    "error_names",
    "holds_request",
    "is_http_error",
    "named",
    "package_of",
    "package_of_response",
]

#: The environment variable that chooses the package of the clients the library makes.
ENV = "SSE_CONNECTORS_HTTP"
#: The packages the transport speaks, by the name of their top-level module.
_NAMES = ("httpx", "httpx2")


@dataclass(frozen=True, slots=True)
class HttpPackage:
    """One HTTP client package: where a client's types and exceptions come from."""

    module: ModuleType
    """The package's top-level module (``httpx`` or ``httpx2``)."""

    @property
    def name(self) -> str:
        """The module's own name (``"httpx2"`` also when it was imported as ``httpx``)."""
        return self.module.__name__

    @property
    def fast(self) -> bool:
        """Whether the transport's fast paths may apply: they were probed on the package
        imported as ``httpx`` (and the registry still decides; see :mod:`.packages`)."""
        return self.module is httpx and self.module.__name__ == "httpx"

    def client(self, *, asynchronous: bool, max_connections: int, max_keepalive: int) -> Any:
        """A new pooled client of this package (no timeout: the transport sets its own)."""
        limits = self.module.Limits(
            max_connections=max_connections, max_keepalive_connections=max_keepalive
        )
        cls = self.module.AsyncClient if asynchronous else self.module.Client
        return cls(limits=limits, timeout=None)

    def timeout(self, **phases: float | None) -> Any:
        """This package's ``Timeout`` of ``connect``, ``read``, ``write`` and ``pool``."""
        return self.module.Timeout(**phases)

    def url(self, text: str) -> Any:
        """``text`` parsed as this package's ``URL``."""
        return self.module.URL(text)


_BY_NAME: dict[str, HttpPackage] = {}


def _loaded(name: str) -> HttpPackage:
    """The package imported as ``name``, imported now if need be. Through the import system
    even when ``sys.modules`` has it: a module another thread is still importing is there
    half made, and ``import_module`` waits for it."""
    package = _BY_NAME.get(name)
    if package is None:
        package = _BY_NAME[name] = _package(importlib.import_module(name))
    return package


@functools.cache
def _package(module: ModuleType) -> HttpPackage:
    return HttpPackage(module)


def _root(cls: type) -> str | None:
    """The package of ``cls`` or of the first base class from one (a subclass of
    ``httpx.Client`` counts as httpx's)."""
    for base in cls.__mro__:
        root = base.__module__.partition(".")[0]
        if root in _NAMES:
            return root
    return None


def package_of(client: object, *, field: str, asynchronous: bool) -> HttpPackage:
    """The package of ``client``, given as the setting ``field``.

    Raises:
        ConfigurationError: ``client`` is no client of httpx or httpx2, or not of the kind the
            field takes (a sync ``Client`` or an ``AsyncClient``); the message names both.
    """
    kind = "AsyncClient" if asynchronous else "Client"
    root = _root(type(client))
    package = _loaded(root) if root is not None else None
    if package is None or not isinstance(client, getattr(package.module, kind)):
        cls = type(client)
        raise ConfigurationError(
            f"{field} must be an httpx.{kind} or an httpx2.{kind}, got "
            f"{cls.__module__}.{cls.__qualname__}"
            + (f" (a {'sync' if asynchronous else 'async'} client?)" if package else "")
        )
    return package


def package_of_response(response: object) -> HttpPackage:
    """The package ``response`` (or any other object of one: a request, a client) is of; the
    package the transport imports as ``httpx`` for an object of neither (a test's stand-in)."""
    root = _root(type(response))
    return _loaded(root) if root is not None else _package(httpx)


def default_package(environ: Mapping[str, str] | None = None) -> HttpPackage:
    """The package of the clients the library makes: httpx, or what ``SSE_CONNECTORS_HTTP``
    names.

    Raises:
        ConfigurationError: The variable names another package, or httpx2 is not installed.
    """
    env = os.environ if environ is None else environ
    return named(env.get(ENV, ""), setting=ENV)


def named(name: str | None, *, setting: str = "package") -> HttpPackage:
    """The package ``name`` (``"httpx"`` or ``"httpx2"``; None or empty: :func:`default_package`).

    Raises:
        ConfigurationError: Another name (``setting`` names where it was given), or httpx2 is
            not installed.
    """
    if name is None:
        return default_package()
    wanted = name.strip().lower()
    if wanted in ("", "httpx"):
        return _package(httpx)
    if wanted not in _NAMES:
        raise ConfigurationError(f"{setting} must be httpx or httpx2, got {wanted!r}")
    try:
        return _loaded(wanted)
    except ImportError:
        raise ConfigurationError(
            f"{setting} says {wanted}, which is not installed: pip install 'sse-connectors[httpx2]'"
        ) from None


@functools.cache
def _strays() -> tuple[tuple[type[BaseException], frozenset[str]], ...]:
    """Exceptions that escape a transport unmapped, with the httpx classes they stand for:
    TLS failures, and anyio's stream errors under an async connection."""
    import ssl

    import anyio

    broken = frozenset({"HTTPError", "RequestError", "TransportError", "NetworkError"})
    return (
        (ssl.SSLError, broken | {"ConnectError"}),
        (anyio.EndOfStream, broken | {"ReadError"}),
        (anyio.BrokenResourceError, broken | {"ReadError"}),
        (anyio.ClosedResourceError, broken | {"ReadError"}),
    )


_ERROR_NAMES: dict[type[BaseException], frozenset[str]] = {}


def error_names(cls: type[BaseException]) -> frozenset[str]:
    """The names of the httpx (or httpx2) exception classes ``cls`` is, or stands for
    (``{"HTTPError", "TransportError", "ReadError", ...}``); empty for any other exception."""
    names = _ERROR_NAMES.get(cls)
    if names is None:
        names = _ERROR_NAMES[cls] = _names_of(cls)
    return names


def _names_of(cls: type[BaseException]) -> frozenset[str]:
    names = frozenset(
        base.__name__ for base in cls.__mro__ if base.__module__.partition(".")[0] in _NAMES
    )
    if names:
        return names
    for stray, stands_for in _strays():
        if issubclass(cls, stray):
            return stands_for
    return frozenset()


def holds_request(exc: BaseException) -> bool:
    """Whether ``exc`` is a package's ``RequestError``, which holds the request (its headers
    hold the key) in its public ``request`` attribute."""
    return any(
        base.__name__ == "RequestError" and base.__module__.partition(".")[0] in _NAMES
        for base in type(exc).__mro__
    )


def is_http_error(exc: BaseException | None) -> bool:
    """Whether ``exc`` is what an HTTP client package raises for a failed request."""
    return exc is not None and "HTTPError" in error_names(type(exc))
