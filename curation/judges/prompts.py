"""Judging prompts as OpenAI-style content parts. Pure: media become parts through a callable.

Two styles: ``mmrb2`` (rubric per task kind, the 6-point preference scale, a JSON answer with
``score``, ``better_response`` and ``confidence``) and ``omni`` (free-form criteria, a verdict
written as ``[[A]]``, ``[[B]]`` or ``[[C]]`` for a tie).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from annotation.catalogue.schemas import GENERATION_RUBRICS_BY_KIND, OVERALL_PREFERENCE, RUBRICS

MMRB2, OMNI, AUTO = "mmrb2", "omni", "auto"
STYLES = (AUTO, MMRB2, OMNI)

MediaPart = Callable[[dict], dict | None]

SYSTEM = (
    "You are an impartial expert judge of multimodal model outputs. You compare two responses to the "
    "same prompt. Judge only what is shown; do not favour a response for its position, its length or "
    "its style."
)

TASK_TEXT = {
    "text-to-image": "Both responses are images generated for the text prompt below.",
    "image-editing": "Both responses are edits of the input image(s) below, made to follow the edit instruction.",
    "interleaved": "Both responses interleave text and images to fulfil the prompt below.",
    "reasoning": (
        "Both responses are multimodal reasoning traces (they may write text, run code and create or crop "
        "images) answering the question below. Prefer the response whose final answer is correct and whose "
        "reasoning is sound; a correct answer with major reasoning errors is worse than a correct, "
        "well-reasoned one, and an incorrect final answer is worst."
    ),
}
GENERIC_TASK = "Both responses answer the prompt below."

OMNI_ANSWER = (
    "After a short explanation, give your final verdict strictly in this format: [[A]] if response A is "
    "better, [[B]] if response B is better, [[C]] if they are equally good. Write exactly one of these "
    "three verdicts."
)


def style_for(*, configured: str, criteria: list[str]) -> str:
    """The prompt style for one pair: ``auto`` uses Omni's criteria prompt when the pair has criteria."""
    if configured == AUTO:
        return OMNI if criteria else MMRB2
    return configured


def _rubric_text(kind: str) -> str:
    names = GENERATION_RUBRICS_BY_KIND.get(kind)
    if not names:
        return ""
    lines = [f"- {RUBRICS[name][0]}: {RUBRICS[name][1]}" for name in names]
    return "Weigh these aspects, each on its own:\n" + "\n".join(lines) + "\n\n"


def _scale_text() -> str:
    lines = [f"{opt['value']} = {opt['label']}" for opt in OVERALL_PREFERENCE["options"]]
    return "Rate your overall preference on this 6-point scale:\n" + "\n".join(lines)


def mmrb2_instructions(kind: str) -> str:
    return f"{TASK_TEXT.get(kind, GENERIC_TASK)}\n\n{_rubric_text(kind)}{_scale_text()}"


MMRB2_ANSWER = (
    "Answer with one JSON object and nothing else: "
    '{"score": <integer 1-6 from the scale above>, "better_response": "A" or "B", '
    '"confidence": <number from 0 to 1>}. A score of 4 to 6 means A is better, 1 to 3 means B is better.'
)


def omni_instructions(kind: str, criteria: list[str]) -> str:
    listed = "\n".join(f"- {c}" for c in criteria) if criteria else "- Overall quality and helpfulness."
    return f"{TASK_TEXT.get(kind, GENERIC_TASK)}\n\nCompare the two responses according to these criteria:\n{listed}"


def content_parts(blocks: list[dict], media_part: MediaPart) -> list[dict]:
    """Content blocks as chat content parts, in reading order; adjacent text is merged."""
    parts: list[dict] = []
    _walk(blocks, media_part, parts)
    return parts


def _add_text(parts: list[dict], text: str) -> None:
    if not text:
        return
    if parts and parts[-1]["type"] == "text":
        parts[-1] = {"type": "text", "text": parts[-1]["text"] + "\n" + text}
    else:
        parts.append({"type": "text", "text": text})


def _walk(blocks: list[dict], media_part: MediaPart, parts: list[dict]) -> None:
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            _add_text(parts, block["text"])
        elif kind == "final_answer":
            _add_text(parts, f"Final answer: {block['text']}")
        elif kind == "code":
            _add_text(parts, f"```{block.get('language', '')}\n{block['code']}\n```")
        elif kind == "tool_call":
            _add_text(parts, f"[tool call] {block['name']}({json.dumps(block.get('arguments', {}), sort_keys=True)})")
            _walk(block.get("result", []), media_part, parts)
        elif kind == "reasoning":
            _walk(block.get("blocks", []), media_part, parts)
        elif kind in ("image", "video", "audio", "model3d"):
            part = media_part(block)
            if part is None:
                _add_text(parts, f"[{kind} not shown to this judge]")
            else:
                parts.append(part)


def build_messages(
    *,
    style: str,
    kind: str,
    prompt: list[dict],
    first: list[dict],
    second: list[dict],
    criteria: list[str],
    media_part: MediaPart,
) -> list[dict]:
    """Chat messages for one judgement; ``first`` is labelled Response A, ``second`` Response B."""
    if style == OMNI:
        intro, answer = omni_instructions(kind, criteria), OMNI_ANSWER
    else:
        intro, answer = mmrb2_instructions(kind), MMRB2_ANSWER
    user: list[dict] = []
    for heading, blocks in (("## Prompt", prompt), ("## Response A", first), ("## Response B", second)):
        _add_text(user, f"{intro}\n\n{heading}" if heading == "## Prompt" else f"\n{heading}")
        for part in content_parts(blocks, media_part) or [{"type": "text", "text": "(empty)"}]:
            if part["type"] == "text":
                _add_text(user, part["text"])
            else:
                user.append(part)
    _add_text(user, "\n" + answer)
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
