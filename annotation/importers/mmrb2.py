"""Multimodal RewardBench 2 release files: ``{"pairs": [{id, prompt_source, prompt_metadata,
response_a: {model_name, response_content}, response_b, chosen, human_annotations}, ...]}``.

- Content ``[["image"|"text", value], ...]`` becomes blocks; image values are file names under
  the media root. ``prompt_content`` (a built benchmark's prompt) is read when present.
- The prompt is identified by its source and metadata (``oneigbench/category=.../id=124``), so
  pairs on the same source prompt share one Prompt.
- ``chosen`` and, for reasoning, which responses were rejected for a wrong final answer without
  a human rating (an empty ratings list) are kept in the pair's metadata.
- With ratings: generation pairs get three ratings ``{"overall": n}`` (1..6); reasoning pairs one
  per index with ``{"correctness": {"A": x, "B": y}}``, letters A/B/C mapped to choices 1/2/3, a
  side left out when that response was rejected unrated. The file's raters are anonymous per pair,
  so each rating's rater is a slot of its pair (``rows.anonymous_rater_label``), never a person.
"""

from __future__ import annotations

from collections.abc import Iterator

from annotation.catalogue import content
from annotation.catalogue import records as rows
from annotation.catalogue.records import RowError
from annotation.importers.streams import CountingReader, Record, iter_json_array

LETTER_TO_CORRECTNESS = {"A": 1, "B": 2, "C": 3}
SOURCE = rows.SourceInfo(
    name="mmrb2",
    title="Multimodal RewardBench 2",
    license="cc-by-nc-4.0",
    url="https://huggingface.co/datasets/rl-research/multimodal-rewardbench-2",
    citation="""@article{hu2025multimodalrewardbench2,
  title={Multimodal RewardBench 2: Evaluating Omni Reward Models for Interleaved Text and Image},
  author={Hu, Yushi and Askari-Hemmat, Reyhane and Hall, Melissa and Dinan, Emily and
          Zettlemoyer, Luke and Ghazvininejad, Marjan},
  journal={arXiv preprint arXiv:2512.16899},
  year={2025}
}""",
)
KEYS = {"id", "prompt_source", "prompt_metadata", "prompt_content", "response_a", "response_b", "chosen",
        "human_annotations"}


def records(reader: CountingReader) -> Iterator[Record]:
    if reader.first_character() == "[":
        return iter_json_array(reader)
    return iter_json_array(reader, key="pairs")


def parse(value, *, line: int, options: rows.ParseOptions) -> rows.PairRow:
    """One element of ``pairs``; RowError names the offending field."""
    record = rows.obj(value, "the pair")
    unknown = set(record) - KEYS
    if unknown:
        raise RowError(f"unknown field(s): {', '.join(sorted(unknown))}")
    external_id = rows.text(record, "id", "", max_length=rows.MAX_EXTERNAL_ID)
    source = rows.text(record, "prompt_source", "", max_length=rows.MAX_SOURCE)
    metadata = record.get("prompt_metadata", {})
    if not isinstance(metadata, dict):
        raise RowError(f"prompt_metadata: expected an object, got {rows.type_name(metadata)}")
    prompt_blocks = _blocks(record["prompt_content"], "prompt_content") if "prompt_content" in record else []
    task = metadata.get("task") or metadata.get("category") or ""
    prompt = rows.PromptRow(
        external_id=prompt_id(source, metadata),
        source=source,
        source_task=str(task)[: rows.MAX_SOURCE],
        metadata=metadata,
        content=prompt_blocks,
    )
    chosen = record.get("chosen")
    if chosen is not None and chosen not in ("A", "B"):
        raise RowError(f"chosen: expected 'A' or 'B', got {chosen!r}")
    pair_metadata = {"chosen": chosen} if chosen else {}
    ratings = record.get("human_annotations")
    annotations: list[rows.AnnotationRow] = []
    if isinstance(ratings, dict):
        rejected, annotations = _reasoning(ratings)
        if rejected:
            pair_metadata["rejected_wrong_answer"] = rejected
    elif ratings is not None:
        annotations = _generation(ratings)
    for slot, annotation in enumerate(annotations, 1):
        annotation.rater_label = rows.anonymous_rater_label(pair_key=external_id, slot=slot)
    return rows.PairRow(
        line=line,
        external_id=external_id,
        prompt=prompt,
        response_a=_response(record.get("response_a"), "response_a"),
        response_b=_response(record.get("response_b"), "response_b"),
        metadata=pair_metadata,
        annotations=annotations if options.with_annotations else [],
    )


def prompt_id(source: str, metadata: dict) -> str:
    """The source prompt's identity: its benchmark and every metadata field, in key order."""
    parts = [source] + [f"{key}={metadata[key]}" for key in sorted(metadata)]
    return rows.bounded_id("/".join(parts))


def _blocks(value, where: str) -> list[dict]:
    try:
        return rows.blocks(content.from_pairs_list(value, where=where), where)
    except content.ContentError as exc:
        raise RowError(str(exc)) from exc


def _response(value, where: str) -> rows.ResponseRow:
    response = rows.obj(value, where)
    blocks = _blocks(response.get("response_content"), f"{where}.response_content")
    if not blocks:
        raise RowError(f"{where}.response_content: a response needs at least one item")
    return rows.ResponseRow(
        model_name=rows.text(response, "model_name", f"{where}.", max_length=rows.MAX_MODEL_NAME), content=blocks
    )


def _generation(ratings) -> list[rows.AnnotationRow]:
    if not isinstance(ratings, list) or not all(
        isinstance(r, int) and not isinstance(r, bool) and 1 <= r <= 6 for r in ratings
    ):
        raise RowError("human_annotations: expected a list of whole numbers from 1 to 6")
    return [rows.AnnotationRow(rater_label="", values={"overall": r}) for r in ratings]


def _reasoning(ratings: dict) -> tuple[list[str], list[rows.AnnotationRow]]:
    """(sides rejected unrated, one annotation per rater index)."""
    unknown = set(ratings) - {"response_a_ratings", "response_b_ratings"}
    if unknown:
        raise RowError(f"human_annotations: unknown field(s) {', '.join(sorted(unknown))}")
    by_side = {}
    for side, key in (("A", "response_a_ratings"), ("B", "response_b_ratings")):
        letters = ratings.get(key, [])
        if not isinstance(letters, list) or not all(letter in LETTER_TO_CORRECTNESS for letter in letters):
            raise RowError(f"human_annotations.{key}: expected a list of the letters A, B, C")
        by_side[side] = [LETTER_TO_CORRECTNESS[letter] for letter in letters]
    rejected = [side for side, values in by_side.items() if not values]
    counts = {len(values) for values in by_side.values() if values}
    if len(counts) > 1:
        raise RowError("human_annotations: the rated responses have different numbers of ratings")
    annotations = []
    for i in range(max(counts, default=0)):
        correctness = {side: values[i] for side, values in by_side.items() if values}
        annotations.append(rows.AnnotationRow(rater_label="", values={"correctness": correctness}))
    return rejected, annotations
