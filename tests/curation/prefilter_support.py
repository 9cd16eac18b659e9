"""Data for the pre-filter tests: campaigns, marked pairs the local judge endpoint can recognise, judges."""

from __future__ import annotations

import io

from PIL import Image

from annotation.catalogue.models import Pair
from annotation.catalogue.services.media import media_store
from curation.services.judges import judge_create
from tests.curation.judge_server import pair_text, response_text
from tests.factories import CampaignFactory, PairFactory, PromptFactory, ResponseFactory


def campaign(**kwargs):
    return CampaignFactory(requires_prefilter=True, **kwargs)


def text(value: str) -> dict:
    return {"type": "text", "text": value, "format": "plain"}


def png(colour: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(out, format="PNG")
    return out.getvalue()


def image_block(data: bytes) -> dict:
    return {"type": "image", "media": media_store(data=data).sha256, "alt": ""}


def marked_pair(campaign, marker: str, *, prompt_extra=(), a_extra=(), b_extra=(), status=Pair.Status.PENDING, **kwargs):
    """A pending pair whose prompt carries PAIR[marker] and whose responses carry RESP[marker-a/b]."""
    prompt = PromptFactory(campaign=campaign, external_id=f"prompt-{marker}",
                           content=[text(f"Make this: {pair_text(marker)}"), *prompt_extra])
    a = ResponseFactory(prompt=prompt, model_name="model-x", content=[text(response_text(marker, "a")), *a_extra])
    b = ResponseFactory(prompt=prompt, model_name="model-y", content=[text(response_text(marker, "b")), *b_extra])
    return PairFactory(campaign=campaign, prompt=prompt, response_a=a, response_b=b, external_id=marker, status=status,
                       **kwargs)


def chat_judges(server, names, **settings):
    """One OpenAI-compatible judge per name; the model name is the judge name, so scripts can tell them apart."""
    base = {"concurrency": 4, "max_retries": 2, "backoff_s": 0.01, "max_backoff_s": 0.05, "timeout_s": 3}
    return [
        judge_create(name=name, backend="openai-chat",
                     settings={"base_url": f"{server.url}/v1", "model": name, **base, **settings})
        for name in names
    ]


NINE = [f"j{i}" for i in range(1, 10)]
