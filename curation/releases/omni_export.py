"""The release's Omni-RewardBench export, beside the MMRB2 one: ``omni/<task>.json`` in Omni's own row format.

One JSON list per Omni-RewardBench task (``text_to_text``, ``text_image_to_image``, …, the names its
loader and evaluation scripts use) holding every kept pair of a Concord task that has an Omni
equivalent; interleaved and reasoning pairs have none and are left to the MMRB2 export. Each row has
Omni's fields: ``id``, ``prompt``, ``response1`` / ``response2`` (the text, or the media path of a
generated image, video, audio or 3D file, as Omni's rows hold it), ``model1`` / ``model2``,
``criteria`` and ``criteria_preference`` (``response1`` / ``response2`` / ``tie``), plus the media
paths ``image`` / ``image_path``, ``video``, ``audio`` / ``audio_path`` and ``response1_path`` /
``response2_path``. Paths are relative to the release folder, the media root of Omni's rows (its
``visual_path``; Concord's ``import_pairs --media-root``), and never climb out of it.

Rows are written as they arrive, one open file per task: memory stays bounded. No Django import.
"""

from __future__ import annotations

import json
from pathlib import Path

from annotation.catalogue import content

FOLDER = "omni"
OMNI_TASKS = {
    "text-to-text": "text_to_text",
    "image-to-text": "text_image_to_text",
    "video-to-text": "text_video_to_text",
    "audio-to-text": "text_audio_to_text",
    "text-to-image": "text_to_image",
    "image-editing": "text_image_to_image",
    "text-to-video": "text_to_video",
    "text-to-audio": "text_to_audio",
    "text-to-3d": "text_to_3D",
}
PREFERENCE = {"A": "response1", "B": "response2", "tie": "tie"}
PROMPT_MEDIA_KEYS = {"image": ("image", "image_path"), "video": ("video",), "audio": ("audio", "audio_path"),
                     "model3d": ("model3d",)}


def _one_or_many(paths: list[str]):
    return paths[0] if len(paths) == 1 else paths


def omni_row(*, pair_id: str, task: str, prompt: list, model_a: str, content_a: list, model_b: str, content_b: list,
             criteria: list, chosen: str, media_path) -> dict:
    """One pair in Omni-RewardBench's row format; ``media_path(digest)`` gives a media file's path in the release."""
    row = {"id": pair_id, "task": task, "prompt": content.plain_text(prompt)}
    by_kind: dict[str, list[str]] = {}
    for block in content.iter_media(prompt):
        by_kind.setdefault(block["type"], []).append(media_path(block["media"]))
    for kind, paths in by_kind.items():
        for key in PROMPT_MEDIA_KEYS[kind]:
            row[key] = _one_or_many(paths)
    for n, (model, blocks) in enumerate(((model_a, content_a), (model_b, content_b)), start=1):
        text = content.plain_text(blocks)
        paths = [media_path(block["media"]) for block in content.iter_media(blocks)]
        row[f"response{n}"] = text if text or not paths else paths[0]
        if paths:
            row[f"response{n}_path"] = _one_or_many(paths)
        row[f"model{n}"] = model
    row["criteria"] = "\n".join(c if isinstance(c, str) else json.dumps(c, sort_keys=True) for c in criteria)
    row["criteria_preference"] = PREFERENCE[chosen]
    return row


class OmniWriter:
    """``omni/<task>.json`` files written as pairs arrive; ``close`` returns their paths in the release."""

    def __init__(self, staging: Path):
        self.staging = staging
        self._files: dict[str, object] = {}
        self.counts: dict[str, int] = {}

    def add(self, *, kind: str, pair_id: str, prompt: list, model_a: str, content_a: list, model_b: str,
            content_b: list, criteria: list, chosen: str, media_path) -> bool:
        """Write one kept pair of Concord task ``kind``; False when the kind has no Omni task.

        ``media_path(digest)`` is a media file's path from the release root."""
        task = OMNI_TASKS.get(kind)
        if task is None:
            return False
        row = omni_row(pair_id=pair_id, task=task, prompt=prompt, model_a=model_a, content_a=content_a,
                       model_b=model_b, content_b=content_b, criteria=criteria, chosen=chosen,
                       media_path=media_path)
        handle = self._files.get(task)
        if handle is None:
            (self.staging / FOLDER).mkdir(parents=True, exist_ok=True)
            handle = self._files[task] = open(self.staging / FOLDER / f"{task}.json", "w", encoding="utf-8",
                                              buffering=1024 * 1024)
            handle.write("[")
        handle.write(("\n" if task not in self.counts else ",\n") + json.dumps(row, ensure_ascii=False))
        self.counts[task] = self.counts.get(task, 0) + 1
        return True

    def close(self) -> list[str]:
        for handle in self._files.values():
            handle.write("\n]\n")
            handle.close()
        return [f"{FOLDER}/{task}.json" for task in sorted(self._files)]

    def abort(self) -> None:
        for handle in self._files.values():
            handle.close()
