"""Publishing a release on local disk: contents, formats, pseudonyms, changelog, immutability, verification."""

import hashlib
import json
from io import StringIO
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from datasets import Features
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command

from annotation.catalogue.models import Campaign, Pair
from core.errors import ApplicationError
from curation.models import ConsensusRecord, Release, ReleaseFile
from curation.releases.rows import rater_pseudonym
from curation.services.agreement import agreement_compute
from curation.services.releases import release_publish, release_verify
from tests.curation.releases.conftest import kept, rate

pytestmark = pytest.mark.django_db

MMRB2_KEYS = ["id", "response_a", "response_b", "chosen", "human_annotations", "prompt_source", "prompt_metadata"]


def publish_json(*args) -> dict:
    out = StringIO()
    call_command("publish_release", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def publish_both(version="1.0.0"):
    return publish_json("--campaign", "t2i-wave,reasoning-wave", "--name", "fox-bench", "--version", version)


def test_publish_release_prints_the_documented_json_and_stores_every_manifest_file(release_data, releases_root):
    result = publish_both()
    assert set(result) == {"release", "version", "pairs", "files", "manifest_sha256", "location", "left_out"}
    assert (result["release"], result["version"], result["pairs"]) == ("fox-bench", "1.0.0", 4)
    folder = releases_root / "fox-bench" / "1.0.0"
    assert result["location"] == folder.resolve().as_uri() + "/"
    manifest_bytes = (folder / "manifest.json").read_bytes()
    assert hashlib.sha256(manifest_bytes).hexdigest() == result["manifest_sha256"]
    manifest = json.loads(manifest_bytes)
    assert result["files"] == len(manifest["files"]) + 1
    for entry in manifest["files"]:
        data = (folder / entry["path"]).read_bytes()
        assert (hashlib.sha256(data).hexdigest(), len(data)) == (entry["sha256"], entry["size"])
    listed = {entry["path"] for entry in manifest["files"]}
    on_disk = {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()} - {"manifest.json"}
    assert listed == on_disk
    assert manifest["counts"]["per_task"] == {"reasoning": 1, "text-to-image": 3}
    assert manifest["policy"]["t2i-wave"] == {"policy": "mmrb2-generation", "params": {"max_spread": 4, "tie_band": [3.0, 4.0]}}
    assert manifest["raters"] == {"distinct": 4, "ratings": 12, "anonymous_slot_ratings": 0,
                                  "per_task": {"reasoning": 3, "text-to-image": 3}}
    assert [c["slug"] for c in manifest["campaigns"]] == ["reasoning-wave", "t2i-wave"]
    assert manifest["concord_version"] == "0.1.0"
    # t2i: pair 1 sides A,A,A (3 agreeing rater pairs of 3); pair 2 B,B,A (1 of 3); pair 3 A,tie,A (1 of 1).
    t2i_agreement = manifest["agreement"]["human_pairwise"]["text-to-image"]
    assert t2i_agreement == {"agreement": 5 / 7, "agreeing_pairs": 5, "rater_pairs": 7, "interval": t2i_agreement["interval"],
                             "measured": "overall: nominal on A/B (ties excluded)"}
    low, high = t2i_agreement["interval"]
    assert 1 / 3 <= low <= 5 / 7 <= high <= 1, "a bootstrap over pairs whose own agreements are 1, 1/3 and 1"
    release = Release.objects.get(name="fox-bench")
    assert release.status == Release.Status.PUBLISHED and release.files.count() == len(manifest["files"])


def test_media_are_stored_once_each_under_their_content_address(release_data, releases_root):
    publish_both()
    media = sorted(p.name for p in (releases_root / "fox-bench" / "1.0.0" / "media").iterdir())
    assert media == sorted(f"{m.sha256}.png" for m in release_data["media"])


def test_parquet_rows_are_typed_with_placeholders_and_embedded_images(release_data, releases_root):
    publish_both()
    folder = releases_root / "fox-bench" / "1.0.0"
    assert sorted(p.name for p in (folder / "data" / "text-to-image").iterdir()) == ["test-00000-of-00001.parquet"]
    table = pq.read_table(folder / "data" / "text-to-image" / "test-00000-of-00001.parquet")
    rows = {row["id"]: row for row in table.to_pylist()}
    assert sorted(rows) == ["t2i-1", "t2i-2", "t2i-3"]
    pair = release_data["pairs"]["t2i-2"]
    green, blue = release_data["media"][1:]
    row = rows["t2i-2"]
    assert (row["prompt_text"], row["prompt_images"]) == ("Draw a red fox", [])
    assert row["response_a_text"] == "<image_0>"
    assert row["response_a_images"] == [{"bytes": green.file.open("rb").read(), "path": f"{green.sha256}.png"}]
    assert row["response_b_text"] == "Here it is:\n<image_0>"
    assert row["response_b_images"][0]["path"] == f"{blue.sha256}.png"
    assert (row["response_a_model"], row["response_b_model"], row["chosen"]) == ("imagen4", "gpt-image", "B")
    assert json.loads(row["prompt_metadata"]) == {"id": "t2i-2", "category": "animals"}
    assert row["criteria"] == ["faithful to the prompt"]
    assert row["human_annotations"] == [1, 2, 5], "MMRB2 generation: a typed list of integers, not JSON"
    assert row["agreement"] == pytest.approx(2 / 3)
    assert [(r["source"], r["side"], r["values"]["overall"]) for r in row["ratings"]] == [
        ("concord", "B", 1), ("concord", "B", 2), ("imported", "A", 5)]
    assert row["ratings"][0]["values"]["text_faithfulness"] == {"A": 2, "B": 3}
    assert table.schema.field("human_annotations").type == pa.list_(pa.int64())
    jsonl = [json.loads(line) for line in (folder / "data" / "text-to-image.jsonl").read_text().splitlines()]
    assert jsonl[1]["response_b"]["content"] == pair.response_b.content and jsonl[1]["id"] == "t2i-2"
    assert jsonl[1]["media"] == [f"media/{green.sha256}.png", f"media/{blue.sha256}.png"]


def test_each_task_loads_with_datasets_load_dataset_as_decoded_images_and_typed_columns(release_data, releases_root):
    from datasets import load_dataset
    from PIL import Image

    publish_both()
    folder = str(releases_root / "fox-bench" / "1.0.0")
    t2i = load_dataset(folder, "text-to-image", split="test")
    assert t2i.num_rows == 3 and t2i.features["response_a_images"].feature.__class__.__name__ == "Image"
    row = t2i[1]
    assert row["id"] == "t2i-2" and row["chosen"] == "B"
    image = row["response_a_images"][0]
    assert isinstance(image, Image.Image) and image.size == (6, 4) and image.convert("RGB").getpixel((0, 0)) == (0, 255, 0)
    assert [r["side"] for r in row["ratings"]] == ["B", "B", "A"]
    reasoning = load_dataset(folder, "reasoning", split="test")
    trace = reasoning[0]
    assert trace["prompt_text"] == "Which image is fake?\n<image_0>"
    assert trace["prompt_images"][0].convert("RGB").getpixel((0, 0)) == (255, 0, 0)
    assert trace["response_a_text"].startswith("Crop the shoes.\n[tool call] python(")
    assert trace["response_a_text"].endswith("<image_0>\nImage A")
    assert trace["response_a_images"][0].convert("RGB").getpixel((0, 0)) == (0, 255, 0)
    assert trace["human_annotations"] == {"response_a_ratings": ["A", "B", "A"], "response_b_ratings": ["C", "C", "C"]}
    assert [r["values"]["correctness"] for r in trace["ratings"]] == [{"A": 1, "B": 3}, {"A": 2, "B": 3}, {"A": 1, "B": 3}]
    assert [r["values"]["overall"] for r in row["ratings"]] == [1, 2, 5], "rating answers load as typed values"
    assert row["human_annotations"] == [1, 2, 5]
    assert isinstance(row["prompt_metadata"], str), "prompt_metadata stays JSON: its shape differs between sources"


def test_raters_appear_only_as_stable_pseudonyms(release_data, releases_root, settings):
    publish_both()
    folder = releases_root / "fox-bench" / "1.0.0"
    alice = release_data["users"][0]
    rows = [json.loads(line) for line in (folder / "data" / "text-to-image.jsonl").read_text().splitlines()]
    expected = rater_pseudonym(secret=settings.CONCORD_RATER_ID_SECRET, annotator_id=alice.pk, rater_label="",
                               campaign_id=release_data["t2i"].pk)
    assert rows[0]["ratings"][0]["rater"] == expected
    reasoning = json.loads((folder / "data" / "reasoning.jsonl").read_text())
    assert reasoning["ratings"][0]["rater"] == expected, "the same person has the same id across campaigns"
    assert rows[0]["ratings"][2]["rater"] != reasoning["ratings"][2]["rater"], "imported raters are scoped by campaign"


def test_mmrb2_file_has_exactly_the_reference_field_layout(release_data, releases_root, mmrb2_dir):
    publish_both()
    folder = releases_root / "fox-bench" / "1.0.0" / "mmrb2"
    assert sorted(p.name for p in folder.iterdir()) == ["reasoning.json", "t2i.json"]
    for reference_name in ("t2i", "reasoning"):
        reference = json.loads((mmrb2_dir / f"{reference_name}_response_only.json").read_text())
        ours = json.loads((folder / f"{reference_name}.json").read_text())
        assert list(ours) == list(reference) == ["pairs"]
        ref_pair, pair = reference["pairs"][0], ours["pairs"][0]
        assert list(pair) == list(ref_pair) + ["prompt_content"]
        assert list(pair["response_a"]) == list(ref_pair["response_a"]) == ["model_name", "response_content"]
        assert type(pair["human_annotations"]) is type(ref_pair["human_annotations"])
        for kind, value in pair["response_a"]["response_content"] + pair["prompt_content"]:
            assert kind in ("text", "image") and isinstance(value, str)
    t2i = json.loads((folder / "t2i.json").read_text())["pairs"][0]
    red, green = release_data["media"][:2]
    assert t2i["response_a"]["response_content"] == [["image", f"../media/{red.sha256}.png"]]
    assert t2i["response_b"]["response_content"] == [["text", "Here it is:"], ["image", f"../media/{green.sha256}.png"]]
    assert (folder / t2i["response_a"]["response_content"][0][1]).read_bytes() == red.file.open("rb").read(), \
        "image paths resolve from the mmrb2 folder, as MMRB2's evaluate.py opens them"
    assert t2i["prompt_content"] == [["text", "Draw a red fox"]]
    assert (t2i["chosen"], t2i["human_annotations"], t2i["prompt_source"]) == ("A", [6, 5, 6], "oneigbench")
    reasoning = json.loads((folder / "reasoning.json").read_text())["pairs"][0]
    assert reasoning["human_annotations"] == {"response_a_ratings": ["A", "B", "A"], "response_b_ratings": ["C", "C", "C"]}
    assert ["image", f"../media/{green.sha256}.png"] in reasoning["response_a"]["response_content"]


def test_the_dataset_card_has_a_hugging_face_header_and_a_datasheet(release_data, releases_root):
    import yaml

    publish_both()
    card = (releases_root / "fox-bench" / "1.0.0" / "README.md").read_text()
    header, body = yaml.safe_load(card.split("---\n")[1]), card.split("---\n", 2)[2]
    assert header["license"] == "cc-by-4.0", "nothing imported from a recorded source: the publisher's default"
    assert header["configs"][1] == {"config_name": "text-to-image",
                                    "data_files": [{"split": "test", "path": "data/text-to-image/test-*.parquet"}]}
    assert header["size_categories"] == ["n<1K"] and header["source_datasets"] == ["original"]
    assert set(header["task_categories"]) == {"text-to-image", "visual-question-answering"}
    assert "reward-modeling" in header["tags"]
    info = {entry["config_name"]: entry for entry in header["dataset_info"]}
    folder = releases_root / "fox-bench" / "1.0.0"
    for task, rows in (("text-to-image", 3), ("reasoning", 1)):
        size = sum(p.stat().st_size for p in (folder / "data" / task).glob("*.parquet"))
        assert size > 0
        assert info[task]["splits"] == [{"name": "test", "num_bytes": size, "num_examples": rows}]
        assert info[task]["dataset_size"] == info[task]["download_size"] == size
    features = {f["name"]: f for f in info["text-to-image"]["features"]}
    assert features["response_a_images"] == {"name": "response_a_images", "list": "image"}
    assert features["chosen"] == {"name": "chosen", "dtype": "string"}
    assert features["human_annotations"] == {"name": "human_annotations", "list": "int64"}
    reasoning = {f["name"]: f for f in info["reasoning"]["features"]}["human_annotations"]
    assert reasoning == {"name": "human_annotations", "struct": [{"name": "response_a_ratings", "list": "string"},
                                                                 {"name": "response_b_ratings", "list": "string"}]}
    values = {f["name"]: f for f in features["ratings"]["list"]}["values"]
    assert {f["name"]: f.get("dtype") for f in values["struct"]}["overall"] == "int64"
    card_features = {task: Features._from_yaml_list(info[task]["features"]) for task in info}
    for task, expected in card_features.items():
        shard = next((folder / "data" / task).glob("*.parquet"))
        assert Features.from_arrow_schema(pq.read_schema(shard)) == expected, "the card and the files agree"
    for section in ("## Tasks and sizes", "### Collection process", "### Agreement", "### Distribution and licence",
                    "## Citation", "```bibtex"):
        assert section in body
    assert "| text-to-image | 3 | 71.43% (" in body
    assert ("Campaign `t2i-wave` (text-to-image), rating schema `mmrb2-generation-text-to-image v1`: 6 ratings collected in "
            "Concord by 2 raters, shown blind") in body
    assert "3 ratings imported from a file uploaded by a curator, source not recorded" in body
    assert "overall: nominal on A/B (ties excluded) |" in body
    assert "Ratings: 12, by 4 raters with a stable identity." in body


def test_ratings_of_anonymous_slots_are_counted_apart_from_raters_in_the_manifest_and_the_card(release_data,
                                                                                                releases_root):
    pair = Pair.objects.get(external_id="t2i-1")
    rate(pair, {"anonymous:0123456789abcdef:1": 6, "anonymous:0123456789abcdef:2": 5})
    publish_both()
    folder = releases_root / "fox-bench" / "1.0.0"
    manifest = json.loads((folder / "manifest.json").read_text())
    assert (manifest["raters"]["distinct"], manifest["raters"]["ratings"]) == (4, 14)
    assert manifest["raters"]["anonymous_slot_ratings"] == 2
    assert ("Ratings: 14, by 4 raters with a stable identity and 2 from anonymous slots (ratings imported without a "
            "rater identity, each pseudonymous within its pair only and not counted as a rater).") in (
        folder / "README.md").read_text()


def test_changelog_lists_pairs_added_removed_and_with_a_changed_chosen_side(release_data, releases_root):
    publish_both("1.0.0")
    first = (releases_root / "fox-bench" / "1.0.0" / "CHANGELOG.md").read_text()
    assert "First release of fox-bench: 4 pairs." in first
    pairs = release_data["pairs"]
    ConsensusRecord.objects.filter(pair=pairs["t2i-1"]).update(decision=ConsensusRecord.Decision.DROPPED, chosen="")
    ConsensusRecord.objects.filter(pair=pairs["t2i-3"]).update(chosen="B")
    ConsensusRecord.objects.filter(pair=pairs["t2i-4"]).delete()
    kept(pairs["t2i-4"], "B")
    result = publish_both("1.1.0")
    assert result["pairs"] == 4
    log = (releases_root / "fox-bench" / "1.1.0" / "CHANGELOG.md").read_text()
    assert "Compared with fox-bench@1.0.0: 1 pairs added, 1 removed, 1 with a changed chosen side" in log
    assert "### Added (1)\n\n- t2i-4\n" in log
    assert "### Removed (1)\n\n- t2i-1\n" in log
    assert "- t2i-3: A → B" in log
    manifest = json.loads((releases_root / "fox-bench" / "1.1.0" / "manifest.json").read_text())
    assert manifest["changelog"] == {"previous": "fox-bench@1.0.0", "added": 1, "removed": 1, "chosen_changed": 1}
    assert (releases_root / "fox-bench" / "1.0.0" / "CHANGELOG.md").read_text() == first, "1.0.0 is untouched"


def test_publishing_the_same_version_again_is_refused_and_changes_nothing(release_data, releases_root):
    first = publish_both()
    manifest = (releases_root / "fox-bench" / "1.0.0" / "manifest.json").read_bytes()
    with pytest.raises(CommandError, match=r"fox-bench@1.0.0 is already published .*releases are immutable"):
        publish_both()
    assert (releases_root / "fox-bench" / "1.0.0" / "manifest.json").read_bytes() == manifest
    release = Release.objects.get(name="fox-bench", version="1.0.0")
    assert (release.manifest_sha256, release.status) == (first["manifest_sha256"], Release.Status.PUBLISHED)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "../etc", "version": "1.0.0", "campaign_slugs": ["t2i-wave"]}, "lowercase letters, digits and hyphens"),
        ({"name": "fox", "version": "1.0", "campaign_slugs": ["t2i-wave"]}, "not semantic"),
        ({"name": "fox", "version": "01.0.0", "campaign_slugs": ["t2i-wave"]}, "not semantic"),
        ({"name": "fox", "version": "1.0.0", "campaign_slugs": ["nope"]}, "unknown campaign"),
        ({"name": "fox", "version": "1.0.0", "campaign_slugs": [""]}, "at least one campaign"),
    ],
)
def test_bad_publish_requests_are_refused_precisely(release_data, releases_root, kwargs, message):
    with pytest.raises(ApplicationError, match=message):
        release_publish(**kwargs)
    assert not Release.objects.exists()


def test_a_campaign_whose_consensus_mixes_policies_is_refused(release_data, releases_root):
    ConsensusRecord.objects.filter(pair=release_data["pairs"]["t2i-1"]).update(params={"max_spread": 3})
    with pytest.raises(ApplicationError, match="mixes consensus policies"):
        release_publish(name="fox", version="1.0.0", campaign_slugs=["t2i-wave"])


def test_a_pair_referencing_unstored_media_fails_the_release_with_the_pair_named(release_data, releases_root):
    response = release_data["pairs"]["t2i-2"].response_a
    response.content = [{"type": "image", "media": "f" * 64, "alt": ""}]
    response.save()
    with pytest.raises(ApplicationError, match=r"pair 't2i-2' references media f{64} that is not stored"):
        release_publish(name="fox", version="1.0.0", campaign_slugs=["t2i-wave"])
    release = Release.objects.get(name="fox")
    assert release.status == Release.Status.FAILED and "not stored" in release.error
    assert not (releases_root / "fox" / "1.0.0" / "manifest.json").exists()
    assert release.job.status == "failed"


def test_verify_release_passes_then_names_a_tampered_and_a_missing_file(release_data, releases_root):
    publish_both()
    out = StringIO()
    call_command("verify_release", "fox-bench@1.0.0", "--json", stdout=out)
    clean = json.loads(out.getvalue())
    files = ReleaseFile.objects.filter(release__name="fox-bench").count()
    whole = clean.pop("archive")
    assert clean == {"ok": True, "files_checked": files + 1, "mismatches": []}
    assert whole["checked"] is True and whole["name"] == "fox-bench-1.0.0.zip"
    assert whole["actual_sha256"] == whole["sha256"] and whole["actual_size"] == whole["size"]
    folder = releases_root / "fox-bench" / "1.0.0"
    (folder / "data" / "reasoning.jsonl").write_text('{"id": "forged"}\n')
    (folder / "CHANGELOG.md").unlink()
    result = release_verify(release=Release.objects.get(name="fox-bench"))
    assert result["ok"] is False
    problems = {m["path"]: m["problem"] for m in result["mismatches"]}
    assert problems == {"data/reasoning.jsonl": "checksum", "CHANGELOG.md": "missing"}
    assert result["archive"]["checked"] is False and "files differ" in result["archive"]["why"]
    with pytest.raises(SystemExit) as exit_info:
        call_command("verify_release", "fox-bench@1.0.0", "--json", stdout=StringIO())
    assert exit_info.value.code == 1


def test_verify_rebuilds_the_download_zip_and_names_it_when_its_sha256_is_no_longer_the_recorded_one(
        release_data, releases_root):
    """The files can all match while the one-zip download does not (a later archive writer, a recorded hash
    edited): the zip's hash the page, API and X-Archive-SHA256 promise is checked too, and a release recorded
    before archives were says it was not checked."""
    publish_both()
    release = Release.objects.get(name="fox-bench")
    recorded = release.summary["archive"]
    assert release_verify(release=release)["ok"] is True
    release.summary = {**release.summary, "archive": {**recorded, "sha256": "0" * 64}}
    release.save(update_fields=["summary"])
    result = release_verify(release=release)
    assert result["ok"] is False
    assert result["mismatches"] == [{"path": "fox-bench-1.0.0.zip", "problem": "archive", "expected_sha256": "0" * 64,
                                     "actual_sha256": recorded["sha256"], "expected_size": recorded["size"],
                                     "actual_size": recorded["size"]}]
    release.summary = {k: v for k, v in release.summary.items() if k != "archive"}
    release.save(update_fields=["summary"])
    older = release_verify(release=release)
    assert older["ok"] is True and older["archive"]["checked"] is False and "no archive sha256" in older["archive"]["why"]
    out = StringIO()
    call_command("verify_release", "fox-bench@1.0.0", stdout=out)
    assert "archive fox-bench-1.0.0.zip: not checked: no archive sha256 was recorded" in out.getvalue()


def test_a_tampered_manifest_is_detected(release_data, releases_root):
    publish_both()
    path = releases_root / "fox-bench" / "1.0.0" / "manifest.json"
    path.write_text(path.read_text().replace('"pairs": 4', '"pairs": 5'))
    result = release_verify(release=Release.objects.get(name="fox-bench"))
    assert [m["path"] for m in result["mismatches"]] == ["manifest.json"]


def test_the_manifests_agreement_report_names_what_it_measured_and_no_rater_or_database_id(release_data, releases_root):
    campaign = Campaign.objects.get(slug="t2i-wave")
    agreement_compute(campaign=campaign, bootstrap=0, slices=False)
    alice = campaign.pairs.first().annotations.exclude(annotator=None).first().annotator
    publish_both()
    text = (releases_root / "fox-bench" / "1.0.0" / "manifest.json").read_text()
    report = json.loads(text)["agreement"]["reports"]["t2i-wave"]["report"]
    assert report["measured"]["fleiss_kappa"] == "overall: nominal on A/B/tie"
    assert report["rater_identities"]["stable_raters"] == 3
    assert all(entry["rater"].startswith("r_") for entry in report.get("annotators", [])), "per-rater rows as pseudonyms"
    assert f"user:{alice.pk}" not in text and "ext-7" not in text


def test_release_files_are_read_only_copies_that_share_no_inode_with_the_media_store(release_data, releases_root):
    publish_both()
    folder = releases_root / "fox-bench" / "1.0.0"
    red = release_data["media"][0]
    stored = Path(default_storage.path(red.file.name))
    published = folder / "media" / f"{red.sha256}.png"
    assert stored.stat().st_ino != published.stat().st_ino and published.stat().st_nlink == 1
    for path in folder.rglob("*"):
        if path.is_file():
            assert path.stat().st_mode & 0o222 == 0, f"{path} is writable"
    original = stored.read_bytes()
    published.chmod(0o644)
    published.write_bytes(b"changed in the release")
    assert stored.read_bytes() == original, "the live media store is untouched"


def test_verify_release_names_a_file_the_manifest_does_not_list(release_data, releases_root):
    publish_both()
    folder = releases_root / "fox-bench" / "1.0.0"
    (folder / "media" / "smuggled.png").write_bytes(b"not part of the release")
    result = release_verify(release=Release.objects.get(name="fox-bench"))
    assert result["ok"] is False
    assert result["mismatches"] == [{"path": "media/smuggled.png", "problem": "extra"}]


def every_release_text(folder: Path) -> dict[str, str]:
    """Each release file as text: Parquet files decoded row by row (their pages are compressed), media as bytes."""
    texts = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        if path.suffix == ".parquet":
            rows = pq.read_table(path).to_pylist()
            texts[str(path)] = json.dumps(rows, default=lambda b: b.decode("latin-1"), ensure_ascii=False)
            texts[str(path) + " (schema)"] = str(pq.read_schema(path).metadata)
        else:
            texts[str(path)] = path.read_bytes().decode("latin-1")
    return texts


def test_no_release_file_names_a_rater_even_when_imported_labels_are_emails(release_data, releases_root):
    from annotation.workqueue.models import Annotation
    from curation.services.agreement import agreement_compute

    Annotation.objects.filter(rater_label="ext-7").update(rater_label="carol.imported@crowd.example")
    Annotation.objects.filter(rater_label="ext-1").update(rater_label="worker-A17X9")
    agreement_compute(campaign=release_data["t2i"], bootstrap=50)
    agreement_compute(campaign=release_data["reasoning"], bootstrap=50)
    publish_both()
    folder = releases_root / "fox-bench" / "1.0.0"
    texts = every_release_text(folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    raters = {entry["rater"] for entry in manifest["agreement"]["reports"]["t2i-wave"]["report"]["annotators"]}
    assert len(raters) == 3 and all(r.startswith("r_") for r in raters), "per-rater figures use the release pseudonyms"
    disputed = manifest["agreement"]["reports"]["t2i-wave"]["report"]["items_summary"]["most_disputed"]
    assert disputed and {d["pair_id"] for d in disputed} <= {"t2i-1", "t2i-2", "t2i-3"}, "release ids, kept pairs only"
    alice, bob = release_data["users"]
    forbidden = ["alice", "bob", "alice@example.org", "bob@example.org", "carol.imported@crowd.example", "worker-A17X9",
                 f"user:{alice.pk}", f"user:{bob.pk}", "user:", "imported:"]
    forbidden += [f'"pair_id": {pair.pk}' for pair in release_data["pairs"].values()]
    for name, text in texts.items():
        for secret in forbidden:
            assert secret not in text, f"{secret!r} appears in {name}"


def test_media_that_cannot_be_read_fails_the_release_naming_the_pair_and_publishes_nothing(release_data, releases_root):
    green = release_data["media"][1]
    stored = Path(default_storage.path(green.file.name))
    original = stored.read_bytes()
    stored.unlink()
    try:
        with pytest.raises(CommandError, match=rf"pair 't2i-1': media {green.sha256} cannot be read from the media store"):
            publish_both()
    finally:
        stored.write_bytes(original)
    release = Release.objects.get(name="fox-bench")
    assert release.status == Release.Status.FAILED and "cannot be read" in release.error
    assert not (releases_root / "fox-bench" / "1.0.0" / "manifest.json").exists()
    assert not release.files.exists()
