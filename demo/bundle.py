"""Writing a demo campaign as concord-format JSONL (what `import_pairs --format concord` reads) plus a media folder."""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

from demo.imaging import jpeg_bytes


class MediaFolder:
    """Files under ``root`` named by their content digest, so nothing in a name says which model made it."""

    def __init__(self, root: Path):
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)

    def _write(self, data: bytes, folder: str, extension: str) -> str:
        digest = hashlib.sha256(data).hexdigest()
        relative = f"{folder}/{digest[:2]}/{digest[:24]}.{extension}"
        path = self.root / relative
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        return relative

    def image(self, image: Image.Image, alt: str = "") -> dict:
        """A media block for ``image``, stored as JPEG."""
        return {"type": "image", "file": self._write(jpeg_bytes(image), "images", "jpg"), "alt": alt}

    def audio(self, wav: bytes, alt: str = "") -> dict:
        return {"type": "audio", "file": self._write(wav, "audio", "wav"), "alt": alt}

    def model3d(self, glb: bytes, alt: str = "") -> dict:
        """A media block for a binary glTF model."""
        return {"type": "model3d", "file": self._write(glb, "models", "glb"), "alt": alt}


def text(value: str, fmt: str = "markdown") -> dict:
    return {"type": "text", "text": value, "format": fmt}


@dataclass
class Side:
    """One response: the model that made it and its content blocks."""

    model: str
    content: list[dict]


@dataclass
class PairRow:
    """One line of a concord JSONL file."""

    pair_id: str
    prompt_id: str
    task: str
    prompt: list[dict]
    first: Side
    second: Side
    metadata: dict = field(default_factory=dict)
    source: str = "concord-demo"
    criteria: list[str] = field(default_factory=list)
    priority: int = 0

    def as_json(self, rng: random.Random) -> dict:
        """The row with the two responses in a random (seeded) order, so the better one is not always A."""
        a, b = (self.first, self.second) if rng.random() < 0.5 else (self.second, self.first)
        row = {
            "id": self.pair_id,
            "prompt": {"id": self.prompt_id, "source": self.source, "task": self.task, "metadata": self.metadata,
                       "content": self.prompt},
            "response_a": {"model": a.model, "content": a.content},
            "response_b": {"model": b.model, "content": b.content},
            "priority": self.priority,
        }
        if self.criteria:
            row["criteria"] = self.criteria
        return row


def write_jsonl(path: Path, rows: list[PairRow], *, seed: str) -> int:
    """Write ``rows`` to ``path`` (one JSON object a line); returns how many were written."""
    rng = random.Random(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row.as_json(rng), ensure_ascii=False, sort_keys=True) + "\n")
    return len(rows)
