"""Built-in heuristic judges for the ``python`` backend: cheap checks, not models.

They look for faults anyone would call a loss and abstain otherwise, so the pre-filter drops only
pairs where one side is plainly broken and every close call stays for humans:

- ``image_sanity``: images that are blank (almost one colour), corrupt (cannot be decoded), blurred
  (far less fine detail than the other side's), noisy (far more pixel noise than the other side's,
  Immerkær's estimate) or the wrong size (a side below ``min_side`` pixels or beyond ``max_aspect``).
- ``text_sanity``: answers that are empty, truncated (cut off mid-sentence or inside a code fence), a
  refusal, or that cover far fewer of the prompt's content words than the other answer.

Each returns the side with fewer faults (A = the response shown first) with a score in [-1, 1], or an
abstention, which the pre-filter stores as an invalid vote and leaves out of its rule. The raw
answer is JSON listing every fault found, so a curator can read why. No Django here.
"""

from __future__ import annotations

import io
import json
import re
import warnings

import numpy as np
from PIL import Image, UnidentifiedImageError

from curation.judges.base import JudgeRequest, MediaStore

IMAGE_DEFAULTS = {
    "min_side": 64, "max_aspect": 4.0, "blank_std": 3.0, "blur_ratio": 0.2, "noise_ratio": 2.0, "noise_floor": 6.0,
    "analysis_side": 512,
}
TEXT_DEFAULTS = {"min_coverage_gap": 0.34, "min_chars_for_truncation": 40}
ABSTAIN = "abstain"
REFUSAL = re.compile(
    r"\b(i\s*(?:am|'m)\s*(?:sorry|unable|not able)|i\s*(?:can(?:'|no)t|cannot|won't|will not)\s+"
    r"(?:help|assist|provide|do|comply|answer|write|create)|as an ai\b)",
    re.IGNORECASE,
)
WORD = re.compile(r"[A-Za-z][A-Za-z'-]{3,}")
STOPWORDS = frozenset(
    "about above after again against also because been before being below between both could does doing down "
    "during each few from further have having here into itself just more most must only other ought over same "
    "should some such than that their theirs them then there these they this those through under until very "
    "were what when where which while whom will with would your yours please write give make show tell using".split()
)
TERMINAL = (".", "!", "?", "…", ")", "]", "}", '"', "'", "`", "*", ":")


def _texts(blocks: list[dict]) -> list[str]:
    out = []
    for block in blocks:
        if block.get("type") in ("text", "code", "final_answer"):
            out.append(str(block.get("text", "")))
        elif block.get("type") == "reasoning":
            out.extend(_texts(block.get("blocks") or []))
    return out


def _images(blocks: list[dict]) -> list[str]:
    out = []
    for block in blocks:
        if block.get("type") == "image" and block.get("media"):
            out.append(block["media"])
        elif block.get("type") == "reasoning":
            out.extend(_images(block.get("blocks") or []))
        elif block.get("type") == "tool_call":
            out.extend(_images(block.get("result") or []))
    return out


def _verdict(faults_first: list[str], faults_second: list[str], weights: dict[str, float], *,
             details: dict) -> dict:
    """The side with less weight of faults; an abstention when both weigh the same."""
    first = sum(weights.get(f.split(":")[0], 1.0) for f in faults_first)
    second = sum(weights.get(f.split(":")[0], 1.0) for f in faults_second)
    raw = {"A": faults_first, "B": faults_second, **details}
    if first == second:
        raw["verdict"] = ABSTAIN
        raw["why"] = "no fault tells the two apart" if not first else "both sides have faults of the same weight"
        return {"verdict": ABSTAIN, "raw": json.dumps(raw, sort_keys=True, ensure_ascii=False)}
    label = "A" if first < second else "B"
    score = max(-1.0, min(1.0, (second - first) / 2))
    raw["verdict"] = label
    return {"verdict": label, "score": score, "confidence": min(1.0, abs(second - first) / 2),
            "raw": json.dumps(raw, sort_keys=True, ensure_ascii=False)}


# --- images ---------------------------------------------------------------------------------------------


def noise_sigma(gray: np.ndarray) -> float:
    """Immerkær (1996): the standard deviation of white noise from a Laplacian-difference mask."""
    g = gray
    conv = (g[:-2, :-2] - 2 * g[:-2, 1:-1] + g[:-2, 2:] - 2 * g[1:-1, :-2] + 4 * g[1:-1, 1:-1] - 2 * g[1:-1, 2:]
            + g[2:, :-2] - 2 * g[2:, 1:-1] + g[2:, 2:])
    h, w = g.shape
    return float(np.sqrt(np.pi / 2) * np.abs(conv).sum() / (6 * (w - 2) * (h - 2)))


def sharpness(gray: np.ndarray) -> float:
    """The variance of the 4-neighbour Laplacian: fine detail, which blur removes."""
    lap = gray[:-2, 1:-1] + gray[2:, 1:-1] + gray[1:-1, :-2] + gray[1:-1, 2:] - 4 * gray[1:-1, 1:-1]
    return float(lap.var())


def image_measures(data: bytes, *, analysis_side: int = 512) -> dict:
    """Size, contrast, sharpness and noise of one encoded image; ``corrupt`` when it cannot be decoded."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                image.load()
                width, height = image.size
                image = image.convert("L")
                image.thumbnail((analysis_side, analysis_side))
                gray = np.asarray(image, dtype=np.float64)
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, Image.DecompressionBombError,
            Image.DecompressionBombWarning) as exc:
        return {"corrupt": f"{type(exc).__name__}"}
    if gray.shape[0] < 3 or gray.shape[1] < 3:
        return {"width": width, "height": height, "std": 0.0, "sharpness": 0.0, "noise": 0.0}
    return {"width": width, "height": height, "std": float(gray.std()), "sharpness": sharpness(gray),
            "noise": noise_sigma(gray)}


def _image_faults(measures: list[dict], other: list[dict], o: dict) -> list[str]:
    faults = []
    sound = [m for m in other if "corrupt" not in m]
    other_noise = min((m["noise"] for m in sound), default=None)
    for i, m in enumerate(measures, start=1):
        where = f"image {i}"
        if "corrupt" in m:
            faults.append(f"corrupt: {where} cannot be decoded ({m['corrupt']})")
            continue
        if m["std"] < o["blank_std"]:
            faults.append(f"blank: {where} is almost one colour (contrast {m['std']:.1f})")
            continue
        side, long_side = min(m["width"], m["height"]), max(m["width"], m["height"])
        if side < o["min_side"] or long_side / max(side, 1) > o["max_aspect"]:
            faults.append(f"size: {where} is {m['width']}×{m['height']} px")
        # Noise reads as fine detail, so a noisy image on the other side is no reference for sharpness.
        clean_limit = max(o["noise_floor"], o["noise_ratio"] * m["noise"])
        other_sharp = max((x["sharpness"] for x in sound if x["noise"] <= clean_limit), default=0.0)
        if other_sharp and m["sharpness"] < o["blur_ratio"] * other_sharp and m["noise"] < o["noise_floor"]:
            faults.append(f"blur: {where} has {m['sharpness'] / other_sharp:.0%} of the other side's fine detail")
        if other_noise is not None and m["noise"] > max(o["noise_floor"], o["noise_ratio"] * other_noise):
            faults.append(f"noise: {where} noise σ≈{m['noise']:.1f} against {other_noise:.1f}")
    return faults


IMAGE_WEIGHTS = {"corrupt": 3.0, "blank": 3.0, "size": 1.0, "blur": 2.0, "noise": 2.0}


def image_sanity(request: JudgeRequest, *, media: MediaStore, options: dict) -> dict:
    """Prefer the side whose images are not blank, corrupt, blurred, noisy or the wrong size."""
    o = {**IMAGE_DEFAULTS, **(options or {})}
    first = [image_measures(media.get(d).data, analysis_side=o["analysis_side"]) for d in _images(request.first)]
    second = [image_measures(media.get(d).data, analysis_side=o["analysis_side"]) for d in _images(request.second)]
    if not first and not second:
        return {"verdict": ABSTAIN, "raw": json.dumps({"verdict": ABSTAIN, "why": "no images on either side"})}
    faults_first = _image_faults(first, second, o) if first else ["missing: no image"]
    faults_second = _image_faults(second, first, o) if second else ["missing: no image"]
    return _verdict(faults_first, faults_second, {**IMAGE_WEIGHTS, "missing": 3.0}, details={})


# --- text -------------------------------------------------------------------------------------------------


def content_terms(text: str) -> set[str]:
    return {w.lower().strip("'-") for w in WORD.findall(text)} - STOPWORDS


def truncated(text: str, *, min_chars: int) -> bool:
    """Cut off: an open code fence, or a long answer that stops without closing its sentence."""
    stripped = text.rstrip()
    if stripped.count("```") % 2:
        return True
    if len(stripped) < min_chars or "\n" in stripped[-2:]:
        return False
    last_line = stripped.splitlines()[-1].lstrip()
    if last_line.startswith(("-", "*", "|", "#")) or re.match(r"^\d+[.)]", last_line):
        return False
    return not stripped.endswith(TERMINAL)


def _text_faults(text: str, coverage: float | None, other_coverage: float | None, o: dict) -> list[str]:
    if not text.strip():
        return ["empty: no text"]
    faults = []
    if REFUSAL.search(text[:300]):
        faults.append("refusal: the answer declines the request")
    if truncated(text, min_chars=o["min_chars_for_truncation"]):
        faults.append(f"truncated: ends with …{text.rstrip()[-30:]!r}")
    if coverage is not None and other_coverage is not None and other_coverage - coverage >= o["min_coverage_gap"]:
        faults.append(f"coverage: mentions {coverage:.0%} of the prompt's terms against {other_coverage:.0%}")
    return faults


TEXT_WEIGHTS = {"empty": 3.0, "refusal": 2.0, "truncated": 1.0, "coverage": 1.0}


def text_sanity(request: JudgeRequest, *, media: MediaStore, options: dict) -> dict:
    """Prefer the answer that is not empty, truncated or a refusal and covers more of the prompt's terms."""
    o = {**TEXT_DEFAULTS, **(options or {})}
    first, second = "\n".join(_texts(request.first)), "\n".join(_texts(request.second))
    has_media = bool(_images(request.first) or _images(request.second))
    if has_media and not (first.strip() or second.strip()):
        return {"verdict": ABSTAIN, "raw": json.dumps({"verdict": ABSTAIN, "why": "no text on either side"})}
    terms = content_terms("\n".join(_texts(request.prompt)))
    cover_first = len(terms & content_terms(first)) / len(terms) if terms else None
    cover_second = len(terms & content_terms(second)) / len(terms) if terms else None
    details = {"prompt_terms": len(terms), "coverage": {"A": cover_first, "B": cover_second}}
    return _verdict(_text_faults(first, cover_first, cover_second, o), _text_faults(second, cover_second, cover_first, o),
                    TEXT_WEIGHTS, details=details)
