"""Media answer byte ranges, so a rater can seek in audio and video and switch A and B at the same moment."""

import pytest

from annotation.catalogue.services.media import media_store
from tests.factories import CuratorFactory
from tests.frontend.workspace_pairs import tone

pytestmark = pytest.mark.django_db


@pytest.fixture
def wav(client):
    data = tone(seconds=0.5)
    media = media_store(data=data, name="clip.wav")
    client.force_login(CuratorFactory())
    return f"/media/{media.sha256}.wav", data


def body(response) -> bytes:
    return b"".join(response.streaming_content)


def test_a_request_without_range_gets_the_whole_file_and_learns_that_ranges_work(client, wav):
    url, data = wav
    response = client.get(url)
    assert response.status_code == 200 and body(response) == data
    assert response["Accept-Ranges"] == "bytes"


@pytest.mark.parametrize(("header", "first", "last"), [("bytes=0-9", 0, 9), ("bytes=100-", 100, None), ("bytes=-16", -16, None),
                                                        ("bytes=10-999999999", 10, None)])
def test_a_single_range_is_answered_with_206_and_exactly_those_bytes(client, wav, header, first, last):
    url, data = wav
    response = client.get(url, headers={"Range": header})
    expected = data[first:] if last is None else data[first:last + 1]
    assert response.status_code == 206 and body(response) == expected
    start = first if first >= 0 else len(data) + first
    assert response["Content-Range"] == f"bytes {start}-{start + len(expected) - 1}/{len(data)}"
    assert response["Content-Length"] == str(len(expected))


@pytest.mark.parametrize("header", ["bytes=999999-", "bytes=20-10", "bytes=-0"])
def test_a_range_outside_the_file_is_416_with_the_size(client, wav, header):
    url, data = wav
    response = client.get(url, headers={"Range": header})
    assert response.status_code == 416 and response["Content-Range"] == f"bytes */{len(data)}"


@pytest.mark.parametrize("header", ["bytes=0-1,5-6", "items=0-3", "bytes=-", "bytes=abc"])
def test_several_ranges_or_another_unit_get_the_whole_file(client, wav, header):
    url, data = wav
    response = client.get(url, headers={"Range": header})
    assert response.status_code == 200 and body(response) == data
