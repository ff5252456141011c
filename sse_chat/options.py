"""The options ``chat`` and ``probe`` share: where the gateway is, and how to talk to it.

``--header`` is checked as it is parsed (``sse_core``'s own header check), so a header
that cannot be sent is a one-line usage error, not a traceback later.
"""

from __future__ import annotations

import argparse
import os

from sse_chat.protocols import DEFAULT, PROTOCOLS, AppProtocol, app_protocol
from sse_core.errors import ConfigurationError
from sse_core.transport.config import check_header

__all__ = [
    "DIALECT_NAMES",
    "PROTOCOL_NAMES",
    "add_gateway_arguments",
    "api_key",
    "dialect_of",
    "dialect_refusal",
    "fault_arg",
    "fault_help",
    "header_arg",
    "path_of",
    "protocol_of",
    "request_headers",
    "seconds_arg",
    "secret_headers",
]

#: The emulator's chat completions dialects (kept here so the parser builds without the
#: emulator installed).
DIALECT_NAMES = ("openai", "shroud", "streamchat", "spass", "gateway", "aivene")
#: The protocols the app speaks (sse_core's names); the first is the default.
PROTOCOL_NAMES = tuple(PROTOCOLS)
#: The emulator's dialect that speaks each protocol other than chat completions.
_PROTOCOL_OF_DIALECT = {
    entry.dialect: entry for entry in PROTOCOLS.values() if entry is not DEFAULT
}
#: How the key can be sent (sse_core's ``auth``).
AUTH_NAMES = ("bearer", "x-api-key")
#: The key the emulator is sent when the user gave none (it accepts any).
EMULATOR_KEY = "demo-key"


def header_arg(text: str) -> tuple[str, str]:
    """An argparse type: ``NAME:VALUE`` as a header that can be sent.

    Raises:
        argparse.ArgumentTypeError: No colon, an empty or invalid name, or a value
            with a character HTTP cannot carry (secret values are not shown).
    """
    name, colon, value = text.partition(":")
    if not colon:
        raise argparse.ArgumentTypeError(f"expected NAME:VALUE, got {text[:40]!r} (no colon)")
    if not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME:VALUE, got an empty name in {text[:40]!r}")
    try:
        return check_header(name.strip(), value, field="header")
    except ConfigurationError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("header: ")) from None


def seconds_arg(text: str) -> float:
    """An argparse type: a number of seconds in (0, 3600]."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"expected seconds in (0, 3600], got {text!r}")
    return value


def fault_arg(text: str) -> str:
    """An argparse type: an ``X-Emulator-Fault`` value that can be sent as a header and,
    when the emulator is installed, names faults and parameters from its catalogue."""
    try:
        value = check_header("X-Emulator-Fault", text, field="fault")[1]
    except ConfigurationError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("fault: ")) from None
    try:
        from sse_emulator.wire.faults import FaultError, parse_faults
    except ImportError:  # a core-only install: the gateway judges it
        return value
    try:
        parse_faults(value)
    except FaultError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return value


def fault_help() -> str:
    """The ``--fault`` help: the emulator's fault catalogue, or where it is documented."""
    try:
        from sse_emulator import FAULTS
    except ImportError:
        names = "see docs/emulator.md for the list"
    else:
        names = "one of: " + ", ".join(FAULTS)
    return (
        "faults for the emulator to inject (sent as X-Emulator-Fault), comma-separated, each "
        f"with optional '; key=value' parameters, e.g. 'truncate; after=3'; {names}"
    )


def add_gateway_arguments(
    parser: argparse.ArgumentParser, *, model_default: str | None, model_help: str
) -> None:
    """Add --base-url, --model, --protocol, --path, --header, --api-key, --auth and
    --dialect to ``parser``."""
    parser.add_argument(
        "--base-url",
        default=os.environ.get("SSE_BASE_URL"),
        metavar="URL",
        help="the gateway URL: with its version prefix for chat completions and --protocol "
        "responses, e.g. https://host/v1; the root (or the /v1 URL) for --protocol anthropic "
        "(default: $SSE_BASE_URL; without either, the built-in gateway emulator is started)",
    )
    parser.add_argument("--model", default=model_default, help=model_help)
    parser.add_argument(
        "--protocol",
        default=None,
        choices=PROTOCOL_NAMES,
        help="what the gateway speaks: OpenAI's chat completions (the default), "
        "Anthropic's Messages API (anthropic: POST /v1/messages; implied by --dialect "
        "anthropic) or OpenAI's Responses API (responses: POST /v1/responses; implied by "
        "--dialect responses)",
    )
    parser.add_argument(
        "--path",
        default=None,
        help="appended to the base URL (default: the protocol's: /chat/completions; "
        "anthropic /v1/messages, or /messages after a base URL ending in /v1; responses "
        "/responses; SPASS: /c1/chat)",
    )
    parser.add_argument(
        "--header",
        action="append",
        default=[],
        type=header_arg,
        metavar="NAME:VALUE",
        help="a header to send with every request (repeat for more); its value is a "
        "secret, never printed nor recorded",
    )
    parser.add_argument(
        "--api-key",
        default=None,
        metavar="KEY",
        help="the key (default: $SSE_API_KEY); never printed",
    )
    parser.add_argument(
        "--auth",
        default=None,
        choices=AUTH_NAMES,
        help="how the key is sent: Authorization: Bearer, or x-api-key (default: the "
        "protocol's own: bearer; anthropic x-api-key)",
    )
    parser.add_argument(
        "--dialect",
        default=None,
        choices=(*DIALECT_NAMES, *_PROTOCOL_OF_DIALECT),
        help="the emulator's dialect, without --base-url (default: openai; the protocol's "
        "with --protocol anthropic or responses); spass also sends the SPASS-User-Id header "
        "it requires; anthropic and responses imply that protocol; refused with --base-url",
    )


def protocol_of(args: argparse.Namespace) -> str:
    """The protocol chosen: --protocol, else the one --dialect speaks, else chat
    completions."""
    if args.protocol:
        return str(args.protocol)
    return _protocol_of_dialect(args.dialect).name


def _protocol_of_dialect(dialect: str | None) -> AppProtocol:
    return _PROTOCOL_OF_DIALECT.get(dialect or "", DEFAULT)


def dialect_of(args: argparse.Namespace) -> str:
    """The emulator dialect chosen: --dialect, else the protocol's (openai, anthropic,
    responses)."""
    if args.dialect:
        return str(args.dialect)
    return app_protocol(protocol_of(args)).dialect


def path_of(args: argparse.Namespace) -> str | None:
    """--path, else the protocol's path as the app sends it: chat completions'; None for
    sse_core's default (Anthropic's ``/v1/messages``, or ``/messages`` after a base URL
    ending in ``/v1``; the Responses API's ``/responses``)."""
    if args.path is not None:
        return str(args.path)
    return app_protocol(protocol_of(args)).path


def dialect_refusal(args: argparse.Namespace) -> str | None:
    """Why --dialect cannot go with a gateway URL (it only picks what the built-in emulator
    speaks, and would otherwise be silently ignored) or with the protocol asked, or None."""
    if args.dialect is None:
        return None
    if args.base_url:
        return (
            f"--dialect {args.dialect} picks the built-in emulator's dialect, and a gateway URL "
            "is set (--base-url or $SSE_BASE_URL): the gateway speaks its own. Drop --dialect "
            "(for SPASS's user id, add --header 'SPASS-User-Id: ...')"
        )
    speaks = _protocol_of_dialect(args.dialect)
    if speaks.name != protocol_of(args):
        return (
            f"--dialect {args.dialect} speaks {speaks.speaks}, not --protocol {args.protocol}: "
            "drop one of them"
        )
    return None


def api_key(args: argparse.Namespace, *, emulated: bool) -> str:
    """The key to send: --api-key, else $SSE_API_KEY, else a demo key for the emulator."""
    key: str = args.api_key or os.environ.get("SSE_API_KEY") or ""
    return key or (EMULATOR_KEY if emulated else "")


def secret_headers(args: argparse.Namespace) -> frozenset[str]:
    """The names (lower case) of the --header values: every one is a secret, as ChatSSE and
    SSELLM take every header they are given (a gateway may echo any of them: Portkey's
    ``x-portkey-api-key``, a tenant id), masked in output, errors, reports and recordings."""
    return frozenset(name.lower() for name, _ in args.header)


def request_headers(args: argparse.Namespace, *, fault: str | None = None) -> dict[str, str]:
    """The headers to send: SPASS's user id for that dialect, the --header values, a fault."""
    headers = {"SPASS-User-Id": "demo-user"} if dialect_of(args) == "spass" else {}
    headers.update(dict(args.header))
    if fault:
        headers["X-Emulator-Fault"] = fault
    return headers
