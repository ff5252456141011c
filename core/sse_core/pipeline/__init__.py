"""The sans-IO pipeline: body bytes in, StreamEvents and a Completion out, no I/O anywhere.

Read it in the order the bytes travel:

- :mod:`.parser`: bytes to Server-Sent Events (WHATWG rules, gateway leniencies, size bound,
  and the speed path for reads of plain frames); the only code that splits bytes into events;
- :mod:`.protocols`: the payload-decoder interface and the registry of protocols;
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
