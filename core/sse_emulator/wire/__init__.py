"""How a reply travels: dialect tables, SSE frames, rendering, faults and the stream plan.

:mod:`.dialects` holds each gateway's wire choices as data, :mod:`.render` shapes a
:class:`~sse_emulator.assistant.reply.Reply` into one dialect's chunks,
:mod:`.frames` encodes SSE events into bytes, :mod:`.faults` parses the
``X-Emulator-Fault`` header, and :mod:`.plan` turns frames and faults into timed writes.
All of it is pure: no sockets, no event loop.
"""
