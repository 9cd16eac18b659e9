"""A pair's discussion is internal: no message of a curator or a rater reaches any file of a release."""

import pytest

from tests.factories import CuratorFactory

pytestmark = pytest.mark.django_db


def test_no_message_reaches_a_release(release_data, releases_root):
    from curation.services.releases import release_publish
    from curation.services.threads import thread_invite_raters, thread_post

    pair = release_data["pairs"]["t2i-1"]
    curator = CuratorFactory(username="cora")
    thread_post(pair_id=pair.pk, author=curator, body="SECRET-THREAD-MARKER about this pair")
    thread_invite_raters(pair_id=pair.pk, curator=curator)
    thread_post(pair_id=pair.pk, author=release_data["users"][0], body="RATER-THREAD-MARKER reply")
    release_publish(name="fox-bench", version="1.0.0", campaign_slugs=["t2i-wave"])
    files = [p for p in releases_root.rglob("*") if p.is_file()]
    assert files
    for path in files:
        data = path.read_bytes()
        assert b"THREAD-MARKER" not in data, path
