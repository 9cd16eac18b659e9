"""Incremental writers for one task split: Hugging Face Parquet shards, JSONL and MMRB2's ``{"pairs": [...]}`` JSON.

Rows go in one at a time and leave memory a row group at a time (a row group closes at ``ROW_GROUP``
rows or ``ROW_GROUP_BYTES`` of embedded media, whichever comes first), so a release of any size is
written in bounded memory even with its images and audio embedded in the Parquet files.

The Parquet files are a ``datasets`` dataset as they are: ``datasets.load_dataset(release_folder, task)``
reads them with the features below (stored in each file's schema and in the card), decoding images
and audio from the embedded bytes. Pure Python: no Django import.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from annotation.catalogue import content, schemas
from curation.releases.rebuild import PLACEHOLDER, media_column

ROW_GROUP = 1_000
ROW_GROUP_BYTES = 64 * 1024 * 1024
SHARD_BYTES = 512 * 1024 * 1024
SPLIT = "test"

# MMRB2's own file names for its four tasks: its compute_accuracy.py looks for exactly these.
MMRB2_FILES = {"text-to-image": "t2i", "image-editing": "edit", "interleaved": "interleaved", "reasoning": "reasoning"}

EMBEDDED = {"image": "images", "audio": "audio"}
SIDES = ("prompt", "response_a", "response_b")
AS_FILES = ("video", "model3d")


class RowUntyped(Exception):
    """A rating's answers or a pair's ``human_annotations`` do not fit the typed column of their config; the
    message names the question and the value."""


@dataclass(frozen=True)
class Shape:
    """The columns whose shape is the rating schema's, for one config: a ``datasets`` feature where every
    campaign of the config gives them one shape, None where they differ (then the column is a JSON string).

    ``values`` is the struct of ``ratings[].values`` (question id to answer); ``annotations`` is
    ``human_annotations``'s type.
    """

    values: object | None = None
    annotations: object | None = None


def _answer_feature(question: dict):
    """The feature of one question's answer, or None when its options mix types (no one typed column fits)."""
    from datasets import List, Value

    kind = question["type"]
    if kind == "criteria":
        labels = [o.get("value") for o in question.get("options", [])]
        if not all(isinstance(label, str) for label in labels):
            return None
        return List({"criterion": Value("string"), "label": Value("string")})
    if kind == "scale":
        one = Value("int64")
    elif kind == "boolean":
        one = Value("bool")
    elif kind == "text":
        one = Value("string")
    else:  # choice
        options = [o.get("value") for o in question.get("options", [])]
        if all(isinstance(v, str) for v in options):
            one = Value("string")
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in options):
            one = Value("int64")
        else:
            return None
    return {"A": one, "B": one} if question.get("scope") == "response" else one


def _values_feature(definition: dict):
    """The struct of one schema's answers: every question's id with its answer's feature (None if one has none)."""
    fields = {}
    for question in definition.get("questions", []):
        feature = _answer_feature(question)
        if feature is None:
            return None
        fields[question["id"]] = feature
    return fields


def _annotations_feature(definition: dict):
    """``human_annotations``'s type under one schema, mirroring ``rows.human_annotations``: integers for an
    oriented scale (MMRB2 generation), two lists of letters for a per-response scale (MMRB2 reasoning), the answers
    for an oriented choice; None for a criteria question (a row of one criterion holds its labels, a pair naming
    no criterion each rating's list of labels: two shapes in one config)."""
    from datasets import List, Value

    question = schemas.preference_question(definition)
    if question is not None:
        answer = _answer_feature(question)
        return None if answer is None else List(answer)
    for q in definition.get("questions", []):
        if q["type"] == "scale" and q.get("scope") == "response":
            return {"response_a_ratings": List(Value("string")), "response_b_ratings": List(Value("string"))}
        if q["type"] == "criteria":
            return None
    return List(Value("string"))  # always empty: the schema asks no preference


def _agreed(shapes: list):
    return shapes[0] if shapes and all(s is not None and s == shapes[0] for s in shapes) else None


def config_shape(definitions: list[dict]) -> Shape:
    """The shape of one config's schema-shaped columns, from the rating schemas of its campaigns: typed where they
    agree (the same questions with the same answer types), JSON strings where they do not."""
    return Shape(values=_agreed([_values_feature(d) for d in definitions]),
                 annotations=_agreed([_annotations_feature(d) for d in definitions]))


def features(shape: Shape | None = None):
    """The ``datasets`` features of a config (``datasets`` is imported on first use: it costs a second to import,
    and every web and Celery process imports this module). Without a shape, the schema-shaped columns are JSON."""
    from datasets import Audio, Features, Image, List, Value

    shape = shape or Shape()

    def side(prefix: str) -> dict:
        return {
            f"{prefix}_text": Value("string"),
            f"{prefix}_images": List(Image()),
            f"{prefix}_audio": List(Audio()),
            f"{prefix}_files": List(Value("string")),
        }

    return Features({
        "id": Value("string"),
        "task": Value("string"),
        "campaign": Value("string"),
        "prompt_source": Value("string"),
        "prompt_source_task": Value("string"),
        "prompt_metadata": Value("string"),
        **side("prompt"),
        "response_a_model": Value("string"),
        **side("response_a"),
        "response_b_model": Value("string"),
        **side("response_b"),
        "chosen": Value("string"),
        "criteria": List(Value("string")),
        "ratings": List({"rater": Value("string"), "source": Value("string"), "side": Value("string"),
                         "values": shape.values if shape.values is not None else Value("string"),
                         "media_played": Value("string")}),
        "human_annotations": shape.annotations if shape.annotations is not None else Value("string"),
        "agreement": Value("float64"),
    })


def parquet_schema(shape: Shape | None = None) -> pa.Schema:
    """The Arrow schema, with the features in its ``huggingface`` metadata (what ``load_dataset`` reads back)."""
    return features(shape).arrow_schema


def _fits(value, feature) -> bool:
    """Whether ``value`` is of ``feature``'s type (None always is: a null)."""
    from datasets import List, Value

    if value is None:
        return True
    if isinstance(feature, dict):
        return isinstance(value, dict) and set(value) <= set(feature) and all(
            _fits(v, feature[k]) for k, v in value.items())
    if isinstance(feature, List):
        return isinstance(value, list) and all(_fits(v, feature.feature) for v in value)
    if isinstance(feature, Value):
        if feature.dtype == "int64":
            return isinstance(value, int) and not isinstance(value, bool)
        if feature.dtype == "bool":
            return isinstance(value, bool)
        return isinstance(value, str)
    return False


def _typed(value, feature, what: str):
    """``value`` as its typed column holds it (``feature`` None: a JSON string); RowUntyped when it does not fit."""
    if feature is None:
        return _json(value)
    if isinstance(feature, dict) and isinstance(value, dict):
        for key in value:
            if key not in feature:
                raise RowUntyped(f"{what} has {key!r}, which its rating schema does not ask")
            if not _fits(value[key], feature[key]):
                raise RowUntyped(f"{what}: {key} = {value[key]!r} is not of its question's type")
        return value
    if not _fits(value, feature):
        raise RowUntyped(f"{what} = {value!r} is not of its column's type")
    return value


class MediaUnreadable(Exception):
    """A media file the release needs could not be read; the message names it and the cause."""


@dataclass
class Rendered:
    """One side's content as MMRB2's hub layout has it: text with placeholders, and its media in order."""

    text: str
    images: list[dict]
    audio: list[dict]
    files: list[str]
    embedded_bytes: int


def render(blocks: list[dict], media_name: Callable[[str], str], media_bytes: Callable[[str], bytes]) -> Rendered:
    """Text with ``<image_N>`` / ``<audio_N>`` / ``<video_N>`` / ``<model3d_N>`` placeholders (N counts from 0
    within each list) and the media they stand for: images and audio embedded, video and 3D as release paths."""
    parts, media, files = [], {"image": [], "audio": []}, []
    counts = {"video": 0, "model3d": 0}
    size = 0
    for kind, value in content.to_pairs_list(blocks, lambda digest: digest):
        if kind == "text":
            parts.append(value)
        elif kind in EMBEDDED:
            data = media_bytes(value)
            size += len(data)
            parts.append(f"<{kind}_{len(media[kind])}>")
            media[kind].append({"bytes": data, "path": media_name(value)})
        else:
            parts.append(f"<{kind}_{counts[kind]}>")
            counts[kind] += 1
            files.append(f"media/{media_name(value)}")
    return Rendered("\n".join(parts), media["image"], media["audio"], files, size)


_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _json(value) -> str:
    return _encoder.encode(value)


def parquet_columns(row: dict, media_name: Callable[[str], str], media_bytes: Callable[[str], bytes],
                    shape: Shape | None = None) -> tuple[dict, int]:
    """One JSONL row in the typed Parquet layout of a config of ``shape``, and the bytes of media it embeds;
    RowUntyped when a rating's answers do not fit the config's typed columns."""
    shape = shape or Shape()
    columns = {
        "id": row["id"],
        "task": row["task"],
        "campaign": row["campaign"],
        "prompt_source": row["prompt_source"],
        "prompt_source_task": row["prompt_source_task"],
        "prompt_metadata": _json(row["prompt_metadata"]),
        "response_a_model": row["response_a"]["model_name"],
        "response_b_model": row["response_b"]["model_name"],
        "chosen": row["chosen"],
        "criteria": row["criteria"],
        "ratings": [{"rater": r["rater"], "source": r["source"], "side": r["side"],
                     "values": _typed(r["values"], shape.values, f"rating by {r['rater']}"),
                     "media_played": None if r.get("media_played") is None else _json(r["media_played"])}
                    for r in row["ratings"]],
        "human_annotations": _typed(row["human_annotations"], shape.annotations, "human_annotations"),
        "agreement": row["agreement"],
    }
    size = 0
    for prefix, blocks in (("prompt", row["prompt_content"]), ("response_a", row["response_a"]["content"]),
                           ("response_b", row["response_b"]["content"])):
        rendered = render(blocks, media_name, media_bytes)
        columns.update({f"{prefix}_text": rendered.text, f"{prefix}_images": rendered.images,
                        f"{prefix}_audio": rendered.audio, f"{prefix}_files": rendered.files})
        size += rendered.embedded_bytes
    return columns, size


def pointer_parquet_options(schema: pa.Schema) -> dict:
    """ParquetWriter options for a pointer release: the columns of embedded media bytes (which hold placeholders)
    uncompressed, PLAIN-encoded, without statistics, in v1 data pages and no page index, so ``rebuild.py`` can put
    the bytes in place with the standard library alone; every other column as a full release has it (zstd)."""
    paths = [".".join(p) for p in _leaf_paths(schema)]
    media = [p for p in paths if media_column(tuple(p.split(".")))]
    other = [p for p in paths if p not in media]
    return {"compression": {p: ("none" if p in media else "zstd") for p in paths}, "use_dictionary": other,
            "write_statistics": other, "column_encoding": dict.fromkeys(media, "PLAIN"), "data_page_version": "1.0",
            "write_page_index": False}


def _leaf_paths(schema: pa.Schema) -> list[tuple[str, ...]]:
    """The Parquet leaf column paths of an Arrow schema (lists as ``list.element``, as pyarrow writes them)."""
    out = []

    def walk(prefix: tuple, kind: pa.DataType) -> None:
        if pa.types.is_struct(kind):
            for i in range(kind.num_fields):
                walk((*prefix, kind.field(i).name), kind.field(i).type)
        elif pa.types.is_list(kind) or pa.types.is_large_list(kind):
            walk((*prefix, "list", "element"), kind.value_type)
        else:
            out.append(prefix)

    for field_ in schema:
        walk((field_.name,), field_.type)
    return out


class SplitWriter:
    """The files of one task split, written as rows arrive; ``close`` returns their paths in the release.

    ``media_name(digest)`` names a media file inside the release's ``media/`` folder, ``media_bytes(digest)``
    returns its bytes (MediaUnreadable when it cannot). Parquet shards are ``data/<task>/test-NNNNN-of-MMMMM.parquet``.
    ``pointer_sizes`` (a pointer release): ``media_bytes`` gives placeholders, written as ``pointer_parquet_options``
    lays them out; ``pointer_sizes(digest)`` is the size of the file each stands for, so row groups close where the
    rebuilt file's would (``rebuild.py`` then holds one row group's media column at a time, as a reader does).
    """

    def __init__(self, staging: Path, task: str, *, media_name: Callable[[str], str], media_bytes: Callable[[str], bytes],
                 shard_bytes: int = SHARD_BYTES, shape: Shape | None = None,
                 pointer_sizes: Callable[[str], int] | None = None):
        self.task = task
        self.shape = shape or Shape()
        self.features = features(self.shape)
        self.schema = self.features.arrow_schema
        self.pointer_sizes = pointer_sizes
        self.parquet_options = pointer_parquet_options(self.schema) if pointer_sizes else {"compression": "zstd"}
        self.staging = staging
        self.media_name = media_name
        self.media_bytes = media_bytes
        self.shard_bytes = shard_bytes
        self.jsonl_path = f"data/{task}.jsonl"
        self.mmrb2_path = f"mmrb2/{MMRB2_FILES[task]}.json" if task in MMRB2_FILES else None
        (staging / "data" / task).mkdir(parents=True, exist_ok=True)
        self._jsonl = open(staging / self.jsonl_path, "w", encoding="utf-8", buffering=1024 * 1024)
        self._mmrb2 = None
        if self.mmrb2_path:
            (staging / "mmrb2").mkdir(parents=True, exist_ok=True)
            self._mmrb2 = open(staging / self.mmrb2_path, "w", encoding="utf-8", buffering=1024 * 1024)
            self._mmrb2.write('{"pairs": [')
        self._shards: list[Path] = []
        self._parquet: pq.ParquetWriter | None = None
        self._rows: list[dict] = []
        self._group_bytes = 0
        self.count = 0
        self.mmrb2_count = 0

    def add(self, row: dict, mmrb2: dict | None) -> None:
        """One row; ``mmrb2`` None keeps the pair out of the MMRB2 file (MMRB2's ``chosen`` is A or B, never a tie)."""
        self._jsonl.write(json.dumps(row, ensure_ascii=False) + "\n")
        if self._mmrb2 is not None and mmrb2 is not None:
            self._mmrb2.write(("\n" if self.mmrb2_count == 0 else ",\n") + json.dumps(mmrb2, ensure_ascii=False))
            self.mmrb2_count += 1
        columns, size = parquet_columns(row, self.media_name, self.media_bytes, self.shape)
        if self.pointer_sizes is not None:
            size = sum(self.pointer_sizes(item["bytes"][len(PLACEHOLDER):].decode("ascii"))
                       for prefix in SIDES for kind in EMBEDDED.values() for item in columns[f"{prefix}_{kind}"])
        self._rows.append(columns)
        self._group_bytes += size
        self.count += 1
        if len(self._rows) >= ROW_GROUP or self._group_bytes >= ROW_GROUP_BYTES:
            self._flush()

    def _flush(self) -> None:
        if not self._rows:
            return
        if self._parquet is None:
            path = self.staging / "data" / self.task / f"{SPLIT}-{len(self._shards):05d}.parquet"
            self._shards.append(path)
            self._parquet = pq.ParquetWriter(path, self.schema, **self.parquet_options)
        self._parquet.write_table(pa.Table.from_pylist(self._rows, schema=self.schema))
        self._rows, self._group_bytes = [], 0
        if self._shards[-1].stat().st_size >= self.shard_bytes:
            self._parquet.close()
            self._parquet = None

    def close(self) -> list[str]:
        self._flush()
        if self._parquet is not None:
            self._parquet.close()
        self._jsonl.close()
        paths = [self.jsonl_path]
        if self._mmrb2 is not None:
            self._mmrb2.write("\n]}\n")
            self._mmrb2.close()
            paths.append(self.mmrb2_path)
        total = len(self._shards)
        for number, shard in enumerate(self._shards):
            final = shard.with_name(f"{SPLIT}-{number:05d}-of-{total:05d}.parquet")
            shard.rename(final)
            paths.append(final.relative_to(self.staging).as_posix())
        return paths

    def abort(self) -> None:
        for handle in (self._jsonl, self._mmrb2):
            if handle is not None:
                handle.close()
        if self._parquet is not None:
            self._parquet.close()
