"""The work queue's load generator (bench/annotate_load.py) against a live server: the cycles it counts are claims
and submissions the server stored, and it reads responses however they arrive."""

import sys
from pathlib import Path

import pytest

from annotation.accounts.models import User
from annotation.catalogue.services.campaigns import campaign_create
from annotation.workqueue.models import Annotation
from tests.factories import PairFactory

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import annotate_load  # noqa: E402


def _campaign_with_raters(pairs: int, raters: int) -> list[tuple[str, str]]:
    campaign = campaign_create(slug="load", kind="text-to-text", preset="ab-tie", overlap=3)
    PairFactory.create_batch(pairs, campaign=campaign)
    sessions = annotate_load.make_annotators(raters)
    campaign.members.add(*User.objects.filter(username__startswith="bench-rater-"))
    return sessions


@pytest.mark.django_db(transaction=True)
def test_the_closed_loop_counts_the_cycles_the_server_stored_until_nothing_is_left(live_server):
    sessions = _campaign_with_raters(pairs=8, raters=4)

    result = annotate_load.run_phase(live_server.url, "load", sessions, duration=60)

    # 8 pairs × overlap 3: 24 annotations, then each annotator is told there is nothing left (204) and stops.
    assert result["cycles"] == 24 == Annotation.objects.count()
    assert result["claim"]["n"] == 24 + 4 and result["submit"]["n"] == 24
    assert result["failures"] == {"claim 204": 4}


@pytest.mark.django_db(transaction=True)
def test_the_paced_loop_stores_every_cycle_it_counts(live_server):
    sessions = _campaign_with_raters(pairs=30, raters=3)

    result = annotate_load.run_phase(live_server.url, "load", sessions, duration=1.0, rate=12)

    assert result["failures"] == {}
    assert 0 < result["cycles"] == Annotation.objects.count() == result["submit"]["n"] == result["claim"]["n"]


def _annotator() -> annotate_load._Annotator:
    return annotate_load._Annotator(0, ("127.0.0.1", 1), "key", "csrf", "/claim/", 0.0)


def test_a_response_is_read_once_it_is_whole_whatever_the_pieces():
    annotator = _annotator()
    response = b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 16\r\n\r\n{"assignment":7}'
    for piece in (response[:10], response[10:70], response[70:-1]):
        annotator.buffer += piece
        assert annotator.response() is None
    annotator.buffer += response[-1:]
    assert annotator.response() == (200, b'{"assignment":7}', False)
    assert annotator.buffer == bytearray()


def test_chunked_and_closing_responses_are_read():
    annotator = _annotator()
    annotator.buffer += b"HTTP/1.1 409 Conflict\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n4\r\nabcd\r\n"
    assert annotator.response() is None
    annotator.buffer += b"2\r\nef\r\n0\r\n\r\n"
    assert annotator.response() == (409, b"abcdef", True)
    assert annotator.buffer == bytearray()
    annotator.buffer += b"HTTP/1.1 204 No Content\r\n\r\n"
    assert annotator.response() == (204, b"", False)
