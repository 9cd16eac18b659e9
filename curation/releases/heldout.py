"""A release's private held-out split: which pairs it holds, what of them ships, and what a submitter may see.

The split is drawn per stratum (task, prompt source): each stratum's pairs, sorted by id, are shuffled by a
generator seeded with the seed and the stratum, and the first ``round(fraction × n)`` are private. The same
pairs, fraction and seed draw the same split on any machine. A pair goes whole: every item of a criteria pair
is on the same side, so no private prompt is also a public row.

Private rows ship unlabelled (``private/``: the prompt and both responses, without ``chosen``, ratings,
``human_annotations``, agreement or the Omni ``criteria_preference``) or not at all; their labels stay in
Concord's database. Pure Python: no Django import.
"""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from annotation.catalogue import content
from curation.releases.omni_export import OMNI_TASKS, omni_row
from curation.releases.writers import MMRB2_FILES

UNLABELLED = "unlabelled"
OMIT = "omit"
PRIVATE_ROWS = (UNLABELLED, OMIT)
FOLDER = "private"
# A row's fields that carry a human label, left out of a private row.
LABEL_FIELDS = ("chosen", "ratings", "human_annotations", "agreement")
OMNI_LABEL_FIELDS = ("criteria_preference",)
STRATA = ("task", "prompt_source")


@dataclass(frozen=True)
class Candidate:
    """A kept pair the split may hold: its internal id, its id in the release, and its stratum."""

    pair_id: int
    release_id: str
    task: str
    source: str


def draw(candidates: list[Candidate], *, fraction: float, seed: int) -> set[int]:
    """The internal ids of the private pairs: ``round(fraction × n)`` of each (task, source) stratum."""
    if not 0 < fraction < 1:
        raise ValueError(f"the private fraction must be between 0 and 1 (exclusive), got {fraction}")
    strata: dict[tuple[str, str], list[Candidate]] = defaultdict(list)
    for candidate in candidates:
        strata[(candidate.task, candidate.source)].append(candidate)
    private: set[int] = set()
    for (task, source), members in strata.items():
        members.sort(key=lambda c: c.release_id)
        random.Random(f"{seed}\x1f{task}\x1f{source}").shuffle(members)
        private.update(c.pair_id for c in members[: round(fraction * len(members))])
    return private


@dataclass
class Split:
    """What the builder needs of a split, and what it gathers: the private pairs and, per private item, its label."""

    private: set[int]
    rows: str = UNLABELLED
    labels: list[tuple[str, str, str, str]] = field(default_factory=list)  # (item id, task, source, chosen)
    per_task: Counter = field(default_factory=Counter)
    per_source: Counter = field(default_factory=Counter)

    def take(self, *, item_id: str, task: str, source: str, chosen: str) -> None:
        self.labels.append((item_id, task, source, chosen))
        self.per_task[task] += 1
        self.per_source[source] += 1


def unlabelled(row: dict, fields=LABEL_FIELDS) -> dict:
    """A row without any field that carries a human label."""
    return {key: value for key, value in row.items() if key not in fields}


class PrivateWriter:
    """The private rows, unlabelled, in the release's three layouts: ``private/<task>.jsonl`` (Concord's rows),
    ``private/mmrb2/<file>.json`` (MMRB2's pairs, media as ``../../media/…``, relative to that folder as in
    ``mmrb2/``) and ``private/omni/<task>.json`` (media relative to the release folder)."""

    def __init__(self, staging: Path, *, media_name: Callable[[str], str]):
        self.staging = staging
        self.media_name = media_name
        self._files: dict[str, tuple[TextIO, list[int]]] = {}

    def _append(self, path: str, value: dict, *, opening: str = "", separator: str | None = None) -> None:
        if path not in self._files:
            target = self.staging / path
            target.parent.mkdir(parents=True, exist_ok=True)
            handle = open(target, "w", encoding="utf-8", buffering=1024 * 1024)
            handle.write(opening)
            self._files[path] = (handle, [0])
        handle, count = self._files[path]
        text = json.dumps(value, ensure_ascii=False)
        handle.write(text + "\n" if separator is None else (separator if count[0] else "") + text)
        count[0] += 1

    def add(self, *, row: dict, omni: dict | None) -> None:
        task = row["task"]
        self._append(f"{FOLDER}/{task}.jsonl", unlabelled(row))
        if task in MMRB2_FILES:
            self._append(f"{FOLDER}/mmrb2/{MMRB2_FILES[task]}.json", self._mmrb2(row), opening='{"pairs": [\n',
                         separator=",\n")
        if omni is not None:
            self._append(f"{FOLDER}/omni/{OMNI_TASKS[task]}.json", unlabelled(omni, OMNI_LABEL_FIELDS),
                         opening="[\n", separator=",\n")

    def _mmrb2(self, row: dict) -> dict:
        """MMRB2's pair of a row, without ``chosen`` and ``human_annotations``."""
        def path(digest: str) -> str:
            return f"../../media/{self.media_name(digest)}"

        return {
            "id": row["id"],
            "response_a": {"model_name": row["response_a"]["model_name"],
                           "response_content": content.to_pairs_list(row["response_a"]["content"], path)},
            "response_b": {"model_name": row["response_b"]["model_name"],
                           "response_content": content.to_pairs_list(row["response_b"]["content"], path)},
            "prompt_source": row["prompt_source"],
            "prompt_metadata": row["prompt_metadata"],
            "prompt_content": content.to_pairs_list(row["prompt_content"], path),
        }

    def close(self) -> list[str]:
        for path, (handle, _) in self._files.items():
            if path.endswith(".json"):
                handle.write("\n]}\n" if f"{FOLDER}/mmrb2/" in path else "\n]\n")
            handle.close()
        return sorted(self._files)

    def abort(self) -> None:
        for handle, _ in self._files.values():
            handle.close()


def omni_private_row(*, kind: str, **fields) -> dict | None:
    """The Omni-RewardBench row of a private item of Concord task ``kind``, where the kind has an Omni task."""
    return omni_row(task=OMNI_TASKS[kind], **fields) if kind in OMNI_TASKS else None


def manifest_entry(*, fraction: float, seed: int, rows: str, split: Split) -> dict:
    """What the manifest records of the split: how it was drawn and how many items it holds (never which labels)."""
    return {"fraction": fraction, "seed": seed, "stratified_by": list(STRATA), "private_rows": rows,
            "items": len(split.labels), "per_task": dict(sorted(split.per_task.items())),
            "per_source": dict(sorted(split.per_source.items())),
            "files": FOLDER + "/" if rows == UNLABELLED else None}


def card_section(entry: dict, *, release: str) -> str:
    """The dataset card's section about the private split."""
    shipped = (f"Their prompts and responses are in `{FOLDER}/` (Concord's rows, MMRB2's pairs and Omni-RewardBench's "
               "rows), without `chosen`, ratings, human annotations, agreement or `criteria_preference`."
               if entry["private_rows"] == UNLABELLED else "Their prompts and responses are not part of this release.")
    per_task = ", ".join(f"{task} {n}" for task, n in entry["per_task"].items()) or "none"
    return "\n".join([
        "## Held-out split", "",
        f"{entry['items']} items ({per_task}) are held out: a share of {entry['fraction']} of each task and prompt "
        f"source, drawn with seed {entry['seed']}. Their labels are kept on the Concord server and are in no file "
        f"of this release. {shipped}", "",
        f"Judges are scored on them by submitting predictions (MMRB2 or Omni-RewardBench format) to "
        f"`POST /api/v1/releases/{release}/submissions/` with a team token issued by the curators; a submission "
        "sees its accuracy overall and per task with a 95% interval, never a pair's result.", "",
    ])


# What a submitter sees of a score: aggregates only (never a pair id, not even an unknown one).
PUBLIC_FIGURES = ("accuracy", "ci95", "pairs", "evaluated", "missing", "verdicts", "correct", "with_ties",
                  "without_ties", "without_ties_ci95", "tie_pairs", "tie_calibrated_accuracy", "tie_calibrated_ci95")
PUBLIC_OVERALL = ("format", "position_consistency", "position_consistency_pairs", "unknown_ids", "with_ties_from",
                  "without_ties_from", "tie_epsilon")


def aggregate(scores: dict) -> dict:
    """The figures of a score a submitter may see: overall and per task, with intervals."""
    out = {key: scores[key] for key in (*PUBLIC_OVERALL, *PUBLIC_FIGURES) if key in scores}
    out["per_task"] = {task: {key: figures[key] for key in PUBLIC_FIGURES if key in figures}
                       for task, figures in scores.get("per_task", {}).items()}
    return out
