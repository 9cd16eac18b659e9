"""Reward-model training data from a published release folder: TRL, LLaMA-Factory, OpenRLHF and ms-swift.

Everything is read from the release's own files (``manifest.json``, ``README.md``, the Parquet of
``data/<task>/``, ``media/``), so an export works from any published release folder, here or downloaded.
The release is never written to: the export is a folder of its own with its own ``manifest.json`` and card.

Each format follows its project's published documentation:

- TRL, conversational preference with images ("Vision datasets"):
  https://github.com/huggingface/trl/blob/main/docs/source/dataset_formats.md
  ``{"images": [...], "prompt": [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": ...}]}],
  "chosen": [{"role": "assistant", "content": [...]}], "rejected": [...]}`` (plus ``margin`` for the reward trainer).
- LLaMA-Factory, sharegpt preference dataset ("Preference Dataset", multimodal ``images``, ``<image>`` tokens):
  https://github.com/hiyouga/LLaMA-Factory/blob/main/data/README.md
  ``{"conversations": [{"from": "human", "value": ...}], "chosen": {"from": "gpt", "value": ...}, "rejected": {...},
  "images": [...]}`` registered in ``dataset_info.json`` with ``"ranking": true, "formatting": "sharegpt"``. For
  image-output tasks OmniReward-Factory's convention: the responses are ``<image>`` and ``images`` is
  ``[chosen image, rejected image]``.
- OpenRLHF, reward-model dataset (``--prompt_key prompt --chosen_key chosen --rejected_key rejected``; a ``margin``
  key is read when present): https://github.com/OpenRLHF/OpenRLHF/blob/main/openrlhf/datasets/reward_dataset.py
- ms-swift, RLHF (DPO/RM) format: ``messages`` ending in the chosen assistant turn, ``rejected_response``,
  ``images`` and ``rejected_images`` (the rejected sample's images where they differ from the chosen one's):
  https://github.com/modelscope/ms-swift/blob/main/docs/source_en/Customization/Custom-dataset.md

Pure Python over files: no Django import.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from curation.releases import rebuild

FORMATS = ("trl", "llamafactory", "openrlhf", "swift")
TIES = ("drop", "margin")
DATA_FILE = "train.jsonl"
MANIFEST = "manifest.json"
CARD = "README.md"
DATASET_INFO = "dataset_info.json"
# Responses that are images: the reward model compares two generated images (OmniReward-Factory's convention).
IMAGE_OUTPUT_TASKS = ("text-to-image", "image-editing")
# MMRB2's 1..6 overall scale: 1 = B much better, 6 = A much better, 3.5 its middle.
MMRB2_MIDDLE = 3.5

COLUMNS = {
    "trl": ["prompt", "chosen", "rejected", "images"],
    "llamafactory": ["conversations", "chosen", "rejected", "images"],
    "openrlhf": ["prompt", "chosen", "rejected", "images"],
    "swift": ["messages", "rejected_response", "images", "rejected_images"],
}
READ_COLUMNS = ["id", "task", "prompt_text", "prompt_images", "prompt_audio", "prompt_files",
                "response_a_text", "response_a_images", "response_a_audio", "response_a_files",
                "response_b_text", "response_b_images", "response_b_audio", "response_b_files",
                "chosen", "human_annotations", "agreement"]
ROWS_PER_READ = 256  # a shard's rows are read a batch at a time: its embedded images never sit in memory at once
PROGRESS_EVERY = 1_000
PLACEHOLDER = re.compile(r"<(image|audio|video|model3d)_(\d+)>")


class TrainingExportError(Exception):
    """The release folder cannot be exported as asked; the message says why."""


@dataclass
class Side:
    """One turn's text split at its placeholders: ``("text", str)`` and ``("image", media path)`` in order."""

    parts: list[tuple[str, str]]

    @property
    def images(self) -> list[str]:
        return [value for kind, value in self.parts if kind == "image"]


@dataclass
class Example:
    """One released pair oriented chosen/rejected, with the margin its ratings give."""

    task: str
    prompt: Side
    chosen: Side
    rejected: Side
    margin: float


@dataclass
class ExportResult:
    folder: Path
    format: str
    pairs: int
    per_task: dict = field(default_factory=dict)
    left_out: dict = field(default_factory=dict)
    files: int = 0
    manifest_sha256: str = ""

    def as_dict(self) -> dict:
        return {"format": self.format, "folder": str(self.folder), "pairs": self.pairs, "per_task": self.per_task,
                "left_out": self.left_out, "files": self.files, "manifest_sha256": self.manifest_sha256}


def split_side(text: str, images: list[dict]) -> Side | None:
    """``text`` cut at its ``<image_N>`` placeholders, each image named ``media/<content address>``; None when the
    side holds audio, video or 3D, which none of the four formats carries."""
    parts: list[tuple[str, str]] = []
    position = 0
    for match in PLACEHOLDER.finditer(text or ""):
        if match.group(1) != "image":
            return None
        before = text[position:match.start()].strip("\n")
        if before:
            parts.append(("text", before))
        parts.append(("image", f"media/{images[int(match.group(2))]['path']}"))
        position = match.end()
    rest = (text or "")[position:].strip("\n")
    if rest:
        parts.append(("text", rest))
    return Side(parts)


def pair_margin(human_annotations, agreement: float | None) -> float:
    """How strongly the humans preferred the chosen side.

    MMRB2's generation ratings (a list of overall values on 1..6): ``|mean − 3.5|``, from 0 to 2.5. Otherwise
    (choice or criteria labels): ``2·agreement − 1``, the net share of side-taking raters on the chosen side, from
    0 (split) to 1 (unanimous); 0 where no rater took a side (a reasoning pair's per-response grades take none).
    """
    # A typed column (a list of integers, a struct) where every campaign of the task shares one shape; a JSON string
    # where they differ (docs/releases.md).
    values = json.loads(human_annotations) if isinstance(human_annotations, str) and human_annotations else human_annotations
    if isinstance(values, list) and values and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                    for v in values):
        return round(abs(statistics.fmean(values) - MMRB2_MIDDLE), 6)
    if agreement is None:
        return 0.0
    return round(max(0.0, 2 * agreement - 1), 6)


def _columns(schema: pa.Schema) -> list[str]:
    """READ_COLUMNS, with only the ``path`` of each embedded media file: the export names files, it never reads the
    bytes the Parquet embeds (reading them took 8.5 s and 670 MB for 85,000 pairs; the paths alone 0.1 s, 90 MB)."""
    def leaf(name: str) -> str:
        kind = schema.field(name).type
        if pa.types.is_list(kind) and pa.types.is_struct(kind.value_type) and kind.value_type.get_field_index("path") >= 0:
            return f"{name}.list.element.path"
        return name
    return [leaf(name) for name in READ_COLUMNS] + [name for name in ("campaign", "criteria")
                                                    if schema.get_field_index(name) >= 0]


def criteria_of(value) -> list[str]:
    """A row's ``criteria``: a list of strings, typed or (where tasks differ in shape) as a JSON string."""
    values = json.loads(value) if isinstance(value, str) and value else value
    return [str(c) for c in values or [] if str(c).strip()]


def judged_by(prompt_text: str, criteria: list[str]) -> str:
    """The prompt a criterion item trains on: the prompt, then the criterion the humans judged it by, so that the
    items of one pair (one row per criterion, chosen per criterion) are distinct examples, not contradictions."""
    if not criteria:
        return prompt_text
    return f"{prompt_text or ''}\n\nCriterion: {'; '.join(criteria)}".lstrip("\n")


def per_criterion_campaigns(folder: Path) -> set[str]:
    """The campaigns whose rows are criterion items (one row per pair and criterion, labelled per criterion), from
    the manifest; a release published before the manifest said so names none."""
    try:
        campaigns = json.loads((folder / MANIFEST).read_text()).get("campaigns") or []
    except (OSError, ValueError):
        return set()
    return {c["slug"] for c in campaigns if isinstance(c, dict) and c.get("labels_per_criterion")}


def read_examples(folder: Path, *, min_agreement: float | None) -> tuple[list[Example], Counter, Counter]:
    """The release's pairs as examples (task order, then file order), with the counts of those kept and left out.
    A criterion item's prompt names its criterion (``judged_by``)."""
    examples, per_task, left_out = [], Counter(), Counter()
    per_criterion = per_criterion_campaigns(folder)
    data = folder / "data"
    shards = sorted(data.glob("*/*.parquet"))
    if not shards:
        raise TrainingExportError(f"{folder}: no data/<task>/*.parquet: not a Concord release folder")
    for shard in shards:
        parquet = pq.ParquetFile(shard)
        rows = (row for batch in parquet.iter_batches(batch_size=ROWS_PER_READ, columns=_columns(parquet.schema_arrow))
                for row in batch.to_pylist())
        for row in rows:
            if row["chosen"] not in ("A", "B"):
                left_out["tie"] += 1
                continue
            if min_agreement is not None and (row["agreement"] is None or row["agreement"] < min_agreement):
                left_out["below_min_agreement"] += 1
                continue
            if any(row[f"{side}_audio"] or row[f"{side}_files"] for side in ("prompt", "response_a", "response_b")):
                left_out["audio_video_or_3d"] += 1
                continue
            criteria = criteria_of(row.get("criteria")) if row.get("campaign") in per_criterion else []
            texts = {"prompt": judged_by(row["prompt_text"], criteria),
                     "response_a": row["response_a_text"], "response_b": row["response_b_text"]}
            sides = [split_side(texts[s], row[f"{s}_images"]) for s in ("prompt", "response_a", "response_b")]
            if any(side is None for side in sides):
                left_out["audio_video_or_3d"] += 1
                continue
            prompt, a, b = sides
            chosen, rejected = (a, b) if row["chosen"] == "A" else (b, a)
            examples.append(Example(task=row["task"], prompt=prompt, chosen=chosen, rejected=rejected,
                                    margin=pair_margin(row["human_annotations"], row["agreement"])))
            per_task[row["task"]] += 1
    return examples, per_task, left_out


def _tokens(side: Side, token: str) -> str:
    """The side as one string, each image as ``token`` (LLaMA-Factory's and ms-swift's ``<image>``)."""
    return "\n".join(token if kind == "image" else value for kind, value in side.parts)


def _content(side: Side) -> list[dict]:
    """TRL's content list: ``{"type": "image"}`` where an image stands, ``{"type": "text", "text": ...}`` else."""
    return [{"type": "image"} if kind == "image" else {"type": "text", "text": value} for kind, value in side.parts]


def to_record(example: Example, format: str, *, with_margin: bool) -> dict:
    """One line of ``train.jsonl`` in ``format``."""
    prompt, chosen, rejected = example.prompt, example.chosen, example.rejected
    if format == "trl":
        record = {"prompt": [{"role": "user", "content": _content(prompt)}],
                  "chosen": [{"role": "assistant", "content": _content(chosen)}],
                  "rejected": [{"role": "assistant", "content": _content(rejected)}],
                  "images": prompt.images + chosen.images + rejected.images}
    elif format == "llamafactory":
        record = {"conversations": [{"from": "human", "value": _tokens(prompt, "<image>")}],
                  "chosen": {"from": "gpt", "value": _tokens(chosen, "<image>")},
                  "rejected": {"from": "gpt", "value": _tokens(rejected, "<image>")},
                  "images": prompt.images + chosen.images + rejected.images}
    elif format == "openrlhf":
        record = {"prompt": _tokens(prompt, "<image>"), "chosen": _tokens(chosen, "<image>"),
                  "rejected": _tokens(rejected, "<image>"), "images": prompt.images + chosen.images + rejected.images}
    elif format == "swift":
        record = {"messages": [{"role": "user", "content": _tokens(prompt, "<image>")},
                               {"role": "assistant", "content": _tokens(chosen, "<image>")}],
                  "rejected_response": _tokens(rejected, "<image>"),
                  "images": prompt.images + chosen.images,
                  "rejected_images": prompt.images + rejected.images}
    else:
        raise TrainingExportError(f"unknown format {format!r}; one of {', '.join(FORMATS)}")
    if with_margin:
        record["margin"] = example.margin
    return record


def dataset_info(name: str) -> dict:
    """LLaMA-Factory's ``dataset_info.json`` entry for the export (``dataset_dir`` = the export folder)."""
    return {name: {"file_name": DATA_FILE, "formatting": "sharegpt", "ranking": True,
                   "columns": {"messages": "conversations", "chosen": "chosen", "rejected": "rejected",
                               "images": "images"}}}


def _citation(folder: Path) -> str:
    """The release card's citation section (the release's and its sources' BibTeX), as the card has it."""
    card = folder / CARD
    text = card.read_text() if card.is_file() else ""
    start = text.find("## Citation")
    return text[start:].strip() if start >= 0 else ""


def _card(*, name: str, version: str, format: str, licence: str, ties: str, min_agreement: float | None,
          per_task: Counter, left_out: Counter, citation: str, media_from: str = "") -> str:
    columns = COLUMNS[format] + (["margin"] if ties == "margin" else [])
    lines = [
        "---", f"license: {licence}", "tags:", "- reward-modeling", "- preference", f"- {format}",
        "configs:", "- config_name: default", "  data_files:", "  - split: train", f"    path: {DATA_FILE}", "---", "",
        f"# {name} {version}: reward-model training data ({format})", "",
        f"Derived from the Concord release `{name}@{version}` by `manage.py export_training`; the release's own files "
        "are unchanged and remain the reference. Columns: " + ", ".join(f"`{c}`" for c in columns) + ".",
        "Image paths are relative to this folder (`media/<sha256>.<ext>`, the release's content addresses).", "",
        "## Selection", "",
        "Chosen and rejected follow the release's `chosen` column (its consensus). Tie pairs are left out"
        + (". `margin` is how strongly the humans preferred the chosen side: |mean overall − 3.5| for MMRB2's 1..6 "
           "ratings, else 2·agreement − 1 (net share of side-taking raters on the chosen side)."
           if ties == "margin" else "."),
        f"Minimum agreement with the chosen side: {min_agreement}." if min_agreement is not None
        else "No minimum agreement.", "",
        "| Task | Pairs |", "|---|---|", *[f"| {task} | {n} |" for task, n in sorted(per_task.items())], "",
        "Left out: " + (", ".join(f"{reason} {n}" for reason, n in sorted(left_out.items())) or "none") + ".", "",
        "## Licence", "", f"`{licence}`, the licence of the release it comes from.", "",
    ]
    if media_from:
        lines += ["## Media of a pointer release", "",
                  f"`{name}@{version}` does not redistribute its media: it names each file's source and sha256 "
                  f"(`pointers.json`). The media of this export were filled from {media_from}, each checked against "
                  "its sha256. They are under their sources' terms: do not redistribute this folder where those "
                  "terms forbid it.", ""]
    if citation:
        lines += [citation, ""]
    return "\n".join(lines)


def _file_entry(folder: Path, path: Path) -> dict:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return {"path": path.relative_to(folder).as_posix(), "sha256": digest, "size": path.stat().st_size}


def _place_media(source: Path, target: Path) -> None:
    """A hard link to the release's (read-only) media file where the filesystem allows, else a copy."""
    if target.exists():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


# A server's own copy of a pointer entry's file (``{"path", "sha256", "size", "source"}``), or None.
MediaSource = Callable[[dict], "Path | None"]


def pointer_media(release_folder: Path, needed: set[str], *, media_root: Path | None,
                  media_source: MediaSource | None) -> tuple[dict[str, Path], str]:
    """``{release media path: local file}`` for each of ``needed`` and where they came from (for the card).

    Every file is checked against its sha256 first: a missing or altered one is refused with its name and both
    hashes (``rebuild.locate``'s message), and nothing is written.
    """
    try:
        entries = [e for e in rebuild.read_pointers(release_folder)["files"] if e["path"] in needed]
        if media_root is not None:
            root = Path(media_root).resolve()
            if not root.is_dir():
                raise TrainingExportError(f"--media-root {media_root}: no such folder")
            return rebuild.locate(root, entries), f"the media folder `{root.name}/`"
    except rebuild.RebuildError as exc:
        raise TrainingExportError(str(exc).replace("nothing was written", "nothing was exported")) from exc
    found, problems = {}, []
    for entry in entries:
        local = media_source(entry)
        actual = rebuild.sha256_of(local) if local is not None and local.is_file() else None
        if actual == entry["sha256"]:
            found[entry["path"]] = local
        else:
            problems.append(f"{entry['path']}: not in this server's media store (sha256 {entry['sha256']})"
                            if actual is None else f"{entry['path']}: sha256 {actual}, expected {entry['sha256']}")
    if problems:
        raise TrainingExportError(f"{len(problems)} media file(s) of the pointer release cannot be filled; nothing "
                                  "was exported:\n  " + "\n  ".join(problems[:rebuild.SHOWN]))
    return found, "the Concord server's own media store"


def default_folder(release_folder: Path, format: str) -> Path:
    """``<release>/../<version>-training/<format>/``: beside the release, never inside it (``verify_release``
    reports any file under the release folder that its manifest does not name)."""
    release_folder = Path(release_folder)
    return release_folder.parent / f"{release_folder.name}-training" / format


def check_options(*, format: str, ties: str, min_agreement: float | None) -> None:
    """TrainingExportError naming the option a request got wrong."""
    if format not in FORMATS:
        raise TrainingExportError(f"unknown format {format!r}; one of {', '.join(FORMATS)}")
    if ties not in TIES:
        raise TrainingExportError(f"--ties is one of {', '.join(TIES)}, not {ties!r}")
    if min_agreement is not None and not 0 <= min_agreement <= 1:
        raise TrainingExportError(f"--min-agreement is a share between 0 and 1, not {min_agreement}")


def export_training(*, release_folder: Path, format: str, out: Path | None = None, ties: str = "drop",
                    min_agreement: float | None = None,
                    progress: Callable[[int, int], None] | None = None, media_root: Path | None = None,
                    media_source: MediaSource | None = None) -> ExportResult:
    """Write ``format``'s training data for the release at ``release_folder`` into ``out`` (default beside it).

    ``out`` must be outside the release folder and empty or absent; the release is only read. ``manifest.json`` is
    written last, so a folder with one is a finished export. ``progress(done, total)`` hears per 1,000 pairs written.
    A pointer release whose media are not filled in takes them from ``media_root`` (the user's copy, found as
    ``rebuild.py`` finds it) or ``media_source`` (a server's own store), each file checked against its sha256
    before anything is written.
    """
    check_options(format=format, ties=ties, min_agreement=min_agreement)
    release_folder = Path(release_folder).resolve()
    manifest_path = release_folder / MANIFEST
    if not manifest_path.is_file():
        raise TrainingExportError(f"{release_folder}: no manifest.json: not a published release folder")
    manifest_bytes = manifest_path.read_bytes()
    manifest = json.loads(manifest_bytes)
    pointer = (manifest.get("media") or {}).get("mode") == "pointers" and not (release_folder / "media").is_dir()
    if pointer and media_root is None and media_source is None:
        raise TrainingExportError(f"{release_folder}: a pointer release whose media are not filled in; name your copy "
                                  "of its sources with --media-root DIR (or run its rebuild.py --media-root DIR first)")
    folder = Path(out if out is not None else default_folder(release_folder, format)).resolve()
    if folder == release_folder or release_folder in folder.parents:
        raise TrainingExportError(f"{folder}: inside the release folder; a release's files never change")
    if folder.exists() and any(folder.iterdir()):
        raise TrainingExportError(f"{folder}: not empty; name another --out or remove the earlier export")
    examples, per_task, left_out = read_examples(release_folder, min_agreement=min_agreement)
    media: dict[str, Path] = {}
    media_from = ""
    if pointer:
        needed = {path for e in examples for path in (*e.prompt.images, *e.chosen.images, *e.rejected.images)}
        media, media_from = pointer_media(release_folder, needed, media_root=media_root, media_source=media_source)

    folder.mkdir(parents=True, exist_ok=True)
    name, version = manifest["name"], manifest["version"]
    with_margin = ties == "margin"
    with open(folder / DATA_FILE, "w") as handle:
        for done, example in enumerate(examples):
            if progress is not None and done % PROGRESS_EVERY == 0:
                progress(done, len(examples))
            record = to_record(example, format, with_margin=with_margin)
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            for path in {*example.prompt.images, *example.chosen.images, *example.rejected.images}:
                _place_media(media.get(path) or release_folder / path, folder / path)
    if format == "llamafactory":
        (folder / DATASET_INFO).write_text(json.dumps(dataset_info(f"{name}-{version}"), indent=2) + "\n")
    licence = manifest.get("license") or "other"
    (folder / CARD).write_text(_card(name=name, version=version, format=format, licence=licence, ties=ties,
                                     min_agreement=min_agreement, per_task=per_task, left_out=left_out,
                                     citation=_citation(release_folder), media_from=media_from))
    files = sorted((p for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST), key=lambda p: p.as_posix())
    export_manifest = {
        "release": {"name": name, "version": version,
                    "manifest_sha256": hashlib.sha256(manifest_bytes).hexdigest()},
        "format": format, "columns": COLUMNS[format] + (["margin"] if with_margin else []),
        "ties": ties, "min_agreement": min_agreement, "license": licence,
        "counts": {"pairs": len(examples), "per_task": dict(sorted(per_task.items())),
                   "left_out": dict(sorted(left_out.items()))},
        "files": [_file_entry(folder, p) for p in files],
    }
    data = (json.dumps(export_manifest, indent=2, sort_keys=True) + "\n").encode()
    (folder / MANIFEST).write_bytes(data)
    if progress is not None:
        progress(len(examples), len(examples))
    return ExportResult(folder=folder, format=format, pairs=len(examples), per_task=dict(sorted(per_task.items())),
                        left_out=dict(sorted(left_out.items())), files=len(files) + 1,
                        manifest_sha256=hashlib.sha256(data).hexdigest())
