"""ChatSSE's connection settings: the fields, checked by the core, the client pool, no secret out.

The settings are checked once, at construction, by :meth:`sse_core.ClientConfig.build` (the
one place for URL, key, header and timeout rules and the ``SSE_BASE_URL``/``SSE_API_KEY``
fallbacks), so a bad value raises the core's ``ConfigurationError`` naming the field (a
value of the wrong type too: pydantic's error becomes one, without the input), and an unknown
argument is refused by name (pydantic would drop it), with ChatOpenAI's names pointed to
ChatSSE's (``openai_api_base`` to ``base_url``) and request parameters to ``model_kwargs``.
The clients
come from one :class:`sse_core.ClientPool` per model (copies share it; it keys clients by a
fingerprint of the configuration, so a copy with another URL gets its own client).

Secrets stay in: the key is a ``SecretStr``; ``default_headers`` (where ``api-key``-header
gateways put the credential) are left out of ``model_dump``, reprs and traces, and every
value of them is masked in the errors the core builds; ``default_query`` is kept out the same
way; dumps and reprs show ``base_url`` without user info or query; a ``ValidationError`` does
not quote the arguments; a pickled model holds none of them (see
:meth:`ConnectionSettings.__getstate__`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import httpx
from langchain_core.utils import from_env, secret_from_env
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    field_serializer,
    model_validator,
)
from typing_extensions import Self

from sse_core import ClientConfig, ClientPool, ConfigurationError, Timeouts
from sse_core._names import refuse_unknown
from sse_core.pipeline.parser import DEFAULT_MAX_EVENT_BYTES
from sse_core.transport.config import DEFAULT_MAX_CONNECTIONS, ConfigCache, public_url

__all__ = ["ConnectionSettings", "validation_summary"]


def validation_summary(owner: str, error: ValidationError) -> str:
    """A pydantic error as one line per field, without the input (it may be a secret)."""
    parts = [
        f"{'.'.join(str(p) for p in item['loc']) or 'settings'}: {item['msg']}"
        for item in error.errors(include_input=False, include_url=False)
    ]
    return f"{owner} settings rejected: " + "; ".join(parts)


#: ChatOpenAI's names for settings ChatSSE names otherwise.
_HINTS = {
    "openai_api_base": "use base_url",
    "api_base": "use base_url",
    "openai_api_key": "use api_key",
    "request_timeout": "use timeout",
    "max_completion_tokens": "use max_tokens",
    "openai_proxy": "set HTTPS_PROXY, or pass http_client=httpx.Client(proxy=...)",
    "openai_api_version": "pass default_query={'api-version': ...}",
    "api_version": "pass default_query={'api-version': ...}",
}
_OTHERWISE = "request parameters (top_p, seed, ...) go in model_kwargs"


def _known_names(cls: type[BaseModel]) -> set[str]:
    """The keyword names a model takes: its fields and their aliases."""
    names = set(cls.model_fields)
    names.update(field.alias for field in cls.model_fields.values() if field.alias)
    return names


#: Fields a pickle never holds: the key, the headers and query (they may hold credentials),
#: the injected clients (not picklable).
_NOT_PICKLED = ("api_key", "default_headers", "default_query", "http_client", "http_async_client")


class ConnectionSettings(BaseModel):
    """Where and how ChatSSE connects: the fields, their check, and the client pool."""

    # hide_input_in_errors: a ValidationError would otherwise quote the arguments, key included.
    model_config: ClassVar[ConfigDict] = ConfigDict(
        populate_by_name=True, arbitrary_types_allowed=True, hide_input_in_errors=True
    )

    base_url: str | None = Field(default_factory=from_env("SSE_BASE_URL", default=None))
    """The gateway URL with its version prefix, e.g. ``http://host/v1`` (env ``SSE_BASE_URL``)."""
    api_key: SecretStr | None = Field(default_factory=secret_from_env("SSE_API_KEY", default=None))
    """Sent as ``Authorization: Bearer`` (env ``SSE_API_KEY``); surrounding whitespace is
    stripped; never shown, traced or pickled."""
    path: str = "/chat/completions"
    """Joined onto ``base_url``'s path, before its query (SPASS: ``base_url="https://host"``,
    ``path="/c1/chat"``)."""
    default_query: dict[str, str] | None = Field(default=None, repr=False, exclude=True)
    """Query parameters sent with every request (Azure-style gateways: ``{"api-version":
    "2024-10-21"}``), besides any in ``base_url``: may hold credentials, so never dumped,
    shown, traced or pickled."""
    timeout: float | Timeouts | None = None
    """Seconds for every phase, or :class:`sse_core.Timeouts`; None: the sse_core defaults."""
    max_retries: int = 2
    """Retries before the first byte of the answer (never after output began)."""
    default_headers: dict[str, str] | None = Field(default=None, repr=False, exclude=True)
    """Headers sent with every request (e.g. ``SPASS-User-Id``, or an ``api-key``
    credential): treated as secrets, so never dumped, shown, traced or pickled."""
    extra_body: dict[str, Any] | None = Field(default=None, repr=False)
    """Merged into every request body last (e.g. ``chat_template_kwargs``)."""
    stream_usage: bool = True
    """Ask for usage (``stream_options.include_usage``); dropped if the gateway objects."""
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES
    """The largest SSE event accepted; a larger one raises ``StreamProtocolError``."""
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    """The most streams at once per client (its connections; more wait, within
    ``Timeouts.connect``). httpx's own default is 100."""
    http_client: httpx.Client | None = Field(default=None, exclude=True, repr=False)
    """An ``httpx.Client`` to send with (proxies, mTLS, transports); not closed here."""
    http_async_client: httpx.AsyncClient | None = Field(default=None, exclude=True, repr=False)
    """An ``httpx.AsyncClient`` to send with; not closed here."""

    _pool: ClientPool = PrivateAttr(default_factory=ClientPool)
    _configs: ConfigCache = PrivateAttr(default_factory=ConfigCache)

    def __init__(self, **data: Any) -> None:
        """Check the settings now: a bad one raises the core's ``ConfigurationError`` naming
        the field (raised here, after pydantic's own checks, so it is not wrapped in a
        ``ValidationError``)."""
        refuse_unknown(type(self).__name__, data, _known_names(type(self)), _HINTS, _OTHERWISE)
        try:
            super().__init__(**data)
        except ValidationError as exc:  # a value of the wrong type: the same error, one kind
            raise ConfigurationError(validation_summary(type(self).__name__, exc)) from None
        self._resolve_config()

    @model_validator(mode="after")
    def _make_pool(self) -> Self:
        self._pool = ClientPool(self.http_client, self.http_async_client)
        return self

    def _collect_settings(self) -> dict[str, Any]:
        """The keywords of :meth:`ClientConfig.build` for the current field values."""
        return {
            "base_url": self.base_url,
            "api_key": self.api_key,
            "path": self.path,
            "default_query": self.default_query,
            "default_headers": self.default_headers,
            "secret_headers": tuple(self.default_headers or ()),
            "timeout": self.timeout,
            "max_retries": self.max_retries,
            "include_usage": self.stream_usage,
            "extra_body": self.extra_body,
            "max_event_bytes": self.max_event_bytes,
            "max_connections": self.max_connections,
        }

    def _resolve_config(self) -> ClientConfig:
        """The checked configuration of the current settings (built again if they changed,
        e.g. on a ``model_copy(update=...)``, which runs no validator, or a header changed in
        place: dicts are compared by a copy of their items, as the config holds copies)."""
        return self._configs.get(self._collect_settings())

    def close(self) -> None:
        """Close the pooled connections, sync and those of every event loop (injected httpx
        clients are left open). The model stays usable: the next call opens a new
        connection. A stream still being read ends with ``IncompleteStreamError`` and the
        answer so far. (A loop's connections also close when ``asyncio.run`` ends it.)"""
        self._pool.close()

    async def aclose(self) -> None:
        """Close the pooled async connections of every event loop, the running loop's
        awaited (an injected ``http_async_client`` is left open). The model stays usable."""
        await self._pool.aclose()

    @field_serializer("base_url")
    def _dump_url(self, base_url: str | None) -> str | None:
        """Dumps show the URL without user info or query (they can hold credentials)."""
        return public_url(base_url) if base_url else base_url

    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:
        for name, value in super().__repr_args__():
            yield name, public_url(value) if name == "base_url" and value else value

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        """A deep copy that shares the injected httpx clients (sockets are not copied) and
        starts with its own empty pool."""
        memo = {} if memo is None else memo
        for client in (self.http_client, self.http_async_client):
            if client is not None:
                memo[id(client)] = client
        return super().__deepcopy__(memo)

    def __getstate__(self) -> dict[Any, Any]:
        """The pickled state, without secrets: no key, no ``default_headers`` or
        ``default_query``, no user info or query in ``base_url``, and no injected httpx client.

        After unpickling, the key is read again from ``SSE_API_KEY`` (or set ``api_key``),
        and ``default_headers``, ``default_query`` and the httpx clients must be given again.
        """
        state = super().__getstate__()
        fields = {**state["__dict__"], **dict.fromkeys(_NOT_PICKLED)}
        if fields.get("base_url"):
            fields["base_url"] = public_url(fields["base_url"])
        return {**state, "__dict__": fields, "__pydantic_private__": None}

    def __setstate__(self, state: dict[Any, Any]) -> None:
        super().__setstate__(state)
        self.api_key = secret_from_env("SSE_API_KEY", default=None)()
        # Through object: pydantic's own slot, set as pydantic sets it.
        private = {"_pool": ClientPool(), "_configs": ConfigCache()}
        object.__setattr__(self, "__pydantic_private__", private)
