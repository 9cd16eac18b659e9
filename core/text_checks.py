"""What PostgreSQL cannot store or a parser cannot survive: NUL characters, lone surrogates, numbers that are not
finite (``1e999``, ``NaN``, ``Infinity``: Python's json reads them, jsonb refuses them), JSON nested too deep.

Plain Python (no Django), shared by the request checks (``core.web.hostile_input``) and the importers.
"""

import json
import math
import re


class HostileInput(ValueError):
    """Text that is refused; the message says what and where."""


# Where the refusal names the place it found, a long name is cut to this many characters.
_SHOWN_CHARS = 80
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")
_INNERMOST = re.compile(rb"\[\]|\{\}")
# In JSON text a NUL or a lone surrogate can only come from an escape (the raw bytes are refused by the parser or
# the UTF-8 decoder), so a body without these escapes needs no walk over its parsed strings.
_HOSTILE_ESCAPE = re.compile(rb"\\u(?:0000|[dD][89a-fA-F])")


def shortened(text: str, limit: int) -> str:
    """``text`` cut to its first ``limit`` characters, saying how many more there were."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"


def json_may_hold_hostile_text(body: bytes) -> bool:
    """False when ``body`` (JSON text) cannot hold a NUL character or a lone surrogate once parsed."""
    return _HOSTILE_ESCAPE.search(body) is not None


def text_problem(text: str) -> str | None:
    """What is wrong with ``text`` for storage ("a NUL character", "a lone surrogate"), or None."""
    if "\x00" in text:
        return "a NUL character (U+0000)"
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return "a lone surrogate (U+D800–U+DFFF)"
    return None


def _shown(where: str) -> str:
    shown = where.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace").replace("\x00", "\\x00")
    return shown if len(shown) <= _SHOWN_CHARS else shown[:_SHOWN_CHARS] + "…"


def check_text(text: str, *, where: str) -> None:
    problem = text_problem(text)
    if problem:
        raise HostileInput(f"{_shown(where)} contains {problem}, which is not accepted.")


def check_json_value(value, *, where: str = "the JSON body") -> None:
    """HostileInput for the first key or string in ``value`` (parsed JSON) that ``text_problem`` refuses, or number
    that is not finite."""
    stack = [(value, where)]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            check_text(item, where=path)
        elif isinstance(item, float) and not math.isfinite(item):
            raise HostileInput(f"{_shown(path)} is not a finite number ({_NON_FINITE_NAMES[repr(item)]}), "
                               "which is not accepted.")
        elif isinstance(item, dict):
            for key, child in item.items():
                check_text(key, where=f"a key in {path}")
                # The root is a phrase ("the JSON body") or a name ("settings"), which then starts the dotted path.
                stack.append((child, f"{path}.{key}" if path != where or where.isidentifier() else key))
        elif isinstance(item, list):
            stack.extend((child, f"{path}[{index}]") for index, child in enumerate(item))


_NON_FINITE_NAMES = {"inf": "infinity", "-inf": "minus infinity", "nan": "NaN"}


class _NotFinite(Exception):
    """Raised inside the decoder by the number hooks below; ``json_loads`` then names the place."""


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite
    return value


def _no_constant(text: str) -> float:
    raise _NotFinite


_FINITE_DECODER = json.JSONDecoder(parse_float=_finite_float, parse_constant=_no_constant)


def json_loads(text: str, *, where: str = "the JSON body"):
    """``json.loads``, except that a number that is not finite (``1e999``, ``-1e999``, ``NaN``, ``Infinity``) is a
    HostileInput naming its place; JSONDecodeError (a ValueError) as usual."""
    try:
        return _FINITE_DECODER.decode(text)
    except _NotFinite:
        pass
    # Refused: parse again, as Python's json reads it, to say where the number is (only on this path).
    check_json_value(json.loads(text), where=where)
    raise HostileInput(f"{_shown(where)} holds a number that is not finite, which is not accepted.")


def check_json_depth(body: bytes, *, limit: int) -> None:
    """HostileInput when ``body``'s arrays and objects nest deeper than ``limit``, found without parsing: strings
    are removed, then the innermost empty pairs of brackets, once per level, until none is left."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return
    brackets = _NOT_BRACKET.sub(b"", _STRING.sub(b"", body))
    for _ in range(limit):
        if not brackets:
            return
        brackets, removed = _INNERMOST.subn(b"", brackets)
        if not removed:
            return  # unbalanced: the parser names the syntax error
    if brackets:
        raise HostileInput(f"JSON nested more than {limit} levels deep is not accepted.")
