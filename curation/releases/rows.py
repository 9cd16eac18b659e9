"""One release row per kept pair (per kept criterion of a pair, for a criteria question), built from plain
data: pseudonyms, sides, MMRB2 annotations, agreement.

Nothing here touches the database; ``builder`` passes in what it streamed.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass

import numpy as np

from annotation.catalogue import content, schemas

LETTERS = "ABCDEFGHIJ"


@dataclass(frozen=True)
class Rating:
    """One annotation in canonical orientation, with the pseudonymous id of whoever gave it."""

    rater: str
    source: str
    values: dict
    media_played: dict | None = None  # share of each recording heard or watched, canonical; None without any


def rater_pseudonym(*, secret: str, annotator_id: int | None, rater_label: str, campaign_id: int) -> str:
    """A stable id for a rater: an HMAC of the user id (or, for imported raters, campaign and label).

    The same person gets the same id in every release under the same secret; the id reveals neither
    username, email nor database id without the secret.
    """
    subject = f"user:{annotator_id}" if annotator_id is not None else f"imported:{campaign_id}:{rater_label}"
    return "r_" + hmac.new(secret.encode(), subject.encode(), hashlib.sha256).hexdigest()[:20]


def criteria_question(definition: dict) -> dict | None:
    """The schema's criteria question (Omni-RewardBench's per-criterion labels), if it has one."""
    return next((q for q in definition.get("questions", []) if q["type"] == "criteria"), None)


def criterion_label(question: dict, values: dict, criterion: str):
    """The label a rating gave ``criterion`` (None where it gave none)."""
    for item in values.get(question["id"]) or []:
        if isinstance(item, dict) and str(item.get("criterion", "")).strip() == criterion:
            return item.get("label")
    return None


def criterion_items(*, pair_id: str, criteria: list, decided: list[dict], chosen: str) -> list[tuple[str, list, str]]:
    """The release items of a kept pair of a criteria question: ``(item id, [criterion], label)`` per kept
    criterion, as Omni-RewardBench has one item per (pair, criterion).

    ``decided`` is the consensus record's per-criterion outcome; where it is empty (a curator's decision, or a
    one-criterion pair decided before per-criterion consensus) the pair's ``chosen`` holds for each criterion
    it names. An item keeps the pair's id when the pair has one criterion; with several, criterion n (counted
    from 1 in the record's order) is ``<pair id>#<n>``.
    """
    if decided:
        texts = [c["criterion"] for c in decided]
        labelled = [(i, c["criterion"], c["chosen"]) for i, c in enumerate(decided) if c["decision"] == "kept"]
    else:
        texts = [c.strip() if isinstance(c, str) else json.dumps(c, sort_keys=True) for c in criteria]
        labelled = [(i, text, chosen) for i, text in enumerate(texts)]
        if not texts:
            return [(pair_id, [], chosen)]
    return [(pair_id if len(texts) == 1 else f"{pair_id}#{i + 1}", [text], label) for i, text, label in labelled]


def rating_side(definition: dict, values: dict, *, criterion: str | None = None) -> str | None:
    """The side (A or B) a rating prefers, or None for a tie, an abstention or a schema without a preference.

    On an oriented scale the middle values are ties (3 and 4 on MMRB2's 1..6), as in MMRB2's agreement. On a
    criteria question it is the label given to ``criterion``; without one, the label every criterion shares.
    """
    question = schemas.preference_question(definition)
    if question is not None:
        value = values.get(question["id"])
        if question["type"] == "scale":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return None
            middle = (question["min"] + question["max"]) / 2
            if value > middle + 0.5:
                return "A"
            if value < middle - 0.5:
                return "B"
            return None
        return value if value in ("A", "B") else None
    q = criteria_question(definition)
    if q is None:
        return None
    if criterion is not None:
        label = criterion_label(q, values, criterion)
        return label if label in ("A", "B") else None
    labels = {item.get("label") for item in values.get(q["id"]) or [] if isinstance(item, dict)}
    return labels.pop() if len(labels) == 1 and labels <= {"A", "B"} else None


def human_annotations(definition: dict, ratings: list[Rating], *, criterion: str | None = None):
    """The ratings in MMRB2's ``human_annotations`` form.

    Generation (an oriented 1..6 scale): the list of values. Reasoning (a per-response correctness
    scale): ``{"response_a_ratings": [...], "response_b_ratings": [...]}`` as letters (1 → A, 2 → B, ...).
    Otherwise the list of preference answers: choices, or the labels given to ``criterion`` (each rating's
    per-criterion labels without one).
    """
    question = schemas.preference_question(definition)
    if question is not None:
        return [r.values[question["id"]] for r in ratings if r.values.get(question["id"]) is not None]
    for q in definition.get("questions", []):
        if q["type"] == "scale" and q.get("scope") == "response":
            out = {"response_a_ratings": [], "response_b_ratings": []}
            for r in ratings:
                answer = r.values.get(q["id"]) or {}
                for side, name in (("A", "response_a_ratings"), ("B", "response_b_ratings")):
                    value = answer.get(side)
                    if isinstance(value, int) and q["min"] <= value < q["min"] + len(LETTERS):
                        out[name].append(LETTERS[value - q["min"]])
            return out
        if q["type"] == "criteria" and criterion is not None:
            labels = (criterion_label(q, r.values, criterion) for r in ratings)
            return [label for label in labels if label is not None]
        if q["type"] == "criteria":
            return [[item.get("label") for item in r.values.get(q["id"]) or []] for r in ratings]
    return []


@dataclass(frozen=True)
class PairAgreement:
    """Agreement within one pair: the share of side-taking raters on the chosen side, and rater pairs that agree."""

    with_chosen: float | None
    agreeing_pairs: int
    rater_pairs: int


def pair_agreement(sides: list[str | None], chosen: str) -> PairAgreement:
    """Ties and abstentions are left out, as MMRB2 does: only raters who chose a side count."""
    taken = [s for s in sides if s in ("A", "B")]
    n_a, n_b = taken.count("A"), taken.count("B")
    n = n_a + n_b
    share = (taken.count(chosen) / n) if n and chosen in ("A", "B") else None
    return PairAgreement(share, n_a * (n_a - 1) // 2 + n_b * (n_b - 1) // 2, n * (n - 1) // 2)


def ratio_interval(agreeing, pairs, *, resamples: int = 1_000, seed: int = 0, chunk: int = 50) -> list[float] | None:
    """A 95% percentile bootstrap interval of sum(agreeing) / sum(pairs), resampling pairs (units), in chunks
    of resamples so memory stays at ``chunk`` times the number of pairs."""
    agreeing, pairs = np.asarray(agreeing, dtype=np.float64), np.asarray(pairs, dtype=np.float64)
    n = len(pairs)
    if n == 0:
        return None
    rng = np.random.default_rng(seed)
    ratios = []
    for start in range(0, resamples, chunk):
        picks = rng.integers(0, n, size=(min(chunk, resamples - start), n))
        ratios.append(agreeing[picks].sum(axis=1) / pairs[picks].sum(axis=1))
    low, high = np.percentile(np.concatenate(ratios), [2.5, 97.5])
    return [float(low), float(high)]


def media_file_name(digest: str, extension: str) -> str:
    """A media file's name inside a release: its content address, never its origin."""
    return f"{digest}.{extension}"


@dataclass(frozen=True)
class PairSource:
    """What the builder streamed for one kept pair, as plain data."""

    pair_id: str
    task: str
    campaign: str
    prompt_source: str
    prompt_source_task: str
    prompt_metadata: dict
    prompt_content: list
    model_a: str
    content_a: list
    model_b: str
    content_b: list
    chosen: str
    criteria: list
    ratings: list[Rating]
    definition: dict


def build_row(source: PairSource, media_name) -> tuple[dict, dict, PairAgreement]:
    """The JSONL row, the MMRB2 pair and the agreement of one pair; ``media_name(digest)`` names media files.

    MMRB2's pair lists media relative to its own folder (``mmrb2/``), as MMRB2's evaluate.py opens them; a
    rating's ``side`` is A, B, or None (a tie, an abstention, or a schema without a preference question). An
    item of one criterion (a criteria question) takes each rating's side and annotations on that criterion.
    """
    criterion = source.criteria[0] if len(source.criteria) == 1 and criteria_question(source.definition) else None
    sides = [rating_side(source.definition, r.values, criterion=criterion) for r in source.ratings]
    agreement = pair_agreement(sides, source.chosen)
    annotations = human_annotations(source.definition, source.ratings, criterion=criterion)
    digests = []
    for blocks in (source.prompt_content, source.content_a, source.content_b):
        for digest in content.media_digests(blocks):
            if digest not in digests:
                digests.append(digest)
    row = {
        "id": source.pair_id,
        "task": source.task,
        "campaign": source.campaign,
        "prompt_source": source.prompt_source,
        "prompt_source_task": source.prompt_source_task,
        "prompt_metadata": source.prompt_metadata,
        "prompt_content": source.prompt_content,
        "response_a": {"model_name": source.model_a, "content": source.content_a},
        "response_b": {"model_name": source.model_b, "content": source.content_b},
        "chosen": source.chosen,
        "criteria": [c if isinstance(c, str) else json.dumps(c, sort_keys=True) for c in source.criteria],
        "ratings": [{"rater": r.rater, "source": r.source, "side": side, "values": r.values, "media_played": r.media_played}
                    for r, side in zip(source.ratings, sides, strict=True)],
        "human_annotations": annotations,
        "agreement": agreement.with_chosen,
        "media": [f"media/{media_name(d)}" for d in digests],
    }
    def beside_mmrb2(digest: str) -> str:
        return f"../media/{media_name(digest)}"

    mmrb2 = {
        "id": source.pair_id,
        "response_a": {"model_name": source.model_a,
                       "response_content": content.to_pairs_list(source.content_a, beside_mmrb2)},
        "response_b": {"model_name": source.model_b,
                       "response_content": content.to_pairs_list(source.content_b, beside_mmrb2)},
        "chosen": source.chosen,
        "human_annotations": annotations,
        "prompt_source": source.prompt_source,
        "prompt_metadata": source.prompt_metadata,
        "prompt_content": content.to_pairs_list(source.prompt_content, beside_mmrb2),
    }
    return row, mmrb2, agreement
