"""The dataset card (Hugging Face YAML header + datasheet) and the CHANGELOG of a release, as text.

The card's YAML is what the Hub and ``datasets.load_dataset(folder, config)`` read: one config per task
(split ``test``, the task's Parquet shards) and each config's features. Pure: no Django import.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from curation.releases.pointers import card_section as pointer_section
from curation.releases.writers import MMRB2_FILES, SPLIT

SEMVER = re.compile(r"^(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})$")

HF_TASK_CATEGORIES = {
    "text-to-image": "text-to-image",
    "image-editing": "image-to-image",
    "interleaved": "any-to-any",
    "reasoning": "visual-question-answering",
    "text-to-text": "text-generation",
    "image-to-text": "image-text-to-text",
    "video-to-text": "video-text-to-text",
    "audio-to-text": "automatic-speech-recognition",
    "text-to-video": "text-to-video",
    "text-to-audio": "text-to-audio",
    "text-to-3d": "text-to-3d",
}


def parse_version(version: str) -> tuple[int, int, int] | None:
    """``(major, minor, patch)`` for ``X.Y.Z`` without leading zeros, else None."""
    match = SEMVER.match(version or "")
    return tuple(int(part) for part in match.groups()) if match else None


def size_category(n: int) -> str:
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < limit:
            return label
    return "1M<n<10M"


@dataclass
class Changelog:
    """Differences from the previous version of the same release name."""

    previous: str | None
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    chosen_changed: list[tuple[str, str, str]] = field(default_factory=list)
    # Why the previous version's files could not be read; then no pair-level change is known.
    unreadable: str = ""

    def summary(self) -> dict:
        if self.unreadable:
            return {"previous": self.previous, "previous_unreadable": self.unreadable}
        return {"previous": self.previous, "added": len(self.added), "removed": len(self.removed),
                "chosen_changed": len(self.chosen_changed)}


def changelog_between(previous: str | None, before: dict[str, str], after: dict[str, str]) -> Changelog:
    """Pairs added, removed, and whose chosen side changed, between two ``{pair id: chosen}`` maps."""
    log = Changelog(previous=previous)
    log.added = sorted(set(after) - set(before))
    log.removed = sorted(set(before) - set(after))
    log.chosen_changed = sorted((pid, before[pid], after[pid]) for pid in set(after) & set(before) if before[pid] != after[pid])
    return log


def changelog_text(*, name: str, version: str, log: Changelog, total: int) -> str:
    lines = [f"# Changelog of {name}", "", f"## {version}", ""]
    if log.previous is None:
        lines += [f"First release of {name}: {total} pairs.", ""]
        return "\n".join(lines)
    if log.unreadable:
        lines += [f"The previous version, {log.previous}, could not be read ({log.unreadable}), so the pairs added, "
                  f"removed or with a changed chosen side since then are not known; {total} pairs in all.", ""]
        return "\n".join(lines)
    lines += [
        f"Compared with {log.previous}: {len(log.added)} pairs added, {len(log.removed)} removed, "
        f"{len(log.chosen_changed)} with a changed chosen side; {total} pairs in all.",
        "",
    ]
    for title, ids in (("Added", log.added), ("Removed", log.removed)):
        lines += [f"### {title} ({len(ids)})", ""] + [f"- {pid}" for pid in ids] + [""]
    lines += [f"### Chosen side changed ({len(log.chosen_changed)})", ""]
    lines += [f"- {pid}: {old} → {new}" for pid, old, new in log.chosen_changed] + [""]
    return "\n".join(lines)


def _changes_line(changelog: dict) -> str:
    if changelog.get("previous_unreadable"):
        return (f"Changes since {changelog['previous']} are not known: its files could not be read "
                f"({changelog['previous_unreadable']}).")
    return (f"Changes since {changelog['previous']}: {changelog['added']} added, {changelog['removed']} removed, "
            f"{changelog['chosen_changed']} with a changed chosen side.")


def _percent(value) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}%"


def _interval(value) -> str:
    if isinstance(value, (list, tuple)) and len(value) == 2 and None not in value:
        return f" (95% CI {value[0]:.3f} to {value[1]:.3f})"
    return ""


@dataclass(frozen=True)
class SourceDataset:
    """A benchmark some of a release's pairs were imported from, with the terms they came under."""

    name: str
    title: str
    license: str
    url: str
    citation: str


@dataclass(frozen=True)
class CampaignFacts:
    """What the card says of one campaign: how its ratings came to be, and from where."""

    slug: str
    kind: str
    rating_schema: str
    overlap: int
    requires_prefilter: bool
    sources: list[str]
    concord_ratings: int
    concord_raters: int
    imported_ratings: int
    adjudications: int


def config_patterns(tasks) -> list[dict]:
    return [{"config_name": task, "data_files": [{"split": SPLIT, "path": f"data/{task}/{SPLIT}-*.parquet"}]}
            for task in sorted(tasks)]


def card_header(*, name: str, license: str, tasks: dict[str, int], features: dict, sources: list[SourceDataset],
                split_bytes: dict[str, int]) -> str:
    """The YAML between the ``---`` lines, built with the Hub's own card classes so the Hub reads it back.

    ``features`` and ``split_bytes`` are per task (config): its features, and the bytes of its split's Parquet files
    (``num_bytes``, ``dataset_size`` and ``download_size``: the files are the dataset as it is stored and fetched).
    """
    from datasets import DatasetInfo, SplitDict, SplitInfo
    from datasets.info import DatasetInfosDict
    from huggingface_hub import DatasetCardData

    total = sum(tasks.values())
    card = DatasetCardData(
        pretty_name=name, license=license, language=["en"],
        tags=["reward-modeling", "preference", "human-feedback", "multimodal"],
        task_categories=sorted({HF_TASK_CATEGORIES.get(t, "other") for t in tasks}),
        size_categories=[size_category(total)],
        source_datasets=sorted({s.url or s.name for s in sources}) or ["original"],
        configs=config_patterns(tasks),
    )
    infos = DatasetInfosDict({
        task: DatasetInfo(config_name=task, features=features[task],
                          splits=SplitDict({SPLIT: SplitInfo(name=SPLIT, num_bytes=split_bytes[task],
                                                             num_examples=tasks[task])}),
                          download_size=split_bytes[task], dataset_size=split_bytes[task])
        for task in sorted(tasks)
    })
    infos.to_dataset_card_data(card)
    return card.to_yaml()


def _bibtex_key(name: str, version: str) -> str:
    return re.sub(r"[^a-z0-9]", "", f"{name}{version}".lower())


def json_columns(features) -> list[str]:
    """The schema-shaped columns a config keeps as JSON strings (its campaigns' rating schemas give them two shapes)."""
    from datasets import Value

    found = [name for name in ("human_annotations",) if features[name] == Value("string")]
    if features["ratings"].feature["values"] == Value("string"):
        found.insert(0, "ratings.values")
    return found


def card_text(*, name: str, version: str, licence: dict, tasks: dict[str, int], features: dict, split_bytes: dict[str, int],
              prompt_sources: dict[str, int], sources: list[SourceDataset], campaigns: list[CampaignFacts],
              policies: dict, human_agreement: dict, agreement_reports: dict, concord_version: str, changelog: dict,
              media_files: int, year: int, raters: dict, pair_set_agreement: dict | None = None,
              pointers: dict | None = None) -> str:
    """README.md: the Hugging Face card header and a datasheet, naming what each figure measured. ``pointers``
    (``pointers.write_pointer_files``' summary) for a pointer release: what must be obtained, from where, and how to
    put it in place."""
    total = sum(tasks.values())
    header = card_header(name=name, license=licence["licence"], tasks=tasks, features=features, sources=sources,
                         split_bytes=split_bytes)
    body = [
        "",
        f"# {name} {version}",
        "",
        f"A human-preference benchmark for reward models: {total} pairs of model responses over "
        f"{len(tasks)} task(s), each with the chosen side (A, B, or tie where the rating schema allows one), "
        "every rating under a pseudonymous id, and the agreement within each pair.",
        "",
        "## Load",
        "",
        "```python",
        "from datasets import load_dataset",
        "",
    ]
    body += [f'{task.replace("-", "_")} = load_dataset("path/to/{name}-{version}", "{task}", split="{SPLIT}")'
             for task in sorted(tasks)]
    body += [
        "```",
        "",
        "Images and audio are embedded in the Parquet files (`datasets` `Image` / `Audio` features); video and 3D "
        "files are in `media/`, named by `*_files` columns relative to this folder. `*_text` holds the text with "
        "`<image_N>` / `<audio_N>` / `<video_N>` / `<model3d_N>` placeholders, N counting from 0 in the matching list.",
        "",
    ]
    if pointers is not None:
        body += ["**This is a pointer release: its media are not included.** Fill them in from your own copy first "
                 "(below); then it loads as above.", ""]
        body += pointer_section(name, version, pointers)
    body += [
        "## Tasks and sizes",
        "",
        "| Task (config) | Pairs | Human pairwise agreement over the released pairs, ties excluded (95% CI) | Rater pairs "
        "| Measured on |",
        "|---|---:|---:|---:|---|",
    ]
    for task in sorted(tasks):
        figures = human_agreement.get(task, {})
        interval = figures.get("interval")
        shown = _percent(figures.get("agreement"))
        if interval:
            shown += f" ({_percent(interval[0])} to {_percent(interval[1])})"
        body.append(f"| {task} | {tasks[task]} | {shown} | {figures.get('rater_pairs', 0)} | "
                    f"{figures.get('measured') or 'n/a'} |")
    body += ["", "Prompt sources: " + ", ".join(f"{s or 'unspecified'} ({n})" for s, n in sorted(prompt_sources.items())),
             ""]
    body += [
        "## Files",
        "",
        "- `data/<task>/test-NNNNN-of-MMMMM.parquet`: the `datasets` configs, one row per pair; typed columns "
        "(`prompt_text`, `prompt_images`, `response_a_model`, `response_a_text`, `response_a_images`, ..., `chosen`, "
        "`ratings` with each rater's pseudonym, origin, side and answers). Typed where the shape is fixed: "
        "`ratings[].values` is a struct of the rating schema's questions, `human_annotations` MMRB2's (a list of "
        "integers for generation, `{response_a_ratings, response_b_ratings}` lists of letters for reasoning). "
        "`prompt_metadata` and `ratings[].media_played` are JSON strings: their shape differs between sources "
        "and pairs.",
    ]
    for task in sorted(tasks):
        untyped = json_columns(features[task])
        if untyped:
            body.append(f"  In `{task}`, {', '.join(f'`{c}`' for c in untyped)} "
                        f"{'is a JSON string' if len(untyped) == 1 else 'are JSON strings'}: its campaigns' rating "
                        "schemas (or, for a criteria question, its rows) give them more than one shape.")
    body += [
        "- `data/<task>.jsonl`: the same pairs with content as Concord's typed blocks and media as `media/` paths.",
    ]
    mmrb2 = [f"`mmrb2/{MMRB2_FILES[t]}.json`" for t in sorted(tasks) if t in MMRB2_FILES]
    if mmrb2:
        body.append(f"- {', '.join(mmrb2)}: MMRB2's `{{\"pairs\": [...]}}` files; image paths resolve from the `mmrb2/` "
                    "folder, so MMRB2's `evaluate.py` and `compute_accuracy.py --benchmark_dir mmrb2` run unchanged.")
    body += [
        f"- `media/`: {media_files} files, each stored once under the sha256 of its bytes." if pointers is None else
        f"- `media/`: not included; `pointers.json` names its {media_files} files (path, sha256, size, source) and "
        "`rebuild.py` puts them in place from your copy.",
        "- `manifest.json`: every file with its sha256 and size, counts, policy, agreement reports; written last.",
        f"- The whole release as one file: `{name}-{version}.zip` (every file under `{name}-{version}/`, stored "
        "uncompressed), downloaded from Concord; its sha256 is recorded beside the manifest (Concord's release "
        "record and API), not in it, since the archive holds the manifest.",
        "- `CHANGELOG.md`: pairs added, removed and with a changed chosen side against the previous version.",
        "",
        "## Datasheet",
        "",
        "### Motivation",
        "Evaluate reward models and AI judges on pairs where careful humans agree on the better response.",
        "",
        "### Composition",
        f"{total} preference pairs. Each holds a prompt, two responses (text and media, with the generating "
        "model's name), the chosen side and every individual rating. Raters appear only as pseudonymous ids (an "
        "HMAC under a secret kept by the publisher); no username, e-mail, imported rater label or database id is "
        f"included. Ratings: {raters.get('ratings', 0)}, by {raters.get('distinct', 0)} raters with a stable "
        "identity" + (f" and {raters['anonymous_slot_ratings']} from anonymous slots (ratings imported without a rater "
                      "identity, each pseudonymous within its pair only and not counted as a rater)"
                      if raters.get("anonymous_slot_ratings") else "") + ".",
        "",
        "### Collection process",
    ]
    for c in campaigns:
        origin = []
        if c.concord_ratings:
            origin.append(
                f"{c.concord_ratings} ratings collected in Concord by {c.concord_raters} raters, shown blind (no model "
                f"names) with the sides randomised per rater, time on item recorded, {c.overlap} raters per pair"
            )
        if c.imported_ratings:
            where = ", ".join(c.sources) if c.sources else "a file uploaded by a curator, source not recorded"
            origin.append(f"{c.imported_ratings} ratings imported from {where} (collected outside Concord under that "
                          "source's own protocol; imported rater slots are not identified as people)")
        if c.adjudications:
            origin.append(f"{c.adjudications} curator adjudications")
        body.append(
            f"- Campaign `{c.slug}` ({c.kind}), rating schema `{c.rating_schema}`: " + ("; ".join(origin) or "no ratings")
            + ("; pairs first pre-filtered by an ensemble of AI judges" if c.requires_prefilter else "") + "."
        )
    body += ["", "### Preprocessing: consensus", ""]
    for slug, used in sorted(policies.items()):
        for entry in used:
            body.append(f"- `{slug}`: policy `{entry['policy']}` with parameters `{json.dumps(entry['params'], sort_keys=True)}`")
    body += ["", "Only pairs the policy kept with a chosen side are included.", "", "### Agreement", ""]
    for task in sorted(human_agreement):
        figures = human_agreement[task]
        body.append(f"- {task}: {_percent(figures['agreement'])} of {figures['rater_pairs']} rater pairs on the same "
                    "pair chose the same side (raters who chose no side left out, as MMRB2 does; "
                    f"{figures.get('measured') or 'ties excluded'}); 95% percentile bootstrap over pairs in the table "
                    "above.")
    if pair_set_agreement:
        body += ["", "Each campaign's primary question over two stated pair sets, from the same ratings: every pair "
                 "raters rated, and the pairs this release holds (consensus kept them, so agreement there is higher "
                 "by construction). 95% percentile bootstrap over pairs.", "",
                 "| Campaign | Question | Pair set | Pairs | Ratings | Pairwise agreement, ties excluded "
                 "| Krippendorff's alpha |",
                 "|---|---|---|---:|---:|---:|---|"]
        for slug, rows in sorted(pair_set_agreement.items()):
            for row in rows:
                pairwise = row["pairwise_agreement_excluding_ties"]
                alphas = [f"{level} {value:.3f}{_interval(row['alpha_ci95'].get(level))}"
                          for level, value in sorted(row["alpha"].items()) if value is not None]
                body.append(f"| `{slug}` | `{row['question']}` | {row['pair_set']} | {row['pairs']} | {row['ratings']} | "
                            f"{'n/a' if pairwise is None else f'{pairwise:.2f}%'} | {'; '.join(alphas) or 'undefined'} |")
        body.append("")
    for slug, entry in sorted(agreement_reports.items()):
        report = entry["report"]
        question = report.get("primary_question")
        alpha = report.get("alpha") or {}
        intervals = report.get("alpha_ci95") or {}
        measured = (report.get("measured") or {}).get("alpha") or {}
        parts = [f"Krippendorff's alpha ({measured.get(level) or level}) {value:.3f}{_interval(intervals.get(level))}"
                 for level, value in sorted(alpha.items()) if value is not None]
        body.append(f"- Campaign `{slug}`, question `{question}`, its latest agreement report (of {entry['computed_at']}, "
                    "over every rated pair of the campaign): "
                    + ("; ".join(parts) or "alpha undefined") + ". Full report, per-rater figures keyed by the "
                    "pseudonyms above, in `manifest.json`.")
    body += [
        "",
        "### Uses",
        "Evaluation of reward models and judges (score forward and with A/B swapped, as MMRB2 does). "
        "Not for training on the test split.",
        "",
        "### Distribution and licence",
        f"Licence: `{licence['licence']}`. Version {version}; releases are immutable, and a change is a new version.",
    ]
    for source in sources:
        body.append(f"- Pairs imported from {source.title} ({source.url or source.name}) are under `{source.license}`"
                    + (" (the licence was not recorded at import: check the source's terms)" if source.license == "other"
                       else "") + ".")
    if licence.get("forced"):
        body.append(f"- The publisher overrode the sources' most restrictive licence `{licence['required']}` with "
                    f"`{licence['licence']}` (--force-license), stating they hold the rights to do so.")
    body += [
        "",
        "### Maintenance",
        f"Built by Concord {concord_version}. "
        + (_changes_line(changelog) if changelog.get("previous") else "First version."),
        "",
        "## Citation",
        "",
        "This release:",
        "",
        "```bibtex",
        f"@misc{{{_bibtex_key(name, version)},",
        f"  title = {{{{{name}}}: a human-preference benchmark, version {version}}},",
        f"  year = {{{year}}},",
        f"  note = {{Released with Concord {concord_version}}}",
        "}",
        "```",
    ]
    for source in sources:
        if source.citation:
            body += ["", f"{source.title}:", "", "```bibtex", source.citation.strip(), "```"]
    body.append("")
    return "\n".join(["---", header.rstrip("\n"), "---"] + body)
