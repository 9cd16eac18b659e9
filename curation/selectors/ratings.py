"""A campaign's ratings read into arrays with one streamed query, never as model instances.

The value of each question is extracted and range-checked by the database, so Python only moves
numbers: a million annotations load in seconds. Used by the agreement and consensus services.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice

import numpy as np
from django.db.models import Case, F, FloatField, Func, IntegerField, Q, Value, When
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import Coalesce, ExtractIsoYear, ExtractWeek

from annotation.models import Annotation, Campaign, Pair
from curation.agreement.table import RatingTable, gold_codes, observations_from_codes, observations_from_criteria
from curation.agreement.variables import Variable, variables_of_schema

CHUNK = 20_000
SIDES = ("A", "B")


class JSONNumber(Func):
    """The number at ``path`` inside a JSON column, or NULL when it is missing or not a number."""

    output_field = FloatField()

    def __init__(self, field: str, *path: str):
        self.path = list(path)
        super().__init__(F(field))

    def as_postgresql(self, compiler, connection, **extra):
        column, params = compiler.compile(self.source_expressions[0])
        sql = f"CASE WHEN jsonb_typeof({column} #> %s) = 'number' THEN ({column} #>> %s)::double precision END"
        return sql, (*params, self.path, *params, self.path)

    def as_sql(self, compiler, connection, **extra):
        column, params = compiler.compile(self.source_expressions[0])
        path = "$" + "".join(f'."{key}"' for key in self.path)
        sql = f"CASE WHEN json_type({column}, %s) IN ('integer', 'real') THEN json_extract({column}, %s) END"
        return sql, (*params, path, *params, path)


def _choice_code(variable: Variable, lookup: str) -> Case:
    whens = [When(Q(**{lookup: value}), then=Value(code)) for code, value in enumerate(variable.domain)]
    return Case(*whens, default=Value(-1), output_field=IntegerField())


def _columns(variables: dict[str, Variable]) -> tuple[dict, list[tuple[str, str, str | None]]]:
    """Query expressions per variable column and (column name, question id, side) for each."""
    expressions, layout = {}, []
    for qid, variable in variables.items():
        if variable.scope == "criteria":
            name = f"q_{qid}"
            expressions[name] = KeyTransform(qid, "values")
            layout.append((name, qid, None))
            continue
        for side in SIDES if variable.scope == "response" else (None,):
            name = f"q_{qid}" + (f"_{side}" if side else "")
            path = (qid, side) if side else (qid,)
            if variable.numeric:
                expressions[name] = JSONNumber("values", *path)
            else:
                expressions[name] = _choice_code(variable, "values__" + "__".join(path))
            layout.append((name, qid, side))
    return expressions, layout


def _codes_from_numbers(variable: Variable, numbers: np.ndarray) -> np.ndarray:
    lo = variable.domain[0]
    codes = numbers - lo
    valid = ~np.isnan(numbers) & (codes == np.floor(codes)) & (codes >= 0) & (codes < len(variable.domain))
    return np.where(valid, np.nan_to_num(codes, nan=-1), -1).astype(np.int64)


@dataclass(frozen=True)
class PairFacts:
    """What the statistics need to know about every pair of a campaign, aligned with ``pair_ids`` (sorted).

    ``rejected`` (pairs × 2) marks responses rejected for a wrong final answer without a human rating.
    """

    pair_ids: np.ndarray
    source: np.ndarray
    source_task: np.ndarray
    response_ids: np.ndarray
    required: np.ndarray
    status: np.ndarray
    gold_answers: dict
    rejected: np.ndarray


def pair_facts(*, campaign: Campaign) -> PairFacts:
    """Every pair of the campaign: its source benchmark and task, responses, required ratings, status, gold."""
    rows = list(
        Pair.objects.filter(campaign=campaign)
        .order_by("id")
        .values_list("id", "prompt__source", "prompt__source_task", "response_a_id", "response_b_id",
                     "required_annotations", "status")
        .iterator(chunk_size=CHUNK)
    )
    gold = dict(Pair.objects.filter(campaign=campaign, is_gold=True).values_list("id", "gold_answer"))
    columns = list(zip(*rows, strict=True)) if rows else [[]] * 7
    return PairFacts(
        pair_ids=np.asarray(columns[0], dtype=np.int64),
        source=np.asarray(columns[1], dtype=object),
        source_task=np.asarray(columns[2], dtype=object),
        response_ids=np.asarray(list(zip(columns[3], columns[4], strict=True)), dtype=np.int64).reshape(-1, 2),
        required=np.asarray(columns[5], dtype=np.int64),
        status=np.asarray(columns[6], dtype=object),
        gold_answers={k: v for k, v in gold.items() if v is not None},
        rejected=np.zeros((len(columns[0]), 2), dtype=bool),
    )


def rating_count(*, campaign: Campaign) -> int:
    return _ratings(campaign).count()


def _ratings(campaign: Campaign):
    return Annotation.objects.filter(pair__campaign=campaign).exclude(source=Annotation.Source.ADJUDICATION)


def rating_table(*, campaign: Campaign, facts: PairFacts | None = None,
                 progress: Callable[[int], None] | None = None) -> RatingTable:
    """Every rating of the campaign (adjudications excluded) as a RatingTable, read with one streamed query.

    ``progress(rows_read)`` is called after every chunk. Values outside a question's domain are left out.
    """
    facts = facts or pair_facts(campaign=campaign)
    variables = variables_of_schema(campaign.rating_schema.definition)
    expressions, layout = _columns(variables)
    base = {
        "r_pair": F("pair_id"),
        "r_annotator": Coalesce("annotator_id", Value(-1)),
        "r_swapped": Case(When(shown_swapped=True, then=Value(1)), When(shown_swapped=False, then=Value(0)),
                          default=Value(-1), output_field=IntegerField()),
        "r_time": Coalesce("time_on_item_ms", Value(-1)),
        "r_year": ExtractIsoYear("created_at"),
        "r_week": ExtractWeek("created_at"),
    }
    names = [*base, *expressions, "rater_label"]
    query = _ratings(campaign).annotate(**base, **expressions).values_list(*names).iterator(chunk_size=CHUNK)
    criteria_columns = {name for name, qid, _side in layout if variables[qid].scope == "criteria"}
    numbers: dict[str, list[np.ndarray]] = {name: [] for name in names[:-1] if name not in criteria_columns}
    lists: dict[str, list] = {name: [] for name in criteria_columns}
    rater_index: dict[tuple[int, str], int] = {}
    raters: list[np.ndarray] = []
    read = 0
    while batch := list(islice(query, CHUNK)):
        columns = list(zip(*batch, strict=True))
        for i, name in enumerate(names[:-1]):
            if name in lists:
                lists[name].extend(columns[i])
            else:
                numbers[name].append(np.asarray(columns[i], dtype=float))
        raters.append(np.fromiter(
            (rater_index.setdefault((a, label if a < 0 else ""), len(rater_index))
             for a, label in zip(columns[1], columns[-1], strict=True)),
            dtype=np.int64, count=len(batch)))
        read += len(batch)
        if progress:
            progress(read)
    column = {name: np.concatenate(parts) if parts else np.zeros(0) for name, parts in numbers.items()}
    pair_id = column["r_pair"].astype(np.int64)
    pair = np.searchsorted(facts.pair_ids, pair_id)
    # A pair created after ``facts`` was read has ratings but no index; those ratings wait for the next run.
    known = pair < len(facts.pair_ids)
    known[known] = facts.pair_ids[pair[known]] == pair_id[known]
    rater = np.concatenate(raters)[known] if raters else np.zeros(0, dtype=np.int64)
    pair = pair[known]
    column = {name: values[known] for name, values in column.items()}
    lists = {name: [v for v, keep in zip(values, known, strict=True) if keep] for name, values in lists.items()}
    observations = {}
    for qid, variable in variables.items():
        names_of = [name for name, q, _side in layout if q == qid]
        if variable.scope == "criteria":
            observations[qid] = observations_from_criteria(variable=variable, pair=pair, rater=rater,
                                                           labels=lists[names_of[0]])
            continue
        if variable.numeric:
            codes = [_codes_from_numbers(variable, column[name]) for name in names_of]
        else:
            codes = [column[name].astype(np.int64) for name in names_of]
        stacked = np.stack(codes, axis=1) if variable.scope == "response" else codes[0]
        observations[qid] = observations_from_codes(variable=variable, pair=pair, rater=rater, codes=stacked,
                                                    n_pairs=len(facts.pair_ids))
    pair_index = {int(p): i for i, p in enumerate(facts.pair_ids)} if facts.gold_answers else {}
    gold = {qid: gold_codes(variable=v, n_units=observations[qid].n_units, pair_index=pair_index,
                            gold_answers=facts.gold_answers)
            for qid, v in variables.items() if v.scope != "criteria"}
    time_ms = column["r_time"]
    return RatingTable(
        pair_ids=facts.pair_ids,
        pair=pair,
        rater=rater,
        rater_keys=[f"user:{a}" if a >= 0 else f"imported:{label}" for (a, label) in rater_index],
        swapped=column["r_swapped"].astype(np.int64),
        time_ms=np.where(time_ms >= 0, time_ms, np.nan),
        period=(column["r_year"] * 100 + column["r_week"]).astype(np.int64),
        variables=variables,
        observations=observations,
        gold=gold,
    )
