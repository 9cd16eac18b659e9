"""The whole release as one streamed zip: from the API and the page, deterministic, its sha256 recorded at publication."""

import hashlib
import html as htmllib
import io
import json
import re
import zipfile

import pytest
from django.http import StreamingHttpResponse
from rest_framework.test import APIClient

from annotation.catalogue import schemas
from curation.models import Release
from curation.releases.writers import config_shape
from curation.services.releases import release_publish
from tests.factories import CuratorFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def curator():
    client = APIClient()
    client.force_authenticate(CuratorFactory())
    return client


def body(response) -> bytes:
    assert isinstance(response, StreamingHttpResponse), "the archive is streamed, never built whole"
    return b"".join(response.streaming_content)


def check_archive(data: bytes, release: Release, tmp_path):
    """The zip holds exactly the release's files under NAME-VERSION/, each with its manifest sha256; returns the folder."""
    root = f"{release.name}-{release.version}"
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.testzip() is None
        names = archive.namelist()
        assert names == sorted(names) and all(n.startswith(root + "/") for n in names)
        manifest_bytes = archive.read(f"{root}/manifest.json")
        assert hashlib.sha256(manifest_bytes).hexdigest() == release.manifest_sha256
        listed = {f["path"]: f for f in json.loads(manifest_bytes)["files"]}
        assert {n[len(root) + 1:] for n in names} == set(listed) | {"manifest.json"}
        for path, entry in listed.items():
            content = archive.read(f"{root}/{path}")
            assert (hashlib.sha256(content).hexdigest(), len(content)) == (entry["sha256"], entry["size"])
        archive.extractall(tmp_path)
    return tmp_path / root


def test_the_archive_downloads_from_the_api_as_recorded_unpacks_to_the_release_and_loads_with_datasets(
    release_data, releases_root, curator, tmp_path
):
    from datasets import load_dataset

    release = release_publish(name="fox-bench", version="1.0.0", campaign_slugs=["t2i-wave", "reasoning-wave"])
    recorded = release.summary["archive"]
    assert recorded["name"] == "fox-bench-1.0.0.zip" and len(recorded["sha256"]) == 64 and recorded["size"] > 0
    detail = curator.get("/api/v1/releases/fox-bench/1.0.0/").json()
    assert detail["archive"]["sha256"] == recorded["sha256"] and detail["archive"]["size"] == recorded["size"]
    answer = curator.get(detail["archive"]["url"])
    assert answer.status_code == 200 and answer["Content-Type"] == "application/zip"
    assert answer["Content-Disposition"] == 'attachment; filename="fox-bench-1.0.0.zip"'
    data = body(answer)
    assert hashlib.sha256(data).hexdigest() == recorded["sha256"] == answer["X-Archive-SHA256"]
    assert len(data) == recorded["size"] == int(answer["Content-Length"])
    again = body(curator.get("/api/v1/releases/fox-bench/1.0.0/archive/"))
    assert again == data, "two downloads are byte-identical"
    folder = check_archive(data, release, tmp_path)
    t2i = load_dataset(str(folder), "text-to-image", split="test")
    assert t2i.num_rows == 3 and t2i[1]["human_annotations"] == [1, 2, 5]
    assert [r["values"]["overall"] for r in t2i[1]["ratings"]] == [1, 2, 5]
    reasoning = load_dataset(str(folder), "reasoning", split="test")
    assert reasoning[0]["human_annotations"]["response_b_ratings"] == ["C", "C", "C"]


def test_the_page_offers_the_archive_first_with_its_sha256_and_a_signed_link(release_data, releases_root, client):
    release = release_publish(name="fox-bench", version="1.0.0", campaign_slugs=["t2i-wave"])
    client.force_login(CuratorFactory())
    page = client.get("/releases/fox-bench/1.0.0/").content.decode()
    section = page[page.index('id="downloads"'):]
    assert section.index('id="download-archive"') < section.index("<table"), "the archive button tops the section"
    assert release.summary["archive"]["sha256"] in section
    link = htmllib.unescape(re.search(r'id="download-archive">\s*<a class="button primary" href="([^"]+)"', section).group(1))
    client.logout()
    data = body(client.get(link))  # a signed link: no session needed, as the per-file links
    assert hashlib.sha256(data).hexdigest() == release.summary["archive"]["sha256"]
    assert client.get(link.replace("/archive/", "/archive/x")).status_code == 404
    assert client.get("/releases/archive/forged/").status_code == 404


def test_the_archive_of_a_release_on_s3_streams_through_concord_as_recorded(release_data, s3_releases, curator, tmp_path):
    release = release_publish(name="fox-bench", version="2.0.0", campaign_slugs=["t2i-wave", "reasoning-wave"])
    assert release.storage == Release.Storage.S3
    links = curator.get("/api/v1/releases/fox-bench/2.0.0/download/").json()
    assert links["archive"]["sha256"] == release.summary["archive"]["sha256"]
    assert "/releases/archive/" in links["archive"]["url"], "signed by Concord, streamed from the bucket"
    data = body(APIClient().get(links["archive"]["url"]))
    assert hashlib.sha256(data).hexdigest() == release.summary["archive"]["sha256"]
    check_archive(data, release, tmp_path)


def test_typed_columns_fall_back_to_json_only_where_a_configs_schemas_disagree():
    from datasets import List, Value

    generation = schemas.preset("mmrb2-generation", "text-to-image")
    reasoning = schemas.preset("mmrb2-reasoning", "reasoning")
    same = config_shape([generation, generation])
    assert same.annotations == List(Value("int64")) and same.values["overall"] == Value("int64")
    assert config_shape([reasoning]).annotations == {"response_a_ratings": List(Value("string")),
                                                     "response_b_ratings": List(Value("string"))}
    mixed = config_shape([generation, reasoning])
    assert mixed.values is None and mixed.annotations is None, "two shapes in one config: JSON strings"
