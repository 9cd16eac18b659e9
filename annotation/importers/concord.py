"""Concord's own JSON Lines format (documented in docs/concord-format.md).

A pair line::

    {"id": "...", "prompt": {"id", "source", "task", "metadata", "content"},
     "response_a": {"model", "content"}, "response_b": {...},
     "criteria": [...], "priority": 0, "metadata": {...},
     "annotations": [{"rater", "values", "rationale"}]}

``rater`` declares a stable rater (the same label is the same person on every pair); a rating
without one is an anonymous slot of its pair.

A response-only line ``{"prompt": {...}, "response": {"model", "content"}}`` adds one response
to a prompt, for ``build_pairs``.
"""

from __future__ import annotations

from collections.abc import Iterator

from annotation.catalogue import records as rows
from annotation.catalogue.records import RowError
from annotation.importers.streams import CountingReader, Record, iter_jsonl

# Concord's format comes from anywhere: whoever imports a file names its source (import_pairs --source-*, the upload page).
SOURCE = None
PAIR_KEYS = {"id", "prompt", "response_a", "response_b", "criteria", "priority", "metadata", "annotations"}
RESPONSE_KEYS = {"prompt", "response"}


def records(reader: CountingReader) -> Iterator[Record]:
    return iter_jsonl(reader)


def parse(value, *, line: int, options: rows.ParseOptions) -> rows.PairRow | rows.ResponseOnlyRow:
    """One line as a pair or a response-only row; RowError names the offending field."""
    record = rows.obj(value, "the line")
    if "response" in record:
        unknown = set(record) - RESPONSE_KEYS
        if unknown:
            raise RowError(f"unknown field(s) for a response line: {', '.join(sorted(unknown))}")
        prompt = parse_prompt(record.get("prompt"))
        return rows.ResponseOnlyRow(line=line, prompt=prompt, response=parse_response(record.get("response"), "response"))
    unknown = set(record) - PAIR_KEYS
    if unknown:
        raise RowError(f"unknown field(s): {', '.join(sorted(unknown))}")
    prompt = parse_prompt(record.get("prompt"))
    response_a = parse_response(record.get("response_a"), "response_a")
    response_b = parse_response(record.get("response_b"), "response_b")
    external_id = rows.text(record, "id", "", max_length=rows.MAX_EXTERNAL_ID, required=False)
    if not external_id:
        external_id = rows.derived_id("pair", prompt.external_id, response_a.model_name, response_a.content,
                                      response_b.model_name, response_b.content)
    priority = record.get("priority", 0)
    if isinstance(priority, bool) or not isinstance(priority, int) or not -32768 <= priority <= 32767:
        raise RowError("priority: expected a whole number from -32768 to 32767")
    metadata = record.get("metadata", {})
    if not isinstance(metadata, dict):
        raise RowError(f"metadata: expected an object, got {rows.type_name(metadata)}")
    annotations = parse_annotations(record.get("annotations", []), pair_key=external_id) if options.with_annotations else []
    return rows.PairRow(
        line=line,
        external_id=external_id,
        prompt=prompt,
        response_a=response_a,
        response_b=response_b,
        criteria=parse_criteria(record.get("criteria", [])),
        priority=priority,
        metadata=metadata,
        annotations=annotations,
    )


def parse_prompt(value) -> rows.PromptRow:
    prompt = rows.obj(value, "prompt")
    blocks = rows.blocks(prompt.get("content", []), "prompt.content")
    source = rows.text(prompt, "source", "prompt.", max_length=rows.MAX_SOURCE, required=False)
    external_id = rows.text(prompt, "id", "prompt.", max_length=rows.MAX_EXTERNAL_ID, required=False)
    metadata = prompt.get("metadata", {})
    if not isinstance(metadata, dict):
        raise RowError(f"prompt.metadata: expected an object, got {rows.type_name(metadata)}")
    if not external_id:
        external_id = rows.derived_id("prompt", source, blocks)
    return rows.PromptRow(
        external_id=external_id,
        source=source,
        source_task=rows.text(prompt, "task", "prompt.", max_length=rows.MAX_SOURCE, required=False),
        metadata=metadata,
        content=blocks,
    )


def parse_response(value, where: str) -> rows.ResponseRow:
    response = rows.obj(value, where)
    blocks = rows.blocks(response.get("content"), f"{where}.content")
    if not blocks:
        raise RowError(f"{where}.content: a response needs at least one block")
    return rows.ResponseRow(
        model_name=rows.text(response, "model", f"{where}.", max_length=rows.MAX_MODEL_NAME), content=blocks
    )


def parse_criteria(value) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(c, str) and c.strip() for c in value):
        raise RowError("criteria: expected a list of non-empty strings")
    if any(len(c) > rows.MAX_CRITERION for c in value):
        raise RowError(f"criteria: a criterion is longer than {rows.MAX_CRITERION} characters")
    return value


def parse_annotations(value, *, pair_key: str) -> list[rows.AnnotationRow]:
    if not isinstance(value, list):
        raise RowError(f"annotations: expected a list, got {rows.type_name(value)}")
    out = []
    for i, item in enumerate(value):
        where = f"annotations[{i}]."
        item = rows.obj(item, where.rstrip("."))
        values = item.get("values")
        if not isinstance(values, dict) or not values:
            raise RowError(f"{where}values: expected a non-empty object keyed by question id")
        rationale = rows.text(item, "rationale", where, max_length=20_000, required=False)
        rater = rows.text(item, "rater", where, max_length=rows.MAX_RATER_LABEL, required=False)
        if rater.startswith(rows.ANONYMOUS_RATER_PREFIX):
            raise RowError(f"{where}rater: the prefix {rows.ANONYMOUS_RATER_PREFIX!r} is reserved for ratings "
                           "without a stable rater; leave rater out instead")
        if not rater:
            rater = rows.anonymous_rater_label(pair_key=pair_key, slot=i + 1)
        out.append(rows.AnnotationRow(rater_label=rater, values=values, rationale=rationale))
    return out
