"""The embedded broker (kombu's filesystem transport, as `make demo` runs it) never hands a worker a message that
is still being written (celery/kombu#1551: the worker read zero bytes and stopped on a JSONDecodeError)."""

from queue import Empty

import pytest
from kombu import Connection

from core import kombu_filesystem


@pytest.fixture
def channels(tmp_path):
    """(producer, worker): two channels on one queue folder, as the web server and the worker hold them."""
    options = {"data_folder_in": str(tmp_path), "data_folder_out": str(tmp_path), "control_folder": str(tmp_path)}
    with Connection("filesystem://", transport=kombu_filesystem.Transport, transport_options=options) as producer, \
            Connection("filesystem://", transport=kombu_filesystem.Transport, transport_options=options) as worker:
        yield producer.default_channel, worker.default_channel


def test_a_message_being_written_is_not_visible_to_the_worker_and_arrives_whole_once_written(channels, monkeypatch):
    producer, worker = channels
    serialise, seen_while_writing = kombu_filesystem.dumps, []

    def serialise_while_the_worker_polls(payload):
        try:
            seen_while_writing.append(worker._get("celery"))
        except Empty:
            seen_while_writing.append("nothing")
        return serialise(payload)

    monkeypatch.setattr(kombu_filesystem, "dumps", serialise_while_the_worker_polls)
    producer._put("celery", {"body": "the pre-filter's first batch"})

    assert seen_while_writing == ["nothing"]
    assert worker._get("celery") == {"body": "the pre-filter's first batch"}
