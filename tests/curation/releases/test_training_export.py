"""Training exports of a published release: TRL, LLaMA-Factory, OpenRLHF and ms-swift, each as its docs define it.

Formats, from each project's published documentation (also cited in curation/releases/training.py):
- TRL: https://github.com/huggingface/trl/blob/main/docs/source/dataset_formats.md (vision preference datasets)
- LLaMA-Factory: https://github.com/hiyouga/LLaMA-Factory/blob/main/data/README.md (sharegpt preference dataset)
- OpenRLHF: https://github.com/OpenRLHF/OpenRLHF/blob/main/openrlhf/datasets/reward_dataset.py (prompt/chosen/rejected)
- ms-swift: https://github.com/modelscope/ms-swift/blob/main/docs/source_en/Customization/Custom-dataset.md
"""

import hashlib
import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.catalogue.models import Pair
from curation.models import ConsensusRecord
from curation.releases.training import pair_margin
from tests.curation.releases.test_release_omni import omni_release  # noqa: F401 (a fixture)
from tests.curation.releases.test_release_publish import publish_both

pytestmark = pytest.mark.django_db

DOCUMENTED = {
    "trl": {"prompt", "chosen", "rejected", "images"},
    "llamafactory": {"conversations", "chosen", "rejected", "images"},
    "openrlhf": {"prompt", "chosen", "rejected", "images"},
    "swift": {"messages", "rejected_response", "images", "rejected_images"},
}


def export(*args) -> dict:
    out = StringIO()
    call_command("export_training", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def release_hashes(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def load(folder: Path):
    from datasets import load_dataset

    return load_dataset("json", data_files=str(folder / "train.jsonl"), split="train")


@pytest.fixture
def published(release_data, releases_root):
    """fox-bench@1.0.0 with t2i-4 kept as a tie: three A/B image pairs, one tie, one reasoning pair."""
    ConsensusRecord.objects.filter(pair=Pair.objects.get(external_id="t2i-4")).update(
        decision=ConsensusRecord.Decision.KEPT, chosen="tie", reason="")
    publish_both()
    folder = releases_root / "fox-bench" / "1.0.0"
    rows = [json.loads(line) for line in (folder / "data" / "text-to-image.jsonl").read_text().splitlines()]
    assert sorted(r["chosen"] for r in rows) == ["A", "A", "B", "tie"], "the fixture release holds a tie"
    return folder


@pytest.mark.parametrize("format", sorted(DOCUMENTED))
def test_each_format_loads_with_datasets_with_exactly_its_documented_columns(published, releases_root, format):
    before = release_hashes(published)
    result = export("--release", "fox-bench@1.0.0", "--format", format)
    folder = releases_root / "fox-bench" / "1.0.0-training" / format
    assert Path(result["folder"]) == folder.resolve()
    assert (result["pairs"], result["per_task"], result["left_out"]) == (
        4, {"reasoning": 1, "text-to-image": 3}, {"tie": 1})
    extra = 1 if format == "llamafactory" else 0  # dataset_info.json
    assert result["files"] == 3 + 3 + extra, "train.jsonl, README.md, manifest.json and the three images"
    data = load(folder)
    assert set(data.column_names) == DOCUMENTED[format] and data.num_rows == 4
    for row in data:
        images = row["images"] + (row["rejected_images"] if format == "swift" else [])
        assert images and all((folder / path).is_file() for path in images), "media sit in the export folder"
    manifest = json.loads((folder / "manifest.json").read_text())
    listed = {entry["path"] for entry in manifest["files"]}
    assert listed == {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()} - {"manifest.json"}
    for entry in manifest["files"]:
        assert hashlib.sha256((folder / entry["path"]).read_bytes()).hexdigest() == entry["sha256"]
    assert manifest["release"]["manifest_sha256"] == hashlib.sha256((published / "manifest.json").read_bytes()).hexdigest()
    assert release_hashes(published) == before, "the release's files are unchanged"
    verify = StringIO()
    call_command("verify_release", "fox-bench@1.0.0", "--json", stdout=verify)
    assert json.loads(verify.getvalue())["ok"], "the export sits beside the release, not inside it"


def test_trl_rows_are_conversations_with_image_placeholders_in_the_order_of_images(published, releases_root,
                                                                                   release_data):
    export("--release", "fox-bench@1.0.0", "--format", "trl")
    folder = releases_root / "fox-bench" / "1.0.0-training" / "trl"
    data = load(folder)
    red, green, blue = release_data["media"]
    # Tasks in the order of their data/<task>/ folders: reasoning, then text-to-image's t2i-1, t2i-2, t2i-3.
    t2i_2 = data[2]  # chosen B: "Here it is:" + blue over imagen4's green
    assert t2i_2["prompt"] == [{"role": "user", "content": [{"type": "text", "text": "Draw a red fox"}]}]
    assert t2i_2["chosen"][0]["role"] == "assistant"
    assert [(c["type"], c.get("text")) for c in t2i_2["chosen"][0]["content"]] == [("text", "Here it is:"), ("image", None)]
    assert [c["type"] for c in t2i_2["rejected"][0]["content"]] == ["image"]
    assert t2i_2["images"] == [f"media/{blue.sha256}.png", f"media/{green.sha256}.png"]
    reasoning = data[0]
    assert [c["type"] for c in reasoning["prompt"][0]["content"]] == ["text", "image"]
    assert reasoning["images"][0] == f"media/{red.sha256}.png"
    assert (folder / reasoning["images"][0]).read_bytes() == red.file.open("rb").read()


def test_llamafactory_registers_a_sharegpt_ranking_dataset_and_image_outputs_are_chosen_then_rejected(
        published, releases_root, release_data):
    export("--release", "fox-bench@1.0.0", "--format", "llamafactory")
    folder = releases_root / "fox-bench" / "1.0.0-training" / "llamafactory"
    info = json.loads((folder / "dataset_info.json").read_text())
    assert info == {"fox-bench-1.0.0": {"file_name": "train.jsonl", "formatting": "sharegpt", "ranking": True,
                                        "columns": {"messages": "conversations", "chosen": "chosen",
                                                    "rejected": "rejected", "images": "images"}}}
    data = load(folder)
    red, green, _ = release_data["media"]
    t2i_1 = data[1]  # chosen A (red) over B ("Here it is:" + green)
    assert t2i_1["conversations"] == [{"from": "human", "value": "Draw a red fox"}]
    assert t2i_1["chosen"] == {"from": "gpt", "value": "<image>"}
    assert t2i_1["rejected"] == {"from": "gpt", "value": "Here it is:\n<image>"}
    assert t2i_1["images"] == [f"media/{red.sha256}.png", f"media/{green.sha256}.png"], "[chosen, rejected]"
    for row in data:
        tokens = sum(turn["value"].count("<image>") for turn in [*row["conversations"], row["chosen"], row["rejected"]])
        assert tokens == len(row["images"]), "LLaMA-Factory needs one <image> token per image"


def test_swift_rows_carry_the_rejected_sides_images_apart(published, releases_root, release_data):
    export("--release", "fox-bench@1.0.0", "--format", "swift")
    data = load(releases_root / "fox-bench" / "1.0.0-training" / "swift")
    red, green, _ = release_data["media"]
    row = data[1]  # t2i-1
    assert row["messages"] == [{"role": "user", "content": "Draw a red fox"}, {"role": "assistant", "content": "<image>"}]
    assert row["rejected_response"] == "Here it is:\n<image>"
    assert (row["images"], row["rejected_images"]) == ([f"media/{red.sha256}.png"], [f"media/{green.sha256}.png"])


def test_ties_margin_adds_the_ratings_strength_and_still_drops_ties(published, tmp_path):
    result = export("--release", "fox-bench@1.0.0", "--format", "openrlhf", "--ties", "margin", "--out",
                    str(tmp_path / "rm"))
    assert result["left_out"] == {"tie": 1}
    data = load(tmp_path / "rm")
    assert set(data.column_names) == DOCUMENTED["openrlhf"] | {"margin"}
    assert data.features["margin"].dtype == "float64"
    # reasoning: per-response grades, no rater takes a side → 0; t2i-1 overall 6,5,6: |17/3 − 3.5|;
    # t2i-2 1,2,5: |8/3 − 3.5|; t2i-3 6,4,5: 1.5.
    assert data["margin"] == pytest.approx([0.0, 17 / 3 - 3.5, 3.5 - 8 / 3, 1.5], abs=1e-6)
    assert data[1]["prompt"] == "Draw a red fox" and data[1]["chosen"] == "<image>"


def test_pair_margin_reads_mmrb2_scales_and_agreement_otherwise():
    assert pair_margin("[6, 6]", 1.0) == 2.5
    assert pair_margin("[3, 4]", None) == 0.0
    assert pair_margin('{"response_a_ratings": ["A"], "response_b_ratings": ["C"]}', 0.75) == 0.5
    assert pair_margin('["A", "B"]', None) == 0.0


def test_min_agreement_keeps_only_pairs_the_raters_backed(published, tmp_path):
    # Agreement with the chosen side: t2i-1 1.0, t2i-2 2/3, t2i-3 1.0 (a tie rating left out); reasoning none (its
    # per-response grades take no side), so it is left out too.
    result = export("--release", "fox-bench@1.0.0", "--format", "trl", "--min-agreement", "0.9", "--out",
                    str(tmp_path / "strict"))
    assert (result["pairs"], result["left_out"]) == (2, {"below_min_agreement": 2, "tie": 1})
    assert load(tmp_path / "strict").num_rows == 2
    card = (tmp_path / "strict" / "README.md").read_text()
    assert "Minimum agreement with the chosen side: 0.9." in card


def test_no_rater_pseudonym_or_username_reaches_an_export_and_the_card_carries_licence_and_citation(
        published, tmp_path, release_data):
    release_text = "".join(p.read_text() for p in (published / "data").glob("*.jsonl"))
    pseudonyms = {rating["rater"] for line in release_text.splitlines() for rating in json.loads(line)["ratings"]}
    assert pseudonyms
    for format in sorted(DOCUMENTED):
        out = tmp_path / format
        export("--release", "fox-bench@1.0.0", "--format", format, "--ties", "margin", "--out", str(out))
        text = "".join(p.read_text() for p in out.rglob("*") if p.suffix in (".json", ".jsonl", ".md"))
        for secret in pseudonyms | {"alice", "bob", "ext-7", "ext-1", "example.org"}:
            assert secret not in text, (format, secret)
        card = (out / "README.md").read_text()
        assert "license: cc-by-4.0" in card and "## Citation" in card and "@misc{" in card


def test_an_export_is_refused_inside_the_release_or_over_an_earlier_one(published):
    with pytest.raises(CommandError, match="inside the release folder"):
        export("--release", "fox-bench@1.0.0", "--format", "trl", "--out", str(published / "training"))
    export("--release", "fox-bench@1.0.0", "--format", "trl")
    with pytest.raises(CommandError, match="not empty"):
        export("--release", "fox-bench@1.0.0", "--format", "trl")


def test_a_downloaded_release_folder_exports_without_the_database(published, tmp_path):
    import shutil

    copy = tmp_path / "downloaded" / "fox-bench-1.0.0"
    shutil.copytree(published, copy)
    result = export("--folder", str(copy), "--format", "swift", "--out", str(tmp_path / "swift"))
    assert result["pairs"] == 4


def test_a_release_on_s3_is_named_for_download_and_a_share_outside_0_1_is_refused(published):
    from curation.models import Release

    with pytest.raises(CommandError, match="between 0 and 1"):
        export("--release", "fox-bench@1.0.0", "--format", "trl", "--min-agreement", "75")
    Release.objects.filter(name="fox-bench").update(storage=Release.Storage.S3)
    with pytest.raises(CommandError, match="is on S3: fetch it with its download links"):
        export("--release", "fox-bench@1.0.0", "--format", "trl")


@pytest.mark.parametrize("format", sorted(DOCUMENTED))
def test_an_omni_criteria_release_exports_one_example_per_criterion_item_with_its_criterion_in_the_prompt(
        omni_release, releases_root, format):  # noqa: F811 (the fixture)
    from tests.curation.releases.test_release_omni import LABELS

    result = export("--release", "omni-bench@1.0.0", "--format", format)
    decided = [i for i, label in enumerate(LABELS) if label != "tie"]
    # 11 text pairs decided A/B, and the dog on a bike (B); the cat in a hat and five text pairs are ties.
    assert (result["pairs"], result["per_task"], result["left_out"]) == (
        len(decided) + 1, {"text-to-text": len(decided), "text-to-image": 1}, {"tie": 6})
    data = load(Path(result["folder"]))
    assert set(data.column_names) == DOCUMENTED[format]
    prompts = [json.dumps(row["prompt" if format in ("trl", "openrlhf") else
                               "conversations" if format == "llamafactory" else "messages"], ensure_ascii=False)
               for row in data]
    for i in decided:
        assert sum(f"Question {i}?" in p and f"Criterion: Criterion {i}" in p for p in prompts) == 1, (i, prompts)
    assert sum("A dog on a bike" in p and "Criterion: The bike has two wheels" in p for p in prompts) == 1


def test_a_criterion_item_s_prompt_names_its_criteria_and_a_plain_pair_s_is_unchanged():
    from curation.releases.training import criteria_of, judged_by

    assert judged_by("Draw a fox", []) == "Draw a fox"
    assert judged_by("Draw a fox <image_0>", ["Faithful", "Aesthetic"]) == (
        "Draw a fox <image_0>\n\nCriterion: Faithful; Aesthetic")
    assert criteria_of('["Faithful"]') == criteria_of(["Faithful"]) == ["Faithful"]
    assert criteria_of(None) == criteria_of("") == criteria_of([" "]) == []
