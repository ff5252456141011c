"""Google's Gemini API (``generateContent``): its stream, its request, registered as
``protocol="gemini"`` (:data:`GEMINI`).

- Request: ``POST {base_url}/v1beta/models/{model}:streamGenerateContent?alt=sse`` (a whole
  answer: ``:generateContent``), ``/models/...`` when ``base_url`` already ends in ``/v1beta``
  or ``/v1``, so the root Google's clients take (``https://generativelanguage.googleapis.com``,
  google-genai's ``base_url``) and its versioned forms both work; the key in
  ``x-goog-api-key`` (read from ``GOOGLE_API_KEY``, else ``GEMINI_API_KEY``, as google-genai
  reads them, after ``SSE_API_KEY``). The body has no ``model`` and no ``stream``: the URL
  says both (a ``models/`` prefix on the model name is taken off, as google-genai does).
- A conversation: :func:`contents_body` makes a body of the core's turns and the common
  settings (:mod:`.request`: ``systemInstruction``, ``contents``, the thought signatures of an
  earlier answer put back byte-exact; :mod:`.config`: ``generationConfig``,
  ``thinkingConfig``, ``tools``, ``toolConfig``). OpenAI's JSON mode is Gemini's
  ``responseMimeType`` (``json_mode``). How an answer ended is Finish's ``stop_reason``,
  Gemini's own ``finishReason`` word, which both adapters already give: no ``how_it_ended``.

:class:`GenerateContentDecoder` is the :class:`~sse_core.protocols.PayloadDecoder`.

The wire (``POST /v1beta/models/{model}:streamGenerateContent?alt=sse``, or Vertex AI's
``.../publishers/google/models/{model}:streamGenerateContent?alt=sse``): ``data:`` frames,
each one whole ``GenerateContentResponse``, and no end marker. The rules
(:mod:`.decode` reads a frame, :mod:`.candidates` a candidate, :mod:`.arguments` the
arguments of a call streamed in pieces):

- **parts** of ``candidates[i].content.parts``, ``i`` the candidate's ``index`` and the events'
  ``choice`` (a candidate without one is its place in the list: Google leaves index 0 out):
  ``text`` -> TextDelta; ``text`` with ``thought: true`` (a thought summary) -> ReasoningDelta;
  ``functionCall`` (whole: ``name``, ``args``, ``id``?) -> one ToolCallDelta, numbered 0, 1,
  ... per candidate in the order calls come, ``id`` the call's own else
  ``gemini_call_<index>`` (:data:`GENERATED_ID_PREFIX`), the arguments the ``args`` as JSON
  text (``{}`` when it has none); a call without a name is no call but
  :func:`~sse_core.pipeline.tool_calls.nameless_call`. A call whose arguments stream (Vertex
  AI's ``partialArgs``, ``willContinue``) gives its ToolCallDelta with id and name when it
  opens and its arguments, one JSON object, when it closes (a ``functionCall`` without
  ``willContinue``, the next call, or the finish); partial arguments that cannot be placed
  are a GatewayEvent ``functionCall.partialArgs``. Any other part (``executableCode``,
  ``codeExecutionResult``, ``inlineData``, ``fileData``, a kind not known yet) -> a
  GatewayEvent named by its kind, ``{"candidate", "position", "part"}`` as sent;
- **thought signatures** (``thoughtSignature``, on any part: a thought, a text, a function
  call, an image) -> ReasoningSignature after the part's own events, the signature as sent
  (Gemini 3 refuses a function-calling turn sent back without it, byte-exact). It closes the
  reasoning block as every protocol's signature does (the thought text since the previous
  signature is its text); its ``item`` says where the part was, so the turn can be rebuilt
  part by part: ``{"type": "gemini_signed_part"`` (:data:`SIGNED_PART`), ``"kind"``
  (``thought``, ``text``, ``function_call``, or the part's kind), ``"position"`` (the part's
  place among every part of the candidate, counted over the frames), ``"offset"`` (for a
  thought or a text: how many characters of the candidate's reasoning, or text, came before
  this part's text; None otherwise), ``"call"`` (for a function call: its ToolCallDelta
  index; None otherwise), ``"part"`` (the part as sent)``}``. Streamed text is cut into parts
  where Gemini chose; a signed part must go back as it came, never merged with another;
- **citations** (``citationMetadata.citations`` on Vertex AI, ``citationSources`` on the
  Gemini API) -> Citation, each once, as sent (``startIndex``, ``endIndex``, ``uri``,
  ``license``); the candidate's other fields (``safetyRatings``, ``groundingMetadata``,
  ``finishMessage``, ``urlContextMetadata``, ``avgLogprobs``, ...) -> a GatewayEvent
  ``candidate`` (``{"index", ...}``) whenever they changed;
- **finish**: ``finishReason`` -> Finish, in the shared vocabulary (:data:`FINISH_REASONS`:
  ``STOP`` -> ``stop``, or ``tool_calls`` when the candidate called a function; ``MAX_TOKENS``
  -> ``length``; the safety, recitation, blocklist, prohibited-content, SPII, image and Model
  Armor reasons -> ``content_filter``; any other as sent), ``stop_reason`` Gemini's word;
  ``promptFeedback.blockReason`` (no candidate comes) -> Finish ``content_filter`` with the
  block reason as ``stop_reason``; the ``promptFeedback`` itself -> a GatewayEvent when it
  changed;
- **when the stream is complete**: there is no end marker, so a Finish is the verdict. A body
  that ends after every candidate seen finished (or after a blocked prompt) ends with
  StreamEnd from ``flush``; a body that ends before any Finish is a cut answer, which the
  session reports (IncompleteStreamError naming :data:`ENDS`). ``data: [DONE]`` (a relay's
  OpenAI habit) is ignored;
- **usage**: ``usageMetadata``, repeated on every frame, is cumulative: the last one wins
  (a frame that repeats it unchanged, or holds no count, reports nothing); the counts as
  :func:`gemini_usage` maps them (the reasoning inside the output tokens, as the other
  protocols count);
- **metadata**: ``responseId`` -> Metadata ``id``, ``modelVersion`` -> ``model``, Vertex AI's
  ``createTime`` -> ``created`` (whole seconds); the response's other fields -> a
  GatewayEvent ``response`` whenever they changed;
- **errors**: Google's error object (``{"error": {"code", "message", "status", "details"}}``),
  as a frame or as the whole body -> ErrorFrame (``message``, ``type`` the ``status``,
  ``code`` the ``code``, the payload as ``data``), and the stream is over
  (:attr:`GenerateContentDecoder.done`). A frame that is no JSON object is a
  StreamProtocolError;
- **named events**: Gemini names none. ``event: error`` is an error as above; any other name
  is a relay's own, a GatewayEvent as sent;
- **whole answers** (:meth:`GenerateContentDecoder.decode_whole`): a ``generateContent``
  answer, the JSON array ``streamGenerateContent`` sends without ``alt=sse``, or the error
  body; Cloud Code Assist's ``{"response": {...}}`` envelope is read through, in a frame too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sse_core.protocols.gemini.answer import RESPONSE, response_object
from sse_core.protocols.gemini.candidates import (
    FINISH_REASONS,
    GENERATED_ID_PREFIX,
    SIGNED_PART,
)
from sse_core.protocols.gemini.config import (
    BUDGETS,
    LEVELS,
    NOT_TAKEN,
    contents_body,
    generation_config,
    thinking_config,
    tool_config,
    tools,
)
from sse_core.protocols.gemini.decode import GenerateContentDecoder, error_frame, gemini_usage
from sse_core.protocols.gemini.prompt import read_prompt, sampling
from sse_core.protocols.gemini.request import (
    contents,
    signed_call_item,
    signed_item,
    signed_text_item,
)
from sse_core.protocols.registry import RequestShape, WireProtocol, register_protocol

__all__ = [
    "API",
    "BUDGETS",
    "ENDS",
    "FINISH_REASONS",
    "GEMINI",
    "GENERATED_ID_PREFIX",
    "KEY_ENV",
    "LEVELS",
    "NOT_TAKEN",
    "RESPONSE",
    "SIGNED_PART",
    "GenerateContentDecoder",
    "contents",
    "contents_body",
    "error_frame",
    "gemini_usage",
    "generation_config",
    "models_path",
    "request_body",
    "response_object",
    "route",
    "signed_call_item",
    "signed_item",
    "signed_text_item",
    "thinking_config",
    "tool_config",
    "tools",
]

#: What the endpoint is called, for messages (:attr:`~sse_core.protocols.WireProtocol.api`).
API = "Gemini API (models/{model}:streamGenerateContent?alt=sse)"
#: What a complete stream has and a cut one lacks (:attr:`~sse_core.protocols.WireProtocol.ends`):
#: Gemini sends no end marker.
ENDS = "a finishReason (a Gemini stream has no end marker)"
#: Where google-genai reads the key from, in its order: ``GOOGLE_API_KEY`` wins when both are
#: set (google-genai warns "Both GOOGLE_API_KEY and GEMINI_API_KEY are set. Using
#: GOOGLE_API_KEY."), ``GEMINI_API_KEY`` the name Google's quickstarts give.
KEY_ENV = ("GOOGLE_API_KEY", "GEMINI_API_KEY")


def models_path(base_url: str) -> str:
    """``/models`` after a base URL whose path ends in ``/v1beta`` or ``/v1``, else
    ``/v1beta/models``."""
    rest = base_url.partition("://")[2] or base_url
    path = rest[rest.find("/") :] if "/" in rest else ""
    path = path.split("?")[0].split("#")[0].rstrip("/")
    return "/models" if path.endswith(("/v1beta", "/v1")) else "/v1beta/models"


def route(path: str, model: str, streaming: bool) -> str:
    """The model's method: ``{path}/{model}:streamGenerateContent?alt=sse`` (an event stream;
    without ``alt=sse`` the API streams a JSON array) or ``{path}/{model}:generateContent``."""
    name = model.removeprefix("models/")
    if streaming:
        return f"{path}/{name}:streamGenerateContent?alt=sse"
    return f"{path}/{name}:generateContent"


def request_body(
    payload: Mapping[str, Any],
    extra_body: Mapping[str, Any] | None,
    *,
    streaming: bool,
    include_usage: bool,
) -> dict[str, Any]:
    """The payload with ``extra_body`` merged over it, without ``model``, ``stream`` and
    OpenAI's ``stream_options`` (the URL says the model and the method; the API refuses a
    field it does not know; usage comes unasked)."""
    body = {**payload, **(extra_body or {})}
    for name in ("model", "stream", "stream_options"):
        body.pop(name, None)
    return body


GEMINI = register_protocol(
    WireProtocol(
        name="gemini",
        decoder=GenerateContentDecoder,
        api=API,
        ends=ENDS,
        request=RequestShape(
            path=models_path, route=route, auth="x-goog-api-key", body=request_body
        ),
        key_env=KEY_ENV,
        not_taken=NOT_TAKEN,
        turns_body=contents_body,
        json_mode=True,
        provider="gcp.gemini",
        prompt=read_prompt,
        sampling=sampling,
        answer=RESPONSE,
        sends_reasoning_back=True,
    )
)
