"""The dataset card (Hugging Face YAML header + datasheet) and the CHANGELOG of a release, as text."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

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


def _yaml_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _percent(value) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}%"


def card_text(*, name: str, version: str, license: str, tasks: dict[str, int], sources: dict[str, int],
              campaigns: list[dict], policies: dict, human_agreement: dict, raters: dict, agreement_reports: dict,
              concord_version: str, changelog: dict, media_files: int) -> str:
    """README.md: the Hugging Face card header (one config per task split) and a datasheet."""
    total = sum(tasks.values())
    header = ["---", f"pretty_name: {_yaml_string(name)}", f"license: {license}", "language:", "- en",
              "tags:", "- reward-modeling", "- preference", "- human-feedback", "- multimodal", "task_categories:"]
    header += [f"- {category}" for category in sorted({HF_TASK_CATEGORIES.get(t, "other") for t in tasks})]
    header += ["size_categories:", f"- {size_category(total)}", "configs:"]
    for task in sorted(tasks):
        header += [f"- config_name: {task}", "  data_files:", "  - split: test", f"    path: data/{task}.parquet"]
    header.append("---")
    body = [
        "",
        f"# {name} {version}",
        "",
        f"A human-preference benchmark for reward models: {total} pairs of model responses over "
        f"{len(tasks)} task(s), each with the side expert annotators chose, their individual ratings "
        "under stable pseudonymous ids, and the agreement within each pair.",
        "",
        "## Tasks and sizes",
        "",
        "| Task | Pairs | Human agreement (rater pairs, ties excluded) |",
        "|---|---:|---:|",
    ]
    for task in sorted(tasks):
        body.append(f"| {task} | {tasks[task]} | {_percent(human_agreement.get(task, {}).get('agreement'))} |")
    body += ["", "Source benchmarks: " + ", ".join(f"{s or 'unspecified'} ({n})" for s, n in sorted(sources.items())), ""]
    body += [
        "## Files",
        "",
        "- `data/<task>.parquet` and `data/<task>.jsonl`: one row per pair (prompt, both responses' content "
        "blocks, chosen side, ratings, criteria, per-pair agreement). In Parquet, content and rating values "
        "are JSON strings. Load with `datasets.load_dataset(\"parquet\", data_files=...)`.",
        "- `mmrb2/<task>.json`: the same pairs as MMRB2's `{\"pairs\": [...]}` (id, response_a, response_b, chosen, "
        "human_annotations, prompt_source, prompt_metadata, prompt_content); media values are file names in `media/`.",
        f"- `media/`: {media_files} files, each stored once under the sha256 of its bytes.",
        "- `manifest.json`: every file with its sha256 and size, counts, policy, agreement; written last.",
        "- `CHANGELOG.md`: pairs added, removed and with a changed chosen side against the previous version.",
        "",
        "## Datasheet",
        "",
        "### Motivation",
        "Evaluate reward models and AI judges on hard pairs where careful humans agree on the better response.",
        "",
        "### Composition",
        f"{total} preference pairs. Each pair holds a prompt, two responses (text and media content blocks, "
        "with the generating model's name), the chosen side (A or B) and every individual rating. Raters appear "
        "only as pseudonymous ids (an HMAC of the account id under a secret kept by the publisher); no username "
        f"or email is included. Ratings: {raters.get('ratings', 0)} by {raters.get('distinct', 0)} raters.",
        "",
        "### Collection process",
    ]
    for c in campaigns:
        body.append(
            f"- Campaign `{c['slug']}` ({c['kind']}): rating schema `{c['rating_schema']}`, {c['overlap']} annotators "
            f"per pair, shown blind (no model names) with the sides randomised"
            + ("; pairs first pre-filtered by an ensemble of AI judges" if c.get("requires_prefilter") else "") + "."
        )
    body += ["", "### Preprocessing: consensus", ""]
    for slug, used in sorted(policies.items()):
        for entry in used:
            body.append(f"- `{slug}`: policy `{entry['policy']}` with parameters `{json.dumps(entry['params'], sort_keys=True)}`")
    body += ["", "Only pairs the policy kept with a chosen side are included.", "", "### Agreement", ""]
    for task in sorted(human_agreement):
        figures = human_agreement[task]
        body.append(f"- {task}: {_percent(figures['agreement'])} of {figures['rater_pairs']} rater pairs agree (ties excluded).")
    for slug, report in sorted(agreement_reports.items()):
        body.append(f"- Campaign `{slug}`: latest agreement report of {report['computed_at']} is in `manifest.json`.")
    body += [
        "",
        "### Uses",
        "Evaluation of reward models and judges (score forward and with A/B swapped, as MMRB2 does). "
        "Not for training on the test split.",
        "",
        "### Distribution and licence",
        f"Licence: `{license}`. Version {version}; releases are immutable, and a change is a new version.",
        "",
        "### Maintenance",
        f"Built by Concord {concord_version}. "
        + (_changes_line(changelog) if changelog.get("previous") else "First version."),
        "",
    ]
    return "\n".join(header + body)
