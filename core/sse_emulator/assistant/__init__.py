"""What to say: the deterministic rule-based assistant, pure and free of I/O.

:mod:`.respond` turns one request body into one :class:`~.reply.Reply` (reasoning,
content, refusal, planned tool calls, finish reason, token counts). It reads the user's
message with :mod:`.extract`, fills JSON schemas with :mod:`.schema_fill`, decides tool
calls in :mod:`.tools` and counts tokens with :mod:`.tokens`. Nothing here knows about
dialects, bytes or HTTP.
"""
