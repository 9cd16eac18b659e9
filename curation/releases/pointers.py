"""Pointer releases: media named, not shipped.

Where a source's licence or the curator forbids redistributing media, ``publish_release --media pointers`` writes,
instead of each media file, its entry in ``pointers.json`` (path in the release, sha256, size, and its source as
imported: dataset, path, the dataset's address) and ships ``rebuild.py`` (``curation/releases/rebuild.py``, Python's
standard library only), which fills the media from the user's own copy. The Parquet files hold a placeholder where a
full release embeds an image or a recording (``rebuild.placeholder``), in column chunks laid out so that script can
put the bytes in place (``writers.pointer_parquet_options``).

Pure: no Django import (the builder passes plain data).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from curation.releases import rebuild

EMBEDDED, POINTERS = "embedded", "pointers"
MODES = (EMBEDDED, POINTERS)
POINTERS_FILE = rebuild.POINTERS
SCRIPT = "rebuild.py"


def check_mode(mode: str) -> str:
    """``mode`` if it is a media mode; ValueError naming the choices otherwise."""
    if mode not in MODES:
        raise ValueError(f"media mode {mode!r}: expected {' or '.join(MODES)}")
    return mode


def pointer_entries(media, datasets: dict[str, dict]) -> list[dict]:
    """One ``pointers.json`` entry per media file (``MediaRef``s), in path order; ``datasets`` maps a source
    dataset's name to its ``title``, ``url`` and ``license``."""
    entries = []
    for ref in sorted(media, key=lambda r: r.path):
        source = {}
        if ref.source_dataset:
            source["dataset"] = ref.source_dataset
            url = (datasets.get(ref.source_dataset) or {}).get("url")
            if url:
                source["url"] = url
        if ref.source_path:
            source["path"] = ref.source_path
        entries.append({"path": ref.path, "sha256": ref.sha256, "size": ref.size, "mime_type": ref.mime_type,
                        "source": source})
    return entries


def pointers_document(entries: list[dict], datasets: dict[str, dict]) -> dict:
    used = sorted({e["source"]["dataset"] for e in entries if e["source"].get("dataset")})
    return {
        "format": rebuild.FORMAT,
        "placeholder": (rebuild.PLACEHOLDER + b"<sha256>").decode("ascii"),
        "rebuild": f"python3 {SCRIPT} --media-root DIR",
        "sources": {name: {key: (datasets.get(name) or {}).get(key, "") for key in ("title", "url", "license")}
                    for name in used},
        "files": entries,
    }


def write_pointer_files(staging: Path, media, datasets: dict[str, dict]) -> tuple[list[str], dict]:
    """Write ``pointers.json`` and ``rebuild.py`` into ``staging``; their paths and the card's summary of what must be
    obtained (``{"files", "bytes", "per_source": {name: {"title", "url", "license", "files"}}, "unrecorded"}``)."""
    entries = pointer_entries(media, datasets)
    document = pointers_document(entries, datasets)
    (staging / POINTERS_FILE).write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    (staging / SCRIPT).write_bytes(Path(rebuild.__file__).read_bytes())
    counts = Counter(e["source"].get("dataset", "") for e in entries)
    summary = {
        "files": len(entries), "bytes": sum(e["size"] for e in entries),
        "per_source": {name: {**document["sources"][name], "files": counts[name]} for name in document["sources"]},
        "unrecorded": sum(1 for e in entries if not e["source"].get("path")),
    }
    return [POINTERS_FILE, SCRIPT], summary


def card_section(name: str, version: str, summary: dict) -> list[str]:
    """The card's "Media not included" section: what must be obtained, from where, and how to put it in place."""
    lines = [
        "## Media not included (pointer release)",
        "",
        f"This release does not contain its {summary['files']} media files ({summary['bytes']:,} bytes): the "
        "licence of their source, or the publisher, does not allow redistributing them. `pointers.json` names each "
        "one: its path in this release (`media/<sha256>.<ext>`), its sha256 and size, and its source as imported "
        "(dataset, path inside it, address). Until they are filled in, the Parquet files hold the placeholder "
        f"`{rebuild.PLACEHOLDER.decode()}<sha256>` where images and audio go, and `media/` is absent.",
        "",
        "Obtain:",
        "",
    ]
    for source, facts in sorted(summary["per_source"].items()):
        where = facts.get("url") or "the address was not recorded"
        lines.append(f"- {facts['files']} files from {facts.get('title') or source} (`{source}`, licence "
                     f"`{facts.get('license') or 'unknown'}`): {where}. Keep the dataset's own layout: each file is "
                     "looked for at its path as imported.")
    unsourced = summary["files"] - sum(f["files"] for f in summary["per_source"].values())
    if unsourced:
        lines.append(f"- {unsourced} files with no recorded source dataset (uploaded, or imported without one): ask the "
                     "publisher; they are found by the path recorded, by name or by sha256.")
    lines += [
        "",
        "Then, in this folder (Python 3.9+, standard library only):",
        "",
        "```sh",
        f"python3 {SCRIPT} --media-root /path/to/your/copy",
        "# or, with Concord installed:",
        f"python manage.py rebuild_release path/to/{name}-{version} --media-root /path/to/your/copy",
        "```",
        "",
        "Every file is checked against its sha256 before anything is written: a missing or altered file is refused "
        "with its name and both hashes, and the folder is left as it was. After the rebuild the folder loads in "
        "`datasets` exactly as a full release does (the images and audio embedded in the Parquet files, the other "
        "media in `media/`).",
        "",
    ]
    return lines
