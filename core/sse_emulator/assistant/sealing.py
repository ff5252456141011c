"""Seal the reasoning the emulator sends as ``encrypted_content``, and open what comes back.

The Responses API returns a reasoning item's ``encrypted_content`` when the request's
``include`` holds ``reasoning.encrypted_content``, so a client that stores nothing
(``store: false``) can send the item back on the next turn; content the API did not issue,
or changed, is refused with a 400 ``invalid_encrypted_content`` ("The encrypted content
gAAA...DQ== could not be verified.", openai/codex#8145). The emulator does the same as
:mod:`sse_emulator.assistant.signing` does for Anthropic's thinking: the reasoning text in
base64 with an HMAC of it under a fixed key of its own (deterministic, and portable from one
emulator to another). It is sealed rather than encrypted: nothing here is secret, what
matters is that a changed or foreign content does not verify. It starts like the API's
(Fernet tokens, ``gAAAAA``) so clients that look at it see the familiar shape.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac

#: The sealing key. Not a secret: it only has to differ from everyone else's.
_KEY = b"sse-emulator reasoning seal v1"
#: What every sealed content starts with, as the API's Fernet tokens do.
PREFIX = "gAAAAA"
_MAC_SIZE = 32


def seal(reasoning: str) -> str:
    """The ``encrypted_content`` of a reasoning text."""
    text = reasoning.encode("utf-8")
    mac = hmac.new(_KEY, text, hashlib.sha256).digest()
    return PREFIX + base64.urlsafe_b64encode(mac + text).decode("ascii")


def unseal(content: object) -> str | None:
    """The reasoning text a content the emulator sealed holds, or ``None`` when it does not
    verify (changed, truncated, issued by anyone else, or not a string)."""
    if not isinstance(content, str) or not content.startswith(PREFIX):
        return None
    try:
        raw = base64.urlsafe_b64decode(content[len(PREFIX) :].encode("ascii"))
    except (binascii.Error, ValueError):
        return None
    mac, text = raw[:_MAC_SIZE], raw[_MAC_SIZE:]
    if not hmac.compare_digest(mac, hmac.new(_KEY, text, hashlib.sha256).digest()):
        return None
    try:
        return text.decode("utf-8")
    except UnicodeDecodeError:
        return None


def shown(content: str) -> str:
    """A content as the API's error message shows it: its first and last four characters."""
    return f"{content[:4]}...{content[-4:]}"
