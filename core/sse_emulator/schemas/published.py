"""The providers' published request types, read from their SDKs once, and the strict switch.

Each API's body is checked against the request type its provider's SDK publishes (generated
from the provider's OpenAPI document): chat completions against openai-python's
``CompletionCreateParams``, Responses against its ``ResponseCreateParams`` (with the input
item unions), Anthropic Messages against anthropic-python's ``MessageCreateParams`` (with the
content block params). The SDKs are the project's test-time (``dev``) dependencies, not the
emulator's: a user who serves the emulator does not need two large SDKs that change every
week, and the test suite, which has them, runs every emulator strict.

Which fields are refused when unknown follows the APIs: Responses (``Unknown parameter:
'input[0].id'.``) and Messages (``...: Extra inputs are not permitted``) refuse them at every
depth; chat completions takes them, since the gateways the chat dialects stand for take their
own fields (vLLM's ``chat_template_kwargs``, DeepSeek's ``reasoning_content`` on an assistant
message), where api.openai.com would refuse them.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import importlib.util
import os
import threading
import typing
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import typing_extensions
from typing_extensions import Required

from sse_emulator.schemas.walker import Compiler, Issue, Node

__all__ = [
    "API",
    "ENV",
    "SOURCES",
    "Validator",
    "compiled",
    "resolve_strict",
    "source",
    "validator",
    "versions",
    "warm",
]

API = Literal["chat", "responses", "messages"]
#: The environment variable that decides a strict emulator's default: ``1`` requires the
#: SDKs (an emulator without them is an error), ``0`` turns the checks off.
ENV = "SSE_EMULATOR_STRICT"
#: Each API's published request type: (distribution, module, type name).
SOURCES: dict[str, tuple[str, str, str]] = {
    "chat": ("openai", "openai.types.chat.completion_create_params", "CompletionCreateParamsBase"),
    "responses": (
        "openai",
        "openai.types.responses.response_create_params",
        "ResponseCreateParamsBase",
    ),
    "messages": ("anthropic", "anthropic.types.message_create_params", "MessageCreateParamsBase"),
}
#: The APIs that refuse a field their type does not declare (see the module's docstring).
_FORBID_EXTRA = {"chat": False, "responses": True, "messages": True}
_LOCK = threading.Lock()
_BUILT: dict[str, Validator | None] = {}


@dataclass(frozen=True, slots=True)
class Validator:
    """One API's compiled request type.

    Attributes:
        api: ``chat``, ``responses`` or ``messages``.
        source: The type it was read from, with its SDK's version.
        root: The compiled body type.
    """

    api: str
    source: str
    root: Node

    def check(self, body: dict[str, Any]) -> Issue | None:
        """The first thing in ``body`` the published type refuses, or None."""
        return self.root.check(body, ())


def _body_key(name: str, hint: Any) -> str | None:
    """A field's JSON key; None for an SDK parameter sent as a header (its alias has a
    dash: anthropic-python's ``user_profile_id`` is the ``anthropic-user-profile-id``
    header)."""
    for meta in getattr(hint, "__metadata__", ()):
        alias = getattr(meta, "alias", None)
        if isinstance(alias, str) and alias and alias != "None":
            return None if "-" in alias else alias
    return name


def validator(api: str) -> Validator | None:
    """The validator of ``api``, compiled once (the first caller compiles it, later ones wait
    for it); None when its SDK is not installed (or too old to publish the type)."""
    with _LOCK:
        if api not in _BUILT:
            _BUILT[api] = _build(api)
        return _BUILT[api]


def _build(api: str) -> Validator | None:
    distribution, module_name, name = SOURCES[api]
    try:
        base = getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError):
        return None
    compiler = Compiler(
        forbid_extra=_FORBID_EXTRA[api],
        body_key=_body_key,
        amend=_AMENDMENTS[api](),
        null_is_default=distribution == "openai",
    )
    # ``stream`` is in the SDK's two subclasses of the base (streaming or not), one field.
    root = compiler.root(base, {"stream": bool | None})
    return Validator(api=api, source=str(source(api)), root=root)


def compiled() -> None:
    """Return once every API's validator is compiled (compiling what is not yet)."""
    for api in SOURCES:
        validator(api)


def warm() -> threading.Thread:
    """Compile every API's validator in a daemon thread (importing an SDK takes about half a
    second, better spent while the server starts than on its first request)."""
    thread = threading.Thread(target=_warm, name="sse-emulator-schemas", daemon=True)
    thread.start()
    return thread


def _warm() -> None:
    # A best effort: a request compiles what this did not (an import broken by the end of
    # the interpreter, which a daemon thread may meet, says nothing of the emulator).
    with contextlib.suppress(BaseException):
        compiled()


def source(api: str) -> str | None:
    """The published type ``api`` is checked against, with its SDK's installed version
    (``openai 2.54.0: openai.types...ResponseCreateParamsBase``), read without importing the
    SDK; None when it is not installed."""
    distribution, module_name, name = SOURCES[api]
    version = versions()[distribution]
    return None if version is None else f"{distribution} {version}: {module_name}.{name}"


def _chat_amendments() -> dict[Any, Any]:
    """The one message the API takes that openai-python's type leaves out: a ``tool`` message
    of image parts, not text alone (langchain-openai's standard integration tests send one to
    api.openai.com: ``supports_image_tool_message``)."""
    from openai.types.chat import ChatCompletionContentPartParam, ChatCompletionToolMessageParam

    ToolMessage = typing_extensions.TypedDict(  # noqa: UP013 - see _responses_amendments
        "ToolMessage",
        {
            "content": Required[str | list[ChatCompletionContentPartParam]],
            "role": Required[Literal["tool"]],
            "tool_call_id": Required[str],
        },
        total=False,
    )
    return {ChatCompletionToolMessageParam: ToolMessage}


def _responses_amendments() -> dict[Any, Any]:
    """The one input item the Responses API takes that openai-python's input item union leaves
    out: an assistant message of ``output_text`` / ``refusal`` parts without the ``id`` and
    ``status`` of an output message (``EasyInputMessageParam`` takes input parts only).
    langchain-openai sends an earlier answer so (``_construct_responses_api_input``), and
    api.openai.com answers it."""
    from openai.types.responses import response_input_param as module
    from openai.types.responses.response_output_refusal_param import ResponseOutputRefusalParam
    from openai.types.responses.response_output_text_param import ResponseOutputTextParam

    parts = ResponseOutputTextParam | ResponseOutputRefusalParam
    # The functional form: the class form's annotations would be strings naming this
    # function's locals, which get_type_hints cannot resolve.
    AssistantOutputMessage = typing_extensions.TypedDict(  # noqa: UP013
        "AssistantOutputMessage",
        {
            "type": Literal["message"],
            "role": Required[Literal["assistant"]],
            "content": Required[str | list[parts]],
            "phase": Literal["commentary", "final_answer"] | None,
        },
        total=False,
    )
    items = typing.get_args(module.ResponseInputParam)[0]
    return {items: items | AssistantOutputMessage}


#: What each API's published type is amended with.
_AMENDMENTS: dict[str, Callable[[], dict[Any, Any]]] = {
    "chat": _chat_amendments,
    "responses": _responses_amendments,
    "messages": dict,
}


def versions() -> dict[str, str | None]:
    """The installed version of each SDK the checks read (None: not installed)."""
    found: dict[str, str | None] = {}
    for distribution in ("openai", "anthropic"):
        try:
            found[distribution] = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            found[distribution] = None
    return found


def _installed() -> bool:
    """Whether both SDKs can be imported (found, not imported: that costs a second)."""
    try:
        return all(importlib.util.find_spec(sdk) is not None for sdk in ("openai", "anthropic"))
    except (ImportError, ValueError):  # a module blocked with sys.modules[name] = None
        return False


def resolve_strict(strict: bool | None) -> bool:
    """Whether an emulator checks requests against the published types.

    Args:
        strict: True: checked, the SDKs required; False: not checked; None: ``$``:data:`ENV`
            decides (``1`` as True, ``0`` as False), else checked when the SDKs are
            installed, and when they are not, a warning says the checks are off.

    Raises:
        ImportError: Checks required and an SDK missing (named, with how to install it).
    """
    if strict is None:
        setting = os.environ.get(ENV, "").strip()
        strict = {"1": True, "0": False}.get(setting)
    if strict is False:
        return False
    if _installed():
        return True
    if strict:
        raise ImportError(
            "a strict emulator checks requests against the request types published in the "
            "openai and anthropic SDKs; install them: pip install openai anthropic"
        )
    warnings.warn(
        "the gateway emulator does not check requests against the providers' published "
        "request schemas: the openai and anthropic SDKs are not installed (pip install "
        "openai anthropic to turn the checks on); only its own rules apply",
        UserWarning,
        stacklevel=3,
    )
    return False
