"""Omni-RewardBench rows, as JSON Lines or one JSON array.

Fields: ``id, prompt, response1, response2, model1, model2, criteria, criteria_preference`` and,
by task, media paths relative to the media root: ``image``/``image_path`` (prompt image(s)),
``video``, ``audio``/``audio_path`` (prompt media), ``response1_path``/``response2_path``
(generated media). ``response1`` becomes A and ``response2`` B; ``criteria_preference``
(``response1`` | ``response2`` | ``tie``) is kept in the pair's metadata and, with ratings,
stored as one imported annotation ``{"criteria": [{"criterion": ..., "label": "A"|"B"|"tie"}]}``,
whose rater is an anonymous slot of the pair (the rows name no annotator).
Fields this module does not know are kept in the pair's metadata rather than dropped.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePosixPath

from annotation.catalogue import records as rows
from annotation.catalogue.records import RowError
from annotation.importers.streams import CountingReader, Record, iter_json_array, iter_jsonl

PREFERENCE_TO_LABEL = {"response1": "A", "response2": "B", "tie": "tie"}
# Concord does not know Omni-RewardBench's licence: "other" keeps every release built on it at the most
# restrictive terms until a curator who checked them overrides it by name.
SOURCE = rows.SourceInfo(
    name="omni-rewardbench",
    title="Omni-RewardBench",
    license="other",
    url="https://huggingface.co/datasets/HongbangYuan/OmniRewardBench",
    citation="""@article{jin2025omnireward,
  title={Omni-Reward: Towards Generalist Omni-Modal Reward Modeling with Free-Form Preferences},
  author={Jin, Zhuoran and Yuan, Hongbang and Zhu, Kejian and Li, Jiachun and Cao, Pengfei and Chen, Yubo and
          Liu, Kang and Zhao, Jun},
  journal={arXiv preprint arXiv:2510.23451},
  year={2025}
}""",
)
PROMPT_MEDIA = (("image", "image"), ("image_path", "image"), ("video", "video"), ("video_path", "video"),
                ("audio", "audio"), ("audio_path", "audio"))
KEYS = {"id", "prompt", "response1", "response2", "model1", "model2", "criteria", "criteria_preference",
        "response1_path", "response2_path", "task"} | {field for field, _ in PROMPT_MEDIA}


def records(reader: CountingReader) -> Iterator[Record]:
    if reader.first_character() == "[":
        return iter_json_array(reader)
    return iter_jsonl(reader)


def parse(value, *, line: int, options: rows.ParseOptions) -> rows.PairRow:
    """One Omni-RewardBench row; RowError names the offending field."""
    record = rows.obj(value, "the row")
    external_id = rows.text(record, "id", "", max_length=rows.MAX_EXTERNAL_ID)
    prompt_text = rows.text(record, "prompt", "", max_length=1_000_000, required=False)
    prompt_blocks = [{"type": "text", "text": prompt_text, "format": "plain"}] if prompt_text else []
    seen: set[str] = set()
    for field, kind in PROMPT_MEDIA:
        # Omni's hub rows name a prompt file twice (image and image_path): it is one file.
        paths = [path for path in _paths(record, field) if path not in seen]
        seen.update(paths)
        prompt_blocks += [{"type": kind, "file": path, "alt": ""} for path in paths]
    if not prompt_blocks:
        raise RowError("prompt: a row needs a prompt text or prompt media")
    prompt_blocks = rows.blocks(prompt_blocks, "prompt")
    task = rows.text(record, "task", "", max_length=rows.MAX_SOURCE, required=False)
    prompt = rows.PromptRow(
        external_id=rows.derived_id("omni", prompt_blocks),
        source="omni-rewardbench",
        source_task=task,
        metadata={},
        content=prompt_blocks,
    )
    criteria = rows.text(record, "criteria", "", max_length=rows.MAX_CRITERION, required=False)
    preference = record.get("criteria_preference")
    if preference is not None and preference not in PREFERENCE_TO_LABEL:
        raise RowError(f"criteria_preference: expected response1, response2 or tie, got {preference!r}")
    annotations = []
    if options.with_annotations and preference is not None:
        if not criteria:
            raise RowError("criteria: a criteria_preference needs the criterion it answers")
        label = PREFERENCE_TO_LABEL[preference]
        annotations.append(rows.AnnotationRow(rater_label=rows.anonymous_rater_label(pair_key=external_id, slot=1),
                                              values={"criteria": [{"criterion": criteria, "label": label}]}))
    return rows.PairRow(
        line=line,
        external_id=external_id,
        prompt=prompt,
        response_a=_response(record, 1),
        response_b=_response(record, 2),
        criteria=[criteria] if criteria else [],
        metadata={**{key: record[key] for key in sorted(set(record) - KEYS)},
                  **({"criteria_preference": preference} if preference else {})},
        annotations=annotations,
    )


def _paths(record: dict, field: str) -> list[str]:
    value = record.get(field)
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) and v for v in value):
        return value
    raise RowError(f"{field}: expected a path or a list of paths, got {rows.type_name(value)}")


def _response(record: dict, n: int) -> rows.ResponseRow:
    blocks = []
    answer = record.get(f"response{n}")
    if answer is not None and not isinstance(answer, str):
        raise RowError(f"response{n}: expected a string, got {rows.type_name(answer)}")
    paths = _paths(record, f"response{n}_path")
    # A generated file's row holds its path in response{n} as well; that is the file, not a text.
    if answer and answer not in paths:
        blocks.append({"type": "text", "text": answer, "format": "markdown"})
    blocks += [{"type": media_kind(path, f"response{n}_path"), "file": path, "alt": ""} for path in paths]
    if not blocks:
        raise RowError(f"response{n}: a response needs a text or a response{n}_path")
    return rows.ResponseRow(model_name=rows.text(record, f"model{n}", "", max_length=rows.MAX_MODEL_NAME),
                            content=rows.blocks(blocks, f"response{n}"))


def media_kind(path: str, field: str) -> str:
    """The kind of media a generated file is, from its extension (its bytes are checked later)."""
    from annotation.catalogue.services.media import EXTENSION_KIND

    kind = EXTENSION_KIND.get(PurePosixPath(path).suffix.lower().lstrip("."))
    if kind is None:
        raise RowError(f"{field}: cannot tell what kind of media {path!r} is from its extension; "
                       f"expected one of {', '.join(sorted(EXTENSION_KIND))}")
    return kind
