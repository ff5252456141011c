"""LangChain adapter: ``ChatSSE``, a ``BaseChatModel`` over :mod:`sse_core`."""
