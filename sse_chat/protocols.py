"""The app's one table from a protocol to what ``sse-chat`` does in it.

The core holds what a protocol is (:mod:`sse_core.protocols`: its decoder, request shape and
rules, and :attr:`~sse_core.protocols.WireProtocol.ends`, how a cut stream is said); what the
app needs on top is here, one entry per protocol: what it is called in messages, the
emulator's dialect that speaks it, the path the app sends to by default, how the chat's
options read in it (the requests themselves are the core's, of turns:
:mod:`sse_chat.protocol_turns`), and how ``decode`` tells a capture of it. Nothing else
in the app compares a protocol's name (the probe keeps
its own table of plans and reports, :mod:`sse_chat.probe.command`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sse_chat.protocol_turns import Question, default_max_tokens, responses_reasoning
from sse_core.protocols import wire_protocol

__all__ = ["PROTOCOLS", "AppProtocol", "app_protocol", "told_by_answer", "told_by_event"]

#: The types of Anthropic's stream events (``event:`` names and the data's ``type``).
ANTHROPIC_EVENTS = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
    }
)


def _never(name: str) -> bool:
    return False


def _anthropic_event(name: str) -> bool:
    return name in ANTHROPIC_EVENTS


def _responses_event(name: str) -> bool:
    """``response.created``, ``response.output_text.delta``, ...: every event of the
    Responses stream but ``error`` (which chat gateways send too) is named ``response.*``."""
    return name.startswith("response.")


def _chunk(answer: Mapping[str, Any]) -> bool:
    return "choices" in answer


def _anthropic_message(answer: Mapping[str, Any]) -> bool:
    return answer.get("type") in ("message", "error")


def _response_object(answer: Mapping[str, Any]) -> bool:
    return answer.get("object") == "response"


def _gemini_response(answer: Mapping[str, Any]) -> bool:
    """A ``GenerateContentResponse`` (its candidates, or a blocked prompt's feedback)."""
    return "candidates" in answer or "promptFeedback" in answer


@dataclass(frozen=True, slots=True, kw_only=True)
class AppProtocol:
    """What ``sse-chat`` does in one protocol.

    Attributes:
        name: The core's name of it (``--protocol``).
        speaks: What it is, in words ("Anthropic's Messages API").
        dialect: The emulator's dialect that speaks it (``chat`` without ``--base-url``).
        path: The path the app sends to when ``--path`` is not given (None: the core's).
        max_tokens: The ``max_tokens`` the chat sends for a question (default: the one
            asked, or none).
        effort: The request fields ``--effort`` sends (in the core's request, and through a
            framework: ChatSSE's ``model_kwargs``, SSELLM's ``additional_kwargs``); None:
            ``--effort`` refused.
        refuses: The chat's options this protocol cannot carry, each with why and what to
            use instead (refused by name, never dropped).
        tells: Whether an event's name (or its data's ``type``) is one only this protocol
            sends (``decode`` tells a capture by its first such event).
        answers: Whether a whole JSON answer is this protocol's.
    """

    name: str
    speaks: str
    dialect: str
    path: str | None
    max_tokens: Callable[[Question], int | None] = lambda question: question.max_tokens
    effort: Callable[[str], dict[str, Any]] | None = None
    refuses: Mapping[str, str] = field(default_factory=dict)
    tells: Callable[[str], bool] = _never
    answers: Callable[[Mapping[str, Any]], bool] = _chunk

    @property
    def ends(self) -> str:
        """What a complete stream ends with, as the core says it ("a stop_reason and
        without message_stop"): a cut stream ended ``without`` it."""
        return wire_protocol(self.name).ends


_THINKING = "--thinking is Anthropic's setting (--protocol anthropic); "

#: Every protocol the app speaks, the default first.
PROTOCOLS: dict[str, AppProtocol] = {
    entry.name: entry
    for entry in (
        AppProtocol(
            name="chat_completions",
            speaks="chat completions",
            dialect="openai",
            path="/chat/completions",
            effort=lambda effort: {"reasoning_effort": effort},
            refuses={
                "thinking": _THINKING + "chat completions gateways have their own "
                "(reasoning_effort: --effort; chat_template_kwargs)",
            },
        ),
        AppProtocol(
            name="anthropic",
            speaks="Anthropic's Messages API",
            dialect="anthropic",
            path=None,
            # The API requires max_tokens: the chat's room for thinking and its answer.
            max_tokens=lambda question: (
                question.max_tokens or default_max_tokens(question.thinking)
            ),
            refuses={
                "effort": "--effort is OpenAI's reasoning effort (chat completions, "
                "responses); --protocol anthropic asks for thinking with --thinking BUDGET",
            },
            tells=_anthropic_event,
            answers=_anthropic_message,
        ),
        AppProtocol(
            name="responses",
            speaks="OpenAI's Responses API",
            dialect="responses",
            path=None,
            effort=lambda effort: {"reasoning": responses_reasoning(effort)},
            refuses={
                "thinking": _THINKING + "the Responses API asks for reasoning with --effort",
            },
            tells=_responses_event,
            answers=_response_object,
        ),
        AppProtocol(
            name="gemini",
            speaks="Google's Gemini API",
            dialect="gemini",
            path=None,
            effort=lambda effort: {"reasoning_effort": effort},
            refuses={"thinking": _THINKING + "the Gemini API asks for reasoning with --effort"},
            answers=_gemini_response,
        ),
    )
}
#: The protocol the app speaks when none is asked.
DEFAULT = next(iter(PROTOCOLS.values()))


def app_protocol(name: str) -> AppProtocol:
    """The entry of ``name`` (a choice of ``--protocol``, so always there)."""
    return PROTOCOLS[name]


def told_by_event(name: str) -> AppProtocol | None:
    """The protocol whose events alone are named ``name``, or None."""
    return next((entry for entry in PROTOCOLS.values() if entry.tells(name)), None)


def told_by_answer(answer: Mapping[str, Any]) -> AppProtocol:
    """The protocol of a whole JSON answer (chat completions when none claims it)."""
    found = (entry for entry in PROTOCOLS.values() if entry is not DEFAULT)
    return next((entry for entry in found if entry.answers(answer)), DEFAULT)
