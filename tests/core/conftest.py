"""The core suite's support: ``tests/core`` on ``sys.path``, so its helper module
(``core_frames``) imports by its plain name from every subfolder, as pyproject's
``pythonpath`` does for the other suites' support modules."""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
