"""Names hidden as a reader sees them: matched on a folded copy of the text, replaced in the text as written.

A name must not reach an annotator because it was spelt with a zero-width space inside, fullwidth letters, a
Cyrillic "е", markdown emphasis (``**secret**-model``), an HTML entity (``secret&#45;model``) or a non-breaking
hyphen (``GPT‑4o``). So names are searched in the text folded as follows, character by character:

- bare HTML tags (``<b>``, ``</span>``) and comment delimiters are dropped; a second view keeps tags with
  attributes (``<span title="…">``), whose values a reader may see, and the hits of both views count;
- HTML entities are decoded (``html.unescape``): ``&#45;``, ``&#x2d;``, ``&hyphen;``, ``&amp;``;
- markdown markup characters are dropped: ``*``, ``_``, backticks, ``~``, ``\\``;
- default-ignorable characters are dropped: zero-width space, joiners, word joiner, soft hyphen, BOM,
  variation selectors, bidi controls, tags (DerivedCoreProperties.txt's Default_Ignorable_Code_Point);
- compatibility forms are folded (NFKD: fullwidth letters, ligatures, mathematical letters), case is folded
  and combining marks are dropped;
- every dash and hyphen (Unicode category Pd, the minus signs) becomes ``-``; a decimal digit of any script
  becomes its ASCII digit;
- a letter that looks like an ASCII letter becomes it (Unicode TR39 confusables, the subset in
  ``confusables.txt`` beside this module: Cyrillic "а", "е", "о", "р", "с", Greek "ο", "ν", …), and so does a small
  Cyrillic or Greek letter whose capital looks like one ("к" as "К", "т" as "Т", "м", "н", "в", "κ", "τ", …):
  "Клод" and "клод", "ГигаЧат" and "ГИГАЧАТ" read the same (``canonical``).

ASCII characters other than the markup ones are only lowercased: the confusables among them (``l``/``I``/``1``,
``0``/``O``, ``rn``/``m``) are not folded, or every English text would be searched as another. Reversed text and
encoded text (base64, ROT13, …) are not decoded. Each folded character remembers the characters of the text it
came from, so a match replaces exactly those characters: the rest of the text (line breaks, emoji, other
scripts) is kept as written.

Words (a self-identification's name, as opposed to a model name or id searched anywhere) are matched whole, with
any separator or none between a name's parts ("GPT-4o", "GPT 4o", "GPT4o"), Russian case endings after a Cyrillic
name ("Сбер", "Сбера", "Сбером"), and a word boundary only against letters of a script written with spaces:
Chinese, Japanese and Korean text has none, so "Claude" is found in "我是Claude，由Anthropic开发". Plain Python, no
Django.
"""

from __future__ import annotations

import bisect
import functools
import html
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

REDACTED = "[hidden]"

# DerivedCoreProperties.txt, Default_Ignorable_Code_Point (Unicode 15), as ranges of code points.
_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
    (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
_IGNORABLE_STARTS = [start for start, _ in _IGNORABLE]
_MARKUP_CHARACTERS = "*_`~\\"
_NO_MARKUP = str.maketrans("", "", _MARKUP_CHARACTERS)
_MINUS_SIGNS = "\u2212\u2796\u02d7\u2043\ufe63\uff0d"
# A bare tag or a comment's delimiters (dropped in both views), a tag with attributes (dropped in the first view
# only), an entity.
_BARE_TAG = r"</?[A-Za-z][A-Za-z0-9-]*\s*/?>|<!--|-->"
_TAG = r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>"
_ENTITY = r"&(?:#[0-9]{1,7};?|#[xX][0-9a-fA-F]{1,6};?|[A-Za-z][A-Za-z0-9]{1,31};?)"
_WITH_TAGS = re.compile(f"{_BARE_TAG}|{_TAG}|{_ENTITY}")
_WITH_BARE_TAGS = re.compile(f"{_BARE_TAG}|{_ENTITY}")
_TAG_WITH_ATTRIBUTES = re.compile(r"<[A-Za-z][A-Za-z0-9-]*\s+[^\s/<>][^<>]*>")


def _ignorable(code: int) -> bool:
    i = bisect.bisect_right(_IGNORABLE_STARTS, code) - 1
    return i >= 0 and code <= _IGNORABLE[i][1]


@functools.cache
def confusables() -> dict[str, str]:
    """The vendored TR39 subset: a non-ASCII character → the ASCII text it looks like, lowercased."""
    table = {}
    for line in (Path(__file__).with_name("confusables.txt")).read_text(encoding="utf-8").splitlines():
        data = line.split("#", 1)[0].strip()
        if data:
            source, target, _ = (field.strip() for field in data.split(";"))
            table[chr(int(source, 16))] = "".join(chr(int(c, 16)) for c in target.split()).casefold()
    return table


def _fold_letter(c: str) -> str:
    """One character after NFKD and case folding: what it reads as."""
    if c.isascii() or _ignorable(ord(c)) or unicodedata.category(c) in ("Mn", "Me"):
        return c if c.isascii() else ""
    if unicodedata.category(c) == "Pd" or c in _MINUS_SIGNS:
        return "-"
    digit = unicodedata.decimal(c, None)
    if digit is not None:
        return str(digit)
    return confusables().get(c, c)


def fold_character(c: str) -> str:
    """What one character of a text reads as, for matching names (the module's docstring says how)."""
    return canonical(_fold_plain(c))


def _fold_plain(c: str) -> str:
    """``fold_character`` before a small look-alike letter is read as its capital."""
    if c.isascii():
        return "" if c in _MARKUP_CHARACTERS else c.lower()
    if _ignorable(ord(c)):
        return ""
    table = confusables()
    out = []
    for d in unicodedata.normalize("NFKD", c):
        folded = unicodedata.normalize("NFKD", d.casefold())
        # A capital may look like an ASCII letter where its small letter does not (Cyrillic "Т", "Н", "В").
        if d in table and not any(e in table for e in folded):
            out.append(table[d])
        else:
            out += (_fold_letter(e) for e in folded)
    return "".join(out).casefold().translate(_NO_MARKUP)


class _FoldTable(dict):
    """``str.translate``'s table: each character folded on first sight (a text meets few distinct ones)."""

    def __missing__(self, code: int) -> str:
        folded = self[code] = fold_character(chr(code))
        return folded


_TABLE = _FoldTable()


def _replacement(match: re.Match) -> str:
    token = match.group()
    return html.unescape(token) if token[0] == "&" else ""


class Folded:
    """One view of a text, folded; ``original`` maps a span of the folded text back to the text as written."""

    def __init__(self, source: str, segments: re.Pattern | None):
        self.source = source
        self._segments = segments
        if segments is None and source.isascii() and not any(c in source for c in _MARKUP_CHARACTERS):
            self.text = source.lower()  # most text: what the table does to it, 3× faster
        else:
            self.text = (segments.sub(_replacement, source) if segments else source).translate(_TABLE)
        self._starts: list[int] | None = None
        self._ends: list[int] = []

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The span of the source that the folded characters ``start``..``end`` (not empty) came from."""
        if self._starts is None:
            self._map()
        assert self._starts is not None
        return self._starts[start], self._ends[end - 1]

    def _map(self) -> None:
        starts: list[int] = []
        ends: list[int] = []
        position = 0
        matches = self._segments.finditer(self.source) if self._segments else ()
        for match in (*matches, None):
            stop = match.start() if match else len(self.source)
            for i in range(position, stop):
                n = len(_TABLE[ord(self.source[i])])
                starts += [i] * n
                ends += [i + 1] * n
            if match:
                n = len(_replacement(match).translate(_TABLE))
                starts += [match.start()] * n
                ends += [match.end()] * n
                position = match.end()
        assert len(starts) == len(self.text), "the map and the folded text agree"
        self._starts, self._ends = starts, ends


def fold(text: str) -> str:
    """``text`` folded for matching (the module's docstring says how)."""
    return views(text)[0].text


def views(text: str) -> list[Folded]:
    """The folded views of ``text`` in which names are searched: tags dropped, and, where it has a tag with
    attributes, tags with attributes kept."""
    if "<" not in text and "&" not in text:
        return [Folded(text, None)]
    first = Folded(text, _WITH_TAGS)
    return [first, Folded(text, _WITH_BARE_TAGS)] if _TAG_WITH_ATTRIBUTES.search(text) else [first]


# Scripts written without spaces between words (CJK ideographs, kana, hangul, bopomofo, CJK compatibility): a
# name beside one of their characters still stands alone.
UNSPACED = ("\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
            "\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f")
UNSPACED_CHARACTER = re.compile(f"[{UNSPACED}]")
_WORD = re.compile(r"\w+")
_SPACED_WORD = re.compile(f"[^\\W{UNSPACED}]+")
# Not after, not before, a letter or digit of a script written with spaces.
WORD_START = rf"(?<![^\W{UNSPACED}])"
WORD_END = rf"(?![^\W{UNSPACED}])"
# Between the parts of a name: any separator, or none ("GPT-4o", "GPT 4o", "GPT4o", "DALL·E").
SEPARATOR = r"[\s\-./·]?"
_PARTS = re.compile(r"[\s\-./·:]+")
# Russian case endings, folded: a Cyrillic name is found declined ("Сбера", "Клодом", "Алисой").
_ENDINGS = ("а", "я", "у", "ю", "ом", "ем", "ой", "ей", "ою", "е", "ы", "и", "ь", "ов", "ам", "ами", "ах")
_STEM_VOWELS = "аяьйо"


@functools.cache
def _canonical_table() -> dict[int, str]:
    """A small letter → the ASCII letter its capital folds to, where the small one folds to itself (Cyrillic "к",
    "м", "н", "т", "в", Greek "κ", "τ", …): one character for one, so spans of the folded text still hold."""
    table = {}
    for c in confusables():
        small = c.lower()
        if len(small) != 1 or small == c or not unicodedata.name(c, "").startswith(("CYRILLIC", "GREEK")):
            continue
        capital, folded = _fold_plain(c), _fold_plain(small)
        if len(capital) == 1 and len(folded) == 1 and capital != folded and capital.isascii() and capital.isalpha():
            table[ord(folded)] = capital
    return table


def canonical(folded: str) -> str:
    """``folded`` with the small look-alike letters as their capitals read (same length, same positions); ``fold``
    does it already."""
    return folded.translate(_canonical_table()) if not folded.isascii() else folded


def word_starts(folded: str) -> set[str]:
    """The first three letters or digits of each word of ``folded`` written in a script with spaces (Latin,
    Cyrillic, …; a run of them inside Chinese text is a word): where a name written in such letters may start."""
    if not folded.isascii() and UNSPACED_CHARACTER.search(folded):
        return {w[:3] for w in _SPACED_WORD.findall(folded)}
    return {w[:3] for w in _WORD.findall(folded)}


def _cyrillic_end(written: str) -> bool:
    letters = [c for c in written if c.isalpha()]
    return bool(letters) and unicodedata.name(letters[-1], "").startswith("CYRILLIC")


@dataclass(frozen=True)
class Name:
    """A name as a folded text spells it: ``anchor``, a plain string every match starts with (look
    for it first), and ``pattern``, which matches at its occurrences (``finditer``)."""

    anchor: str
    pattern: re.Pattern

    def finditer(self, text: str) -> Iterator[re.Match]:
        """The matches in ``text`` (folded), left to right, none overlapping."""
        at, end = text.find(self.anchor), 0
        while at >= 0:
            if at >= end and (match := self.pattern.match(text, at)):
                yield match
                end = match.end()
            at = text.find(self.anchor, at + 1)


@functools.lru_cache(maxsize=4096)
def name_pattern(written: str, *, extension: str = "") -> Name | None:
    """How ``written`` (a name, as a text wrote it) is found in a folded text: whole, any separator
    or none between its parts, declined where it ends in a Cyrillic letter, then any number of ``extension`` (a
    pattern: versions, say; the group ``extension``); None when nothing of it survives folding."""
    parts = [p for p in _PARTS.split(fold(written)) if p]
    if not parts:
        return None
    tail = ""
    if _cyrillic_end(written):
        last = written.rstrip()[-1].lower()
        folded_last = fold(last)
        # A stem of four letters at least: "Алиса" → "Алис-", but "Мета" stays (or "я мету" would read "Мет-у").
        if last in _STEM_VOWELS and parts[-1].endswith(folded_last) and len(parts[-1]) >= len(folded_last) + 4:
            parts[-1] = parts[-1][: -len(folded_last)]
        endings = sorted({fold(e) for e in _ENDINGS}, key=len, reverse=True)
        tail = f"(?:{'|'.join(re.escape(e) for e in endings)})?"
    body = SEPARATOR.join(re.escape(p) for p in parts) + tail
    start = "" if UNSPACED_CHARACTER.match(parts[0][0]) else WORD_START
    end = "" if UNSPACED_CHARACTER.match(parts[-1][-1]) and not tail else WORD_END
    if extension:
        return Name(parts[0], re.compile(f"{start}{body}(?:(?P<extension>(?:{extension})+){WORD_END}|{end})"))
    return Name(parts[0], re.compile(f"{start}{body}{end}"))


class Mask:
    """The names of one display that must never reach its annotator: ``secrets`` anywhere in a text (model names,
    external ids), ``words`` as whole words (the self-identifications found at import), both matched folded."""

    def __init__(self, secrets: Iterable[str] = (), words: Iterable[str] = ()):
        # Folded, a secret shorter than three characters would hide half the text's short words.
        self.secrets = sorted({f for s in secrets if len(f := fold(s)) >= 3}, key=len, reverse=True)
        names = {name.pattern.pattern: name for w in words if (name := name_pattern(w))}
        self.words = [names[p] for p in sorted(names, key=len, reverse=True)]

    def redact(self, text: str) -> str:
        """``text`` with every span that reads as one of the names replaced by REDACTED; the rest as written.
        Idempotent: the result holds no name, and a REDACTED already there is never matched again."""
        if not (self.secrets or self.words) or not text:
            return text
        while spans := self._spans(text):
            out, position = [], 0
            for start, end in spans:
                out += [text[position:start], REDACTED]
                position = end
            out.append(text[position:])
            text = "".join(out)
        return text

    def _spans(self, text: str) -> list[tuple[int, int]]:
        """The spans of ``text`` to replace, in order, overlapping or touching ones merged, none touching a REDACTED."""
        found = []
        for view in views(text):
            folded = view.text
            for secret in self.secrets:
                at = folded.find(secret)
                while at >= 0:
                    found.append(view.original(at, at + len(secret)))
                    at = folded.find(secret, at + 1)
            for word in self.words:
                for match in word.finditer(folded):
                    found.append(view.original(*match.span()))
        if not found:
            return []
        kept = [span for span in found if not _touches_redacted(text, *span)]
        merged: list[tuple[int, int]] = []
        for start, end in sorted(kept):
            # Touching spans too: two names side by side ("腾讯" "混元大模型") are one "[hidden]".
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        return merged


def _touches_redacted(text: str, start: int, end: int) -> bool:
    """Whether ``start``..``end`` overlaps a REDACTED already in ``text`` (which must stay as it is)."""
    if REDACTED not in text:
        return False
    at = text.find(REDACTED, max(0, start - len(REDACTED) + 1))
    return 0 <= at < end
