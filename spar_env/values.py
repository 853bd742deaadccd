"""The one value grammar of ``KEY=VALUE`` text: ``--set`` (ruleset fields and config keys) and
the parameters of agent specs (``pimc:worlds=32``).

A value is read by the first rule that fits:

================================  ================================================
text                              value
================================  ================================================
a TOML value: ``7``, ``-1``,      that value: int, float, bool, string, list or
``1e-3``, ``true``, ``"x"``,      table (``{ self = 0.5, heuristic = 0.5 }``);
``[128, 128]``, ``{ a = 1 }``     a TOML date or time is taken as text
``true`` / ``false``              bool (any case)
``none`` / ``null``               None (any case), e.g. ``first_dealer=none``
a whole number: ``010``           int
a decimal: ``1_000.5``            float
text with a comma: ``3,2``        tuple of its items, each read by these rules
                                  (``A,K,Q`` -> ``('A', 'K', 'Q')``; ``5,`` -> ``(5,)``)
anything else                     the text itself, e.g. ``stones:30``, ``bonus``
================================  ================================================

The command line (``spar_apps.cli``), the agent registry and the run configs
all read values here, so a value means the same wherever it is written.
"""

from __future__ import annotations

import datetime
import tomllib


def parse_value(text: str) -> object:
    """Read one value by the rules in the module docstring.

    Raises:
        ValueError: for a whole number past Python's limit on digits (4,300), which no value
            takes, saying so without echoing its digits.
    """
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        pass
    except ValueError:  # int()'s limit on digits, met inside the TOML reader
        raise ValueError(f"a number of {len(text.strip()):,} characters is far too large "
                         "for any value") from None  # fmt: skip
    else:
        if not isinstance(value, datetime.date | datetime.time):
            return value
    if "," in text:
        return tuple(parse_value(item) for item in text.split(",") if item.strip())
    word = text.strip()
    if word.lower() in ("true", "false"):
        return word.lower() == "true"
    if word.lower() in ("none", "null"):
        return None
    if word.lstrip("+-").isdecimal():  # not isdigit: int() refuses "²"
        try:
            return int(word)
        except ValueError:  # past int()'s limit on digits
            raise ValueError(f"a whole number of {len(word):,} digits is far too large for "
                             "any value") from None  # fmt: skip
    try:
        return float(word)
    except ValueError:
        return word
