"""Sign the thinking the emulator sends, and check the signatures that come back.

The API signs each thinking block it sends and refuses a block, on a later turn, whose
signature it did not issue for that very text. The emulator does the same with an HMAC
of the thinking text under a key of its own. The key is fixed (not per process), so the
emulator stays deterministic (the same body gives the same bytes, in any process) and a
conversation recorded from one emulator can be replayed to another; a signature made by
anything else (the real API, a changed text, an empty string) does not verify.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

#: The emulator's signing key. Not a secret: it only has to differ from everyone else's.
_KEY = b"sse-emulator thinking signature v1"
#: The first byte of a signature, as the API's (protobuf) signatures start with a tag.
_TAG = b"\x12"


def sign(thinking: str) -> str:
    """The signature of a thinking text: opaque base64, as long as the API's short ones."""
    digest = hmac.new(_KEY, thinking.encode("utf-8"), hashlib.sha512).digest()
    return base64.b64encode(_TAG + digest + digest[::-1]).decode("ascii")


def verify(thinking: object, signature: object) -> bool:
    """Whether ``signature`` is the one the emulator issued for ``thinking``."""
    if not isinstance(thinking, str) or not isinstance(signature, str):
        return False
    return hmac.compare_digest(sign(thinking).encode("ascii"), signature.encode("utf-8"))
