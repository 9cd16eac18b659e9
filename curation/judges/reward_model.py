"""Judge backend for a served reward model: an HTTP endpoint that scores each response.

Request (JSON POST to ``url``): ``{"model": ..., "prompt": [parts], "responses": [[parts], [parts]]}``
with OpenAI-style content parts (text, ``image_url`` data URLs). Reply: ``{"scores": [s1, s2]}`` or
vLLM's pooling shape ``{"data": [{"score": s1}, {"score": s2}]}``. The verdict is the higher score;
a difference within ``tie_band`` is a tie.
"""

from __future__ import annotations

import math

from curation.judges import egress, parsing, prompts
from curation.judges.base import (
    Field,
    JudgeBackend,
    JudgeCall,
    JudgeRequest,
    PermanentJudgeError,
    read_secret,
    usage_tokens,
)
from curation.judges.openai_chat import ClientPool, client_pool, media_part_builder, post_json


def response_scores(payload: dict) -> tuple[float, float]:
    """The two scores of a reply, or PermanentJudgeError."""
    scores = payload.get("scores")
    if scores is None and isinstance(payload.get("data"), list):
        scores = [item.get("score") if isinstance(item, dict) else None for item in payload["data"]]
    ok = (
        isinstance(scores, list)
        and len(scores) == 2
        and all(isinstance(s, (int, float)) and not isinstance(s, bool) and math.isfinite(s) for s in scores)
    )
    if not ok:
        raise PermanentJudgeError("the reward model did not answer with two numeric scores")
    return float(scores[0]), float(scores[1])


def verdict_from_scores(first: float, second: float, *, tie_band: float, scale: float) -> tuple[str, float, float]:
    """Label, normalised preference in [-1, 1] and Bradley–Terry confidence for two scores."""
    margin = first - second
    if abs(margin) <= tie_band:
        label = parsing.TIE
    else:
        label = parsing.A if margin > 0 else parsing.B
    normalised = math.tanh(margin / (2 * scale))
    confidence = (1 + abs(normalised)) / 2
    return label, normalised, confidence


class RewardModelJudge(JudgeBackend):
    FIELDS = {
        "url": Field("url", required=True, help="the scoring endpoint"),
        "model": Field("str?", None),
        "api_key_env": Field("env?", None, help="name of the environment variable holding the API key"),
        "tie_band": Field("number", 0.0, low=0, high=1e9, help="score differences up to this are ties"),
        "score_scale": Field("number", 1.0, low=1e-9, high=1e9, help="score units per logit, for normalising"),
        "modalities": Field("choices", ["image"], choices=("image", "video", "audio")),
    }

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.client: ClientPool | None = None
        self.url = egress.judge_url(self.settings["url"], where="settings.url")
        self.media_part = media_part_builder(self, self.settings["modalities"])

    async def open(self) -> None:
        secret = read_secret(self.settings["api_key_env"])
        self.secrets = [secret] if secret else []
        self.client = await client_pool(judge=self.name, url=self.url, settings=self.settings, secret=secret)

    def body(self, request: JudgeRequest) -> dict:
        body = {
            "prompt": prompts.content_parts(request.prompt, self.media_part),
            "responses": [
                prompts.content_parts(request.first, self.media_part),
                prompts.content_parts(request.second, self.media_part),
            ],
        }
        if self.settings["model"]:
            body["model"] = self.settings["model"]
        return body

    async def attempt(self, request: JudgeRequest) -> JudgeCall:
        payload, raw, latency_ms = await post_json(self.client, self.url, self.body(request), what="the reward model")
        try:
            first, second = response_scores(payload)
        except PermanentJudgeError as exc:
            raise PermanentJudgeError(str(exc), raw=raw) from exc
        label, score, confidence = verdict_from_scores(
            first, second, tie_band=self.settings["tie_band"], scale=self.settings["score_scale"]
        )
        prompt_tokens, completion_tokens = usage_tokens(payload)
        return JudgeCall(
            label=label,
            score=score,
            confidence=confidence,
            raw_output=raw,
            latency_ms=latency_ms,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
        )
