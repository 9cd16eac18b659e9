"""One row never aborts an import: whatever goes wrong with a row (a hostile media path, a number Python cannot
read, an exception no check foresaw) is that row's error with its line, and the rest of the file imports. Each
stored error is bounded, and the job's error keeps its beginning."""

import decimal
import importlib
import io
import json
import os
import zipfile

import pytest
from PIL import Image

from annotation.catalogue.models import Pair
from annotation.jobs.models import Job
from tests.catalogue.import_helpers import concord_pair, png_bytes, run_import_json, write_jsonl
from tests.catalogue.test_import_api import client_for, upload
from tests.factories import CuratorFactory

pytestmark = pytest.mark.django_db

LONG_PATH = "media/" + "a" * 4994  # 5,000 characters
LONG_NAME = "media/" + "n" * 300 + ".png"  # one name longer than a file system allows


def _line(record) -> bytes:
    return record if isinstance(record, bytes) else json.dumps(record).encode()


def _mixed_file() -> tuple[list[bytes], dict[str, bytes], list[int]]:
    """31 lines: 9 good rows (18 files, enough to be inspected side by side), 21 bad rows of many kinds, and the row
    naming a 5,000-character media path; the media; the good rows' lines."""
    good = [concord_pair(i, a_file=f"media/a{i}.png", b_file=f"media/b{i}.png") for i in range(9)]
    media = {f"media/{side}{i}.png": png_bytes(i * 2 + (side == "b")) for i in range(9) for side in "ab"}
    media["media/page.png"] = b"<html>not an image</html>"
    media["media/clip.mp4"] = png_bytes(99)
    same = concord_pair(40)
    same["response_b"] = same["response_a"]
    no_model = concord_pair(41)
    del no_model["response_a"]["model"]
    bad = [
        b"{not json",
        b'"a string"',
        {"broken": True},
        no_model,
        concord_pair(42, priority="high"),
        concord_pair(43, metadata=[]),
        concord_pair(44, criteria=[""]),
        {**concord_pair(45), "response_b": {"model": "m", "content": []}},
        same,
        concord_pair(46, a_file="../secret.png"),
        concord_pair(47, a_file="/etc/passwd"),
        concord_pair(48, a_file="media/missing.png"),
        concord_pair(49, a_file="media/page.png"),
        concord_pair(50, a_file="media/clip.mp4"),
        _line(concord_pair(51)).replace(b"answer a 51", b"answer \\u0000 51"),
        _line(concord_pair(52)).replace(b'"n": 26', b'"n": 1e999'),
        _line(concord_pair(53)).replace(b'"n": 26', b'"n": ' + b"7" * 5000),
        _line(concord_pair(54)).replace(b'"n": 27', b'"n": ' + b"[" * 70 + b"]" * 70),
        _line(concord_pair(55)).replace(b"answer a 55", b"answer \xff 55"),
        concord_pair(56, a_file=LONG_NAME),
        {**concord_pair(57), "prompt": {**concord_pair(57)["prompt"], "id": "p" * 600}},
    ]
    long_path = concord_pair(58, a_file=LONG_PATH)
    lines = [_line(r) for r in good[:4]] + [_line(long_path)] + [_line(r) for r in bad[:10]] + [_line(good[4])] + [
        _line(r) for r in bad[10:]] + [_line(r) for r in good[5:]]
    return lines, media, [1, 2, 3, 4, 16, 28, 29, 30, 31]


def _zip(lines: list[bytes], media: dict[str, bytes]) -> bytes:
    bundle = io.BytesIO()
    with zipfile.ZipFile(bundle, "w") as archive:
        archive.writestr("pairs.jsonl", b"\n".join(lines) + b"\n")
        for name, data in media.items():
            archive.writestr(name, data)
    return bundle.getvalue()


def test_a_file_with_a_5000_character_media_path_imports_its_good_rows_and_reports_every_bad_one(
        django_capture_on_commit_callbacks):
    lines, media, good_lines = _mixed_file()
    assert len(lines) == 31
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(client_for(CuratorFactory()), "mixed.zip", _zip(lines, media))
    job = Job.objects.get(pk=response.json()["id"])
    assert job.status == Job.Status.PARTIAL, job.error[:500]
    assert job.result["created"] == 9
    assert job.result["summary"] == "9 of 31 rows imported (9 created, 0 already present); 22 failed"
    assert Pair.objects.filter(campaign__slug="uploaded").count() == 9
    errors = job.result["errors"]
    assert sorted(e["line"] for e in errors) == sorted(set(range(1, 32)) - set(good_lines)), errors
    by_line = {e["line"]: e["message"] for e in errors}
    assert by_line[5] == ("media/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa… "
                          "(4,920 more characters): the media path is 5,000 characters; the limit is 1,024")
    assert by_line[23] == "a number has more than 4,300 digits, which is not accepted"
    assert by_line[26].endswith(": a folder or file name in the path is 304 bytes; the limit is 255")
    assert by_line[22] == "prompt.metadata.n is not a finite number (infinity), which is not accepted."


def _fail_on(monkeypatch, target, attribute: str, exc: Exception, *, when) -> None:
    """Make ``target.attribute`` raise ``exc`` for the calls ``when(args, kwargs)`` picks (in the reader child too:
    it is forked after this)."""
    real = getattr(target, attribute)

    def patched(*args, **kwargs):
        if when(args, kwargs):
            raise exc
        return real(*args, **kwargs)

    monkeypatch.setattr(target, attribute, patched)


def _cli_file(tmp_path, *, rated: bool = False) -> tuple:
    """Four good rows with their images (the second with a rating when ``rated``), and a loop of two links."""
    root = tmp_path / "media"
    root.mkdir()
    for i in range(4):
        (root / f"a{i}.png").write_bytes(png_bytes(i))
    os.symlink("loop-b.png", root / "loop-a.png")
    os.symlink("loop-a.png", root / "loop-b.png")
    records = [concord_pair(i, a_file=f"a{i}.png") for i in range(4)]
    if rated:
        records[1]["annotations"] = [{"values": {"preference": "A"}}]
    return write_jsonl(tmp_path / "rows.jsonl", records), root


def _import(path, root) -> tuple[int, dict]:
    return run_import_json(path, "--campaign", "rows", "--format", "concord", "--task", "text-to-image",
                           "--media-root", str(root), "--with-annotations")


@pytest.mark.parametrize(("target", "attribute", "exc", "when", "message"), [
    ("annotation.importers.concord", "parse", UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
     lambda args, kwargs: kwargs["line"] == 2,
     "the row could not be checked (UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: "
     "invalid start byte)"),
    ("annotation.importers.reader", "sniff", OSError("image file is truncated (3 bytes not processed)"),
     lambda args, kwargs: kwargs["name"] == "a1.png",
     "a1.png: the file cannot be read (image file is truncated (3 bytes not processed))"),
    ("annotation.importers.reader", "sniff", Image.DecompressionBombError("Image size (2000000000 pixels) exceeds limit"),
     lambda args, kwargs: kwargs["name"] == "a1.png",
     "a1.png: the row could not be checked (DecompressionBombError: Image size (2000000000 pixels) exceeds limit)"),
    ("annotation.catalogue.schemas", "validate_answers", decimal.InvalidOperation("[<class 'decimal.ConversionSyntax'>]"),
     lambda args, kwargs: True,
     "the row could not be checked (InvalidOperation: [<class 'decimal.ConversionSyntax'>])"),
])
def test_an_exception_no_check_foresaw_fails_its_row_alone(tmp_path, monkeypatch, target, attribute, exc, when, message):
    path, root = _cli_file(tmp_path, rated=attribute == "validate_answers")
    _fail_on(monkeypatch, importlib.import_module(target), attribute, exc, when=when)
    code, summary = _import(path, root)
    assert (code, summary["created"], summary["errors"]) == (2, 3, [{"line": 2, "message": message}])


def test_a_loop_of_symbolic_links_fails_its_row_alone(tmp_path):
    path, root = _cli_file(tmp_path)
    lines = path.read_text().splitlines()
    lines.insert(1, json.dumps(concord_pair(9, a_file="loop-a.png")))
    path.write_text("\n".join(lines) + "\n")
    code, summary = _import(path, root)
    assert (code, summary["created"]) == (2, 4)
    assert summary["errors"] == [{"line": 2, "message": "loop-a.png: the path is a loop of symbolic links"}]


def test_an_integer_too_long_for_python_fails_its_pair_alone_in_a_json_array(tmp_path):
    """A JSON array cannot be resynchronised after a syntax error, but this is no syntax error: the pair is read
    past, refused, and the pairs after it import."""
    def pair(n: int) -> dict:
        return {"id": f"p{n}", "prompt_source": "bench", "prompt_metadata": {"id": n},
                "response_a": {"model_name": "m1", "response_content": [["text", f"one {n}"]]},
                "response_b": {"model_name": "m2", "response_content": [["text", f"two {n}"]]}}

    text = json.dumps({"pairs": [pair(0), pair(1), pair(2)], "count": 3}, indent=1).replace(
        '"id": 1\n', '"id": ' + "1" * 5000 + "\n").replace('"count": 3', '"count": ' + "3" * 5000)
    path = tmp_path / "pairs.json"
    path.write_text(text)
    code, summary = run_import_json(path, "--campaign", "arr", "--format", "mmrb2", "--task", "text-to-image")
    assert (code, summary["created"]) == (2, 2)
    (error,) = summary["errors"]
    assert error["message"] == "a number has more than 4,300 digits, which is not accepted"
    assert text.splitlines()[error["line"] - 1].strip() == "{", "the line is where the refused pair starts"


def test_each_stored_row_error_is_cut_saying_how_much_and_the_list_says_how_many_more_rows_failed(tmp_path):
    long_field = {**concord_pair(0), "x" * 2000: 1}
    path = write_jsonl(tmp_path / "rows.jsonl", [long_field] + [{"broken": i} for i in range(1004)])
    code, summary = run_import_json(path, "--campaign", "many", "--format", "concord", "--task", "text-to-text")
    assert (code, summary["status"]) == (1, "failed"), "nothing was imported"
    first = summary["errors"][0]["message"]
    assert first == "unknown field(s): " + "x" * 482 + "… (1,518 more characters)"
    assert len(summary["errors"]) == 1001
    assert summary["errors"][-1] == {"line": 1001, "message": "5 more rows failed from this line on; they are not listed"}


def test_a_reader_failure_is_stored_from_its_beginning(monkeypatch, django_capture_on_commit_callbacks):
    """The job keeps what failed (the start of the message, with the exception's own message bounded) rather than
    the end of a traceback whose last line quotes 5,000 characters of a path."""
    from annotation.importers import services as imports

    def broken_reader(**kwargs):
        raise OSError(f"[Errno 36] File name too long: '{LONG_PATH}'")
        yield  # a generator, as the real reader

    monkeypatch.setattr(imports, "prepared_batches", broken_reader)
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(client_for(CuratorFactory()), "pairs.jsonl", b"{}\n")
    job = Job.objects.get(pk=response.json()["id"])
    assert job.status == Job.Status.FAILED
    assert job.error.startswith("the import's reader failed: OSError: [Errno 36] File name too long: 'media/aaaa")
    assert "more characters)\nTraceback (most recent call last):\n" in job.error
    assert len(job.error) <= 4_100


def test_an_upload_whose_every_row_failed_is_a_failed_job_listing_each_row(django_capture_on_commit_callbacks):
    data = b"".join(_line(r) + b"\n" for r in [{"broken": 1}, concord_pair(1, a_file="missing.png"), b"{"])
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(client_for(CuratorFactory()), "pairs.jsonl", data)
    job = Job.objects.get(pk=response.json()["id"])
    assert job.status == Job.Status.FAILED
    assert job.error.startswith("nothing was imported: 3 rows failed (every row failed); line 1: unknown field(s): "
                                "broken; line 2: missing.png: file not found under the media root; line 3: invalid JSON")
    assert sorted(e["line"] for e in job.result["errors"]) == [1, 2, 3]
    assert job.result["created"] == 0


def test_a_strict_upload_with_a_failed_row_is_a_failed_job(django_capture_on_commit_callbacks):
    data = b"".join(_line(r) + b"\n" for r in [concord_pair(0), {"broken": 1}])
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(client_for(CuratorFactory()), "pairs.jsonl", data, strict="true")
    job = Job.objects.get(pk=response.json()["id"])
    assert job.status == Job.Status.FAILED
    assert job.error.startswith("nothing was imported: 1 row failed (--strict imports a file only when every row is "
                                "good); line 2: unknown field(s): broken")
    assert not Pair.objects.exists()
