"""Helpers for the importer tests: media bytes made on the spot, files to import, the CLI as a function."""

from __future__ import annotations

import io
import json
import struct
import wave
from pathlib import Path

from django.core.management import call_command
from PIL import Image


def png_bytes(seed: int = 0, size=(8, 6)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, ((seed * 37) % 256, (seed * 91) % 256, (seed * 53 + 7) % 256)).save(buffer, "PNG")
    return buffer.getvalue()


def jpeg_bytes(seed: int = 0, size=(8, 8)) -> bytes:
    buffer = io.BytesIO()
    image = Image.new("RGB", size)
    image.putdata([((seed + i) % 256, (seed * 7 + i * 3) % 256, (seed * 13) % 256) for i in range(size[0] * size[1])])
    image.save(buffer, "JPEG")
    return buffer.getvalue()


def wav_bytes(seed: int = 0) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"".join(struct.pack("<h", (seed * 97 + i * 13) % 3000) for i in range(400)))
    return buffer.getvalue()


def mp4_bytes(seed: int = 0) -> bytes:
    """A minimal ISO-BMFF file: an ftyp box and an mdat box, enough for the sniffer."""
    ftyp = struct.pack(">I4s4sI", 24, b"ftyp", b"isom", 512) + b"isommp42"
    payload = bytes((seed + i) % 256 for i in range(64))
    return ftyp + struct.pack(">I4s", 8 + len(payload), b"mdat") + payload


def write_jsonl(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def concord_pair(i: int, *, a_file: str | None = None, b_file: str | None = None, annotations=None, **extra) -> dict:
    """A concord pair line; responses are text unless a media file is named."""
    def response(model: str, file: str | None, text: str) -> dict:
        blocks = [{"type": "image", "file": file}] if file else [{"type": "text", "text": text}]
        return {"model": model, "content": blocks}

    record = {
        "id": f"pair-{i}",
        "prompt": {"id": f"prompt-{i // 2}", "source": "testbench", "task": "drawing", "metadata": {"n": i // 2},
                   "content": [{"type": "text", "text": f"Draw thing {i // 2}"}]},
        "response_a": response("model-x", a_file, f"answer a {i}"),
        "response_b": response("model-y", b_file, f"answer b {i}"),
    }
    if annotations is not None:
        record["annotations"] = annotations
    record.update(extra)
    return record


def run_import(path: Path, *args: str) -> tuple[int, str]:
    """``manage.py import_pairs PATH ARGS`` in-process: (exit status, stdout)."""
    out = io.StringIO()
    try:
        call_command("import_pairs", str(path), *args, stdout=out, stderr=io.StringIO())
    except SystemExit as exc:
        return int(exc.code), out.getvalue()
    return 0, out.getvalue()


def run_import_json(path: Path, *args: str) -> tuple[int, dict]:
    code, out = run_import(path, *args, "--json")
    return code, json.loads(out)
