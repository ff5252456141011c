"""The request URL: checked, joined, and shown without what may be a credential.

The request URL joins ``path`` onto the path of ``base_url`` and keeps its query
(``http://gw/deployments/d?api-version=1`` + ``/chat/completions`` is
``http://gw/deployments/d/chat/completions?api-version=1``), with ``default_query`` added
(its names replace the same names of ``base_url``'s query). Query values may be credentials
(``key=``, ``sig=``): messages and traces show the URL without its query (:func:`public_url`),
and the values of credential-like names are masked wherever they would appear.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from urllib.parse import quote, unquote_plus, urlencode, urlsplit, urlunsplit

from sse_core.errors import ConfigurationError
from sse_core.protocols.registry import request_shape

__all__ = [
    "SECRET_QUERY",
    "check_path",
    "check_query",
    "check_url",
    "example_base_url",
    "join_url",
    "public_url",
    "shown",
]

_USERINFO = re.compile(r"//[^/?#]*@")
#: Query parameter names whose values are credentials (masked; never recorded).
SECRET_QUERY = re.compile(r"key|token|secret|password|passwd|auth|signature|^sig$", re.I)


def public_url(url: str) -> str:
    """``url`` without user info, query or fragment: what messages and traces may show."""
    # Asked for by every request (messages, traces): remembered, but never a URL with user
    # info (a credential stays out of any cache).
    return _remembered_public_url(url) if "@" not in url else _public_url(url)


def _public_url(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    netloc = f"{host}:{port}" if port is not None else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


_remembered_public_url = functools.lru_cache(maxsize=64)(_public_url)


def check_url(base_url: object) -> str:
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
        raise ConfigurationError(
            f"base_url must be an http(s) URL such as http://host/v1, got {shown(base_url)}"
        )
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in base_url):
        raise ConfigurationError("base_url must not contain spaces or control characters")
    try:
        parts = urlsplit(base_url)
        parts.port  # noqa: B018 - raises ValueError for a port out of range
    except ValueError as exc:
        raise ConfigurationError(f"base_url is not a valid URL ({exc})") from None
    if not parts.hostname:
        raise ConfigurationError("base_url has no host: expected http://host/v1")
    # The path's own trailing '/' goes (path adds one); the query stays, a fragment is
    # never sent.
    return urlunsplit(parts._replace(path=parts.path.rstrip("/"), fragment=""))


def check_query(query: object) -> dict[str, str]:
    """``default_query``: names to string values (the values are never shown)."""
    if query is None:
        return {}
    if not isinstance(query, Mapping):
        raise ConfigurationError(
            f"default_query must be a mapping of names to values, got {type(query).__name__}"
        )
    checked: dict[str, str] = {}
    for name, value in query.items():
        if not isinstance(name, str) or not name:
            raise ConfigurationError(f"default_query: {shown(name)} is not a parameter name")
        if not isinstance(value, str):
            raise ConfigurationError(
                f"default_query: the value of {name!r} must be a string, got {type(value).__name__}"
            )
        checked[name] = value
    return checked


def example_base_url(protocol: str) -> str:
    """A base URL of the shape ``protocol``'s clients take: the root where the protocol's own
    path carries the version (``/v1/messages``), else with the version prefix."""
    root_path = request_shape(protocol).path("http://host")
    return "http://host" if root_path.startswith("/v1/") else "http://host/v1"


def join_url(base_url: str, path: str, query: Mapping[str, str]) -> str:
    """The request URL: ``path`` joined onto ``base_url``'s path, their queries kept and
    ``query`` added (its names replace the same names already there)."""
    parts = urlsplit(base_url)
    path, _, path_query = path.partition("?")
    pairs = [pair for raw in (parts.query, path_query) for pair in raw.split("&") if pair]
    if query:
        pairs = [p for p in pairs if unquote_plus(p.partition("=")[0]) not in query]
        pairs.append(urlencode(list(query.items()), quote_via=quote))
    return urlunsplit(parts._replace(path=parts.path + path, query="&".join(pairs)))


def shown(value: object) -> str:
    """A value for a message: strings are cut short, URLs shown without user info."""
    if isinstance(value, str):
        return repr(_USERINFO.sub("//***@", value)[:80])
    return type(value).__name__


def check_path(path: object) -> str:
    if not isinstance(path, str) or not path.startswith("/"):
        raise ConfigurationError(f"path must start with '/', got {shown(path)}")
    if any(ch.isspace() or ord(ch) < 0x20 for ch in path):
        raise ConfigurationError("path must not contain spaces or control characters")
    return path
