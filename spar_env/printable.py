"""Text read from a file, made safe to print: every control character shown as an escape.

A name in a file we are handed (a league's entrant, a run's name, a bot's metadata, a
saved game's opponent) could hold terminal escapes: ``"\\x1b]0;pwned\\x07"`` retitles the
window and ``"\\x1b[2J"`` clears the screen, and a newline forges a line of output.
:func:`printable` is the one helper every printer of such a name uses: each control,
format or separator character (Unicode categories ``Cc``, ``Cf``, ``Cs``, ``Co``, ``Cn``,
``Zl``, ``Zp``: escapes, newlines, bidirectional overrides, lone surrogates) is written
as Python writes it in a string, ``\\x1b``, ``\\n``, ``\\u202e``; every other character is
kept, so a name in any script reads as it was written.

    >>> printable("\\x1b]0;pwned\\x07low")
    '\\\\x1b]0;pwned\\\\x07low'
    >>> printable("Åsa's bot")
    "Åsa's bot"
"""

from __future__ import annotations

import unicodedata

__all__ = ["printable"]

_SHOWN_AS_ESCAPE = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")


def printable(text: object) -> str:
    """``str(text)`` with every control character escaped (module docstring)."""
    text = str(text)
    if text.isprintable():  # the usual case: nothing to escape (a space is printable)
        return text
    return "".join(_escape(ch) for ch in text)


def _escape(ch: str) -> str:
    if unicodedata.category(ch) not in _SHOWN_AS_ESCAPE:
        return ch
    code = ord(ch)
    if ch in "\n\r\t":
        return repr(ch)[1:-1]
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
