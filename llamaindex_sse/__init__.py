"""LlamaIndex adapter: ``SSELLM``, a ``FunctionCallingLLM`` over :mod:`sse_core`."""
