"""Streaming readers: records come one at a time with the line they start on, whatever the chunking."""

import io
import json

import pytest

from annotation.importers import streams
from annotation.importers.streams import CountingReader, iter_json_array, iter_jsonl


def reader(data: bytes) -> CountingReader:
    return CountingReader(io.BytesIO(data))


@pytest.fixture(params=[7, 64, 1 << 20], ids=["chunk-7", "chunk-64", "chunk-1MiB"])
def chunk(request, monkeypatch):
    monkeypatch.setattr(streams, "CHUNK", request.param)
    return request.param


def test_array_elements_under_a_key_stream_with_their_starting_lines(chunk):
    pairs = [{"id": f"p{i}", "n": 10 ** i, "x": [1.5, True, None, "é"]} for i in range(5)]
    text = json.dumps({"meta": {"v": [1, 2]}, "pairs": pairs, "after": 12345}, indent=2)
    records = list(iter_json_array(reader(text.encode()), key="pairs"))
    assert [r.value for r in records] == pairs, "numbers cut by a chunk boundary are read whole"
    lines = text.splitlines()
    assert [lines[r.line - 1].strip() for r in records] == ["{"] * 5
    assert lines[records[1].line].strip() == '"id": "p1",'


def test_a_top_level_array_streams_too(chunk):
    records = list(iter_json_array(reader(b'\xef\xbb\xbf[ {"a": 1},\n{"a": 2} ]')))
    assert [(r.line, r.value) for r in records] == [(1, {"a": 1}), (2, {"a": 2})]


def test_a_syntax_error_in_an_array_is_fatal_after_the_good_elements(chunk):
    text = b'{"pairs": [\n{"a": 1},\n{"a": 2,,},\n{"a": 3}\n]}'
    records = list(iter_json_array(reader(text), key="pairs"))
    assert [r.value for r in records[:-1]] == [{"a": 1}]
    assert records[-1].fatal
    assert records[-1].error.startswith("invalid JSON at line 3: ")


def test_invalid_utf8_in_an_array_is_fatal(chunk):
    records = list(iter_json_array(reader(b'{"pairs": [{"a": "ok"}, {"a": "\xff"}]}'), key="pairs"))
    assert records[0].value == {"a": "ok"}
    assert records[-1].fatal and "invalid UTF-8 near byte 32 of the file" in records[-1].error


def test_a_file_without_the_list_says_so():
    records = list(iter_json_array(reader(b'{"items": []}'), key="pairs"))
    assert [(r.error, r.fatal) for r in records] == [('the file has no "pairs" list', True)]
    records = list(iter_json_array(reader(b'{"pairs": {"a": 1}}'), key="pairs"))
    assert records[-1].error == "invalid JSON at line 1: expected a list, found '{'"


def test_jsonl_reports_each_bad_line_and_goes_on():
    data = b'{"a": 1}\n\n{"a": \n\xff\n[1]\n{"b": 2}'
    records = list(iter_jsonl(reader(data)))
    assert [(r.line, r.value, r.error) for r in records] == [
        (1, {"a": 1}, None),
        (3, None, "invalid JSON: Expecting value at column 7"),
        (4, None, "invalid UTF-8 at byte 1 of the line"),
        (5, [1], None),
        (6, {"b": 2}, None),
    ]


def test_an_overlong_jsonl_line_is_refused_without_reading_it_whole(monkeypatch):
    monkeypatch.setattr(streams, "MAX_RECORD_BYTES", 32)
    data = b'{"a": "' + b"x" * 100 + b'"}\n{"a": 2}\n'
    records = list(iter_jsonl(reader(data)))
    assert [(r.line, r.error) for r in records] == [(1, "the line is longer than 32 bytes"), (2, None)]
    assert records[1].value == {"a": 2}


def test_the_reader_counts_bytes_for_progress():
    data = b'{"a": 1}\n{"a": 2}\n'
    counted = reader(data)
    assert counted.first_character() == "{"
    assert len(list(iter_jsonl(counted))) == 2
    assert counted.bytes_read == len(data)
