"""Hostile input: each bad row gets a precise error, good rows still import, and nothing is half-written."""

import io
import os

import pytest
from django.core.files.storage import default_storage
from django.core.management import CommandError
from PIL import Image

from annotation.catalogue import records as rows
from annotation.catalogue.models import Media, Pair, Prompt, Response
from annotation.importers.pairs import pairs_create_many
from tests.catalogue.import_helpers import concord_pair, mp4_bytes, png_bytes, run_import, run_import_json, write_jsonl
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db

CAMPAIGN = ("--campaign", "hostile", "--format", "concord", "--task", "text-to-image")


@pytest.fixture
def media_root(tmp_path):
    root = tmp_path / "media"
    root.mkdir()
    (root / "good.png").write_bytes(png_bytes(1))
    (root / "other.png").write_bytes(png_bytes(2))
    (tmp_path / "secret.png").write_bytes(png_bytes(3))
    os.symlink(tmp_path / "secret.png", root / "escape.png")
    (root / "clip.mp4").write_bytes(png_bytes(4))
    (root / "page.jpg").write_bytes(b"<html><body>not an image</body></html>")
    (root / "movie.mp4").write_bytes(mp4_bytes())
    return root


def import_one(tmp_path, media_root, record) -> tuple[int, dict]:
    """Import a good row, the hostile one, and another good row; return the hostile row's outcome."""
    path = write_jsonl(tmp_path / "rows.jsonl", [concord_pair(100, a_file="good.png"), record, concord_pair(102)])
    return run_import_json(path, *CAMPAIGN, "--media-root", str(media_root))


@pytest.mark.parametrize(
    ("file", "message"),
    [
        ("../secret.png", "../secret.png: paths may not contain '..'"),
        ("/etc/passwd", "/etc/passwd: absolute paths are not allowed"),
        ("escape.png", "escape.png: the path leaves the media root (symlink)"),
        ("nothing-here.png", "nothing-here.png: file not found under the media root"),
        ("clip.mp4", "clip.mp4: the name says video but the bytes are image/png"),
        ("page.jpg", "page.jpg: not a recognised image, video, audio or 3D file"),
        ("movie.mp4", "response_a.content: movie.mp4 is video/mp4, not the image the block says"),
    ],
)
def test_a_refused_media_file_fails_its_row_and_stores_nothing_of_it(tmp_path, media_root, file, message):
    code, summary = import_one(tmp_path, media_root, concord_pair(101, a_file=file, b_file="other.png"))
    assert code == 2
    assert summary["errors"] == [{"line": 2, "message": message}]
    assert summary["created"] == 2
    assert not Pair.objects.filter(external_id="pair-101").exists()
    other = Media.objects.filter(width=8, height=6).exclude(pk__in=Pair.objects.values("media"))
    assert not other.exists(), "other.png belongs only to the failed row, so it must not be stored"
    assert Media.objects.count() == 1


def test_a_decompression_bomb_is_refused(tmp_path, media_root, settings):
    buffer = io.BytesIO()
    Image.new("1", (8000, 6000)).save(buffer, "PNG")
    assert len(buffer.getvalue()) < 100_000, "a bomb: tiny on disk, huge once decoded"
    (media_root / "bomb.png").write_bytes(buffer.getvalue())
    code, summary = import_one(tmp_path, media_root, concord_pair(101, a_file="bomb.png"))
    assert code == 2
    assert summary["errors"][0]["message"] == "bomb.png: 8000×6000 pixels exceeds the limit of 40,000,000"


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path, media_root, settings):
    settings.CONCORD_MAX_MEDIA_BYTES = 200
    (media_root / "large.png").write_bytes(png_bytes(5) + b"\0" * 300)
    code, summary = import_one(tmp_path, media_root, concord_pair(101, a_file="large.png"))
    assert code == 2
    assert summary["errors"][0]["message"].startswith("large.png: ")
    assert summary["errors"][0]["message"].endswith("bytes exceeds the limit of 200")


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({**concord_pair(101), "prompt": "draw a cat"}, "prompt: expected an object, got a string"),
        ({**concord_pair(101), "response_a": {"model": "m", "content": "hi"}},
         "response_a.content: expected a list of blocks, got str"),
        ({**concord_pair(101), "response_b": {"model": 7.5, "content": [{"type": "text", "text": "x"}]}},
         "response_b.model: expected a string, got a number"),
        ({**concord_pair(101), "response_a": {"model": "m", "content": [{"type": "hologram"}]}},
         "response_a.content[0]: unknown block type 'hologram'; expected one of text, code, tool_call, reasoning, "
         "final_answer, image, video, audio, model3d"),
        ({**concord_pair(101), "priority": "high"}, "priority: expected a whole number from -32768 to 32767"),
        ({**concord_pair(101), "criteria": "sharpness"}, "criteria: expected a list of non-empty strings"),
        ({**concord_pair(101), "id": "x" * 301}, "id: longer than 300 characters"),
        ({**concord_pair(101), "response_b": concord_pair(101)["response_a"]},
         "response_a and response_b are the same response (same model and content)"),
        ({**concord_pair(101), "response_a": {"model": "m", "content": [{"type": "image", "media": "ab" * 32}]}},
         f"media {'ab' * 32} is not stored in Concord"),
        ([1, 2, 3], "the line: expected an object, got a list"),
    ],
)
def test_wrong_types_and_shapes_get_a_precise_error(tmp_path, media_root, record, message):
    code, summary = import_one(tmp_path, media_root, record)
    assert code == 2
    assert summary["errors"] == [{"line": 2, "message": message}]
    assert summary["created"] == 2


def test_invalid_utf8_and_invalid_json_lines_are_reported_and_skipped(tmp_path):
    path = tmp_path / "broken.jsonl"
    good = write_jsonl(tmp_path / "good.jsonl", [concord_pair(0), concord_pair(1)]).read_bytes().splitlines()
    path.write_bytes(b"\n".join([good[0], b'{"id": "caf\xe9"}', b'{"id": "x", ', b"", good[1]]) + b"\n")
    code, summary = run_import_json(path, *CAMPAIGN)
    assert code == 2
    assert summary["created"] == 2
    assert summary["errors"] == [
        {"line": 2, "message": "invalid UTF-8 at byte 12 of the line"},
        {"line": 3, "message": "invalid JSON: Expecting property name enclosed in double quotes at column 13"},
    ]


def test_an_unknown_task_kind_is_refused(tmp_path):
    path = write_jsonl(tmp_path / "rows.jsonl", [concord_pair(0)])
    with pytest.raises(CommandError, match="invalid choice: 'text-to-smell'"):
        run_import(path, "--campaign", "c", "--format", "concord", "--task", "text-to-smell")
    from annotation.catalogue.services.campaigns import campaign_get_or_create
    from core.errors import ApplicationError

    with pytest.raises(ApplicationError, match="unknown task kind 'text-to-smell'"):
        campaign_get_or_create(slug="c", kind="text-to-smell", preset=None)
    assert Pair.objects.count() == 0


def test_a_row_the_database_refuses_does_not_take_its_batch_down(tmp_path):
    """The batch is retried row by row; the refused row leaves no prompt or response behind.

    The refused row breaks a NOT NULL column, which both engines enforce (SQLite ignores varchar lengths)."""
    campaign = CampaignFactory()

    def row(n: int, source: str | None = "bench") -> rows.PairRow:
        return rows.PairRow(
            line=n, external_id=f"p{n}",
            prompt=rows.PromptRow(external_id=f"prompt-{n}", source=source, source_task="", metadata={}, content=[]),
            response_a=rows.ResponseRow("m1", [{"type": "text", "text": f"a{n}", "format": "plain"}]),
            response_b=rows.ResponseRow("m2", [{"type": "text", "text": f"b{n}", "format": "plain"}]),
        )

    outcome = pairs_create_many(campaign=campaign, batch=[row(1), row(2, source=None), row(3)], media_ids={})
    assert outcome.created == 2
    assert [line for line, _ in outcome.errors] == [2]
    assert "the database refused the row" in outcome.errors[0][1]
    assert not Prompt.objects.filter(external_id="prompt-2").exists()
    assert Response.objects.filter(prompt__campaign=campaign).count() == 4


def test_a_row_the_writer_trips_on_fails_alone_and_the_rest_of_its_batch_is_written():
    """Not only the database's refusals: any exception writing a batch retries it row by row (here a row names a
    media digest the batch's media ids lack, which the import's own checks would have caught)."""
    campaign = CampaignFactory()

    def row(n: int, blocks: list | None = None) -> rows.PairRow:
        return rows.PairRow(
            line=n, external_id=f"p{n}",
            prompt=rows.PromptRow(external_id=f"prompt-{n}", source="bench", source_task="", metadata={},
                                  content=blocks or []),
            response_a=rows.ResponseRow("m1", [{"type": "text", "text": f"a{n}", "format": "plain"}]),
            response_b=rows.ResponseRow("m2", [{"type": "text", "text": f"b{n}", "format": "plain"}]),
        )

    digest = "ab" * 32
    outcome = pairs_create_many(campaign=campaign, batch=[row(1), row(2, [{"type": "image", "media": digest}]), row(3)],
                                media_ids={})
    assert (outcome.created, outcome.errors) == (2, [(2, f"the row could not be written (KeyError: '{digest}')")])
    assert not Prompt.objects.filter(external_id="prompt-2").exists()


def test_media_of_good_rows_are_stored_under_their_digest_only(tmp_path, media_root):
    path = write_jsonl(tmp_path / "rows.jsonl", [concord_pair(0, a_file="good.png")])
    run_import_json(path, *CAMPAIGN, "--media-root", str(media_root))
    media = Media.objects.get()
    assert media.file.name == f"media/{media.sha256[:2]}/{media.sha256}.png"
    assert default_storage.exists(media.file.name)
    assert "good" not in media.file.name
