"""Incremental writers for one task split: JSONL, Parquet (row groups) and MMRB2's ``{"pairs": [...]}`` JSON.

Rows go in one at a time and leave memory a row group at a time, so a release of any size is
written in bounded memory.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

ROW_GROUP = 5_000

RATING = pa.struct([("rater", pa.string()), ("source", pa.string()), ("values", pa.string())])
PARQUET_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("task", pa.string()),
        ("campaign", pa.string()),
        ("prompt_source", pa.string()),
        ("prompt_source_task", pa.string()),
        ("prompt_metadata", pa.string()),
        ("prompt_content", pa.string()),
        ("response_a_model", pa.string()),
        ("response_a_content", pa.string()),
        ("response_b_model", pa.string()),
        ("response_b_content", pa.string()),
        ("chosen", pa.string()),
        ("criteria", pa.list_(pa.string())),
        ("ratings", pa.list_(RATING)),
        ("human_annotations", pa.string()),
        ("agreement", pa.float64()),
        ("media", pa.list_(pa.string())),
    ],
    metadata={
        b"concord": b"Content blocks, metadata, rating values and human_annotations are JSON strings; "
        b"json.loads gives the objects of the JSONL file.",
    },
)


_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _json(value) -> str:
    return _encoder.encode(value)


def parquet_columns(row: dict) -> dict:
    """One JSONL row flattened to the Parquet schema (nested content as JSON strings)."""
    return {
        "id": row["id"],
        "task": row["task"],
        "campaign": row["campaign"],
        "prompt_source": row["prompt_source"],
        "prompt_source_task": row["prompt_source_task"],
        "prompt_metadata": _json(row["prompt_metadata"]),
        "prompt_content": _json(row["prompt_content"]),
        "response_a_model": row["response_a"]["model_name"],
        "response_a_content": _json(row["response_a"]["content"]),
        "response_b_model": row["response_b"]["model_name"],
        "response_b_content": _json(row["response_b"]["content"]),
        "chosen": row["chosen"],
        "criteria": row["criteria"],
        "ratings": [{"rater": r["rater"], "source": r["source"], "values": _json(r["values"])} for r in row["ratings"]],
        "human_annotations": _json(row["human_annotations"]),
        "agreement": row["agreement"],
        "media": row["media"],
    }


class SplitWriter:
    """The three files of one task split, written as rows arrive; ``close`` returns their relative paths."""

    def __init__(self, staging: Path, task: str):
        self.task = task
        self.staging = staging
        self.paths = {"jsonl": f"data/{task}.jsonl", "parquet": f"data/{task}.parquet", "mmrb2": f"mmrb2/{task}.json"}
        for relative in self.paths.values():
            (staging / relative).parent.mkdir(parents=True, exist_ok=True)
        self._jsonl = open(staging / self.paths["jsonl"], "w", encoding="utf-8", buffering=1024 * 1024)
        self._mmrb2 = open(staging / self.paths["mmrb2"], "w", encoding="utf-8", buffering=1024 * 1024)
        self._mmrb2.write('{"pairs": [')
        self._parquet = pq.ParquetWriter(staging / self.paths["parquet"], PARQUET_SCHEMA, compression="zstd")
        self._columns: dict[str, list] = {name: [] for name in PARQUET_SCHEMA.names}
        self.count = 0
        self.mmrb2_count = 0

    def add(self, row: dict, mmrb2: dict | None) -> None:
        """One row; ``mmrb2`` None keeps the pair out of the MMRB2 file (MMRB2's ``chosen`` is A or B, never a tie)."""
        self._jsonl.write(json.dumps(row, ensure_ascii=False) + "\n")
        if mmrb2 is not None:
            self._mmrb2.write(("\n" if self.mmrb2_count == 0 else ",\n") + json.dumps(mmrb2, ensure_ascii=False))
            self.mmrb2_count += 1
        for name, value in parquet_columns(row).items():
            self._columns[name].append(value)
        self.count += 1
        if len(self._columns["id"]) >= ROW_GROUP:
            self._flush()

    def _flush(self) -> None:
        if self._columns["id"]:
            self._parquet.write_table(pa.Table.from_pydict(self._columns, schema=PARQUET_SCHEMA))
            self._columns = {name: [] for name in PARQUET_SCHEMA.names}

    def close(self) -> list[str]:
        self._flush()
        self._parquet.close()
        self._jsonl.close()
        self._mmrb2.write("\n]}\n")
        self._mmrb2.close()
        return list(self.paths.values())

    def abort(self) -> None:
        for handle in (self._jsonl, self._mmrb2):
            handle.close()
        self._parquet.close()
