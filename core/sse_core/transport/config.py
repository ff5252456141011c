"""The one client configuration: checked once, at construction, for the clients and both adapters.

:meth:`ClientConfig.build` takes the settings a user writes (``base_url``, ``api_key``,
``path``, headers, timeouts, retries, body extras), falls back to the environment
(``SSE_BASE_URL``, ``SSE_API_KEY``) and refuses a bad value with a
:class:`~sse_core.errors.ConfigurationError` that names the field and never shows a secret.

The request URL is made and shown by :mod:`.urls`.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote_plus, urlsplit

import httpx
from pydantic import SecretStr
from pydantic_core import to_json

from sse_core.errors import ConfigurationError
from sse_core.pipeline._accel import check_accelerator
from sse_core.pipeline.parser import DEFAULT_MAX_EVENT_BYTES, check_bound
from sse_core.protocols.registry import WireProtocol, request_shape, wire_protocol
from sse_core.transport.retry import RetryPolicy
from sse_core.transport.timeouts import Timeouts
from sse_core.transport.urls import (
    SECRET_QUERY,
    check_path,
    check_query,
    check_url,
    example_base_url,
    join_url,
    public_url,
    shown,
)
from sse_core.transport.wire import check_auth, default_path

__all__ = ["SECRET_QUERY", "ClientConfig", "ConfigCache", "Timeouts", "join_url", "public_url"]

#: Connections per client: httpx's default (100) would cap the streams one client runs.
DEFAULT_MAX_CONNECTIONS = 1000
DEFAULT_MAX_KEEPALIVE = 100
#: Header names that carry credentials: their values are never shown, logged or recorded.
SECRET_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "api-key", "x-api-key", "cookie", "set-cookie"}
)
#: A per-process key for the fingerprints of secrets (a pool key never holds a secret).
_FINGERPRINT_KEY = secrets.token_bytes(32)


def _check_accelerator(name: str | None) -> str | None:
    """A known accelerator whose package is installed, or None (empty: None)."""
    if not name:
        return None
    check_accelerator(name)
    return name


def _count(name: str, value: object, *, least: int) -> int:
    if type(value) is not int or value < least:
        raise ConfigurationError(f"{name} must be an integer >= {least}, got {value!r}")
    return value


#: Key variables other clients read: where none we read is set, one of these set means a
#: key the user may expect to be sent (google-genai's two among them: the gemini protocol reads
#: them, the others do not).
KNOWN_KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY")


def _credential_header(headers: object) -> bool:
    """Whether ``headers`` (not checked yet) carry a credential header."""
    if not isinstance(headers, Mapping):
        return False
    return any(isinstance(name, str) and name.lower() in SECRET_HEADERS for name in headers)


def _say_unread_keys(protocol: str, env: Mapping[str, str]) -> None:
    """Warn, once per configuration, that a key variable of another client is set but not
    read: no key will be sent (a key meant for one provider never goes to another gateway)."""
    read = ("SSE_API_KEY", *wire_protocol(protocol).key_env)
    unread = [name for name in KNOWN_KEY_VARIABLES if env.get(name) and name not in read]
    if unread:
        warnings.warn(
            f"no API key will be sent: {' and '.join(unread)} is set but not read on "
            f"protocol={protocol!r} (a key meant for one provider is never sent to another "
            f"gateway); pass api_key, or set {' or '.join(read)}",
            UserWarning,
            stacklevel=4,
        )


def _check_auth(base_url: str, api_key: SecretStr | None, from_env: bool) -> None:
    """httpx sends a URL's user info as Basic auth, in place of the bearer key: refuse both."""
    parts = urlsplit(base_url)
    if api_key is not None and (parts.username or parts.password):
        where = "api_key (from SSE_API_KEY)" if from_env else "api_key"
        raise ConfigurationError(
            f"base_url holds user info (user:password@) and {where} is set: the user info "
            "would be sent as Basic auth, in place of a Bearer key or beside an x-api-key; "
            "give one of them (the values are not shown)"
        )


def header_value_ok(value: str) -> bool:
    """Whether ``value`` can be sent as an HTTP header value (visible ASCII, space, tab)."""
    return all(ch == "\t" or 0x20 <= ord(ch) < 0x7F for ch in value)


def _check_key(api_key: object) -> SecretStr | None:
    if api_key is None:
        return None
    if isinstance(api_key, SecretStr):
        value = api_key.get_secret_value()
    elif isinstance(api_key, str):
        value = api_key
    else:
        raise ConfigurationError(
            f"api_key must be a string or SecretStr, got {type(api_key).__name__}"
        )
    value = value.strip()  # a key read from a file or a variable often ends with a newline
    if not header_value_ok(value):
        raise ConfigurationError(
            "api_key holds a character that cannot be sent in an HTTP header (a control or "
            "non-ASCII character); check where the key was read from (its value is not shown)"
        )
    return SecretStr(value) if value else None


def _check_headers(headers: object, secret: frozenset[str]) -> dict[str, str]:
    if headers is None:
        return {}
    if not isinstance(headers, Mapping):
        raise ConfigurationError(
            f"default_headers must be a mapping of names to values, got {type(headers).__name__}"
        )
    checked: dict[str, str] = {}
    for name, value in headers.items():
        key, text = check_header(name, value, field="default_headers", secret=secret)
        checked[key] = text
    return checked


def check_header(
    name: object, value: object, *, field: str = "headers", secret: frozenset[str] = frozenset()
) -> tuple[str, str]:
    """A header that can be sent, or a ConfigurationError (secret values never shown:
    credential headers, and the lower-case names in ``secret``)."""
    if not isinstance(name, str) or not name or not all(33 <= ord(ch) < 127 for ch in name):
        raise ConfigurationError(f"{field}: {shown(name)} is not a valid header name")
    if not isinstance(value, str):
        raise ConfigurationError(
            f"{field}: the value of {name!r} must be a string, got {type(value).__name__}"
        )
    if not header_value_ok(value.strip()):
        hidden = name.lower() in SECRET_HEADERS or name.lower() in secret
        said = "(not shown)" if hidden else repr(value[:40])
        raise ConfigurationError(
            f"{field}: the value of {name!r} holds a character that cannot be sent in an "
            f"HTTP header (a control or non-ASCII character): {said}"
        )
    return name, value.strip()


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientConfig:
    """Everything a client needs to send a request; checked when built (:meth:`build`).

    Attributes:
        base_url: The gateway URL, no ``/`` end, of the shape the protocol's clients take
            (:func:`~sse_core.transport.urls.example_base_url`).
        api_key: Sent as ``auth`` says; never shown, logged or recorded.
        path: Joined onto ``base_url``'s path (``/chat/completions``; SPASS ``/c1/chat``;
            Anthropic ``/v1/messages``, or ``/messages`` after a ``/v1`` base URL); a query
            in ``base_url`` is kept after it.
        protocol: A registered protocol (``sse_core.protocol_names()``): what the request
            asks for and how the stream is decoded.
        auth: How the key is sent: ``"bearer"`` (``Authorization: Bearer <key>``), or the
            name of the header that carries it as it is (``"x-api-key"``, Gemini's
            ``"x-goog-api-key"``); the protocol's own by default. That header is a secret one.
        default_query: Query parameters sent with every request (e.g. Azure's
            ``api-version``), besides any in ``base_url``; never shown.
        default_headers: Sent with every request (e.g. ``SPASS-User-Id``).
        secret_headers: Header names (lower case) whose values are secrets besides the
            usual credential headers: masked in messages and never recorded.
        timeouts: See :class:`Timeouts`.
        retry: Retries before the first body byte (see :class:`RetryPolicy`).
        include_usage: Send ``stream_options.include_usage`` (dropped if the gateway objects;
            chat completions only: Anthropic streams report usage unasked).
        extra_body: Merged into every request body (e.g. ``chat_template_kwargs``).
        max_event_bytes: The bound on one SSE line or event.
        max_connections: The most connections a client opens at once, so the most streams
            it runs at once (more wait for a free connection, within ``Timeouts.connect``).
            httpx's own default is 100; raise it for thousands of concurrent streams.
        max_keepalive: Idle connections kept open for the next request.
        accelerator: ``"msgspec"`` decodes common chunks with msgspec (the ``fast`` extra;
            the same events, less CPU); None, the default, the pure path. The environment
            variable ``SSE_CORE_ACCELERATOR`` sets it when the argument is not given.
    """

    base_url: str
    api_key: SecretStr | None = field(default=None, repr=False)
    path: str = "/chat/completions"
    protocol: str = "chat_completions"
    auth: str = "bearer"
    default_query: Mapping[str, str] = field(default_factory=dict, repr=False)
    default_headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    secret_headers: frozenset[str] = frozenset()
    timeouts: Timeouts = field(default_factory=Timeouts)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    include_usage: bool = True
    extra_body: Mapping[str, Any] = field(default_factory=dict, repr=False)
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    max_keepalive: int = DEFAULT_MAX_KEEPALIVE
    accelerator: str | None = None
    # Made once, on first use (a request reads both): see pool_key() and secrets().
    _key: bytes | None = field(default=None, init=False, repr=False, compare=False)
    _secrets: tuple[str, ...] | None = field(default=None, init=False, repr=False, compare=False)
    _url: str | None = field(default=None, init=False, repr=False, compare=False)
    _http_url: httpx.URL | None = field(default=None, init=False, repr=False, compare=False)
    _wire: WireProtocol | None = field(default=None, init=False, repr=False, compare=False)
    _routes: dict[tuple[str, bool], str] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @classmethod
    def build(
        cls,
        *,
        base_url: str | None = None,
        api_key: str | SecretStr | None = None,
        path: str | None = None,
        protocol: str = "chat_completions",
        auth: str | None = None,
        default_query: Mapping[str, str] | None = None,
        default_headers: Mapping[str, str] | None = None,
        secret_headers: frozenset[str] | set[str] | tuple[str, ...] = frozenset(),
        timeout: float | Timeouts | None = None,
        max_retries: int = 2,
        retry: RetryPolicy | None = None,
        include_usage: bool = True,
        extra_body: Mapping[str, Any] | None = None,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        max_keepalive: int = DEFAULT_MAX_KEEPALIVE,
        accelerator: str | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> ClientConfig:
        """Check the settings and make the configuration.

        ``base_url`` and ``api_key`` fall back to ``SSE_BASE_URL`` and ``SSE_API_KEY`` (then
        the protocol's own variable: Anthropic's ``ANTHROPIC_API_KEY``);
        ``timeout`` None means the :class:`Timeouts` defaults; ``path`` None the protocol's
        (``/chat/completions``; Anthropic ``/v1/messages``, ``/messages`` after ``/v1``);
        ``auth`` None the protocol's (``"bearer"``; Anthropic ``"x-api-key"``).

        Raises:
            ConfigurationError: A setting is missing or cannot work; it names the field.
        """
        env = os.environ if environ is None else environ
        if base_url is None:
            base_url = env.get("SSE_BASE_URL") or None
        if base_url is None:
            raise ConfigurationError(
                f"no gateway URL: pass base_url={example_base_url(protocol)!r} or set SSE_BASE_URL"
            )
        key_from_env = api_key is None
        if api_key is None:
            names = ("SSE_API_KEY", *wire_protocol(protocol).key_env)
            api_key = next((env[name] for name in names if env.get(name)), None)
            if api_key is None and not _credential_header(default_headers):
                _say_unread_keys(protocol, env)
        if type(max_retries) is not int:
            raise ConfigurationError(f"max_retries must be an integer, got {max_retries!r}")
        if extra_body is not None and not isinstance(extra_body, Mapping):
            raise ConfigurationError(
                f"extra_body must be a mapping, got {type(extra_body).__name__}"
            )
        secret = frozenset(name.lower() for name in secret_headers)
        url, key = check_url(base_url), _check_key(api_key)
        _check_auth(url, key, key_from_env)
        request_shape(protocol)  # decoded and requested alike
        return cls(
            base_url=url,
            api_key=key,
            path=check_path(default_path(protocol, url) if path is None else path),
            protocol=protocol,
            auth=check_auth(auth, protocol),
            default_query=check_query(default_query),
            default_headers=_check_headers(default_headers, secret),
            secret_headers=secret,
            timeouts=Timeouts() if timeout is None else Timeouts.of(timeout),
            retry=retry or RetryPolicy(max_retries=max_retries),
            include_usage=bool(include_usage),
            extra_body=dict(extra_body or {}),
            max_event_bytes=check_bound(max_event_bytes),
            max_connections=_count("max_connections", max_connections, least=1),
            max_keepalive=_count("max_keepalive", max_keepalive, least=0),
            accelerator=_check_accelerator(
                accelerator if accelerator is not None else env.get("SSE_CORE_ACCELERATOR")
            ),
        )

    def __repr__(self) -> str:
        key = "set" if self.api_key is not None else "none"
        return (
            f"ClientConfig(url={self.public_url!r}, protocol={self.protocol!r}, api_key={key}, "
            f"headers={sorted(self.default_headers)}, timeouts={self.timeouts!r}, "
            f"retry={self.retry!r}, include_usage={self.include_usage}, "
            f"max_event_bytes={self.max_event_bytes})"
        )

    def limits(self) -> httpx.Limits:
        """The httpx pool limits of a client this configuration makes."""
        return httpx.Limits(
            max_connections=self.max_connections, max_keepalive_connections=self.max_keepalive
        )

    @property
    def url(self) -> str:
        """The request URL: ``path`` joined onto ``base_url``'s path, the queries after it."""
        url = self._url
        if url is None:
            url = join_url(self.base_url, self.path, self.default_query)
            object.__setattr__(self, "_url", url)  # a cache, as _secrets
        return url

    @property
    def wire(self) -> WireProtocol:
        """The protocol named by :attr:`protocol`, resolved once: what the pipeline decodes
        this configuration's streams by."""
        found = self._wire
        if found is None:
            found = wire_protocol(self.protocol)
            object.__setattr__(self, "_wire", found)  # a cache, as _url
        return found

    def url_for(self, model: object, streaming: bool) -> str | None:
        """The request URL of ``model``, streamed or not, for a protocol whose path says them
        (:attr:`~sse_core.protocols.RequestShape.route`); None for the others (:attr:`url`
        is every request's).

        Raises:
            ConfigurationError: The protocol routes by model and ``model`` is not a
                non-empty string.
        """
        shape = self.wire.request
        route = None if shape is None else shape.route
        if route is None:
            return None
        if not isinstance(model, str) or not model:
            raise ConfigurationError(
                f"protocol={self.protocol!r} puts the model in the URL: the payload's model "
                f"must be a non-empty string, got {shown(model)}"
            )
        found = self._routes.get((model, streaming))
        if found is None:
            found = join_url(self.base_url, route(self.path, model, streaming), self.default_query)
            if len(self._routes) < 64:
                self._routes[(model, streaming)] = found
        return found

    @property
    def http_url(self) -> httpx.URL:
        """:attr:`url` as httpx sends it, parsed once (parsing the string is over half of
        what building a request costs, and httpx parses it twice)."""
        url = self._http_url
        if url is None:
            url = httpx.URL(self.url)
            object.__setattr__(self, "_http_url", url)  # a cache, as _url
        return url

    @property
    def public_url(self) -> str:
        """The request URL as messages show it (no user info, query or fragment)."""
        return public_url(self.url)

    def is_secret_header(self, name: str) -> bool:
        """Whether a header of this name carries a secret (credentials, or marked secret)."""
        lower = name.lower()
        return lower in SECRET_HEADERS or lower in self.secret_headers or lower == self.auth

    def secrets(self, extra_headers: Mapping[str, str] | None = None) -> list[str]:
        """Every secret value: the key, and the values of secret headers, the configured ones
        and those of ``extra_headers`` (the headers of one request)."""
        own = self._secrets
        if own is None:
            own = self._own_secrets()
            object.__setattr__(self, "_secrets", own)  # a cache: frozen for everything else
        found = list(own)
        if extra_headers:
            found += [v for k, v in extra_headers.items() if v and self.is_secret_header(k)]
        return found

    def _own_secrets(self) -> tuple[str, ...]:
        found = [self.api_key.get_secret_value()] if self.api_key is not None else []
        found += [v for k, v in self.default_headers.items() if v and self.is_secret_header(k)]
        parts = urlsplit(self.url)
        found += [p for p in (parts.password, parts.username) if p]
        for name, _, value in (pair.partition("=") for pair in parts.query.split("&")):
            if value and SECRET_QUERY.search(unquote_plus(name)):
                found += sorted({value, unquote_plus(value)})  # as sent, and as given
        return tuple(found)

    def pool_key(self) -> bytes:
        """A fingerprint of every setting: equal for equal configurations, and holding no
        secret (a keyed hash, with a key that lives only in this process). Made once."""
        if self._key is None:
            object.__setattr__(self, "_key", self._fingerprint())  # a cache, as _secrets
        assert self._key is not None
        return self._key

    def _fingerprint(self) -> bytes:
        plain = {
            "base_url": self.base_url,
            "api_key": self.api_key.get_secret_value() if self.api_key is not None else None,
            "path": self.path,
            "protocol": self.protocol,
            "auth": self.auth,
            "query": sorted(self.default_query.items()),
            "headers": sorted(self.default_headers.items()),
            "secret_headers": sorted(self.secret_headers),
            "timeouts": repr(self.timeouts),
            "retry": repr(self.retry),
            "include_usage": self.include_usage,
            "extra_body": self.extra_body,
            "max_event_bytes": self.max_event_bytes,
            "max_connections": self.max_connections,
            "max_keepalive": self.max_keepalive,
            "accelerator": self.accelerator,
        }
        data = to_json(plain, fallback=repr)
        return hashlib.blake2b(data, key=_FINGERPRINT_KEY, digest_size=32).digest()


class ConfigCache:
    """The :class:`ClientConfig` of the last settings seen (:meth:`ClientConfig.build`
    keywords), built again only when one of them changed: a field set, or a header or body
    extra added, removed or changed in place (dicts are compared by a copy of their items,
    as the config holds copies). So a request does not check and fingerprint the settings
    again. Copies and pickles start empty (it holds the key)."""

    __slots__ = ("_built",)

    def __init__(self) -> None:
        self._built: tuple[dict[str, Any], ClientConfig] | None = None

    def get(self, settings: Mapping[str, Any]) -> ClientConfig:
        """``ClientConfig.build(**settings)``, or the cached one.

        Raises:
            ConfigurationError: A setting is missing or cannot work.
        """
        built = self._built  # one tuple, replaced whole: threads never see half of one
        if built is not None and built[0] == settings:  # live dicts against the copies
            return built[1]
        seen = {k: dict(v) if isinstance(v, dict) else v for k, v in settings.items()}
        built = self._built = (seen, ClientConfig.build(**settings))
        return built[1]

    def __getstate__(self) -> dict[str, Any]:
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]

    def __deepcopy__(self, memo: dict[int, Any]) -> ConfigCache:
        return ConfigCache()
