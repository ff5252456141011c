"""The options ``chat`` and ``probe`` share: where the gateway is, and how to talk to it.

``--header`` is checked as it is parsed (``sse_core``'s own header check), so a header
that cannot be sent is a one-line usage error, not a traceback later.
"""

from __future__ import annotations

import argparse
import os

from sse_core.errors import ConfigurationError
from sse_core.transport.config import check_header

__all__ = [
    "ANTHROPIC",
    "DIALECT_NAMES",
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
]

#: The emulator's dialects (kept here so the parser builds without the emulator installed).
DIALECT_NAMES = ("openai", "shroud", "streamchat", "spass", "gateway", "aivene")
#: The emulator's dialect, and the protocol, of Anthropic's Messages API.
ANTHROPIC = "anthropic"
#: The protocols the app speaks (sse_core's names); the first is the default.
PROTOCOL_NAMES = ("chat_completions", ANTHROPIC)
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
        help="the gateway URL: with its version prefix for chat completions, e.g. "
        "https://host/v1; the root (or the /v1 URL) for --protocol anthropic (default: "
        "$SSE_BASE_URL; without either, the built-in gateway emulator is started)",
    )
    parser.add_argument("--model", default=model_default, help=model_help)
    parser.add_argument(
        "--protocol",
        default=None,
        choices=PROTOCOL_NAMES,
        help="what the gateway speaks: OpenAI's chat completions (the default) or "
        "Anthropic's Messages API (POST /v1/messages; implied by --dialect anthropic)",
    )
    parser.add_argument(
        "--path",
        default=None,
        help="appended to the base URL (default: the protocol's: /chat/completions; "
        "anthropic /v1/messages, or /messages after a base URL ending in /v1; SPASS: /c1/chat)",
    )
    parser.add_argument(
        "--header",
        action="append",
        default=[],
        type=header_arg,
        metavar="NAME:VALUE",
        help="a header to send with every request (repeat for more)",
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
        choices=(*DIALECT_NAMES, ANTHROPIC),
        help="the emulator's dialect, without --base-url (default: openai; anthropic with "
        "--protocol anthropic); spass also sends the SPASS-User-Id header it requires; "
        "anthropic implies --protocol anthropic; refused with --base-url",
    )


def protocol_of(args: argparse.Namespace) -> str:
    """The protocol chosen: --protocol, else anthropic for --dialect anthropic, else chat
    completions."""
    if args.protocol:
        return str(args.protocol)
    return ANTHROPIC if args.dialect == ANTHROPIC else PROTOCOL_NAMES[0]


def dialect_of(args: argparse.Namespace) -> str:
    """The emulator dialect chosen: --dialect, else the protocol's (openai or anthropic)."""
    if args.dialect:
        return str(args.dialect)
    return ANTHROPIC if args.protocol == ANTHROPIC else "openai"


def path_of(args: argparse.Namespace) -> str | None:
    """--path, else chat completions' path, else None: sse_core's default for Anthropic
    (``/v1/messages``, or ``/messages`` after a base URL ending in ``/v1``)."""
    if args.path is not None:
        return str(args.path)
    return None if protocol_of(args) == ANTHROPIC else "/chat/completions"


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
    if (args.dialect == ANTHROPIC) != (protocol_of(args) == ANTHROPIC):
        speaks = "Anthropic's Messages API" if args.dialect == ANTHROPIC else "chat completions"
        return (
            f"--dialect {args.dialect} speaks {speaks}, not --protocol {args.protocol}: "
            "drop one of them"
        )
    return None


def api_key(args: argparse.Namespace, *, emulated: bool) -> str:
    """The key to send: --api-key, else $SSE_API_KEY, else a demo key for the emulator."""
    key: str = args.api_key or os.environ.get("SSE_API_KEY") or ""
    return key or (EMULATOR_KEY if emulated else "")


def request_headers(args: argparse.Namespace, *, fault: str | None = None) -> dict[str, str]:
    """The headers to send: SPASS's user id for that dialect, the --header values, a fault."""
    headers = {"SPASS-User-Id": "demo-user"} if dialect_of(args) == "spass" else {}
    headers.update(dict(args.header))
    if fault:
        headers["X-Emulator-Fault"] = fault
    return headers
