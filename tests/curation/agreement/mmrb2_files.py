"""Reading the MMRB2 release files straight into rating tables, with no database (the reference path)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from annotation.catalogue import schemas
from curation.agreement.table import table_from_answers
from curation.agreement.variables import variables_of_schema

GENERATION_TASKS = {"t2i": "text-to-image", "edit": "image-editing", "interleaved": "interleaved"}
PUBLISHED = {
    "t2i": {"pairwise": 95.34, "ordinal": 0.7162},
    "edit": {"pairwise": 96.32, "ordinal": 0.7517},
    "interleaved": {"pairwise": 95.22, "ordinal": 0.7333},
}
REASONING_LETTERS = {"A": 1, "B": 2, "C": 3}


def load_pairs(directory: Path, task: str) -> list[dict]:
    with open(directory / f"{task}_response_only.json", encoding="utf-8") as handle:
        return json.load(handle)["pairs"]


def generation_table(pairs: list[dict], kind: str):
    """Pair i of the file is pair id i; its three ratings come from raters r0, r1, r2."""
    pair_ids, raters, answers = [], [], []
    for i, pair in enumerate(pairs):
        for j, rating in enumerate(pair["human_annotations"]):
            pair_ids.append(i)
            raters.append(f"r{j}")
            answers.append({"overall": rating})
    variables = variables_of_schema(schemas.preset("mmrb2-generation", kind))
    return table_from_answers(variables=variables, pair_ids=pair_ids, raters=raters, answers=answers)


def reasoning_table(pairs: list[dict]):
    """Three raters per pair rate both responses; a response with no ratings is rejected without rating."""
    pair_ids, raters, answers = [], [], []
    rejected = np.zeros((len(pairs), 2), dtype=bool)
    for i, pair in enumerate(pairs):
        a = pair["human_annotations"]["response_a_ratings"]
        b = pair["human_annotations"]["response_b_ratings"]
        rejected[i] = [not a, not b]
        for j in range(max(len(a), len(b))):
            pair_ids.append(i)
            raters.append(f"r{j}")
            answers.append({"correctness": {
                "A": REASONING_LETTERS[a[j]] if j < len(a) else None,
                "B": REASONING_LETTERS[b[j]] if j < len(b) else None,
            }})
    variables = variables_of_schema(schemas.preset("mmrb2-reasoning", "reasoning"))
    return table_from_answers(variables=variables, pair_ids=pair_ids, raters=raters, answers=answers), rejected


def reasoning_response_ids(pairs: list[dict]) -> np.ndarray:
    """(pairs × 2) ids, equal where a response is one model's identical output for the same prompt, as Concord
    stores it once (the prompt is its source and metadata: the files carry no prompt text)."""
    ids: dict[str, int] = {}
    out = np.zeros((len(pairs), 2), dtype=np.int64)
    for i, pair in enumerate(pairs):
        prompt = json.dumps([pair["prompt_source"], pair["prompt_metadata"]], sort_keys=True)
        for side, key in enumerate(("response_a", "response_b")):
            response = json.dumps([prompt, pair[key]["model_name"], pair[key]["response_content"]])
            out[i, side] = ids.setdefault(response, len(ids))
    return out
