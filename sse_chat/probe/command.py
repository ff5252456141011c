"""``sse-chat probe``: its options, and running it against a gateway or the built-in emulator.

Each protocol's report is one entry of :data:`REPORTS` (its requests: :data:`.steps.PLANS`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

from sse_chat.extras import missing_extra
from sse_chat.options import (
    PROTOCOL_NAMES,
    add_gateway_arguments,
    api_key,
    dialect_of,
    dialect_refusal,
    protocol_of,
    request_headers,
    secret_headers,
)
from sse_chat.probe.analyse import find
from sse_chat.probe.anthropic import find_messages, messages_human, messages_json
from sse_chat.probe.gemini import gemini_report
from sse_chat.probe.report import as_json, fatal_line, human
from sse_chat.probe.responses import find_responses, responses_human, responses_json
from sse_chat.probe.steps import Probe, Target, run_probe_steps
from sse_chat.protocols import app_protocol
from sse_core import (
    ConfigurationError,
    GatewayConnectionError,
    GatewayHTTPError,
    SSEConnectorError,
    UnexpectedResponseError,
)
from sse_core.transport.config import public_url
from sse_core.transport.wire import default_path

__all__ = ["add_probe_arguments", "run_probe"]

EMULATOR_MODEL = "emulator"
EXAMPLES = """\
examples:
  sse-chat probe                                  the built-in emulator, dialect openai
  sse-chat probe --dialect streamchat --json
  sse-chat probe --dialect anthropic              the emulator's Anthropic Messages API
  sse-chat probe --protocol anthropic --base-url https://host --model my-model
  sse-chat probe --protocol responses             the emulator's OpenAI Responses API
  sse-chat probe --protocol responses --base-url https://host/v1 --model my-model
  sse-chat probe --base-url https://host/v1 --model my-model --timeout 20
  sse-chat probe --base-url https://host/v1 --model m --header "X-Team: a" --record probe/
"""


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 600:
        raise argparse.ArgumentTypeError(f"expected seconds in (0, 600], got {text!r}")
    return value


def add_probe_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``probe`` subcommand's options."""
    add_gateway_arguments(
        parser,
        model_default=None,
        model_help=f"the model to probe (needed with --base-url; the emulator: {EMULATOR_MODEL})",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of the report"
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=30.0,
        metavar="S",
        help="the limit for each request, in every phase, in seconds (default: 30)",
    )
    parser.add_argument(
        "--record",
        type=Path,
        metavar="DIR",
        help="keep the probe's recordings in DIR, one folder per request (default: a "
        "temporary folder, removed afterwards)",
    )
    parser.epilog = EXAMPLES


@contextlib.contextmanager
def _gateway(args: argparse.Namespace) -> Iterator[str]:
    if args.base_url:
        yield args.base_url
        return
    from sse_emulator import Emulator

    with Emulator() as emulator:
        yield emulator.base_url(dialect_of(args))


@contextlib.contextmanager
def _folder(record: Path | None) -> Iterator[Path]:
    if record is not None:
        record.mkdir(parents=True, exist_ok=True)
        yield record
        return
    with tempfile.TemporaryDirectory(prefix="sse-probe-") as folder:
        yield Path(folder)


def _refusal(args: argparse.Namespace) -> str | None:
    if said := dialect_refusal(args):
        return said
    if not args.base_url:
        return missing_extra("cli", "without --base-url it probes the gateway emulator, which")
    if not args.model:
        return "--base-url needs --model (the model to probe)"
    return None


def _fatal(error: SSEConnectorError, args: argparse.Namespace, target: Target, to: TextIO) -> None:
    """The gateway could not be probed at all: one JSON object, or one line on stderr."""
    line = fatal_line(error, args.timeout)
    url = public_url(target.base_url + target.path)
    if args.json:
        reachable = not isinstance(error, GatewayConnectionError)
        report = {"url": url, "model": target.model, "reachable": reachable, "error": line}
        to.write(json.dumps(report) + "\n")
    else:
        # The line names the URL itself when the error does (never twice).
        where = "" if url in line else f"{url}: "
        to.write(f"sse-chat probe: {where}{line}\n")


def run_probe(
    args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Probe and report; 0 when the gateway answered, 1 when it could not be probed.

    The report goes to ``out`` (stdout); notes and errors to ``err`` (stderr).
    """
    out = out or sys.stdout
    err = err or sys.stderr
    if said := _refusal(args):
        print(f"sse-chat probe: {said}", file=sys.stderr)
        return 2
    with _gateway(args) as base_url, _folder(args.record) as root:
        try:
            probe, target, detected = _probe(args, base_url, root)
        except ConfigurationError as error:
            print(f"sse-chat probe: {error}", file=sys.stderr)
            return 2
    fatal = probe.errors.get("plain")
    if fatal is not None:
        _fatal(fatal, args, target, out if args.json else err)
        return 1
    report, lines = _report(probe, target)
    if detected:
        report["detected"] = detected
    if args.json:
        out.write(json.dumps(report, ensure_ascii=False) + "\n")
    else:
        if not args.base_url:
            dialect = dialect_of(args)
            err.write(f"(no --base-url: probing the gateway emulator, dialect {dialect})\n")
        if detected:
            err.write(f"({detected})\n")
        out.write("\n".join(lines) + "\n")
        if args.record:
            err.write(f"(the recordings are in {args.record}, one folder per request)\n")
    return 0


def _target(args: argparse.Namespace, base_url: str, protocol: str) -> Target:
    return Target(
        base_url=base_url,
        model=args.model or EMULATOR_MODEL,
        path=args.path or default_path(protocol, base_url.rstrip("/")),
        api_key=api_key(args, emulated=not args.base_url),
        headers=request_headers(args),
        secret_headers=secret_headers(args),
        timeout=args.timeout,
        protocol=protocol,
        auth=args.auth,
    )


def _elsewhere(error: SSEConnectorError) -> bool:
    """Whether the first request's error says no chat completions are served at that path
    (a 404 or 405, or an answer that is no event stream)."""
    if isinstance(error, GatewayHTTPError):
        return error.status_code in (404, 405)
    return isinstance(error, UnexpectedResponseError)


def _probe(args: argparse.Namespace, base_url: str, root: Path) -> tuple[Probe, Target, str]:
    """Probe with the protocol asked; when none was asked (nor a path) and the gateway has
    no chat completions where they would be, each other protocol where it would be (the
    Messages API, then the Responses API), until one answers. The third value says when the
    protocol was found so (else ``""``).

    Raises:
        ConfigurationError: The settings cannot work (a bad URL, key or header).
    """
    target = _target(args, base_url, protocol_of(args))
    probe = run_probe_steps(target, root)
    fatal = probe.errors.get("plain")
    asked = args.protocol or args.path is not None or not args.base_url
    if fatal is None or asked or not _elsewhere(fatal):
        return probe, target, ""
    said = f"HTTP {fatal.status_code}" if isinstance(fatal, GatewayHTTPError) else "no stream"
    for protocol in PROTOCOL_NAMES[1:]:
        other = _target(args, base_url, protocol)
        found = run_probe_steps(other, root / protocol)
        if "plain" in found.errors:
            continue
        detected = (
            f"no chat completions at {public_url(target.base_url + target.path)} ({said}); "
            f"{app_protocol(protocol).speaks} answers at "
            f"{public_url(other.base_url + other.path)}: probed as --protocol {protocol}"
        )
        return found, other, detected
    return probe, target, ""


Report = Callable[[Probe, Target], tuple[dict[str, Any], list[str]]]


def _chat_report(probe: Probe, target: Target) -> tuple[dict[str, Any], list[str]]:
    findings = find(probe.exchanges)
    report = as_json(findings, target, requests=probe.requests, errors=probe.errors)
    return report, human(report, findings)


def _messages_report(probe: Probe, target: Target) -> tuple[dict[str, Any], list[str]]:
    messages = find_messages(probe.exchanges, probe.ending)
    report = messages_json(messages, target, requests=probe.requests, errors=probe.errors)
    return report, messages_human(report, messages)


def _responses_report(probe: Probe, target: Target) -> tuple[dict[str, Any], list[str]]:
    findings = find_responses(probe.exchanges, probe.ending)
    report = responses_json(findings, target, requests=probe.requests, errors=probe.errors)
    return report, responses_human(report, findings)


#: Each protocol's report: the findings as one JSON-ready object, and as lines for a person.
REPORTS: dict[str, Report] = {
    "chat_completions": _chat_report,
    "anthropic": _messages_report,
    "responses": _responses_report,
    "gemini": gemini_report,
}


def _report(probe: Probe, target: Target) -> tuple[dict[str, Any], list[str]]:
    """The report as one JSON-ready object, and as lines for a person."""
    return REPORTS[target.protocol](probe, target)
