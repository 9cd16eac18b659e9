"""Content: an ordered list of typed blocks, the one shape every prompt and response takes.

Blocks (JSON objects, ``type`` first):

- ``{"type": "text", "text": str, "format": "markdown" | "plain"}``
- ``{"type": "image" | "video" | "audio" | "model3d", "media": sha256, "alt": str}``
- ``{"type": "code", "language": str, "code": str}``
- ``{"type": "tool_call", "name": str, "arguments": object, "result": [blocks]}``
- ``{"type": "reasoning", "blocks": [blocks]}``: one step of a reasoning trace
- ``{"type": "final_answer", "text": str}``

On the way in, media blocks may carry ``"file"`` (a path to resolve) instead of ``"media"``;
importers replace it with the stored media's sha256 before the content is saved.
"""

from __future__ import annotations

import hashlib
import json
import re

MEDIA_TYPES = ("image", "video", "audio", "model3d")
BLOCK_TYPES = ("text", "code", "tool_call", "reasoning", "final_answer", *MEDIA_TYPES)
SHA256 = re.compile(r"^[0-9a-f]{64}$")
MAX_DEPTH = 4
MAX_TEXT = 1_000_000


class ContentError(ValueError):
    """Content that is not a valid list of blocks; the message names the offending block."""


def validate(blocks, *, allow_files: bool = False, _where: str = "content", _depth: int = 0) -> list[dict]:
    """Return a normalized copy of ``blocks`` or raise ContentError naming the first problem."""
    if _depth > MAX_DEPTH:
        raise ContentError(f"{_where}: nested more than {MAX_DEPTH} levels deep")
    if not isinstance(blocks, list):
        raise ContentError(f"{_where}: expected a list of blocks, got {type(blocks).__name__}")
    out = []
    for i, block in enumerate(blocks):
        where = f"{_where}[{i}]"
        if not isinstance(block, dict):
            raise ContentError(f"{where}: a block is an object, got {type(block).__name__}")
        kind = block.get("type")
        if kind not in BLOCK_TYPES:
            raise ContentError(f"{where}: unknown block type {kind!r}; expected one of {', '.join(BLOCK_TYPES)}")
        if kind == "text":
            text = _string(block, "text", where)
            fmt = block.get("format", "markdown")
            if fmt not in ("markdown", "plain"):
                raise ContentError(f"{where}: format must be markdown or plain")
            out.append({"type": "text", "text": text, "format": fmt})
        elif kind == "final_answer":
            out.append({"type": "final_answer", "text": _string(block, "text", where)})
        elif kind == "code":
            language = block.get("language", "text")
            if not isinstance(language, str) or len(language) > 40:
                raise ContentError(f"{where}: language must be a short string")
            out.append({"type": "code", "language": language, "code": _string(block, "code", where)})
        elif kind == "tool_call":
            name = _string(block, "name", where)
            arguments = block.get("arguments", {})
            if not isinstance(arguments, (dict, list, str)):
                raise ContentError(f"{where}: arguments must be an object, a list or a string")
            result = validate(
                block.get("result", []), allow_files=allow_files, _where=f"{where}.result", _depth=_depth + 1
            )
            out.append({"type": "tool_call", "name": name, "arguments": arguments, "result": result})
        elif kind == "reasoning":
            inner = validate(block.get("blocks"), allow_files=allow_files, _where=f"{where}.blocks", _depth=_depth + 1)
            out.append({"type": "reasoning", "blocks": inner})
        else:
            out.append(_media_block(block, kind, where, allow_files))
    return out


def _string(block: dict, key: str, where: str) -> str:
    value = block.get(key)
    if not isinstance(value, str):
        raise ContentError(f"{where}: {key!r} must be a string")
    if len(value) > MAX_TEXT:
        raise ContentError(f"{where}: {key!r} is longer than {MAX_TEXT:,} characters")
    return value


def _media_block(block: dict, kind: str, where: str, allow_files: bool) -> dict:
    alt = block.get("alt", "")
    if not isinstance(alt, str):
        raise ContentError(f"{where}: alt must be a string")
    if "media" in block:
        digest = block["media"]
        if not isinstance(digest, str) or not SHA256.match(digest):
            raise ContentError(f"{where}: media must be a lowercase sha256 hex digest")
        return {"type": kind, "media": digest, "alt": alt}
    if allow_files and isinstance(block.get("file"), str) and block["file"]:
        return {"type": kind, "file": block["file"], "alt": alt}
    raise ContentError(f"{where}: a {kind} block needs 'media' (sha256)" + (" or 'file'" if allow_files else ""))


def iter_media(blocks: list[dict]):
    """Every media block, depth first, in reading order."""
    for block in blocks:
        if block["type"] in MEDIA_TYPES:
            yield block
        elif block["type"] == "tool_call":
            yield from iter_media(block["result"])
        elif block["type"] == "reasoning":
            yield from iter_media(block["blocks"])


def media_digests(blocks: list[dict]) -> list[str]:
    return [b["media"] for b in iter_media(blocks) if "media" in b]


def resolve_files(blocks: list[dict], resolve) -> list[dict]:
    """A copy where each ``file`` media block gets ``media = resolve(kind, file)``."""
    out = []
    for block in blocks:
        if block["type"] in MEDIA_TYPES and "file" in block:
            out.append({"type": block["type"], "media": resolve(block["type"], block["file"]), "alt": block["alt"]})
        elif block["type"] == "tool_call":
            out.append({**block, "result": resolve_files(block["result"], resolve)})
        elif block["type"] == "reasoning":
            out.append({**block, "blocks": resolve_files(block["blocks"], resolve)})
        else:
            out.append(block)
    return out


def from_pairs_list(items, *, where: str = "response_content") -> list[dict]:
    """MMRB2's ``[["image"|"text", value], ...]`` as blocks (images keep their file name for resolving)."""
    if not isinstance(items, list):
        raise ContentError(f"{where}: expected a list of [kind, value] pairs")
    blocks = []
    for i, item in enumerate(items):
        if not (isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[1], str)):
            raise ContentError(f"{where}[{i}]: expected [kind, value] with a string value")
        kind, value = item
        if kind == "text":
            blocks.append({"type": "text", "text": value, "format": "markdown"})
        elif kind in MEDIA_TYPES:
            blocks.append({"type": kind, "file": value, "alt": ""})
        else:
            raise ContentError(f"{where}[{i}]: unknown kind {kind!r}; MMRB2 uses 'text' and 'image'")
    return blocks


def to_pairs_list(blocks: list[dict], media_name) -> list[list[str]]:
    """Blocks back in MMRB2's ``[[kind, value], ...]`` form; ``media_name(digest)`` names each file."""
    out = []
    for block in blocks:
        if block["type"] in ("text", "final_answer"):
            out.append(["text", block["text"]])
        elif block["type"] == "code":
            out.append(["text", f"```{block['language']}\n{block['code']}\n```"])
        elif block["type"] in MEDIA_TYPES:
            out.append([block["type"], media_name(block["media"])])
        elif block["type"] == "tool_call":
            out.append(["text", f"[tool call] {block['name']}({json.dumps(block['arguments'], sort_keys=True)})"])
            out.extend(to_pairs_list(block["result"], media_name))
        elif block["type"] == "reasoning":
            out.extend(to_pairs_list(block["blocks"], media_name))
    return out


def digest(blocks: list[dict]) -> str:
    """A stable sha256 of the content, for deduplication."""
    return hashlib.sha256(json.dumps(blocks, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def plain_text(blocks: list[dict]) -> str:
    """The text of the content, media left out; for judges and search."""
    parts = []
    for block in blocks:
        if block["type"] in ("text", "final_answer"):
            parts.append(block["text"])
        elif block["type"] == "code":
            parts.append(block["code"])
        elif block["type"] == "tool_call":
            parts.append(f"{block['name']}({json.dumps(block['arguments'], sort_keys=True)})")
            parts.append(plain_text(block["result"]))
        elif block["type"] == "reasoning":
            parts.append(plain_text(block["blocks"]))
    return "\n".join(p for p in parts if p)
