"""``sse-chat chat``: stream a chat live, with reasoning, text, tool calls and usage.

With no ``--base-url`` it starts the gateway emulator on loopback, so a new user sees every
part work with no key and no network. When the model calls the demo ``get_weather`` tool, the
command runs it locally and streams the model's answer to the result (a full tool round trip).
Retries are shown as they happen; ``--record DIR`` records every model call for replay.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import logging
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from sse_chat.demo_tool import WEATHER_TOOL, run_tool
from sse_chat.extras import missing_extra
from sse_chat.options import (
    add_gateway_arguments,
    api_key,
    dialect_of,
    dialect_refusal,
    fault_arg,
    fault_help,
    path_of,
    protocol_of,
    request_headers,
    seconds_arg,
    secret_headers,
)
from sse_chat.protocol_turns import (
    Conversation,
    Question,
    default_max_tokens,
    first_turns,
    question_params,
    thinking_of,
)
from sse_chat.protocols import app_protocol
from sse_chat.render import Renderer, render_partial
from sse_chat.trace import trace_refusal, tracing
from sse_core import (
    ChatClient,
    Completion,
    IncompleteStreamError,
    SSEConnectorError,
    StreamError,
    Timeouts,
)
from sse_core.protocols.responses import EFFORTS
from sse_core.telemetry import Telemetry
from sse_core.transport.packages import HttpClient
from sse_core.transport.recording import recording_client

__all__ = ["add_chat_arguments", "run_chat"]

DEFAULT_PROMPT = "What is the weather in Paris?"
_RECORDED = "[0-9][0-9][0-9]*.sse"
_NAMED_ERROR = re.compile(r"^[A-Za-z]+Error \((.*)\)$", re.S)


def add_chat_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``chat`` subcommand's arguments and options."""
    parser.add_argument(
        "prompt",
        nargs="?",
        default=DEFAULT_PROMPT,
        help=f"what to ask (default: {DEFAULT_PROMPT!r})",
    )
    add_gateway_arguments(
        parser,
        model_default="demo-think",
        model_help="the model to ask (default: demo-think, which the emulator answers "
        "with reasoning)",
    )
    parser.add_argument("--fault", type=fault_arg, metavar="SPEC", help=fault_help())
    parser.add_argument(
        "--no-tools",
        action="store_true",
        help="do not offer the demo get_weather tool (by default the model may call it, "
        "and its result is sent back)",
    )
    parser.add_argument(
        "--via",
        default="core",
        choices=["core", "langchain", "llamaindex"],
        help="stream through sse_core's ChatClient (default), LangChain's ChatSSE or "
        "LlamaIndex's SSELLM",
    )
    parser.add_argument(
        "--max-tokens",
        type=_count,
        metavar="N",
        help="the most tokens to generate (sent as max_tokens; --protocol anthropic "
        "requires it and sends 4096 when not given; --protocol responses sends it as "
        "max_output_tokens, at least 16)",
    )
    parser.add_argument(
        "--thinking",
        type=_count,
        metavar="BUDGET",
        help="--protocol anthropic: ask for thinking with a budget of BUDGET tokens (sent as "
        "thinking: {type: enabled, budget_tokens: BUDGET}; the API wants at least 1024, below "
        "max_tokens)",
    )
    parser.add_argument(
        "--effort",
        choices=EFFORTS,
        metavar="LEVEL",
        help="ask for reasoning of this effort (" + ", ".join(EFFORTS) + "): --protocol "
        "responses sends reasoning: {effort: LEVEL, summary: auto} (the reasoning is "
        "streamed as its summary, and goes back encrypted with the tool results: store "
        "false); chat completions send reasoning_effort",
    )
    parser.add_argument(
        "--idle-timeout",
        type=seconds_arg,
        metavar="S",
        help="the longest silence allowed in the body, in seconds (sse_core's Timeouts.idle; "
        "default: its 300)",
    )
    parser.add_argument(
        "--trace",
        action="store_true",
        help="print each model call's OpenTelemetry span on stderr when it ends (status, "
        "duration, usage, time to first chunk; needs opentelemetry-sdk)",
    )
    parser.add_argument(
        "--record",
        type=Path,
        metavar="DIR",
        help="record every model call into DIR as NNN.sse + NNN.json, for "
        "'sse-chat emulator --replay DIR' or Emulator(replay=DIR); keys are never written",
    )


def _count(text: str) -> int:
    """An argparse type: a positive number of tokens."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _driver(via: str) -> Callable[..., None]:
    if via == "langchain":
        from sse_chat.via_langchain import run_langchain_chat

        return run_langchain_chat
    from sse_chat.via_llamaindex import run_llamaindex_chat

    return run_llamaindex_chat


def _refusal(args: argparse.Namespace) -> str | None:
    """Why the chat cannot start (a missing extra, --record not plumbed), or None."""
    if said := dialect_refusal(args) or (trace_refusal() if args.trace else None):
        return said
    refuses = app_protocol(protocol_of(args)).refuses
    for option in ("thinking", "effort"):
        if getattr(args, option) is not None and option in refuses:
            return refuses[option]
    if args.via != "core" and (said := missing_extra(args.via, f"--via {args.via}")):
        return said
    if args.record and args.via != "core" and not _takes_http_client(args.via):
        module = f"sse_chat/via_{args.via}.py"
        return f"--record with --via {args.via} needs an http_client parameter in {module}"
    if not args.base_url:
        return missing_extra("cli", "without --base-url it starts the gateway emulator, which")
    return None


def _takes_http_client(via: str) -> bool:
    return "http_client" in inspect.signature(_driver(via)).parameters


@contextlib.contextmanager
def _gateway(args: argparse.Namespace, view: Renderer) -> Iterator[str]:
    if args.base_url:
        yield args.base_url
        return
    from sse_emulator import Emulator

    with Emulator() as emulator:
        view.note(
            f"no --base-url: started the gateway emulator at {emulator.url}, "
            f"dialect {dialect_of(args)}, model {args.model}"
        )
        yield emulator.base_url(dialect_of(args))


class _RetryNotes(logging.Handler):
    """Shows sse_core's retry log lines as notes: ``(429 from the gateway, retrying in 1 s)``."""

    def __init__(self, view: Renderer) -> None:
        super().__init__(logging.INFO)
        self.view = view

    def emit(self, record: logging.LogRecord) -> None:
        self.view.note(retry_note(record))


def retry_note(record: logging.LogRecord) -> str:
    """``429 from the gateway; retrying in 1 s`` as ``429 from the gateway, retrying in 1 s``;
    an error named by its class (``GatewayConnectionError (could not reach ...)``) in words."""
    args = record.args
    if isinstance(args, tuple) and len(args) == 2 and isinstance(args[1], (int, float)):
        what = _NAMED_ERROR.sub(r"\1", str(args[0]))
        return f"{what}, retrying in {args[1]:.3g} s"
    return record.getMessage().replace("; retrying", ", retrying")


@contextlib.contextmanager
def _showing_retries(view: Renderer) -> Iterator[None]:
    logger = logging.getLogger("sse_core")
    handler, level = _RetryNotes(view), logger.level
    logger.addHandler(handler)
    if logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def _turn(client: ChatClient, payload: dict[str, Any], view: Renderer) -> Completion:
    view.wait()
    with client.stream(payload) as stream:
        for event in stream:
            view.event(event)
    completion = stream.completion
    assert completion is not None  # the stream ended well, or raised
    finish = completion.finish_reason or ("[DONE]" if completion.done else None)
    view.summary(finish, completion.usage, stop_reason=completion.stop_reason)
    return completion


def _run_core(
    args: argparse.Namespace, settings: dict[str, Any], view: Renderer, http: HttpClient | None
) -> None:
    protocol = app_protocol(settings["protocol"])
    question = Question(
        model=args.model,
        prompt=args.prompt,
        tool=None if args.no_tools else WEATHER_TOOL,
        max_tokens=args.max_tokens,
        thinking=args.thinking,
    )
    asked = protocol.effort
    effort = None if args.effort is None or asked is None else asked(args.effort)
    params = question_params(replace(question, max_tokens=protocol.max_tokens(question)), effort)
    chat = Conversation(protocol.name, args.model, params, first_turns(question))
    headers = settings.pop("headers")
    with ChatClient(
        **settings,
        auth=args.auth,
        default_headers=headers,
        secret_headers=secret_headers(args),
        http_client=http,
    ) as client:
        completion = _turn(client, chat.body(), view)
        if completion.tool_calls:
            following = chat.after(completion, run_tool)
            view.note("ran the tool locally; sending its result back")
            _turn(client, following, view)


def _run_framework(
    args: argparse.Namespace, settings: dict[str, Any], view: Renderer, http: HttpClient | None
) -> None:
    extra: dict[str, Any] = {} if http is None else {"http_client": http}
    if args.max_tokens is not None:
        extra["max_tokens"] = args.max_tokens
    if args.thinking is not None:
        extra["thinking"] = thinking_of(args.thinking)
        extra.setdefault("max_tokens", default_max_tokens(args.thinking))
    effort = app_protocol(settings["protocol"]).effort
    if args.effort is not None and effort is not None:
        extra["request_fields"] = effort(args.effort)
    _driver(args.via)(
        **settings,
        auth=args.auth,
        model=args.model,
        prompt=args.prompt,
        tool=None if args.no_tools else WEATHER_TOOL,
        run_tool=run_tool,
        view=view,
        **extra,
    )


def _converse(
    args: argparse.Namespace, view: Renderer, http: HttpClient | None, telemetry: Telemetry | None
) -> None:
    with _gateway(args, view) as base_url, _showing_retries(view):
        settings: dict[str, Any] = {
            "base_url": base_url,
            "api_key": api_key(args, emulated=not args.base_url),
            "path": path_of(args),
            "protocol": protocol_of(args),
            "headers": request_headers(args, fault=args.fault),
        }
        if args.idle_timeout is not None:
            settings["timeout"] = Timeouts(idle=args.idle_timeout)
        if telemetry is not None:
            settings["telemetry"] = telemetry
        run = _run_core if args.via == "core" else _run_framework
        run(args, settings, view, http)


def _why_cut(error: IncompleteStreamError, protocol: str) -> str:
    cause = error.__cause__
    if cause is not None:
        return f"the connection broke ({type(cause).__name__})"
    return f"the gateway ended it without {app_protocol(protocol).ends}"


def _recorder(args: argparse.Namespace) -> HttpClient | None:
    if not args.record:
        return None
    key = api_key(args, emulated=not args.base_url)
    client: HttpClient = recording_client(
        args.record, secret_headers=secret_headers(args), secrets=[key] if key else []
    )
    return client


def run_chat(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run the chat; returns the exit code (1 on a gateway or stream error, 2 on a refusal).

    The answer goes to ``out`` (stdout), notes, retries and errors to ``err`` (stderr).
    """
    if said := _refusal(args):
        print(f"sse-chat chat: {said}", file=sys.stderr)
        return 2
    view = Renderer(out or sys.stdout, err or sys.stderr)
    before = len(list(args.record.glob(_RECORDED))) if args.record else 0
    code = 0
    try:
        with contextlib.ExitStack() as stack:
            http = _recorder(args)
            if http is not None:
                stack.enter_context(http)
            telemetry = stack.enter_context(tracing(view)) if args.trace else None
            _converse(args, view, http, telemetry)
    except IncompleteStreamError as exc:
        why = _why_cut(exc, protocol_of(args))
        view.line(f"error: the stream was cut before the answer finished: {why}")
        render_partial(exc.partial, view)
        code = 1
    except StreamError as exc:
        hint = "; --idle-timeout sets it" if "Timeouts.idle" in str(exc) else ""
        view.line(f"error: {type(exc).__name__}: {exc}{hint}")
        render_partial(exc.partial, view)
        code = 1
    except SSEConnectorError as exc:
        view.line(f"error: {type(exc).__name__}: {exc}")
        code = 1
    finally:
        view.stop_waiting()  # Ctrl-C, or an error nobody rendered
    if args.record:
        count = len(list(args.record.glob(_RECORDED))) - before
        view.note(
            f"recorded {count} model call(s) in {args.record}; replay with "
            f"'sse-chat emulator --replay {args.record}'"
        )
    return code
