"""The import's reading side runs in a forked child: it overlaps the writer, fails loudly, never touches the database."""

import os
import signal

import pytest

from annotation.catalogue.models import Pair, Prompt
from annotation.importers.reader import ReaderFailed, in_child
from tests.catalogue.import_helpers import concord_pair, run_import_json, write_jsonl
from tests.conftest import skip_unless_postgresql
from tests.factories import CampaignFactory


def test_the_items_are_made_in_another_process_and_arrive_in_order():
    def produce():
        for i in range(5):
            yield (os.getpid(), i)

    got = list(in_child(produce))
    assert [i for _, i in got] == [0, 1, 2, 3, 4]
    assert {pid for pid, _ in got} != {os.getpid()}


def test_an_exception_in_the_child_reaches_the_caller_with_its_traceback():
    def produce():
        yield 1
        raise ValueError("the reader tripped on line 7")

    items = in_child(produce)
    assert next(items) == 1
    with pytest.raises(ReaderFailed, match="ValueError: the reader tripped on line 7"):
        next(items)


def test_a_child_killed_mid_file_is_reported_not_mistaken_for_the_end():
    def produce():
        yield 1
        os.kill(os.getpid(), signal.SIGKILL)
        yield 2

    items = in_child(produce)
    assert next(items) == 1
    with pytest.raises(ReaderFailed, match="ended unexpectedly .killed by signal 9."):
        next(items)


def test_a_caller_that_stops_early_stops_the_child():
    pids = []

    def produce():
        i = 0
        while True:  # endless: only the caller's stopping ends it
            yield (os.getpid(), "x" * 100_000, i)
            i += 1

    items = in_child(produce)
    pid, _, _ = next(items)
    pids.append(pid)
    items.close()  # what an error or a cancelled job does to the loop
    with pytest.raises(ProcessLookupError):
        os.kill(pids[0], 0)


@pytest.mark.django_db
def test_the_parents_database_session_survives_the_child(tmp_path):
    """The child inherits the open connection; it must neither use nor close it."""
    campaign = CampaignFactory(slug="survives", kind="text-to-text")
    path = write_jsonl(tmp_path / "pairs.jsonl", [concord_pair(i) for i in range(6)])
    code, summary = run_import_json(path, "--campaign", "survives", "--format", "concord")
    assert (code, summary["created"]) == (0, 6)
    # the same connection (and transaction) goes on working after the child has exited
    assert Pair.objects.filter(campaign=campaign).count() == 6
    assert Prompt.objects.filter(campaign=campaign).count() == 3


@pytest.mark.django_db
def test_metadata_with_integers_beyond_64_bits_is_stored_exactly(tmp_path):
    CampaignFactory(slug="bigint", kind="text-to-text")
    path = write_jsonl(tmp_path / "pairs.jsonl", [concord_pair(0, metadata={"seed": 2**80, "name": "é"})])
    code, summary = run_import_json(path, "--campaign", "bigint", "--format", "concord")
    assert (code, summary["created"]) == (0, 1)
    assert Pair.objects.get().metadata == {"seed": 2**80, "name": "é"}


@pytest.mark.django_db(transaction=True)
def test_two_imports_of_one_file_at_once_store_each_pair_and_file_once(tmp_path, request):
    """Both writers see the pairs as new; the unique constraint and the row-by-row retry sort it out."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection

    from annotation.catalogue.models import Media
    from annotation.importers.services import pairs_import
    from tests.catalogue.import_helpers import png_bytes

    skip_unless_postgresql(request.node, "SQLite serialises writers; the race needs PostgreSQL")
    campaign = CampaignFactory(slug="race", kind="text-to-image")
    (tmp_path / "img").mkdir()
    for i in range(40):
        (tmp_path / "img" / f"{i}.png").write_bytes(png_bytes(i))
    path = write_jsonl(tmp_path / "pairs.jsonl", [
        concord_pair(i, a_file=f"img/{i % 40}.png", b_file=f"img/{(i + 1) % 40}.png") for i in range(300)])

    def run(_):
        try:
            with path.open("rb") as stream:
                return pairs_import(campaign=campaign, stream=stream, fmt="concord", media_root=tmp_path, batch_size=50)
        finally:
            connection.close()

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(run, range(2)))
    assert [r.errors for r in results] == [[], []]
    assert sum(r.created for r in results) == 300
    assert sum(r.created + r.duplicates for r in results) == 600
    assert Pair.objects.filter(campaign=campaign).count() == 300
    assert Media.objects.count() == 40


def _read_in_a_daemon(queue):
    try:
        queue.put(list(in_child(lambda: iter(["a", "b"]))))
    except BaseException as exc:  # reported to the test, which fails on it
        queue.put(repr(exc))


def test_the_reader_starts_inside_a_daemonic_celery_pool_process():
    """Celery's prefork pool runs tasks in daemonic billiard processes; the upload import runs there."""
    import billiard

    queue = billiard.Queue()
    worker = billiard.Process(target=_read_in_a_daemon, args=(queue,), daemon=True)
    worker.start()
    assert queue.get(timeout=30) == ["a", "b"]
    worker.join(timeout=10)


def test_a_checked_row_crosses_the_pipe_unchanged(tmp_path):
    """Good pairs travel packed as one tuple; what arrives equals what was sent, JSON text still marked as such."""
    import pickle

    from annotation.catalogue import records as rows
    from annotation.catalogue import schemas
    from annotation.catalogue.services.bulk import Json
    from annotation.importers import FORMATS
    from annotation.importers.reader import prepared_batches
    from annotation.importers.services import relaxed_schema
    from annotation.importers.streams import CountingReader
    from tests.catalogue.import_helpers import png_bytes

    (tmp_path / "a.png").write_bytes(png_bytes(3))
    annotations = [{"rater": "r1", "values": {"preference": "A"}, "rationale": "sharper"}]
    path = write_jsonl(tmp_path / "pairs.jsonl", [concord_pair(0, a_file="a.png", annotations=annotations,
                                                               criteria=["Is it red?"], priority=2), {"id": 1}])
    with path.open("rb") as stream:
        (batch,) = prepared_batches(fmt=FORMATS["concord"], reader=CountingReader(stream),
                                    options=rows.ParseOptions(with_annotations=True), media_root=tmp_path,
                                    schema=relaxed_schema(schemas.preset("ab-tie", "text-to-image")), batch_size=10)
    assert [error for _, error in batch.parse_errors] == ["prompt: expected an object, got null"]
    sent = batch.checked[0]
    assert sent.error is None
    arrived = pickle.loads(pickle.dumps(sent))
    assert arrived == sent
    assert isinstance(arrived.row.response_a.content, Json) and isinstance(arrived.row.annotations[0].values, Json)
    assert arrived.row.media_digests() == sent.row.media_digests() and len(arrived.row.media_digests()) == 1
