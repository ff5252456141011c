"""The Anthropic Messages suite's support: this folder on ``sys.path``, so its wire helper
(``messages_wire``) imports by its plain name, as ``core_frames`` does for tests/core."""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
