"""Publishing a release on local disk: contents, formats, pseudonyms, changelog, immutability, verification."""

import hashlib
import json
from io import StringIO

import pyarrow.parquet as pq
import pytest
from django.core.management import CommandError, call_command

from annotation.errors import ApplicationError
from annotation.models import Campaign, Pair
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
    assert manifest["agreement"]["human_pairwise"]["text-to-image"] == {
        "agreement": 5 / 7, "agreeing_pairs": 5, "rater_pairs": 7, "measured": "overall: nominal on A/B (ties excluded)"}
    release = Release.objects.get(name="fox-bench")
    assert release.status == Release.Status.PUBLISHED and release.files.count() == len(manifest["files"])


def test_media_are_stored_once_each_under_their_content_address(release_data, releases_root):
    publish_both()
    media = sorted(p.name for p in (releases_root / "fox-bench" / "1.0.0" / "media").iterdir())
    assert media == sorted(f"{m.sha256}.png" for m in release_data["media"])


def test_parquet_loads_with_pyarrow_and_round_trips_the_content(release_data, releases_root):
    publish_both()
    table = pq.read_table(releases_root / "fox-bench" / "1.0.0" / "data" / "text-to-image.parquet")
    rows = {row["id"]: row for row in table.to_pylist()}
    assert sorted(rows) == ["t2i-1", "t2i-2", "t2i-3"]
    pair = release_data["pairs"]["t2i-2"]
    row = rows["t2i-2"]
    assert json.loads(row["prompt_content"]) == pair.prompt.content
    assert json.loads(row["response_a_content"]) == pair.response_a.content
    assert json.loads(row["response_b_content"]) == pair.response_b.content
    assert (row["response_a_model"], row["response_b_model"], row["chosen"]) == ("imagen4", "gpt-image", "B")
    assert json.loads(row["prompt_metadata"]) == {"id": "t2i-2", "category": "animals"}
    assert row["criteria"] == ["faithful to the prompt"]
    assert json.loads(row["human_annotations"]) == [1, 2, 5]
    assert row["agreement"] == pytest.approx(2 / 3)
    assert [json.loads(r["values"])["overall"] for r in row["ratings"]] == [1, 2, 5]
    green, blue = release_data["media"][1:]
    assert row["media"] == [f"media/{green.sha256}.png", f"media/{blue.sha256}.png"]
    jsonl = [json.loads(line) for line in
             (releases_root / "fox-bench" / "1.0.0" / "data" / "text-to-image.jsonl").read_text().splitlines()]
    assert jsonl[1]["response_b"]["content"] == pair.response_b.content and jsonl[1]["id"] == "t2i-2"


def test_raters_appear_only_as_stable_pseudonyms(release_data, releases_root, settings):
    publish_both()
    folder = releases_root / "fox-bench" / "1.0.0"
    everything = "".join(p.read_text(errors="ignore") for p in folder.rglob("*") if p.suffix in (".jsonl", ".json", ".md"))
    everything += (folder / "data" / "text-to-image.parquet").read_bytes().decode("latin-1")
    alice, bob = release_data["users"]
    for secret in ("alice", "bob", "alice@example.org", "bob@example.org", "ext-7", "ext-1"):
        assert secret not in everything
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
    for task, reference_name in (("text-to-image", "t2i"), ("reasoning", "reasoning")):
        reference = json.loads((mmrb2_dir / f"{reference_name}_response_only.json").read_text())
        ours = json.loads((folder / f"{task}.json").read_text())
        assert list(ours) == list(reference) == ["pairs"]
        ref_pair, pair = reference["pairs"][0], ours["pairs"][0]
        assert list(pair) == list(ref_pair) + ["prompt_content"]
        assert list(pair["response_a"]) == list(ref_pair["response_a"]) == ["model_name", "response_content"]
        assert type(pair["human_annotations"]) is type(ref_pair["human_annotations"])
        for kind, value in pair["response_a"]["response_content"] + pair["prompt_content"]:
            assert kind in ("text", "image") and isinstance(value, str)
    t2i = json.loads((folder / "text-to-image.json").read_text())["pairs"][0]
    red, green = release_data["media"][:2]
    assert t2i["response_a"]["response_content"] == [["image", f"{red.sha256}.png"]]
    assert t2i["response_b"]["response_content"] == [["text", "Here it is:"], ["image", f"{green.sha256}.png"]]
    assert t2i["prompt_content"] == [["text", "Draw a red fox"]]
    assert (t2i["chosen"], t2i["human_annotations"], t2i["prompt_source"]) == ("A", [6, 5, 6], "oneigbench")
    reasoning = json.loads((folder / "reasoning.json").read_text())["pairs"][0]
    assert reasoning["human_annotations"] == {"response_a_ratings": ["A", "B", "A"], "response_b_ratings": ["C", "C", "C"]}
    assert ["image", f"{green.sha256}.png"] in reasoning["response_a"]["response_content"]


def test_the_dataset_card_has_a_hugging_face_header_and_a_datasheet(release_data, releases_root):
    publish_both()
    card = (releases_root / "fox-bench" / "1.0.0" / "README.md").read_text()
    header, body = card.split("---\n")[1], card.split("---\n", 2)[2]
    assert "license: cc-by-4.0" in header
    assert "- config_name: text-to-image\n  data_files:\n  - split: test\n    path: data/text-to-image.parquet" in header
    assert "size_categories:\n- n<1K" in header
    for section in ("## Tasks and sizes", "### Collection process", "### Agreement", "### Distribution and licence"):
        assert section in body
    assert "| text-to-image | 3 | 71.43% | overall: nominal on A/B (ties excluded) |" in body
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
    assert clean == {"ok": True, "files_checked": files + 1, "mismatches": []}
    folder = releases_root / "fox-bench" / "1.0.0"
    (folder / "data" / "reasoning.jsonl").write_text('{"id": "forged"}\n')
    (folder / "CHANGELOG.md").unlink()
    result = release_verify(release=Release.objects.get(name="fox-bench"))
    assert result["ok"] is False
    problems = {m["path"]: m["problem"] for m in result["mismatches"]}
    assert problems == {"data/reasoning.jsonl": "checksum", "CHANGELOG.md": "missing"}
    with pytest.raises(SystemExit) as exit_info:
        call_command("verify_release", "fox-bench@1.0.0", "--json", stdout=StringIO())
    assert exit_info.value.code == 1


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
    assert "annotators" not in report and "most_disputed" not in report["items_summary"]
    assert f"user:{alice.pk}" not in text and "ext-7" not in text
