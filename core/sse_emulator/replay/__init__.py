"""Replay: serve recorded model calls back, byte for byte and read for read.

:mod:`.recording` loads and checks a recording (pure: files in, frozen values out);
:mod:`.player` writes one recorded response over ASGI, in its recorded reads and,
when asked, at its recorded times.
"""
