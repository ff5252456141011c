"""``python -m sse_chat``: the same as the ``sse-chat`` command."""

import sys

from sse_chat.cli import main

sys.exit(main())
