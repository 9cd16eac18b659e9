"""Releases on S3-compatible object storage, exercised over HTTP against a moto server started by the tests."""

import hashlib
import json
import os
import threading

import httpx
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from core.errors import ApplicationError
from curation.models import Release, ReleaseFile
from curation.releases.storage import S3ReleaseStorage, release_storage
from curation.selectors.releases import release_get
from curation.services.releases import release_download_links, release_publish, release_verify

pytestmark = pytest.mark.django_db

BOTH = ["t2i-wave", "reasoning-wave"]


def keys(client, prefix="releases/") -> set[str]:
    answer = client.list_objects_v2(Bucket="concord-releases", Prefix=prefix)
    return {item["Key"] for item in answer.get("Contents", [])}


def test_a_release_published_to_s3_downloads_intact_through_presigned_urls(release_data, s3_releases):
    release = release_publish(name="fox-bench", version="1.0.0", campaign_slugs=BOTH)
    assert release.status == Release.Status.PUBLISHED
    assert release.location == "s3://concord-releases/releases/fox-bench/1.0.0/"
    stored = keys(s3_releases["client"])
    expected = {f"releases/fox-bench/1.0.0/{f.path}" for f in release.files.all()} | {"releases/fox-bench/1.0.0/manifest.json"}
    assert stored == expected
    links = release_download_links(release=release, include_media=True)
    assert links["files"][0]["path"] == "manifest.json"
    with httpx.Client(timeout=10) as http:
        manifest_bytes = http.get(links["files"][0]["url"]).raise_for_status().content
        assert hashlib.sha256(manifest_bytes).hexdigest() == release.manifest_sha256
        manifest = {f["path"]: f for f in json.loads(manifest_bytes)["files"]}
        for link in links["files"][1:]:
            assert "X-Amz-Signature=" in link["url"]
            data = http.get(link["url"]).raise_for_status().content
            assert hashlib.sha256(data).hexdigest() == manifest[link["path"]]["sha256"] == link["sha256"]
        unsigned = links["files"][1]["url"].split("?")[0]
        assert http.get(unsigned).status_code == 403, "objects are private; only presigned links read them"
    head = s3_releases["client"].head_object(Bucket="concord-releases", Key="releases/fox-bench/1.0.0/data/reasoning.jsonl")
    assert head["Metadata"]["sha256"] == manifest["data/reasoning.jsonl"]["sha256"]


def test_verify_on_s3_passes_and_then_detects_a_tampered_object(release_data, s3_releases):
    release = release_publish(name="fox-bench", version="1.0.0", campaign_slugs=BOTH)
    clean = release_verify(release=release)
    whole = clean.pop("archive")
    assert clean == {"ok": True, "files_checked": release.files_count, "mismatches": []}
    assert whole["checked"] and whole["actual_sha256"] == whole["sha256"] == release.summary["archive"]["sha256"]
    shard = "data/text-to-image/test-00000-of-00001.parquet"
    s3_releases["client"].put_object(Bucket="concord-releases", Key=f"releases/fox-bench/1.0.0/{shard}", Body=b"not parquet")
    s3_releases["client"].put_object(Bucket="concord-releases", Key="releases/fox-bench/1.0.0/media/extra.png", Body=b"x")
    result = release_verify(release=release)
    assert result["ok"] is False
    assert [(m["path"], m["problem"], m.get("actual_size")) for m in result["mismatches"]] == [
        (shard, "checksum", 11), ("media/extra.png", "extra", None)
    ]


def test_s3_failing_mid_upload_leaves_the_release_failed_and_invisible_and_a_retry_completes_it(
    release_data, s3_releases, monkeypatch
):
    calls, uploads = [], []
    real_put = S3ReleaseStorage.put_file
    proxy = s3_releases["proxy"]
    lock = threading.Lock()

    def put_then_cut_at_the_fourth(self, key, source, **kwargs):
        with lock:
            calls.append(key)
            if len(calls) == 4:
                proxy.cut()
        real_put(self, key, source, **kwargs)
        uploads.append(key)

    monkeypatch.setattr(S3ReleaseStorage, "put_file", put_then_cut_at_the_fourth)
    with pytest.raises(ApplicationError, match="object storage failed"):
        release_publish(name="fox-bench", version="1.0.0", campaign_slugs=BOTH)
    release = Release.objects.get(name="fox-bench", version="1.0.0")
    assert release.status == Release.Status.FAILED
    assert "object storage failed" in release.error and release.job.status == "failed"
    assert not release.manifest_sha256 and not ReleaseFile.objects.filter(release=release).exists()
    assert len(uploads) <= 3
    left = keys(s3_releases["client"])
    stored_as = lambda batch: {f"releases/fox-bench/1.0.0/{key.split('/', 2)[2]}" for key in batch}  # noqa: E731
    # An upload in flight when the link drops may land on the server even though its client saw an error:
    # what is stored lies between what the client saw succeed and what it attempted.
    assert stored_as(uploads) <= left <= stored_as(calls)
    assert "releases/fox-bench/1.0.0/manifest.json" not in left, "no manifest: nothing is visible"
    with pytest.raises(ApplicationError, match="is failed, not published"):
        release_get(name="fox-bench", version="1.0.0", published=True)
    with pytest.raises(ApplicationError, match="only a published release can be downloaded"):
        release_download_links(release=release)

    proxy.restore()
    monkeypatch.setattr(S3ReleaseStorage, "put_file", real_put)
    retried = release_publish(name="fox-bench", version="1.0.0", campaign_slugs=BOTH)
    assert retried.pk == release.pk and retried.status == Release.Status.PUBLISHED and retried.attempts == 2
    assert "releases/fox-bench/1.0.0/manifest.json" in keys(s3_releases["client"])
    assert release_verify(release=retried)["ok"] is True


def test_large_files_go_up_in_checksummed_parts(s3_releases, tmp_path, settings):
    store = release_storage("s3")
    store.multipart_threshold = 6 * 1024 * 1024
    store.part_size = 5 * 1024 * 1024
    data = bytes(range(256)) * (11 * 1024 * 1024 // 256 + 3)
    source = tmp_path / "big.bin"
    source.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    store.put_file("big/1.0.0/big.bin", source, sha256=digest, size=len(data))
    head = s3_releases["client"].head_object(Bucket="concord-releases", Key="releases/big/1.0.0/big.bin")
    assert head["ETag"].strip('"').endswith("-3"), "three parts: 5 MiB, 5 MiB and the rest"
    assert store.stored("big/1.0.0/big.bin", sha256=digest, size=len(data))
    assert hashlib.sha256(store.read_bytes("big/1.0.0/big.bin")).hexdigest() == digest


def test_a_source_that_does_not_match_its_checksum_is_never_stored(s3_releases, tmp_path):
    store = release_storage("s3")
    source = tmp_path / "file.txt"
    source.write_bytes(b"changed after hashing")
    with pytest.raises(ApplicationError, match="expected " + "0" * 64):
        store.put_file("x/1.0.0/file.txt", source, sha256="0" * 64, size=21)
    assert not store.exists("x/1.0.0/file.txt")


def test_parquet_columns_are_read_back_from_s3_by_ranges_not_whole_shards(release_data, s3_releases):
    from curation.models import ConsensusRecord
    from curation.services.releases import _read_parquet, release_gold

    first = release_publish(name="fox-bench", version="1.0.0", campaign_slugs=BOTH)
    ConsensusRecord.objects.filter(pair=release_data["pairs"]["t2i-3"]).update(chosen="B")
    release_publish(name="fox-bench", version="1.1.0", campaign_slugs=BOTH)
    log = s3_releases["client"].get_object(Bucket="concord-releases", Key="releases/fox-bench/1.1.0/CHANGELOG.md")
    assert "- t2i-3: A → B" in log["Body"].read().decode(), "the first version's choices were read back from S3"
    assert sorted((g.id, g.chosen) for g in release_gold(release=first)) == [
        ("reason-1", "A"), ("t2i-1", "A"), ("t2i-2", "B"), ("t2i-3", "A")]
    store = release_storage("s3")
    key = "fox-bench/1.0.0/data/text-to-image/test-00000-of-00001.parquet"
    with store.open_ranged(key) as handle:
        handle.seek(-4, 2)
        assert handle.read() == b"PAR1" and handle.tell() == handle.size
    assert _read_parquet(store, key, ["id"]).column("id").to_pylist() == ["t2i-1", "t2i-2", "t2i-3"]
    big = pa.table({"id": [f"p{i}" for i in range(8)], "image": [os.urandom(256 * 1024) for _ in range(8)]})
    buffer = pa.BufferOutputStream()
    pq.write_table(big, buffer, row_group_size=2)
    s3_releases["client"].put_object(Bucket="concord-releases", Key="releases/big/1.0.0/data/big.parquet",
                                     Body=buffer.getvalue().to_pybytes())
    fetched = []
    with store.open_ranged("big/1.0.0/data/big.parquet") as handle:
        original = handle.read
        handle.read = lambda size=-1: fetched.append(data := original(size)) or data
        assert pq.read_table(handle, columns=["id"]).column("id").to_pylist() == [f"p{i}" for i in range(8)]
    assert 0 < sum(map(len, fetched)) < handle.size / 10, "the 2 MiB image column was not fetched"
    with pytest.raises(FileNotFoundError):
        store.open_ranged("fox-bench/1.0.0/data/none.parquet")
