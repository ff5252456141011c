"""Whole answers in each dialect's shape: JSON completions, HTTP errors, 404/405, models."""

from __future__ import annotations

import httpx
import pytest

from tests.emulator.emu_wire import chat

CREATED = 1715000000


@pytest.mark.parametrize(
    "dialect", ["openai", "shroud", "streamchat", "spass", "gateway", "aivene"]
)
def test_every_dialect_answers_json_when_stream_is_false(
    client: httpx.Client, dialect: str
) -> None:
    response = chat(client, dialect, stream=False)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert body["object"] == "chat.completion"
    assert body["created"] == CREATED
    assert body["choices"][0]["message"]["role"] == "assistant"
    assert body["choices"][0]["message"]["content"] == "Hello there"
    assert body["choices"][0]["finish_reason"] == "stop"
    assert body["usage"]["total_tokens"] == 14
    assert body["model"] == ("" if dialect == "streamchat" else "test-model")


def test_openai_json_answer_has_openai_fields(client: httpx.Client) -> None:
    body = chat(client, "openai", stream=False).json()
    assert body["system_fingerprint"] == "fp_emulator"
    assert body["choices"][0] == {
        "index": 0,
        "message": {"role": "assistant", "content": "Hello there", "refusal": None},
        "logprobs": None,
        "finish_reason": "stop",
    }


@pytest.mark.parametrize(
    ("dialect", "keys"),
    [
        ("openai", ["message", "type", "param", "code"]),
        ("shroud", ["message", "type", "code"]),
        ("streamchat", ["message", "type", "code"]),
        ("gateway", ["message", "type", "code"]),
        ("aivene", ["message", "type", "code"]),
    ],
)
def test_http_error_bodies_have_each_dialects_shape(
    client: httpx.Client, dialect: str, keys: list[str]
) -> None:
    prefix = "" if dialect == "openai" else f"/{dialect}"
    response = client.post(f"{prefix}/v1/chat/completions", json={"model": "m", "messages": []})
    assert response.status_code == 400
    assert list(response.json()["error"]) == keys
    assert response.json()["error"]["code"] == "invalid_messages"


def test_unknown_path_is_404_and_get_on_chat_is_405(client: httpx.Client) -> None:
    assert client.post("/nowhere/v1/chat/completions", json={}).status_code == 404
    assert client.get("/v1/chat/completions").status_code == 405


def test_models_list(client: httpx.Client) -> None:
    listed = client.get("/shroud/v1/models").json()
    assert [model["id"] for model in listed["data"]] == ["emulator", "emulator-think"]
