"""Streaming readers: JSON Lines and the elements of a JSON array, one record at a time.

Neither reader holds more than one record (plus a read-ahead chunk) in memory, whatever the
file size. Each yields ``Record(line, value, error)``; ``line`` is the 1-based line where the
record starts. A broken line of a JSONL file is reported and skipped; a JSON array cannot be
resynchronised after a syntax error, so that error is ``fatal`` and ends the stream.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from core.text_checks import HostileInput, check_json_depth, check_json_value

MAX_RECORD_BYTES = 64 * 1024 * 1024
# A JSON Lines record nested deeper than this is refused before it is parsed.
MAX_DEPTH = 64
CHUNK = 1024 * 1024
_WHITESPACE = " \t\n\r"


@dataclass
class Record:
    line: int
    value: object = None
    error: str | None = None
    fatal: bool = False


class CountingReader:
    """A binary reader that counts the bytes consumed (for progress) and can peek at the start."""

    def __init__(self, raw: BinaryIO):
        self.raw = raw
        self.bytes_read = 0
        self._pushed = b""

    def read(self, size: int = -1) -> bytes:
        if self._pushed:
            data, self._pushed = self._pushed, b""
        else:
            data = self.raw.read(size)
        self.bytes_read += len(data)
        return data

    def readline(self, size: int = -1) -> bytes:
        if self._pushed:
            head, newline, rest = self._pushed.partition(b"\n")
            if newline:
                self._pushed = rest
                self.bytes_read += len(head) + 1
                return head + newline
            self._pushed = b""
            self.bytes_read += len(head)
            return head + self.readline(size - len(head) if size > 0 else size)
        data = self.raw.readline(size)
        self.bytes_read += len(data)
        return data

    def first_character(self) -> str:
        """The first non-blank character of the file (not consumed); '' when the file is blank."""
        peeked = b""
        while len(peeked) < CHUNK and (data := self.raw.read(4096)):
            peeked += data
            stripped = peeked.removeprefix(codecs.BOM_UTF8).lstrip(b" \t\r\n")
            if stripped:
                break
        self._pushed = peeked + self._pushed
        stripped = peeked.removeprefix(codecs.BOM_UTF8).lstrip(b" \t\r\n")
        return chr(stripped[0]) if stripped else ""


def iter_jsonl(reader: CountingReader) -> Iterator[Record]:
    """One record per non-blank line; each bad line gets its own error and the next line is read."""
    number = 0
    while True:
        raw = reader.readline(MAX_RECORD_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_RECORD_BYTES and not raw.endswith(b"\n"):
            while (rest := reader.readline(CHUNK)) and not rest.endswith(b"\n"):
                pass
            yield Record(number, error=f"the line is longer than {MAX_RECORD_BYTES:,} bytes")
            continue
        if number == 1 and raw.startswith(codecs.BOM_UTF8):
            raw = raw[len(codecs.BOM_UTF8):]
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield Record(number, error=f"invalid UTF-8 at byte {exc.start + 1} of the line")
            continue
        if not line.strip():
            continue
        try:
            check_json_depth(raw, limit=MAX_DEPTH)
            value = json.loads(line.rstrip("\r\n"))
        except HostileInput as exc:
            yield Record(number, error=str(exc))
            continue
        except json.JSONDecodeError as exc:
            yield Record(number, error=f"invalid JSON: {exc.msg} at column {exc.colno}")
            continue
        except ValueError:  # what int() refuses: more digits than sys.get_int_max_str_digits()
            yield Record(number, error=_too_many_digits())
            continue
        yield _checked(number, value)


def _too_many_digits() -> str:
    return f"a number has more than {sys.get_int_max_str_digits():,} digits, which is not accepted"


def _int_or_none(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def _checked(line: int, value) -> Record:
    """The record, or its error when a key or string holds text that cannot be stored."""
    try:
        check_json_value(value, where="the record")
    except HostileInput as exc:
        return Record(line, error=str(exc))
    return Record(line, value=value)


class _ArrayStream:
    """A hand-written incremental reader of ``[v, v, ...]`` or ``{"key": [v, v, ...], ...}``."""

    def __init__(self, reader: CountingReader):
        self.reader = reader
        self.decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self.json = json.JSONDecoder()
        # Only to read past a record holding an integer int() refuses, which is then that record's error.
        self.lenient = json.JSONDecoder(parse_int=_int_or_none)
        self.buf = ""
        self.pos = 0
        self.line = 1
        self.line_pos = 0
        self.eof = False
        self.broken = ""

    def fill(self) -> bool:
        """Read one more chunk; False at the end of the file."""
        if self.broken:
            raise _Broken(self.broken)
        if self.eof:
            return False
        data = self.reader.read(CHUNK)
        try:
            text = self.decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            # keep the valid text before the bad byte, so the records it holds are still read
            at = self.reader.bytes_read - len(data) + exc.start
            self.broken = f"invalid UTF-8 near byte {at + 1} of the file"
            text = data[: max(exc.start, 0)].decode("utf-8", errors="ignore")
        if not data:
            self.eof = True
        if self.pos > CHUNK:
            self._advance_line(self.pos)
            self.buf, self.pos, self.line_pos = self.buf[self.pos:], 0, 0
        if self.buf == "" and text.startswith("\ufeff"):
            text = text[1:]
        self.buf += text
        return bool(data)

    def _advance_line(self, upto: int) -> None:
        self.line += self.buf.count("\n", self.line_pos, upto)
        self.line_pos = upto

    def current_line(self) -> int:
        self._advance_line(self.pos)
        return self.line

    def skip_ws(self) -> str:
        """The next non-blank character (not consumed); '' at the end of the file."""
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in _WHITESPACE:
                self.pos += 1
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.fill():
                return ""

    def expect(self, chars: str, what: str) -> str:
        found = self.skip_ws()
        if not found or found not in chars:
            got = repr(found) if found else "the end of the file"
            raise _Broken(f"invalid JSON at line {self.current_line()}: expected {what}, found {got}")
        self.pos += 1
        return found

    def value(self) -> object:
        """Decode the JSON value starting at the cursor, reading more of the file as needed."""
        try:
            return self._decode(self.json)
        except ValueError:  # not a syntax error (those are _Broken): an integer int() refuses
            self._decode(self.lenient)  # read past the record, so the next one can be read
            raise _BadRecord(_too_many_digits()) from None

    def _decode(self, decoder: json.JSONDecoder) -> object:
        self.skip_ws()
        while True:
            try:
                value, end = decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if len(self.buf) - self.pos > MAX_RECORD_BYTES:
                    raise _Broken(f"a record at line {self.current_line()} is invalid or longer than "
                                  f"{MAX_RECORD_BYTES:,} characters") from exc
                if self.fill():
                    continue
                raise _Broken(f"invalid JSON at line {self.line + exc.doc.count(chr(10), self.line_pos, exc.pos)}: "
                              f"{exc.msg}") from exc
            # a number cut by the chunk boundary decodes "successfully" short; make sure it ended
            if end == len(self.buf) and not self.eof and self.fill():
                continue
            self.pos = end
            return value


class _Broken(Exception):
    """The container itself is malformed; nothing after this point can be read."""


class _BadRecord(Exception):
    """The record just read past cannot be taken; the next one can be read."""


def iter_json_array(reader: CountingReader, *, key: str | None = None) -> Iterator[Record]:
    """Elements of the top-level array, or of the array under top-level ``key`` of an object."""
    stream = _ArrayStream(reader)
    try:
        if key is None:
            yield from _elements(stream)
            return
        stream.expect("{", "an object")
        found = False
        while stream.skip_ws() != "}":
            name = stream.value()
            if not isinstance(name, str):
                raise _Broken(f"invalid JSON at line {stream.current_line()}: expected a key")
            stream.expect(":", "':'")
            if name == key:
                found = True
                yield from _elements(stream)
            else:
                with contextlib.suppress(_BadRecord):  # a value beside the list is not a record: nothing to report
                    stream.value()
            if stream.expect(",}", "',' or '}'") == "}":
                break
        else:
            stream.pos += 1
        if not found:
            raise _Broken(f'the file has no "{key}" list')
        if stream.skip_ws():
            raise _Broken(f"unexpected data after the JSON object at line {stream.current_line()}")
    except _Broken as exc:
        yield Record(stream.current_line(), error=str(exc), fatal=True)


def _elements(stream: _ArrayStream) -> Iterator[Record]:
    stream.expect("[", "a list")
    if stream.skip_ws() == "]":
        stream.pos += 1
        return
    while True:
        stream.skip_ws()
        line = stream.current_line()
        try:
            record = _checked(line, stream.value())
        except _BadRecord as exc:
            record = Record(line, error=str(exc))
        yield record
        if stream.expect(",]", "',' or ']'") == "]":
            return
