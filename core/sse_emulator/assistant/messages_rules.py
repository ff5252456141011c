"""The Messages API's rules on a request, beyond its shape, worded as the API words them.

Each check returns what is wrong (the error's ``message``) or ``None``; the server answers
a wrong request with a 400 ``invalid_request_error``. docs/emulator.md lists each rule
with the page of Anthropic's documentation that states it.
"""

from __future__ import annotations

from typing import Any

from sse_emulator.assistant.signing import verify

#: The smallest thinking budget the API accepts.
MIN_BUDGET = 1024
#: The most blocks with ``cache_control`` one request may hold (system, tools, messages).
MAX_CACHE_BLOCKS = 4
#: The lowest ``top_p`` the API takes with thinking on.
MIN_THINKING_TOP_P = 0.95
_CONSIDERATIONS = (
    "Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/"
    "extended-thinking#important-considerations-when-using-extended-thinking"
)
_THINKING_DOCS = (
    "Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
)
FORCED_TOOL = "Thinking may not be enabled when tool_choice forces tool use."
TEMPERATURE = f"`temperature` may only be set to 1 when thinking is enabled. {_CONSIDERATIONS}"
TOP_K = f"`top_k` may not be set when thinking is enabled. {_CONSIDERATIONS}"
TOP_P = (
    f"`top_p` must be greater than or equal to {MIN_THINKING_TOP_P} or unset when thinking is "
    f"enabled. {_CONSIDERATIONS}"
)
BUDGET_TOO_SMALL = (
    f"thinking.enabled.budget_tokens: Input should be greater than or equal to {MIN_BUDGET}"
)
BUDGET_TOO_BIG = "`max_tokens` must be greater than `thinking.budget_tokens`"
THINKING_TYPES = ("thinking", "redacted_thinking")
EMPTY_MESSAGE = (
    "messages.{i}: all messages must have non-empty content except for the optional final "
    "assistant message"
)
EMPTY_TEXT = "messages: text content blocks must be non-empty"
WHITESPACE_TEXT = "messages: text content blocks must contain non-whitespace text"
MODIFIED = (
    "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be "
    "modified. These blocks must remain as they were in the original response."
)
FORMAT_TYPE = "output_config.format.type: Input should be 'json_schema'"
OPEN_OBJECT = (
    "output_config.format.schema: For 'object' type, 'additionalProperties' must be "
    "explicitly set to false"
)


def check_rules(body: dict[str, Any]) -> str | None:
    """What of the API's rules a shape-checked body breaks, or ``None``.

    Args:
        body: A body whose fields and messages have the right shape.
    """
    messages: list[dict[str, Any]] = body["messages"]
    return (
        _check_ranges(body)
        or _check_contents(messages)
        or _check_budget(body.get("thinking"), body["max_tokens"])
        or _check_cache_blocks(body)
        or _check_with_thinking(body)
        or _check_tool_results(messages)
        or _check_tool_uses(messages)
        or (_check_thinking_turns(messages) if thinking_on(body) else None)
        or _check_output_format(body.get("output_config"))
    )


def _check_ranges(body: dict[str, Any]) -> str | None:
    """``temperature`` and ``top_p`` between 0 and 1 (pydantic's bounds, as the API says)."""
    for name in ("temperature", "top_p"):
        value = body.get(name)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        if value > 1:
            return f"{name}: Input should be less than or equal to 1"
        if value < 0:
            return f"{name}: Input should be greater than or equal to 0"
    return None


def _check_contents(messages: list[dict[str, Any]]) -> str | None:
    """Text blocks hold text: none empty, and a message's text not whitespace alone; no
    message is empty but a final assistant one (a prefill)."""
    for i, message in enumerate(messages):
        content = message.get("content")
        texts = (
            [content]
            if isinstance(content, str)
            else [b.get("text") for b in _blocks(message) if b.get("type") == "text"]
        )
        if content in ("", []) and not (i == len(messages) - 1 and message["role"] == "assistant"):
            return EMPTY_MESSAGE.format(i=i)
        if any(text == "" for text in texts) and not isinstance(content, str):
            return EMPTY_TEXT
        if texts and all(isinstance(t, str) and not t.strip() for t in texts) and content != "":
            return WHITESPACE_TEXT
    return None


def _check_output_format(config: Any) -> str | None:
    """Structured output: a ``json_schema`` format whose objects are all closed."""
    spec = config.get("format") if isinstance(config, dict) else None
    if spec is None:
        return None
    if not isinstance(spec, dict) or spec.get("type") != "json_schema":
        return FORMAT_TYPE
    return OPEN_OBJECT if _open_object(spec.get("schema")) else None


def _open_object(schema: Any) -> bool:
    """Whether ``schema`` holds an object schema without ``additionalProperties: false``."""
    if isinstance(schema, list):
        return any(_open_object(item) for item in schema)
    if not isinstance(schema, dict):
        return False
    if schema.get("type") == "object" and schema.get("additionalProperties") is not False:
        return True
    inner: list[Any] = [schema.get(key) for key in ("items", "anyOf", "allOf")]
    for key in ("properties", "$defs", "definitions"):
        named = schema.get(key)
        inner += list(named.values()) if isinstance(named, dict) else []
    return _open_object(inner)


def thinking_on(body: dict[str, Any]) -> bool:
    """Whether the request asks for thinking (``enabled`` or ``adaptive``)."""
    thinking = body.get("thinking")
    return isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")


def _check_budget(thinking: Any, max_tokens: int) -> str | None:
    if not isinstance(thinking, dict) or thinking.get("type") != "enabled":
        return None
    budget = thinking.get("budget_tokens")
    if type(budget) is not int or budget < MIN_BUDGET:
        return BUDGET_TOO_SMALL
    return BUDGET_TOO_BIG if budget >= max_tokens else None


def _check_cache_blocks(body: dict[str, Any]) -> str | None:
    found = sum(_cache_blocks(body.get(part)) for part in ("system", "tools", "messages"))
    if found > MAX_CACHE_BLOCKS:
        return (
            f"A maximum of {MAX_CACHE_BLOCKS} blocks with cache_control may be provided. "
            f"Found {found}."
        )
    return None


def _cache_blocks(value: Any) -> int:
    """How many objects inside ``value`` carry a ``cache_control``."""
    if isinstance(value, list):
        return sum(_cache_blocks(item) for item in value)
    if not isinstance(value, dict):
        return 0
    own = 1 if value.get("cache_control") is not None else 0
    return own + sum(_cache_blocks(v) for k, v in value.items() if k != "cache_control")


def _check_with_thinking(body: dict[str, Any]) -> str | None:
    """Extended thinking refuses a forced tool and changed sampling."""
    if not thinking_on(body):
        return None
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") in ("any", "tool"):
        return FORCED_TOOL
    temperature, top_k, top_p = (body.get(name) for name in ("temperature", "top_k", "top_p"))
    if temperature is not None and temperature != 1:
        return TEMPERATURE
    if top_k is not None:
        return TOP_K
    if isinstance(top_p, (int, float)) and not MIN_THINKING_TOP_P <= top_p <= 1:
        return TOP_P
    return None


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _check_tool_results(messages: list[dict[str, Any]]) -> str | None:
    """Every ``tool_result`` answers a ``tool_use`` of the message just before it."""
    for i, message in enumerate(messages):
        previous = messages[i - 1] if i > 0 and messages[i - 1].get("role") == "assistant" else {}
        asked = {b.get("id") for b in _blocks(previous) if b.get("type") == "tool_use"}
        content = message.get("content")
        for j, block in enumerate(content if isinstance(content, list) else []):
            if not isinstance(block, dict) or block.get("type") != "tool_result":
                continue
            if block.get("tool_use_id") not in asked:
                return (
                    f"messages.{i}.content.{j}: unexpected `tool_use_id` found in "
                    f"`tool_result` blocks: {block.get('tool_use_id')}. Each `tool_result` "
                    "block must have a corresponding `tool_use` block in the previous message."
                )
    return None


def _check_tool_uses(messages: list[dict[str, Any]]) -> str | None:
    """Every ``tool_use`` of an assistant turn is answered by the message right after it."""
    for i, message in enumerate(messages[:-1]):
        if message.get("role") != "assistant":
            continue
        following = messages[i + 1] if messages[i + 1].get("role") == "user" else {}
        answered = {
            b.get("tool_use_id") for b in _blocks(following) if b.get("type") == "tool_result"
        }
        asked = [b.get("id") for b in _blocks(message) if b.get("type") == "tool_use"]
        missing = [str(tool_id) for tool_id in asked if tool_id not in answered]
        if missing:
            return (
                f"messages.{i}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
                "corresponding `tool_result` block in the next message."
            )
    return None


def _check_signatures(messages: list[dict[str, Any]]) -> str | None:
    """Every ``thinking`` block sent back carries the signature issued for its text; one of
    the latest assistant message is said to be modified, as the API says it."""
    latest = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    for i, message in enumerate(messages):
        if message.get("role") != "assistant" or not isinstance(message.get("content"), list):
            continue
        for j, block in enumerate(message["content"]):
            if not isinstance(block, dict) or block.get("type") != "thinking":
                continue
            if not verify(block.get("thinking"), block.get("signature")):
                wrong = MODIFIED if i == latest else "Invalid `signature` in `thinking` block"
                return f"messages.{i}.content.{j}: {wrong}"
    return None


def _check_thinking_turns(messages: list[dict[str, Any]]) -> str | None:
    """With thinking on, the thinking passed back is the thinking issued, and a tool loop's
    assistant turn starts with it. (With thinking off the API leaves earlier thinking out
    of the context; LangChain's standard tests send real signatures there and pass.)"""
    return _check_signatures(messages) or _check_loop_thinking(messages)


def _check_loop_thinking(messages: list[dict[str, Any]]) -> str | None:
    """In a tool loop, the assistant turn with the calls starts with its thinking."""
    last = messages[-1]
    results = any(b.get("type") == "tool_result" for b in _blocks(last))
    if len(messages) < 2 or last.get("role") != "user" or not results:
        return None
    i = len(messages) - 2
    turn = messages[i]
    if turn.get("role") != "assistant":
        return None
    content = turn.get("content")
    blocks = content if isinstance(content, list) else [{"type": "text"}]
    first = blocks[0].get("type") if blocks and isinstance(blocks[0], dict) else None
    if first in THINKING_TYPES:
        return None
    return (
        f"messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
        f"`{first}`. When `thinking` is enabled, a final `assistant` message must start with a "
        "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). "
        "We recommend you include thinking blocks from previous turns. To avoid this "
        f"requirement, disable `thinking`. {_THINKING_DOCS}"
    )
