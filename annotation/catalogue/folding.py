"""Text as a name search should see it: one spelling for the many a model name can hide behind.

``fold`` turns a text into a lower-case search form and keeps, for every character of that form, the span of the
original text it came from, so a name found in the folded text is masked in the text as written (its line breaks,
emoji and every other character untouched). Folding, in order:

- HTML character references (``&#45;``, ``&#x2d;``, ``&hyphen;``) are read as the character they name;
- inline markup is dropped: HTML tags, markdown's ``*``, `````, ``~``, and ``_`` where it opens or closes emphasis
  (next to a space, punctuation or the text's edge; ``snake_case`` keeps its underscore);
- zero-width and invisible characters (ZWSP, ZWNJ, ZWJ, word joiner, soft hyphen, BOM, variation selectors, bidi
  controls) are dropped;
- each character is NFKC-normalised (fullwidth and mathematical letters, ligatures, the non-breaking space) and
  case-folded;
- every dash and hyphen (Unicode's Pd category and the minus sign) becomes ``-``;
- Cyrillic and Greek letters that look like Latin ones become those (a subset of Unicode's TR39 confusables,
  ``CONFUSABLES`` below: only letters whose lower-case forms are visually identical to a Latin letter's).

Out of scope, and said so in docs/workspace.md: reversed text, base64 and other encodings, names spelled with
spaces between letters, and images of text. Plain Python, no Django.
"""

from __future__ import annotations

import functools
import html
import re
import unicodedata
from dataclasses import dataclass

# Unicode TR39 confusables (confusables.txt, 16.0), the Cyrillic and Greek letters whose prototype is one Latin
# letter, lower case (folding lower-cases first).
CONFUSABLES = str.maketrans({
    "а": "a", "в": "b", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i", "ј": "j", "к": "k", "ӏ": "l", "м": "m",
    "н": "h", "о": "o", "р": "p", "ԛ": "q", "ѕ": "s", "с": "c", "т": "t", "у": "y", "ԝ": "w", "х": "x", "ԁ": "d",
    "ɡ": "g", "ɑ": "a", "ο": "o", "ν": "v", "ρ": "p", "α": "a", "ι": "i", "κ": "k", "τ": "t", "υ": "u", "χ": "x",
    "ε": "e", "ϲ": "c", "ϳ": "j", "ԍ": "g", "ɩ": "i", "ɪ": "i",
})
INVISIBLE = frozenset(
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b"
    "\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\u206a\u206b\u206c\u206d\u206e\u206f"
    "\u3164\ufe00\ufe01\ufe02\ufe03\ufe04\ufe05\ufe06\ufe07\ufe08\ufe09\ufe0a\ufe0b\ufe0c\ufe0d\ufe0e\ufe0f\ufeff"
    "\uffa0"
)
_MARKUP = re.compile(r"<[A-Za-z/!][^<>]{0,200}>|&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});?")
_EMPHASIS = frozenset("*`~")
# Folding changes nothing a case-insensitive search of plain ASCII would not already see, unless one of these is in it.
_ASCII_TRIGGERS = re.compile(r"[&<*`~_]")


def needs_folding(text: str) -> bool:
    """Whether ``fold`` can find something a case-insensitive search of ``text`` as written would miss."""
    return not text.isascii() or _ASCII_TRIGGERS.search(text) is not None


@dataclass(frozen=True, slots=True)
class Folded:
    """The folded text, and for its character ``i`` the original span ``starts[i]:ends[i]``."""

    text: str
    starts: list[int]
    ends: list[int]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span of the folded text's ``start:end`` (``end`` > ``start``)."""
        return self.starts[start], self.ends[end - 1]


def _is_dash(ch: str) -> bool:
    return ch == "\u2212" or unicodedata.category(ch) == "Pd"


def _fold_char(ch: str) -> str:
    if ch in INVISIBLE:
        return ""
    if ch.isascii():
        return ch.lower()
    out = unicodedata.normalize("NFKC", ch).casefold()
    return "".join("-" if _is_dash(c) else c for c in out).translate(CONFUSABLES)


def fold(text: str) -> Folded:
    """``text`` in its search form, with each folded character's original span."""
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []

    def emit(piece: str, start: int, end: int) -> None:
        for ch in piece:
            chars.append(ch)
            starts.append(start)
            ends.append(end)

    position = 0
    for match in _MARKUP.finditer(text):
        _fold_plain(text, position, match.start(), emit)
        token = match.group(0)
        if token.startswith("&"):
            decoded = html.unescape(token)
            if decoded != token:
                emit("".join(_fold_char(c) for c in decoded), match.start(), match.end())
            else:
                _fold_plain(text, match.start(), match.end(), emit)
        position = match.end()
    _fold_plain(text, position, len(text), emit)
    return Folded("".join(chars), starts, ends)


def _fold_plain(text: str, start: int, end: int, emit) -> None:
    for i in range(start, end):
        ch = text[i]
        if ch in _EMPHASIS:
            continue
        if ch == "_":
            before = text[i - 1] if i > 0 else " "
            after = text[i + 1] if i + 1 < len(text) else " "
            if not (before.isalnum() and after.isalnum()):
                continue
        emit(_fold_char(ch), i, i + 1)


@functools.lru_cache(maxsize=1024)
def fold_needle(name: str) -> str:
    """A name in the folded form a folded text is searched with."""
    return fold(name).text


_NON_ALNUM = re.compile(r"[^a-z0-9]+")


_TAGS = re.compile(r"<[A-Za-z/!][^<>]{0,200}>")
_INVISIBLE = re.compile("[" + "".join(sorted(INVISIBLE)) + "]+")
# After case folding: what can still count, ASCII letters and digits and the lookalike letters (translated next).
_NOT_COUNTED = re.compile("[^a-z0-9" + "".join(chr(c) for c in CONFUSABLES) + "]+")


def squeezed(text: str) -> str:
    """``text`` reduced to ASCII letters and digits after a rough fold in C (tags dropped, entities read,
    compatibility decomposition, case folding, lookalike letters): a name can be in a text's fold only if its squeezed
    form is in the text's, so this is the cheap test before the exact, character-by-character ``fold``."""
    text = _TAGS.sub("", text)
    if "&" in text:
        text = html.unescape(text)
    kept = _NOT_COUNTED.sub("", unicodedata.normalize("NFKD", _INVISIBLE.sub("", text)).casefold())
    return kept.translate(CONFUSABLES) if not kept.isascii() else kept


def find_all(folded: Folded, needles: list[tuple[str, bool]]) -> list[tuple[int, int]]:
    """The original spans of every occurrence of each folded needle (``(needle, whole_word)``), merged where they
    overlap, in reading order."""
    spans = []
    haystack = folded.text
    for needle, whole in needles:
        if not needle:
            continue
        i = haystack.find(needle)
        while i >= 0:
            j = i + len(needle)
            if not whole or ((i == 0 or not haystack[i - 1].isalnum()) and (j == len(haystack) or not haystack[j].isalnum())):
                spans.append(folded.span(i, j))
            i = haystack.find(needle, j)
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def replace_spans(text: str, spans: list[tuple[int, int]], replacement: str) -> str:
    """``text`` with each of the (sorted, disjoint) spans replaced."""
    out, position = [], 0
    for start, end in spans:
        out += [text[position:start], replacement]
        position = end
    out.append(text[position:])
    return "".join(out)
