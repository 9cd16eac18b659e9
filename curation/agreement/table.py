"""A campaign's ratings as arrays: one entry per annotation, and per variable one entry per rating.

Built from the database by ``curation.services.agreement`` with one streamed query, or from plain
answer dicts by ``table_from_answers`` (tests, release files). Units are indexed from 0: a pair-scoped
variable has one unit per pair, a response-scoped one a unit per pair and side (``2 × pair + side``),
a criteria variable one unit per pair and criterion text.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from curation.agreement.variables import Variable

SIDES = ("A", "B")


@dataclass(frozen=True)
class Observations:
    """The ratings of one variable: unit, rater and value code of each, and the annotation row it came from.

    ``unit_criterion`` names each unit's criterion (criteria variables only; empty for the others).
    """

    unit: np.ndarray
    rater: np.ndarray
    code: np.ndarray
    row: np.ndarray
    unit_pair: np.ndarray
    unit_criterion: tuple[str, ...] = ()

    @property
    def n_units(self) -> int:
        return len(self.unit_pair)

    def counts(self, n_values: int) -> np.ndarray:
        """(units × values) count matrix."""
        flat = np.bincount(self.unit * n_values + self.code, minlength=self.n_units * n_values)
        return flat.reshape(self.n_units, n_values)


@dataclass(frozen=True)
class RatingTable:
    """Every annotation of a campaign (or a slice of it) as aligned arrays.

    ``pair``, ``rater``, ``swapped`` (1 B shown left, 0 A shown left, -1 unknown), ``time_ms`` (NaN
    unknown) and ``period`` (ISO year × 100 + ISO week of the rating) have one entry per annotation.
    ``gold`` holds, per variable, the gold answer's code for each unit (-1 where the unit is not gold).
    ``rater_stable`` (one entry per rater key) is False for an anonymous slot: a rating imported without
    a stable rater identity, which is one rating of one pair and never a person (None: every rater is stable).
    """

    pair_ids: np.ndarray
    pair: np.ndarray
    rater: np.ndarray
    rater_keys: list[str]
    swapped: np.ndarray
    time_ms: np.ndarray
    period: np.ndarray
    variables: dict[str, Variable]
    observations: dict[str, Observations]
    gold: dict[str, np.ndarray] = field(default_factory=dict)
    rater_stable: np.ndarray | None = None

    @property
    def annotations(self) -> int:
        return len(self.pair)

    def stable(self) -> np.ndarray:
        """Per rater key: whether it is a stable identity (a person across pairs)."""
        if self.rater_stable is None:
            return np.ones(len(self.rater_keys), dtype=bool)
        return np.asarray(self.rater_stable, dtype=bool)

    def restrict(self, keep: np.ndarray) -> RatingTable:
        """The same table with only the annotations where ``keep`` is true (units keep their indices)."""
        new_row = np.cumsum(keep) - 1
        observations = {}
        for qid, obs in self.observations.items():
            mask = keep[obs.row]
            observations[qid] = replace(obs, unit=obs.unit[mask], rater=obs.rater[mask], code=obs.code[mask],
                                        row=new_row[obs.row[mask]])
        return replace(self, pair=self.pair[keep], rater=self.rater[keep], swapped=self.swapped[keep],
                       time_ms=self.time_ms[keep], period=self.period[keep], observations=observations)


def observations_from_codes(*, variable: Variable, pair: np.ndarray, rater: np.ndarray, codes: np.ndarray,
                            n_pairs: int) -> Observations:
    """Observations of a pair- or response-scoped variable from per-annotation codes (-1 = not answered).

    ``codes`` is (annotations,) for a pair-scoped variable and (annotations × 2) for a response-scoped one.
    """
    rows = np.arange(len(pair), dtype=np.int64)
    if variable.scope == "response":
        codes = np.asarray(codes).reshape(len(pair), 2)
        present = codes >= 0
        row_idx, side = np.nonzero(present)
        unit = pair[row_idx] * 2 + side
        return Observations(unit=unit.astype(np.int64), rater=rater[row_idx], code=codes[row_idx, side].astype(np.int64),
                            row=row_idx.astype(np.int64), unit_pair=np.repeat(np.arange(n_pairs), 2))
    codes = np.asarray(codes)
    present = codes >= 0
    return Observations(unit=pair[present].astype(np.int64), rater=rater[present], code=codes[present].astype(np.int64),
                        row=rows[present], unit_pair=np.arange(n_pairs))


def observations_from_criteria(*, variable: Variable, pair: np.ndarray, rater: np.ndarray, labels: list) -> Observations:
    """Observations of a criteria variable: ``labels[row]`` is the answer list of that annotation (or None).

    Each distinct (pair, criterion text) is one unit; an unknown label is left out.
    """
    unit_of: dict[tuple[int, str], int] = {}
    unit_pair: list[int] = []
    unit_criterion: list[str] = []
    units, raters, codes, rows = [], [], [], []
    for row, answer in enumerate(labels):
        if not isinstance(answer, list):
            continue
        for item in answer:
            if not isinstance(item, dict):
                continue
            code = variable.code_of(item.get("label"))
            criterion = str(item.get("criterion", "")).strip()
            if code < 0 or not criterion:
                continue
            key = (int(pair[row]), criterion)
            if key not in unit_of:
                unit_of[key] = len(unit_pair)
                unit_pair.append(key[0])
                unit_criterion.append(criterion)
            units.append(unit_of[key])
            raters.append(rater[row])
            codes.append(code)
            rows.append(row)
    return Observations(unit=np.asarray(units, dtype=np.int64), rater=np.asarray(raters, dtype=np.int64),
                        code=np.asarray(codes, dtype=np.int64), row=np.asarray(rows, dtype=np.int64),
                        unit_pair=np.asarray(unit_pair, dtype=np.int64), unit_criterion=tuple(unit_criterion))


def gold_codes(*, variable: Variable, n_units: int, pair_index: dict[int, int], gold_answers: dict) -> np.ndarray:
    """Per unit, the code of the gold answer (-1 where none) for pair- and response-scoped variables.

    ``gold_answers`` maps a pair id to its gold answer: answers keyed by question id in canonical
    orientation (like ``Annotation.values``), or, for an oriented question, just the side "A" / "B" / "tie",
    bare or as ``{"side": ...}`` (how the curator console marks gold).
    """
    out = np.full(n_units, -1, dtype=np.int64)
    for pair_id, answer in gold_answers.items():
        p = pair_index.get(pair_id)
        if p is None:
            continue
        if isinstance(answer, dict) and variable.qid not in answer and isinstance(answer.get("side"), str):
            answer = answer["side"]
        if isinstance(answer, dict):
            value = answer.get(variable.qid)
            if variable.scope == "response" and isinstance(value, dict):
                for side, label in enumerate(SIDES):
                    out[2 * p + side] = variable.code_of(value.get(label))
            elif variable.scope == "pair":
                out[p] = variable.code_of(value)
        elif isinstance(answer, str) and variable.scope == "pair":
            code = variable.code_of(answer)
            out[p] = code if code >= 0 or not variable.oriented else _code_for_side(variable, answer)
    return out


def _code_for_side(variable: Variable, side: str) -> int:
    """The first code that names ``side`` (A, B, or no side for anything else); gold is compared by category."""
    wanted = {"A": 0, "B": 1}.get(side, -1)
    for code, s in enumerate(variable.side_of_code):
        if (s == wanted) if wanted >= 0 else (s < 0):
            return code
    return -1


def table_from_answers(*, variables: dict[str, Variable], pair_ids: list[int], raters: list[str],
                       answers: list[dict], swapped: list | None = None, time_ms: list | None = None,
                       period: list | None = None, gold_answers: dict | None = None,
                       anonymous: frozenset[str] = frozenset()) -> RatingTable:
    """A table from plain data: annotation i rated pair ``pair_ids[i]`` as ``raters[i]`` with ``answers[i]``.

    Raters named in ``anonymous`` are anonymous slots rather than stable identities.
    """
    unique_pairs = np.unique(np.asarray(pair_ids, dtype=np.int64))
    pair = np.searchsorted(unique_pairs, np.asarray(pair_ids, dtype=np.int64))
    rater_keys = sorted(set(raters))
    rater_index = {key: i for i, key in enumerate(rater_keys)}
    rater = np.asarray([rater_index[r] for r in raters], dtype=np.int64)
    n = len(answers)
    observations = {}
    for qid, variable in variables.items():
        column = [a.get(qid) if isinstance(a, dict) else None for a in answers]
        if variable.scope == "criteria":
            observations[qid] = observations_from_criteria(variable=variable, pair=pair, rater=rater, labels=column)
            continue
        if variable.scope == "response":
            codes = np.asarray([[variable.code_of(v.get(s)) if isinstance(v, dict) else -1 for s in SIDES] for v in column],
                               dtype=np.int64).reshape(n, 2)
        else:
            codes = np.asarray([variable.code_of(v) for v in column], dtype=np.int64)
        observations[qid] = observations_from_codes(variable=variable, pair=pair, rater=rater, codes=codes,
                                                    n_pairs=len(unique_pairs))
    pair_index = {int(p): i for i, p in enumerate(unique_pairs)}
    gold = {qid: gold_codes(variable=v, n_units=observations[qid].n_units, pair_index=pair_index,
                            gold_answers=gold_answers or {})
            for qid, v in variables.items() if v.scope != "criteria"}
    return RatingTable(
        pair_ids=unique_pairs,
        pair=pair,
        rater=rater,
        rater_keys=rater_keys,
        swapped=np.asarray([-1 if s is None else int(s) for s in (swapped or [None] * n)], dtype=np.int64),
        time_ms=np.asarray([np.nan if t is None else float(t) for t in (time_ms or [None] * n)], dtype=float),
        period=np.asarray(period or [0] * n, dtype=np.int64),
        variables=variables,
        observations=observations,
        gold=gold,
        rater_stable=np.asarray([key not in anonymous for key in rater_keys], dtype=bool),
    )
