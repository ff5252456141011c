"""The probe's requests: each sent through ``ChatClient`` and recorded to a folder of its own.

Every request is small, bounded by the probe's timeout in every phase, and not retried
(``ChatClient`` still drops ``stream_options`` once if the gateway rejects it: the
recording then holds both answers, which is how the probe sees the rejection). An
Anthropic gateway gets the Messages API's requests (``max_tokens``, ``thinking``, tools with
``input_schema``) and one more, ``ending``, that reads on past ``message_stop``
(:mod:`.ending`); a Responses API gateway the core's Responses bodies (``reasoning`` with a
summary, flat tools, ``store`` false) and an ``ending`` past its terminal event. Each
protocol's plan is one entry of :data:`PLANS`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic_core import from_json

from sse_chat.demo_tool import WEATHER_TOOL
from sse_chat.probe.analyse import Exchange, exchange, reasoning_field
from sse_chat.probe.ending import Ending, body_ending
from sse_chat.protocol_turns import Question, first_body, responses_reasoning
from sse_core import ChatClient, SSEConnectorError, Timeouts
from sse_core.transport.config import ClientConfig
from sse_core.transport.recording import recording_client

__all__ = ["PLANS", "Probe", "Step", "Target", "plan", "run_probe_steps"]

PROMPT = "Reply with one short sentence: hello."
TOOL_PROMPT = "What is the weather in Paris? Call the get_weather tool."


@dataclass(frozen=True, slots=True, kw_only=True)
class Target:
    """The gateway to probe and how to reach it."""

    base_url: str
    model: str
    path: str = "/chat/completions"
    api_key: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout: float = 30.0
    protocol: str = "chat_completions"
    auth: str | None = None
    #: The names (lower case) of the headers whose values are secrets: every --header.
    secret_headers: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True, kw_only=True)
class Step:
    """One probe request: its name, its body, whether it asks for stream usage, and for the
    ``ending`` step, the events that end the stream (read on past them)."""

    name: str
    what: str
    payload: dict[str, Any]
    include_usage: bool = False
    stops: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True, kw_only=True)
class Probe:
    """Every step's recorded exchanges and the error each step ended with (if any)."""

    exchanges: dict[str, tuple[Exchange, ...]]
    errors: dict[str, SSEConnectorError]
    requests: int
    ending: Ending | None = None


def plan(model: str, protocol: str) -> dict[str, Step]:
    """The steps by name for ``protocol``, in the order they run."""
    return PLANS[protocol](model)


def plan_chat(model: str) -> dict[str, Step]:
    """The steps for a chat completions gateway (``thinking-kwargs`` only when needed)."""
    ask = [{"role": "user", "content": PROMPT}]
    steps = [
        Step(name="plain", what="plain text", payload={"model": model, "messages": ask}),
        Step(
            name="usage",
            what="stream_options.include_usage",
            payload={"model": model, "messages": ask},
            include_usage=True,
        ),
        Step(
            name="thinking",
            what="reasoning_effort",
            payload={"model": model, "messages": ask, "reasoning_effort": "low"},
        ),
        Step(
            name="thinking-kwargs",
            what="chat_template_kwargs.enable_thinking",
            payload={
                "model": model,
                "messages": ask,
                "chat_template_kwargs": {"enable_thinking": True},
            },
        ),
        Step(
            name="tools",
            what="a tool to call",
            payload={
                "model": model,
                "tools": [WEATHER_TOOL],
                "messages": [{"role": "user", "content": TOOL_PROMPT}],
            },
        ),
        Step(name="failure", what="no messages", payload={"model": model, "messages": []}),
    ]
    return {step.name: step for step in steps}


def plan_messages(model: str) -> dict[str, Step]:
    """The steps for a Messages API gateway (``max_tokens`` in each: the API requires it).
    ``ending`` is the plain request again, read past ``message_stop``."""
    ask = [{"role": "user", "content": PROMPT}]
    plain = {"model": model, "max_tokens": 256, "messages": ask}
    thinking = {"type": "enabled", "budget_tokens": 1024}
    steps = [
        Step(name="plain", what="plain text", payload=plain),
        Step(
            name="ending",
            what="read past message_stop",
            payload=plain,
            stops=frozenset({"message_stop"}),
        ),
        Step(
            name="thinking",
            what="thinking",
            payload={"model": model, "max_tokens": 2048, "thinking": thinking, "messages": ask},
        ),
        Step(
            name="tools",
            what="a tool to call",
            payload=first_body(
                "anthropic",
                Question(model=model, prompt=TOOL_PROMPT, tool=WEATHER_TOOL, max_tokens=512),
            ),
        ),
        Step(
            name="failure",
            # The API refuses it; no client rule stops it before. (0 is taken: it warms the
            # prompt cache without generating.)
            what="max_tokens -1",
            payload={
                "model": model,
                "max_tokens": -1,
                "messages": [{"role": "user", "content": "hi"}],
            },
        ),
    ]
    return {step.name: step for step in steps}


#: The Responses API's terminal events (and ``error``): the ``ending`` step reads past them.
RESPONSES_ENDS = frozenset(
    {"response.completed", "response.incomplete", "response.failed", "error"}
)


def plan_responses(model: str) -> dict[str, Step]:
    """The steps for a Responses API gateway, each body the core's
    (:func:`~sse_chat.protocol_turns.first_body`: ``store`` false). ``ending`` is the
    plain request again, read past the terminal event; ``failure`` continues a response that
    no gateway stored (the API answers 400 ``previous_response_not_found``, in its error
    shape; no client rule stops it before)."""
    plain = first_body("responses", Question(model=model, prompt=PROMPT, max_tokens=256))
    effort = {"reasoning": responses_reasoning("low")}
    thinking = first_body("responses", Question(model=model, prompt=PROMPT), effort)
    tools = first_body("responses", Question(model=model, prompt=TOOL_PROMPT, tool=WEATHER_TOOL))
    missing = {**plain, "previous_response_id": "resp_sse_chat_probe_not_stored"}
    steps = [
        Step(name="plain", what="plain text", payload=plain),
        Step(
            name="ending", what="read past the terminal event", payload=plain, stops=RESPONSES_ENDS
        ),
        Step(name="thinking", what=f"reasoning {responses_reasoning('low')}", payload=thinking),
        Step(name="tools", what="a tool to call", payload=tools),
        Step(name="failure", what="an unknown previous_response_id", payload=missing),
    ]
    return {step.name: step for step in steps}


def plan_gemini(model: str) -> dict[str, Step]:
    """The steps for a Gemini API gateway, each body the core's
    (:func:`~sse_chat.protocol_turns.first_body`): plain text, thoughts asked for, a tool to
    call."""
    steps = [
        Step(
            name="plain",
            what="plain text",
            payload=first_body("gemini", Question(model=model, prompt=PROMPT, max_tokens=256)),
        ),
        Step(
            name="thinking",
            what="thoughts (reasoning_effort low, includeThoughts)",
            payload=first_body(
                "gemini", Question(model=model, prompt=PROMPT), {"reasoning_effort": "low"}
            ),
        ),
        Step(
            name="tools",
            what="a tool to call",
            payload=first_body(
                "gemini", Question(model=model, prompt=TOOL_PROMPT, tool=WEATHER_TOOL)
            ),
        ),
    ]
    return {step.name: step for step in steps}


#: Each protocol's plan, by the core's name of it.
PLANS: dict[str, Callable[[str], dict[str, Step]]] = {
    "chat_completions": plan_chat,
    "anthropic": plan_messages,
    "responses": plan_responses,
    "gemini": plan_gemini,
}


def _load(directory: Path) -> tuple[Exchange, ...]:
    """The exchanges recorded in ``directory``, in order."""
    found = []
    for body in sorted(directory.glob("*.sse")):
        meta = from_json(body.with_suffix(".json").read_bytes())
        found.append(exchange(meta, body.read_bytes()))
    return tuple(found)


def run_step(target: Target, step: Step, directory: Path) -> SSEConnectorError | None:
    """Send one step's request, recorded into ``directory``; the error it ended with."""
    seconds = target.timeout
    timeouts = Timeouts(connect=seconds, first_byte=seconds, idle=seconds, total=seconds)
    secrets = [target.api_key] if target.api_key else []
    with (
        recording_client(directory, secret_headers=target.secret_headers, secrets=secrets) as http,
        ChatClient(
            base_url=target.base_url,
            api_key=target.api_key or None,
            path=target.path,
            protocol=target.protocol,
            auth=target.auth,
            default_headers=dict(target.headers),
            secret_headers=target.secret_headers,
            timeout=timeouts,
            max_retries=0,
            include_usage=step.include_usage,
            http_client=http,
        ) as client,
    ):
        try:
            client.complete(step.payload)
        except SSEConnectorError as error:
            return error
    return None


def run_probe_steps(target: Target, root: Path) -> Probe:
    """Run the steps, recording into ``root/<n>-<step>``; stops after a failed first step.

    Raises:
        ConfigurationError: The target's settings cannot work (a bad URL, key or header).
    """
    steps = plan(target.model, target.protocol)
    exchanges: dict[str, tuple[Exchange, ...]] = {}
    errors: dict[str, SSEConnectorError] = {}
    ending: Ending | None = None
    for number, step in enumerate(steps.values(), start=1):
        if step.name == "thinking-kwargs" and reasoning_field(exchanges["thinking"]):
            continue  # the first switch worked: no need for the second
        directory = root / f"{number}-{step.name}"
        error: SSEConnectorError | None = None
        if step.name == "ending":
            try:
                ending = body_ending(
                    _config(target), step.payload, directory, target.timeout, stops=step.stops
                )
            except SSEConnectorError as failed:
                error = failed
        else:
            error = run_step(target, step, directory)
        exchanges[step.name] = _load(directory)
        if error is not None:
            errors[step.name] = error
            if step.name == "plain":
                break
    requests = sum(len(found) for found in exchanges.values())
    return Probe(exchanges=exchanges, errors=errors, requests=requests, ending=ending)


def _config(target: Target) -> ClientConfig:
    return ClientConfig.build(
        base_url=target.base_url,
        api_key=target.api_key or None,
        path=target.path,
        protocol=target.protocol,
        auth=target.auth,
        default_headers=dict(target.headers),
        secret_headers=target.secret_headers,
    )
