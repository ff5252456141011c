"""Root fixtures: the gateway emulator (a real uvicorn server on 127.0.0.1) for every test."""

pytest_plugins = ["sse_emulator.pytest_plugin"]
