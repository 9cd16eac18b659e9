"""Pointer releases: no media bytes published, only each file's source (as imported) and sha256; the release's own
rebuild.py (standard library only) or rebuild_release fills them from the user's copy, refusing an altered file,
and the rebuilt folder loads in ``datasets`` exactly as the full release does."""

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from django.core.management import CommandError, call_command
from PIL import Image

from annotation.catalogue.models import Media
from curation.models import Release
from curation.services.releases import release_archive

pytestmark = pytest.mark.django_db

NAME = "mmrb-ptr"
IMAGES = 6


def jpeg(seed: int) -> bytes:
    data = hashlib.sha256(str(seed).encode()).digest()
    buffer = io.BytesIO()
    Image.frombytes("RGB", (4, 4), (data * 2)[:48]).save(buffer, "JPEG", quality=95)
    return buffer.getvalue()


@pytest.fixture
def published(releases_root, tmp_path):
    """Three MMRB2 t2i pairs imported from ``copy/t2i/*.jpg``, kept by consensus, published as pointers (1.0.0) and
    in full (1.0.1)."""
    copy, images = imported(tmp_path)
    quiet = {"stdout": io.StringIO(), "stderr": io.StringIO()}
    out = io.StringIO()
    call_command("publish_release", "--campaign", "ptr-t2i", "--name", NAME, "--version", "1.0.0", "--media", "pointers",
                 stdout=out, stderr=io.StringIO())
    assert f"media not included: {IMAGES} files named in pointers.json" in out.getvalue()
    call_command("publish_release", "--campaign", "ptr-t2i", "--name", NAME, "--version", "1.0.1", **quiet)
    return {"copy": copy, "images": images, "pointers": releases_root / NAME / "1.0.0",
            "full": releases_root / NAME / "1.0.1", "tmp": tmp_path}


def imported(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    """Three MMRB2 t2i pairs imported from ``copy/t2i/*.jpg`` and kept by consensus: the copy and its images."""
    copy = tmp_path / "copy"
    (copy / "t2i").mkdir(parents=True)
    images = {}
    for i in range(IMAGES):
        images[f"t2i/img_{i}.jpg"] = jpeg(i)
        (copy / f"t2i/img_{i}.jpg").write_bytes(images[f"t2i/img_{i}.jpg"])
    pairs = [{"id": f"p{n}", "prompt_source": "oneigbench", "prompt_metadata": {"id": str(n)},
              "prompt_content": [["text", f"Draw fox number {n}"]],
              "response_a": {"model_name": "imagen4", "response_content": [["image", f"t2i/img_{2 * n}.jpg"]]},
              "response_b": {"model_name": "gpt-image", "response_content": [["image", f"t2i/img_{2 * n + 1}.jpg"]]},
              "chosen": "AB"[n % 2], "human_annotations": [6, 5, 6] if n % 2 == 0 else [1, 2, 1]}
             for n in range(3)]
    source = tmp_path / "t2i.json"
    source.write_text(json.dumps({"pairs": pairs}))
    quiet = {"stdout": io.StringIO(), "stderr": io.StringIO()}
    call_command("import_pairs", str(source), "--campaign", "ptr-t2i", "--format", "mmrb2", "--task", "text-to-image",
                 "--schema", "mmrb2-generation", "--media-root", str(copy), "--with-annotations", **quiet)
    call_command("apply_consensus", "--campaign", "ptr-t2i", **quiet)
    return copy, images


def unzip(version: str, target: Path) -> Path:
    """The release as a user gets it: the one-zip download, extracted."""
    download = release_archive(release=Release.objects.get(name=NAME, version=version))
    data = b"".join(download.chunks)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        archive.extractall(target)
    return target / f"{NAME}-{version}"


def snapshot(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def standalone(script: Path, *args: str) -> subprocess.CompletedProcess:
    """rebuild.py run by the system's python3 (this one where there is none), bare: -I -S (no site-packages: no
    Django, no pyarrow), no settings in the environment."""
    python = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
    env = {"PATH": "/usr/bin:/bin"}
    return subprocess.run([python, "-I", "-S", str(script), *args], capture_output=True, text=True, env=env,
                          cwd=script.parent.parent, timeout=120)


def test_media_sources_are_recorded_at_import(published):
    recorded = dict(Media.objects.values_list("source_path", "source_dataset"))
    assert recorded == {f"t2i/img_{i}.jpg": "mmrb2" for i in range(IMAGES)}


def test_a_pointer_release_holds_no_media_bytes_but_names_each_file_its_source_and_sha256(published):
    folder, images = published["pointers"], published["images"]
    assert not (folder / "media").exists()
    everything = [p.read_bytes() for p in folder.rglob("*") if p.is_file()]
    archive_bytes = b"".join(release_archive(release=Release.objects.get(name=NAME, version="1.0.0")).chunks)
    for data in images.values():
        assert not any(data in blob for blob in everything)
        assert data not in archive_bytes
    assert sorted(p.read_bytes() for p in (published["full"] / "media").iterdir()) == sorted(images.values())
    # the Parquet files' image columns hold placeholders, read back as the columns they are (not as compressed bytes)
    for shard in folder.rglob("*.parquet"):
        rows = pq.read_table(shard).to_pylist()
        held = [image["bytes"] for row in rows for side in ("response_a_images", "response_b_images")
                for image in row[side]]
        assert len(held) == IMAGES
        assert sorted(held) == sorted(b"concord-pointer:sha256:" + hashlib.sha256(d).hexdigest().encode()
                                      for d in images.values())

    pointers = json.loads((folder / "pointers.json").read_text())
    by_path = {e["source"]["path"]: e for e in pointers["files"]}
    assert set(by_path) == set(images)
    for relative, data in images.items():
        entry = by_path[relative]
        digest = hashlib.sha256(data).hexdigest()
        assert (entry["sha256"], entry["size"], entry["path"]) == (digest, len(data), f"media/{digest}.jpg")
        assert entry["source"]["dataset"] == "mmrb2"
        assert entry["source"]["url"] == "https://huggingface.co/datasets/rl-research/multimodal-rewardbench-2"
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["media"]["mode"] == "pointers"
    assert not [f for f in manifest["files"] if f["kind"] == "media"]
    assert {"pointers.json", "rebuild.py"} <= {f["path"] for f in manifest["files"]}
    card = (folder / "README.md").read_text()
    assert "## Media not included (pointer release)" in card
    assert f"{IMAGES} files from" in card and "https://huggingface.co/datasets/rl-research/multimodal-rewardbench-2" in card
    assert "python3 rebuild.py --media-root" in card


def test_verify_accepts_a_pointer_release_and_says_so(published):
    out = io.StringIO()
    call_command("verify_release", f"{NAME}@1.0.0", "--json", stdout=out, stderr=io.StringIO())
    result = json.loads(out.getvalue())
    assert result["ok"], result["mismatches"]
    assert result["media"] == {"mode": "pointers", "pointers": "pointers.json", "rebuild": "rebuild.py",
                               "media_not_included": IMAGES}
    out = io.StringIO()
    call_command("verify_release", f"{NAME}@1.0.0", stdout=out, stderr=io.StringIO())
    assert f"pointer release: {IMAGES} media files not included" in out.getvalue()


def test_one_altered_file_is_refused_by_name_and_hash_and_nothing_is_written(published):
    altered_root = published["tmp"] / "altered"
    shutil.copytree(published["copy"], altered_root)
    victim = altered_root / "t2i/img_3.jpg"
    changed = victim.read_bytes() + b"\x00"
    victim.write_bytes(changed)
    expected = hashlib.sha256(published["images"]["t2i/img_3.jpg"]).hexdigest()
    actual = hashlib.sha256(changed).hexdigest()

    folder = unzip("1.0.0", published["tmp"] / "by-command")
    before = snapshot(folder)
    with pytest.raises(CommandError) as refused:
        call_command("rebuild_release", str(folder), "--media-root", str(altered_root), stdout=io.StringIO())
    message = str(refused.value)
    assert str(victim) in message and actual in message and expected in message
    assert "nothing was written" in message
    assert snapshot(folder) == before and not [p for p in folder.iterdir() if p.name.startswith(".rebuild")]

    folder = unzip("1.0.0", published["tmp"] / "by-script")
    before = snapshot(folder)
    done = standalone(folder / "rebuild.py", "--media-root", str(altered_root))
    assert done.returncode == 1
    assert str(victim) in done.stderr and actual in done.stderr and expected in done.stderr
    assert snapshot(folder) == before


def test_a_missing_file_is_refused_with_its_source(published):
    partial = published["tmp"] / "partial"
    shutil.copytree(published["copy"], partial)
    (partial / "t2i/img_0.jpg").unlink()
    folder = unzip("1.0.0", published["tmp"] / "missing")
    done = standalone(folder / "rebuild.py", "--media-root", str(partial))
    assert done.returncode == 1
    assert "not found under" in done.stderr and "from mmrb2 t2i/img_0.jpg" in done.stderr
    assert not (folder / "media").exists()


def full_tables(folder: Path):
    return {p.relative_to(folder).as_posix(): pq.read_table(p) for p in sorted((folder / "data").rglob("*.parquet"))}


def test_rebuilt_by_command_and_by_script_the_folder_loads_in_datasets_as_the_full_release(published):
    from datasets import load_dataset

    by_command = unzip("1.0.0", published["tmp"] / "command")
    out = io.StringIO()
    call_command("rebuild_release", str(by_command), "--media-root", str(published["copy"]), "--json", stdout=out)
    assert json.loads(out.getvalue())["copied"] == IMAGES

    # the standalone script, from a copy laid out differently (every file in one folder): found by name
    flat = published["tmp"] / "flat"
    flat.mkdir()
    for path in published["copy"].rglob("*.jpg"):
        shutil.copy(path, flat / path.name)
    by_script = unzip("1.0.0", published["tmp"] / "script")
    done = standalone(by_script / "rebuild.py", "--media-root", str(flat))
    assert done.returncode == 0, done.stderr
    again = standalone(by_script / "rebuild.py", "--media-root", str(flat))  # already rebuilt: nothing changes
    assert again.returncode == 0, again.stderr
    assert "6 already in place" in again.stdout and "0 Parquet files filled, 1 filled already" in again.stdout

    full = unzip("1.0.1", published["tmp"] / "full")
    expected = full_tables(full)
    for folder in (by_command, by_script):
        assert snapshot(folder / "media") == snapshot(full / "media")
        tables = full_tables(folder)
        assert tables.keys() == expected.keys()
        for path, table in tables.items():
            assert table.equals(expected[path]), path
            assert table.schema.metadata[b"huggingface"] == expected[path].schema.metadata[b"huggingface"]
        loaded = load_dataset(str(folder), "text-to-image", split="test")
        reference = load_dataset(str(full), "text-to-image", split="test")
        assert loaded.features == reference.features
        assert len(loaded) == 3
        for row, want in zip(loaded, reference, strict=True):
            assert row["id"] == want["id"]
            for column in ("response_a_images", "response_b_images"):
                assert [image.tobytes() for image in row[column]] == [image.tobytes() for image in want[column]]
                assert [image.size for image in row[column]] == [(4, 4)]
    # the MMRB2 export names media beside it, as in the full release
    mmrb2 = json.loads((by_script / "mmrb2" / "t2i.json").read_text())
    for pair in mmrb2["pairs"]:
        for _, value in pair["response_a"]["response_content"]:
            assert (by_script / "mmrb2" / value).resolve().is_file()


def test_a_folder_that_is_not_a_pointer_release_is_refused(published, tmp_path):
    full = unzip("1.0.1", tmp_path / "plain")
    with pytest.raises(CommandError, match="not a pointer release"):
        call_command("rebuild_release", str(full), "--media-root", str(published["copy"]), stdout=io.StringIO())
    assert os.path.isdir(full / "media")


def test_filling_a_parquet_file_gives_the_full_files_table_over_row_groups_pages_audio_and_empty_lists(tmp_path):
    """rebuild.fill_parquet, without the database: many row groups, many pages per chunk, images and audio."""
    import pyarrow as pa

    from curation.releases import rebuild, writers

    schema = writers.features().arrow_schema
    media = {hashlib.sha256(data).hexdigest(): data for data in [jpeg(i) for i in range(5)] + [b"RIFF" + bytes(300)]}
    digests = sorted(media)

    def row(n: int, embed) -> dict:
        def item(digest):
            return {"bytes": embed(digest), "path": f"{digest}.bin"}

        out = dict.fromkeys(schema.names)
        out.update(id=f"r{n}", chosen="A", criteria=[], ratings=[], prompt_files=[], response_a_files=[],
                   response_b_files=[], prompt_images=[item(digests[n % 5])] if n % 3 else [],
                   response_a_images=[item(digests[(n + 1) % 5]), item(digests[(n + 2) % 5])], response_b_images=[],
                   prompt_audio=[item(digests[5])] if n % 2 else [], response_a_audio=[], response_b_audio=[])
        return out

    def write(path, embed, **options):
        writer = pq.ParquetWriter(path, schema, **options)
        for group in range(4):
            writer.write_table(pa.Table.from_pylist([row(group * 9 + i, embed) for i in range(9)], schema=schema))
        writer.close()

    write(tmp_path / "full.parquet", media.__getitem__, compression="zstd")
    write(tmp_path / "pointers.parquet", rebuild.placeholder, data_page_size=64, write_batch_size=2,
          **writers.pointer_parquet_options(schema))
    assert pq.ParquetFile(tmp_path / "pointers.parquet").metadata.num_row_groups == 4
    filled = rebuild.fill_parquet(tmp_path / "pointers.parquet", tmp_path / "filled.parquet",
                                  lambda value: media[value[len(rebuild.PLACEHOLDER):].decode()])
    assert filled == 4 * 6  # six media columns in each row group
    assert pq.read_table(tmp_path / "filled.parquet").equals(pq.read_table(tmp_path / "full.parquet"))
    assert pq.ParquetFile(tmp_path / "filled.parquet").metadata.row_group(3).num_rows == 9


def export_json(*args: str) -> dict:
    out = io.StringIO()
    call_command("export_training", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def test_a_pointer_release_exports_for_training_with_its_media_from_this_servers_store(published):
    """``export_training --release`` of a pointer release fills the export's media from Concord's own store (as the
    full release holds them), the export loads in ``datasets`` with every image there, and its card says where the
    media came from."""
    from datasets import Image as ImageFeature
    from datasets import Sequence, load_dataset

    before = snapshot(published["pointers"])
    result = export_json("--release", f"{NAME}@1.0.0", "--format", "trl", "--out", str(published["tmp"] / "ptr"))
    full = export_json("--release", f"{NAME}@1.0.1", "--format", "trl", "--out", str(published["tmp"] / "full"))
    assert result["pairs"] == full["pairs"] == 3
    ptr, ref = published["tmp"] / "ptr", published["tmp"] / "full"
    assert (ptr / "train.jsonl").read_text() == (ref / "train.jsonl").read_text()
    assert snapshot(ptr / "media") == snapshot(ref / "media") and len(list((ptr / "media").iterdir())) == IMAGES
    assert snapshot(published["pointers"]) == before, "the release's files are unchanged"
    card = (ptr / "README.md").read_text()
    assert "## Media of a pointer release" in card and "the Concord server's own media store" in card

    data = load_dataset("json", data_files=str(ptr / "train.jsonl"), split="train")
    data = data.map(lambda row: {"images": [str(ptr / path) for path in row["images"]]})
    data = data.cast_column("images", Sequence(ImageFeature()))
    decoded = [image for row in data for image in row["images"]]
    assert len(decoded) == IMAGES and all(image.size == (4, 4) for image in decoded)


def test_a_downloaded_pointer_release_exports_from_the_users_copy_and_an_altered_file_is_refused(published):
    folder = unzip("1.0.0", published["tmp"] / "train")
    with pytest.raises(CommandError, match="pointer release whose media are not filled in; name your copy"):
        export_json("--folder", str(folder), "--format", "openrlhf", "--out", str(published["tmp"] / "early"))
    altered = published["copy"] / "t2i/img_3.jpg"
    original = altered.read_bytes()
    altered.write_bytes(jpeg(1000))
    with pytest.raises(CommandError) as refused:
        export_json("--folder", str(folder), "--format", "openrlhf", "--media-root", str(published["copy"]),
                    "--out", str(published["tmp"] / "bad"))
    digest = hashlib.sha256(original).hexdigest()
    assert "img_3.jpg" in str(refused.value) and digest in str(refused.value)
    assert hashlib.sha256(jpeg(1000)).hexdigest() in str(refused.value)
    assert not (published["tmp"] / "bad").exists(), "nothing is written"
    altered.write_bytes(original)
    result = export_json("--folder", str(folder), "--format", "openrlhf", "--media-root", str(published["copy"]),
                         "--out", str(published["tmp"] / "good"))
    assert result["pairs"] == 3 and len(list((published["tmp"] / "good" / "media").iterdir())) == IMAGES
    assert not (folder / "media").exists(), "the downloaded release is not rebuilt by an export"


def test_a_pointer_release_exported_from_the_page_takes_this_servers_media(published, django_capture_on_commit_callbacks):
    from rest_framework.test import APIClient

    from annotation.jobs.models import Job
    from tests.factories import CuratorFactory

    curator = APIClient()
    curator.force_authenticate(CuratorFactory())
    with django_capture_on_commit_callbacks(execute=True):
        answer = curator.post(f"/api/v1/releases/{NAME}/1.0.0/training-exports/", {"format": "swift"}, format="json")
    assert answer.status_code == 202, answer.content
    job = Job.objects.get(pk=answer.json()["id"])
    assert job.status == "succeeded", job.error
    export = published["pointers"].parent / "1.0.0-training" / "swift"
    assert job.result["pairs"] == 3 and len(list((export / "media").iterdir())) == IMAGES
    assert [p.name for p in export.parent.iterdir()] == ["swift"], "no scratch folder is left beside it"


def test_an_import_records_the_source_of_a_file_stored_earlier_without_one(db, tmp_path):
    from annotation.catalogue.services.media import media_store

    data = jpeg(99)
    stored = media_store(data=data)
    assert (stored.source_dataset, stored.source_path) == ("", "")
    (tmp_path / "imgs").mkdir()
    (tmp_path / "imgs" / "late.jpg").write_bytes(data)
    (tmp_path / "imgs" / "other.jpg").write_bytes(jpeg(98))
    pairs = [{"id": "q1", "prompt_source": "oneigbench", "prompt_metadata": {}, "prompt_content": [["text", "x"]],
              "response_a": {"model_name": "m1", "response_content": [["image", "imgs/late.jpg"]]},
              "response_b": {"model_name": "m2", "response_content": [["image", "imgs/other.jpg"]]},
              "chosen": "A", "human_annotations": [6, 6, 6]}]
    (tmp_path / "t2i.json").write_text(json.dumps({"pairs": pairs}))
    call_command("import_pairs", str(tmp_path / "t2i.json"), "--campaign", "late", "--format", "mmrb2", "--task",
                 "text-to-image", "--schema", "mmrb2-generation", "--media-root", str(tmp_path), "--with-annotations",
                 stdout=io.StringIO(), stderr=io.StringIO())
    stored.refresh_from_db()
    assert (stored.source_dataset, stored.source_path) == ("mmrb2", "imgs/late.jpg")
    assert Media.objects.get(source_path="imgs/other.jpg").source_dataset == "mmrb2"


def test_the_release_page_says_it_is_a_pointer_release(published, client):
    from tests.factories import CuratorFactory

    client.force_login(CuratorFactory())
    page = client.get(f"/releases/{NAME}/1.0.0/").content.decode()
    assert 'id="pointer-release"' in page and f"Its {IMAGES} media files" in page and "rebuild.py --media-root" in page
    assert 'id="pointer-release"' not in client.get(f"/releases/{NAME}/1.0.1/").content.decode()


def test_a_tampered_pointers_file_cannot_write_outside_the_release(published):
    folder = unzip("1.0.0", published["tmp"] / "tampered")
    pointers = json.loads((folder / "pointers.json").read_text())
    pointers["files"][0]["path"] = "../outside.jpg"
    (folder / "pointers.json").write_text(json.dumps(pointers))
    done = standalone(folder / "rebuild.py", "--media-root", str(published["copy"]))
    assert done.returncode == 1 and "files[0] is not a media entry" in done.stderr
    assert not (folder.parent / "outside.jpg").exists() and not (folder / "media").exists()


def test_curators_ask_for_a_pointer_release_through_the_api_with_the_commands_choices(
        published, django_capture_on_commit_callbacks):
    """``media: pointers`` on POST /api/v1/releases/ builds what ``--media pointers`` builds; another value is refused
    naming the field, and a retry asking other media than the first attempt is refused as the command refuses it."""
    from rest_framework.test import APIClient

    from curation.services.releases import release_request
    from tests.factories import CuratorFactory

    curator = APIClient()
    curator.force_authenticate(CuratorFactory())
    body = {"name": NAME, "version": "1.0.2", "campaigns": ["ptr-t2i"]}
    refused = curator.post("/api/v1/releases/", {**body, "media": "bytes"}, format="json")
    assert refused.status_code == 400 and set(refused.json()["extra"]["fields"]) == {"media"}
    assert "bytes" in refused.json()["extra"]["fields"]["media"][0]
    with django_capture_on_commit_callbacks(execute=True):
        answer = curator.post("/api/v1/releases/", {**body, "media": "pointers"}, format="json")
    assert answer.status_code == 202, answer.content
    assert curator.get(f"/api/v1/jobs/{answer.json()['job']}/").json()["status"] == "succeeded"
    release = Release.objects.get(name=NAME, version="1.0.2")
    assert release.summary["media"]["mode"] == "pointers" and release.summary["media"]["not_included"]["files"] == IMAGES
    folder = published["pointers"].parent / "1.0.2"
    assert (folder / "pointers.json").is_file() and (folder / "rebuild.py").is_file()
    assert not (folder / "media").exists()
    assert json.loads((folder / "pointers.json").read_text()) == json.loads(
        (published["pointers"] / "pointers.json").read_text())

    failed = release_request(name=NAME, version="1.0.3", campaign_slugs=["ptr-t2i"], media="pointers")
    Release.objects.filter(pk=failed.pk).update(status=Release.Status.FAILED, error="the worker was lost")
    retry = curator.post("/api/v1/releases/", {**body, "version": "1.0.3"}, format="json")
    assert retry.status_code == 409 and retry.json()["code"] == "release_conflict"
    assert "first requested with media pointers" in retry.json()["message"]


def test_a_pointer_release_on_s3_holds_no_media_bytes_in_any_object_and_rebuilds_from_the_users_copy(
        s3_releases, tmp_path):
    from datasets import load_dataset

    copy, images = imported(tmp_path)
    call_command("publish_release", "--campaign", "ptr-t2i", "--name", NAME, "--version", "1.0.0", "--media", "pointers",
                 stdout=io.StringIO(), stderr=io.StringIO())
    release = Release.objects.get(name=NAME, version="1.0.0")
    assert release.location == f"s3://concord-releases/releases/{NAME}/1.0.0/"
    client = s3_releases["client"]
    listed = client.list_objects_v2(Bucket="concord-releases", Prefix=f"releases/{NAME}/1.0.0/")["Contents"]
    stored = {item["Key"].removeprefix(f"releases/{NAME}/1.0.0/"): client.get_object(
        Bucket="concord-releases", Key=item["Key"])["Body"].read() for item in listed}
    assert {"pointers.json", "rebuild.py", "manifest.json"} <= set(stored)
    assert not [key for key in stored if key.startswith("media/")]
    for data in images.values():
        assert not any(data in blob for blob in stored.values()), "no object on S3 holds an image's bytes"

    # The one-zip download, from S3, unpacked and rebuilt from the user's own copy, loads with its images.
    with zipfile.ZipFile(io.BytesIO(b"".join(release_archive(release=release).chunks))) as archive:
        assert not any(name.split("/", 1)[1].startswith("media/") for name in archive.namelist())
        archive.extractall(tmp_path / "download")
    folder = tmp_path / "download" / f"{NAME}-1.0.0"
    out = io.StringIO()
    call_command("rebuild_release", str(folder), "--media-root", str(copy), "--json", stdout=out)
    assert json.loads(out.getvalue())["copied"] == IMAGES
    assert sorted(p.read_bytes() for p in (folder / "media").iterdir()) == sorted(images.values())
    loaded = load_dataset(str(folder), "text-to-image", split="test")
    assert len(loaded) == 3 and all(row["response_a_images"][0].size == (4, 4) for row in loaded)
