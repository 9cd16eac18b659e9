"""A campaign's ratings read into arrays with one streamed query, never as model instances.

On PostgreSQL the query runs as ``COPY (SELECT …) TO STDOUT`` in CSV and pandas' C parser turns the
stream into columns, so Python never touches a row; elsewhere (the embedded SQLite default) the same
query is streamed with ``values_list(...).iterator()``. Each question's answer leaves the database as
its JSON text and is type-checked here: a string, boolean or out-of-range number where a scale value
belongs is left out, never guessed.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import islice

import numpy as np
import pandas as pd
from django.db import connection
from django.db.models import Case, F, IntegerField, QuerySet, Value, When
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import Cast, Coalesce, ExtractIsoYear, ExtractWeek

from annotation.catalogue.models import Campaign, Pair, Prompt
from annotation.catalogue.records import ANONYMOUS_RATER_PREFIX
from annotation.workqueue.models import Annotation
from curation.agreement.table import RatingTable, gold_codes, observations_from_codes, observations_from_criteria
from curation.agreement.variables import Variable, variables_of_schema

CHUNK = 20_000
SIDES = ("A", "B")
# Pair.metadata key under which importers list the responses rejected for a wrong final answer (MMRB2).
REJECTED_KEY = "rejected_wrong_answer"


def _json_text(value) -> str | None:
    """A decoded JSON value back as JSON text, as PostgreSQL prints jsonb (None stays SQL NULL)."""
    return None if value is None else json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def copy_available() -> bool:
    """COPY … TO STDOUT is PostgreSQL's; other databases stream the same query row by row."""
    return connection.vendor == "postgresql"


def stream_frame(queryset: QuerySet, *, names: list[str], json_columns: AbstractSet[str] = frozenset(),
                 text_columns: AbstractSet[str] = frozenset(), progress: Callable[[int], None] | None = None) -> pd.DataFrame:
    """Run ``queryset.values_list(*names)`` as one streamed query into a DataFrame.

    ``json_columns`` hold JSON values: on PostgreSQL a column of plain numbers arrives as floats, any
    other as JSON text; elsewhere always as JSON text. ``text_columns`` arrive as strings. SQL NULL is
    NaN. ``progress(rows_read)`` is called as the stream advances (on PostgreSQL once the COPY has been read),
    never while the connection is busy, so it may use the database.
    """
    values = queryset.values_list(*names)
    if copy_available():
        sql, params = values.query.sql_with_params()
        statement = f"COPY ({sql}) TO STDOUT WITH (FORMAT csv)"
        buffer = io.BytesIO()
        started = time.monotonic()
        connection.ensure_connection()
        # No progress call during the COPY: the connection is busy until it ends, and a callback that writes a
        # job's progress through it would wait for ever on psycopg's connection lock (a worker hung on 60,000 ratings).
        with connection.connection.cursor() as cursor, cursor.copy(statement, params) as copy:
            for block in copy:
                buffer.write(block)
        if connection.queries_logged:
            # COPY bypasses Django's cursor wrapper; log it as that wrapper would, so query counts stay honest.
            connection.queries_log.append({"sql": f"{statement} -- params {params!r}",
                                           "time": f"{time.monotonic() - started:.3f}"})
        buffer.seek(0)
        if not buffer.getbuffer().nbytes:
            frame = pd.DataFrame({name: pd.Series(dtype=object if name in json_columns else float) for name in names})
        else:
            frame = pd.read_csv(buffer, header=None, names=names, dtype={n: str for n in text_columns},
                                keep_default_na=False, na_values={n: [""] for n in names})
        if progress:
            progress(len(frame))
        return frame
    parts = []
    iterator = values.iterator(chunk_size=CHUNK)
    while batch := list(islice(iterator, CHUNK)):
        part = pd.DataFrame.from_records(batch, columns=names)
        for name in json_columns:
            part[name] = [_json_text(v) for v in part[name]]
        parts.append(part)
        if progress:
            progress(sum(len(p) for p in parts))
    if not parts:
        return _empty(names, json_columns | text_columns)
    return pd.concat(parts, ignore_index=True)


def _empty(names: list[str], objects: set[str]) -> pd.DataFrame:
    return pd.DataFrame({name: pd.Series(dtype=object if name in objects else float) for name in names})


@dataclass(frozen=True)
class PairFacts:
    """What the statistics need to know about every pair of a campaign, aligned with ``pair_ids`` (sorted).

    ``rejected`` (pairs × 2) marks responses rejected for a wrong final answer without a human rating;
    ``expected_ratings`` (the pairs' annotation counters) sizes progress bars before the ratings are read;
    ``annotations_done`` is each pair's counter, the basis a consensus record is decided on.
    """

    pair_ids: np.ndarray
    source: np.ndarray
    source_task: np.ndarray
    response_ids: np.ndarray
    required: np.ndarray
    status: np.ndarray
    expected_ratings: int
    gold_answers: dict
    rejected: np.ndarray
    annotations_done: np.ndarray


def pair_facts(*, campaign: Campaign) -> PairFacts:
    """Every pair of the campaign: its source benchmark and task, responses, required ratings, status, gold."""
    names = ["id", "prompt_id", "response_a_id", "response_b_id", "required_annotations", "annotations_done", "status",
             "rejected"]
    pairs = Pair.objects.filter(campaign=campaign).order_by("id").annotate(
        rejected=KeyTransform(REJECTED_KEY, "metadata"))
    frame = stream_frame(pairs, names=names, json_columns={"rejected"}, text_columns={"status", "rejected"})
    prompts = pd.DataFrame.from_records(
        list(Prompt.objects.filter(campaign=campaign).values_list("id", "source", "source_task")),
        columns=["id", "source", "source_task"], index="id")
    gold = dict(Pair.objects.filter(campaign=campaign, is_gold=True).values_list("id", "gold_answer"))
    prompt = frame["prompt_id"].to_numpy(dtype=np.int64)
    return PairFacts(
        pair_ids=frame["id"].to_numpy(dtype=np.int64),
        source=prompts["source"].reindex(prompt).fillna("").to_numpy(dtype=object),
        source_task=prompts["source_task"].reindex(prompt).fillna("").to_numpy(dtype=object),
        response_ids=frame[["response_a_id", "response_b_id"]].to_numpy(dtype=np.int64).reshape(-1, 2),
        required=frame["required_annotations"].to_numpy(dtype=np.int64),
        status=frame["status"].fillna("").astype(str).to_numpy(dtype=object),
        expected_ratings=int(frame["annotations_done"].sum()),
        gold_answers={k: v for k, v in gold.items() if v is not None},
        rejected=_rejected_sides(frame["rejected"]),
        annotations_done=frame["annotations_done"].to_numpy(dtype=np.int64),
    )


def _rejected_sides(text: pd.Series) -> np.ndarray:
    """(pairs × 2): which responses the source release rejected for a wrong final answer without a rating."""
    out = np.zeros((len(text), 2), dtype=bool)
    for i in np.flatnonzero(text.notna().to_numpy()):
        try:
            sides = json.loads(text.iloc[i])
        except json.JSONDecodeError:
            continue
        if isinstance(sides, list):
            out[i] = ["A" in sides, "B" in sides]
    return out


def swapped_code() -> Case:
    """1 when B was shown on the left, 0 when A was, -1 when unknown (imported ratings)."""
    return Case(When(shown_swapped=True, then=Value(1)), When(shown_swapped=False, then=Value(0)),
                default=Value(-1), output_field=IntegerField())


def campaign_ratings(campaign: Campaign) -> QuerySet:
    """Every rating of the campaign: its annotations except adjudications (a curator's decision, not a rating)."""
    return Annotation.objects.filter(pair__campaign=campaign).exclude(source=Annotation.Source.ADJUDICATION)


def _answer_columns(variables: dict[str, Variable]) -> tuple[dict, list[tuple[str, str, str | None]]]:
    """A JSON-text expression per answer column, and (column, question id, side) for each."""
    expressions, layout = {}, []
    for qid, variable in variables.items():
        sides = SIDES if variable.scope == "response" else (None,)
        for side in sides:
            name = f"q_{qid}" + (f"_{side}" if side else "")
            expression = KeyTransform(qid, "values")
            expressions[name] = KeyTransform(side, expression) if side else expression
            layout.append((name, qid, side))
    return expressions, layout


def codes_from_json_text(variable: Variable, text: pd.Series) -> np.ndarray:
    """Per answer, the code of its value in the variable's domain, -1 when missing, mistyped or outside it.

    ``text`` is a float column (every answer a JSON number or missing) or JSON text, where a quoted
    "5" or a ``true`` is not the number 5 or 1.
    """
    if variable.numeric:
        if text.dtype.kind in "iuf":
            numbers = text.to_numpy(dtype=float)
        elif text.dtype.kind == "b":
            numbers = np.full(len(text), np.nan)
        else:
            strings = text.map(lambda v: v if isinstance(v, str) else None)
            numbers = pd.to_numeric(strings, errors="coerce").to_numpy(dtype=float)
        codes = numbers - variable.domain[0]
        valid = ~np.isnan(numbers) & (codes == np.floor(codes)) & (codes >= 0) & (codes < len(variable.domain))
        return np.where(valid, np.nan_to_num(codes, nan=-1), -1).astype(np.int64)
    lookup = {_json_text(value): code for code, value in enumerate(variable.domain)}
    found, uniques = pd.factorize(text.to_numpy(dtype=object))
    code_of_unique = np.asarray([lookup.get(u, -1) for u in uniques] + [-1], dtype=np.int64)
    return code_of_unique[found]


def _raters(frame: pd.DataFrame) -> tuple[np.ndarray, list[str], np.ndarray]:
    """A rater index per rating (accounts by id, imported ratings by their pseudonymous label), the rater
    keys, and per key whether it is a stable identity (an anonymous slot of one pair is not)."""
    annotator = frame["r_annotator"].to_numpy(dtype=float)
    has_account = ~np.isnan(annotator)
    account_codes, accounts = pd.factorize(annotator[has_account], sort=True)
    label_codes, labels = pd.factorize(frame["rater_label"].fillna("").astype(str).to_numpy()[~has_account], sort=True)
    rater = np.empty(len(frame), dtype=np.int64)
    rater[has_account] = account_codes
    rater[~has_account] = label_codes + len(accounts)
    keys = [f"user:{int(a)}" for a in accounts] + [f"imported:{label}" for label in labels]
    stable = np.ones(len(keys), dtype=bool)
    stable[len(accounts):] = ~pd.Index(labels, dtype=object).str.startswith(ANONYMOUS_RATER_PREFIX)
    return rater, keys, stable


def rating_table(*, campaign: Campaign, facts: PairFacts | None = None,
                 progress: Callable[[int], None] | None = None) -> RatingTable:
    """Every rating of the campaign (adjudications excluded) as a RatingTable, read with one streamed query.

    ``progress(rows_read)`` is called as rows arrive. Answers outside a question's domain are left out.
    """
    facts = facts or pair_facts(campaign=campaign)
    variables = variables_of_schema(campaign.rating_schema.definition)
    expressions, layout = _answer_columns(variables)
    base = {
        "r_pair": F("pair_id"),
        "r_annotator": F("annotator_id"),
        "r_swapped": swapped_code(),
        "r_time": Coalesce("time_on_item_ms", Value(-1)),
        "r_period": Cast(ExtractIsoYear("created_at") * 100 + ExtractWeek("created_at"), IntegerField()),
    }
    names = [*base, *expressions, "rater_label"]
    text = {name for name, qid, _side in layout if not variables[qid].numeric}
    frame = stream_frame(campaign_ratings(campaign).annotate(**base, **expressions), names=names,
                         json_columns=set(expressions), text_columns=text | {"rater_label"}, progress=progress)
    pair_id = frame["r_pair"].to_numpy(dtype=np.int64)
    pair = np.searchsorted(facts.pair_ids, pair_id)
    # A pair created after ``facts`` was read has ratings but no index; those ratings wait for the next run.
    known = pair < len(facts.pair_ids)
    known[known] = facts.pair_ids[pair[known]] == pair_id[known]
    frame = frame[known].reset_index(drop=True)
    pair = pair[known]
    rater, rater_keys, rater_stable = _raters(frame)
    observations = {}
    for qid, variable in variables.items():
        names_of = [name for name, q, _side in layout if q == qid]
        if variable.scope == "criteria":
            answers = [None if isinstance(t, float) else json.loads(t) for t in frame[names_of[0]]]
            observations[qid] = observations_from_criteria(variable=variable, pair=pair, rater=rater, labels=answers)
            continue
        codes = [codes_from_json_text(variable, frame[name]) for name in names_of]
        stacked = np.stack(codes, axis=1) if variable.scope == "response" else codes[0]
        observations[qid] = observations_from_codes(variable=variable, pair=pair, rater=rater, codes=stacked,
                                                    n_pairs=len(facts.pair_ids))
    pair_index = {int(p): i for i, p in enumerate(facts.pair_ids)} if facts.gold_answers else {}
    gold = {qid: gold_codes(variable=v, n_units=observations[qid].n_units, pair_index=pair_index,
                            gold_answers=facts.gold_answers)
            for qid, v in variables.items() if v.scope != "criteria"}
    time_ms = frame["r_time"].to_numpy(dtype=float)
    return RatingTable(
        pair_ids=facts.pair_ids,
        pair=pair,
        rater=rater,
        rater_keys=rater_keys,
        rater_stable=rater_stable,
        swapped=frame["r_swapped"].to_numpy(dtype=np.int64),
        time_ms=np.where(time_ms >= 0, time_ms, np.nan),
        period=frame["r_period"].to_numpy(dtype=np.int64),
        variables=variables,
        observations=observations,
        gold=gold,
    )
