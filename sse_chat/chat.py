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

from pydantic_core import to_json

from sse_chat.demo_tool import WEATHER_TOOL, run_tool
from sse_chat.render import Renderer
from sse_core import ChatClient, Completion, SSEConnectorError, StreamError, ToolCall

__all__ = ["add_chat_arguments", "run_chat"]

DEFAULT_PROMPT = "What is the weather in Paris?"


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
        from sse_chat.via_langchain import run_langchain_chat as driver
    else:
        from sse_chat.via_llamaindex import run_llamaindex_chat as driver
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
