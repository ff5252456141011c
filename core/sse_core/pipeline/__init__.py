"""The sans-IO pipeline: body bytes in, StreamEvents and a Completion out, no I/O anywhere.

Read it in the order the bytes travel:

- :mod:`.parser`: bytes to Server-Sent Events (WHATWG rules, gateway leniencies, size bound,
  and the speed path for reads of plain frames); the only code that splits bytes into events;
- :mod:`.protocol`: what the pipeline needs of a protocol (:class:`Decodable`, its
  :class:`PayloadDecoder`), and how it finds one by name (the registry's lookup);
- :mod:`.chunks`: each event's chat chunk to StreamEvents (with :mod:`.payloads`,
  :mod:`.think` for ``<think>`` blocks, :mod:`.tool_calls` for tool-call fragments and the
  optional msgspec accelerator, :mod:`._accel`);
- :mod:`.anthropic_events`: the same for Anthropic Messages events (:class:`MessagesDecoder`),
  with :mod:`.anthropic_blocks` for their content blocks;
- :mod:`.responses_events`: the same for OpenAI Responses events (:class:`ResponsesDecoder`),
  with :mod:`.responses_items` for their output items (and :mod:`.responses_parts`, what an
  item and its parts hold);
- :mod:`.decoder`: the parser and the protocol's payload decoder together
  (:class:`StreamDecoder`);
- :mod:`.accumulator`: StreamEvents to the Completion, the one owner of an answer's state
  (each choice's in :mod:`.choices`, with :mod:`.pieces`), which also tells what each
  network read added (:mod:`.reads`);
- :mod:`.session`: the per-response rules every loop follows, and :func:`decode`.

A test keeps these modules free of I/O (no httpx, asyncio, sockets, threads, files).
"""

# What sse_core exports (StreamDecoder, decode) and sse_core.protocols (PayloadDecoder) is
# documented there, not again here.
from sse_core.pipeline.accumulator import Accumulator
from sse_core.pipeline.anthropic_events import MessagesDecoder
from sse_core.pipeline.chunks import ChunkDecoder
from sse_core.pipeline.parser import ServerSentEvent, SSEParser
from sse_core.pipeline.protocol import Decodable
from sse_core.pipeline.reads import ReadDelta
from sse_core.pipeline.responses_events import ResponsesDecoder
from sse_core.pipeline.session import StreamSession

__all__ = [
    "Accumulator",
    "ChunkDecoder",
    "Decodable",
    "MessagesDecoder",
    "ReadDelta",
    "ResponsesDecoder",
    "SSEParser",
    "ServerSentEvent",
    "StreamSession",
]
