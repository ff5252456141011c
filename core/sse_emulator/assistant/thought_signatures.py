"""Gemini's thought signatures: issue them, and recognise the ones that come back.

The Gemini API returns an opaque ``thoughtSignature`` (base64 bytes) on the first
``functionCall`` part of an answer, or on its last part when it calls no function, and
Gemini 3 models refuse a function call sent back without it, or with one the API did not
issue ("Thought signatures", ai.google.dev/gemini-api/docs/thought-signatures). The
emulator issues its own: a tag byte, 16 bytes named after the answer and the part, and an
HMAC-SHA256 of those under a fixed key of its own (as :mod:`sse_emulator.assistant.signing`
does for Anthropic's thinking: deterministic, and valid from one emulator to another). A
signature is the emulator's when it decodes to those bytes and its HMAC verifies. The field is
protobuf ``bytes``, and proto3's JSON mapping takes standard or URL-safe base64, with or
without padding (protobuf.dev, "ProtoJSON Format": bytes), as the API does: google-genai
sends the bytes back URL-safe. So the bytes must come back exactly; their spelling may differ.

The docs name two dummy signatures a client may send for calls no model made ("Thought
signatures", FAQ): they skip the check, as they do on the API.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac

#: The signing key. Not a secret: it only has to differ from everyone else's.
_KEY = b"sse-emulator gemini thought signature v1"
#: The first byte, as the API's signatures (protobuf messages) start with a field tag.
_TAG = b"\x12"
_SEED_SIZE = 16
#: The signatures the docs let a client send in place of a real one ("Thought signatures",
#: FAQ: "context_engineering_is_the_way_to_go" or "skip_thought_signature_validator").
DUMMY_SIGNATURES = frozenset(
    {"context_engineering_is_the_way_to_go", "skip_thought_signature_validator"}
)


def issue(answer_id: str, part: str) -> str:
    """The signature of one part of one answer.

    Args:
        answer_id: The answer's ``responseId``.
        part: Which part carries it (``call``, ``text``), so two parts get two signatures.
    """
    seed = hashlib.sha256(f"{answer_id}\n{part}".encode()).digest()[:_SEED_SIZE]
    mac = hmac.new(_KEY, seed, hashlib.sha256).digest()
    return base64.b64encode(_TAG + seed + mac).decode("ascii")


def _bytes(signature: str) -> bytes | None:
    """The bytes of a base64 string, standard or URL-safe, padded or not (proto3 JSON)."""
    try:
        text = signature.encode("ascii")
    except UnicodeEncodeError:
        return None
    if b"-" in text or b"_" in text:
        if b"+" in text or b"/" in text:
            return None  # two alphabets in one string
        text = text.translate(bytes.maketrans(b"-_", b"+/"))
    text += b"=" * (-len(text.rstrip(b"=")) % 4) if not text.endswith(b"=") else b""
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error:
        return None


def is_ours(signature: object) -> bool:
    """Whether ``signature`` decodes to the bytes of one the emulator issued."""
    if not isinstance(signature, str):
        return False
    raw = _bytes(signature)
    if raw is None:
        return False
    if len(raw) != 1 + _SEED_SIZE + 32 or raw[:1] != _TAG:
        return False
    seed, mac = raw[1 : 1 + _SEED_SIZE], raw[1 + _SEED_SIZE :]
    expected = hmac.new(_KEY, seed, hashlib.sha256).digest()
    return hmac.compare_digest(mac, expected)


def accepted(signature: object) -> bool:
    """Whether the API would take ``signature``: the emulator's own, or a documented dummy."""
    return isinstance(signature, str) and (signature in DUMMY_SIGNATURES or is_ours(signature))
