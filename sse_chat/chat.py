"""``sse-chat chat``: stream a chat live, with reasoning, text, tool calls and usage.

With no ``--base-url`` it starts the gateway emulator on loopback, so a new user sees every
part work with no key and no network. When the model calls the demo ``get_weather`` tool, the
command runs it locally and streams the model's answer to the result (a full tool round trip).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from pydantic_core import from_json, to_json

from sse_core.client import ChatClient
from sse_core.completion import Completion, ToolCall, Usage
from sse_core.errors import SSEConnectorError, StreamError
from sse_core.events import (
    Done,
    ErrorFrame,
    Finish,
    GatewayEvent,
    Metadata,
    ReasoningDelta,
    RefusalDelta,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    UsageUpdate,
)

__all__ = ["WEATHER_TOOL", "Renderer", "add_chat_arguments", "run_chat", "run_tool"]

DEFAULT_PROMPT = "What is the weather in Paris?"
WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city name"}},
            "required": ["city"],
        },
    },
}


def get_weather(city: str) -> dict[str, Any]:
    """The demo tool: a fixed, offline forecast."""
    return {"city": city, "forecast": "sunny", "temperature_c": 21}


class Renderer:
    """Writes StreamEvents to a terminal as they arrive (colours only on a TTY)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.color = out.isatty() and "NO_COLOR" not in os.environ
        self._section = ""

    def _style(self, code: str, text: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.color else text

    def _enter(self, section: str, *, again: bool = False) -> None:
        if again or section != self._section:
            if self._section:
                self.out.write("\n")
            self.out.write(self._style("1;36", f"[{section}]") + " ")
            self._section = section

    def reasoning(self, text: str) -> None:
        """A piece of reasoning."""
        self._enter("reasoning")
        self.out.write(self._style("2", text))
        self.out.flush()

    def text(self, text: str) -> None:
        """A piece of the answer."""
        self._enter("answer")
        self.out.write(text)
        self.out.flush()

    def refusal(self, text: str) -> None:
        """A piece of a refusal."""
        self._enter("refusal")
        self.out.write(self._style("31", text))
        self.out.flush()

    def tool_call(self, name: str | None, arguments: str) -> None:
        """A tool-call fragment; a name starts a new call on its own line."""
        if name:
            self._enter("tool call", again=True)
            self.out.write(self._style("33", name) + " ")
        self.out.write(arguments)
        self.out.flush()

    def gateway_event(self, name: str, data: object) -> None:
        """A named gateway event, on a line of its own."""
        self._enter(f"event {name}", again=True)
        self.out.write(to_json(data).decode() + "\n")
        self._section = ""
        self.out.flush()

    def note(self, text: str) -> None:
        """A line of commentary from the command itself."""
        if self._section:
            self.out.write("\n")
            self._section = ""
        self.out.write(self._style("2", f"({text})") + "\n")

    def event(self, event: StreamEvent) -> None:
        """Render one sse_core StreamEvent."""
        match event:
            case ReasoningDelta(text=text):
                self.reasoning(text)
            case TextDelta(text=text):
                self.text(text)
            case RefusalDelta(text=text):
                self.refusal(text)
            case ToolCallDelta(name=name, arguments=arguments):
                self.tool_call(name, arguments)
            case GatewayEvent(name=name, data=data):
                self.gateway_event(name, data)
            case Finish() | UsageUpdate() | Metadata() | Done() | ErrorFrame():
                pass

    def summary(self, finish_reason: str | None, usage: Usage | str | None) -> None:
        """The end of a turn: finish reason and usage (a Usage, or a line already made)."""
        line = usage if isinstance(usage, str) else _usage_line(usage)
        self._section = ""
        self.out.write("\n" + self._style("2", f"finish_reason={finish_reason}  {line}") + "\n")
        self.out.flush()


def _usage_line(usage: Usage | None) -> str:
    if usage is None:
        return "usage: not reported"
    extra = [
        f"{name}={value}"
        for name in ("cached_tokens", "cache_write_tokens", "reasoning_tokens")
        if (value := getattr(usage, name)) is not None
    ]
    return (
        f"usage: prompt={usage.prompt_tokens} completion={usage.completion_tokens} "
        f"total={usage.total_tokens} {' '.join(extra)}"
    ).rstrip()


def add_chat_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``chat`` subcommand's options."""
    parser.add_argument("prompt", nargs="?", default=DEFAULT_PROMPT)
    parser.add_argument(
        "--base-url",
        default=os.environ.get("SSE_BASE_URL"),
        help="gateway URL with its version prefix; default: start the emulator",
    )
    parser.add_argument("--model", default="demo-think")
    parser.add_argument(
        "--dialect",
        default="openai",
        choices=["openai", "shroud", "streamchat", "spass", "gateway", "aivene"],
        help="emulator dialect (only without --base-url)",
    )
    parser.add_argument("--path", default="/chat/completions")
    parser.add_argument("--header", action="append", default=[], metavar="NAME:VALUE")
    parser.add_argument("--no-tools", action="store_true", help="do not offer the demo tool")
    parser.add_argument("--fault", help="emulator fault to inject (X-Emulator-Fault)")
    parser.add_argument(
        "--via",
        default="core",
        choices=["core", "langchain", "llamaindex"],
        help="stream through sse_core, LangChain's ChatSSE or LlamaIndex's SSELLM",
    )


@contextlib.contextmanager
def _gateway(args: argparse.Namespace) -> Iterator[str]:
    if args.base_url:
        yield args.base_url
        return
    from sse_core.emulator import Emulator

    with Emulator() as emulator:
        print(f"(no --base-url: started the gateway emulator at {emulator.url})", flush=True)
        yield emulator.base_url(args.dialect)


def _headers(args: argparse.Namespace) -> dict[str, str]:
    headers = {"SPASS-User-Id": "demo-user"} if args.dialect == "spass" else {}
    for item in args.header:
        name, _, value = item.partition(":")
        headers[name.strip()] = value.strip()
    if args.fault:
        headers["X-Emulator-Fault"] = args.fault
    return headers


def run_tool(name: str, arguments: str) -> Any:
    """Run a demo tool call locally; bad arguments give an error value, not an exception."""
    try:
        parsed = from_json(arguments or "{}")
        if name != "get_weather" or not isinstance(parsed, dict):
            return {"error": f"no tool {name!r} taking these arguments"}
        return get_weather(**parsed)
    except (ValueError, TypeError) as exc:
        return {"error": f"bad arguments: {exc}"}


def _tool_messages(calls: tuple[ToolCall, ...]) -> list[dict[str, Any]]:
    assistant = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in calls
        ],
    }
    results = [
        {
            "role": "tool",
            "tool_call_id": call.id,
            "content": to_json(run_tool(call.name or "", call.arguments)).decode(),
        }
        for call in calls
    ]
    return [assistant, *results]


def _turn(client: ChatClient, payload: dict[str, Any], view: Renderer) -> Completion:
    with client.stream(payload) as stream:
        for event in stream:
            view.event(event)
    completion = stream.completion
    assert completion is not None
    finish = completion.finish_reason or ("[DONE]" if completion.done else None)
    view.summary(finish, completion.usage)
    return completion


def _run_core(args: argparse.Namespace, base_url: str, view: Renderer) -> None:
    messages: list[dict[str, Any]] = [{"role": "user", "content": args.prompt}]
    with ChatClient(
        base_url=base_url,
        api_key=os.environ.get("SSE_API_KEY", "demo-key"),
        path=args.path,
        default_headers=_headers(args),
    ) as client:
        payload: dict[str, Any] = {"model": args.model, "messages": messages}
        if not args.no_tools:
            payload["tools"] = [WEATHER_TOOL]
        completion = _turn(client, payload, view)
        if completion.tool_calls:
            messages += _tool_messages(completion.tool_calls)
            view.note("ran the tool locally; sending its result back")
            _turn(client, {**payload, "messages": messages}, view)


def _run_framework(args: argparse.Namespace, base_url: str, view: Renderer) -> None:
    if args.via == "langchain":
        from langchain_sse._demo import run_langchain_chat as driver
    else:
        from llamaindex_sse._demo import run_llamaindex_chat as driver
    driver(
        base_url=base_url,
        api_key=os.environ.get("SSE_API_KEY", "demo-key"),
        model=args.model,
        path=args.path,
        headers=_headers(args),
        prompt=args.prompt,
        tool=None if args.no_tools else WEATHER_TOOL,
        run_tool=run_tool,
        view=view,
    )


def run_chat(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run the chat; returns the exit code (1 on a gateway or stream error)."""
    out = out or sys.stdout
    view = Renderer(out)
    try:
        with _gateway(args) as base_url:
            if args.via == "core":
                _run_core(args, base_url, view)
            else:
                _run_framework(args, base_url, view)
    except ImportError as exc:
        out.write(f"error: --via {args.via} needs the '{args.via}' extra ({exc})\n")
        return 2
    except StreamError as exc:
        out.write(f"\nerror: {type(exc).__name__}: {exc}\n")
        out.write(f"(partial answer kept: {len(exc.partial.content)} characters)\n")
        return 1
    except SSEConnectorError as exc:
        out.write(f"\nerror: {type(exc).__name__}: {exc}\n")
        return 1
    return 0
