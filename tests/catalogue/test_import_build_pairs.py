"""build_pairs: pairs formed from the responses imported for each prompt; running it again adds nothing."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from annotation.catalogue.models import Pair
from tests.catalogue.import_helpers import png_bytes, run_import_json, write_jsonl

pytestmark = pytest.mark.django_db


def response_lines(prompts: int, models: list[str], *, images: bool = False) -> list[dict]:
    lines = []
    for p in range(prompts):
        prompt = {"id": f"prompt-{p}", "source": "bench", "content": [{"type": "text", "text": f"Prompt {p}"}]}
        for r, model in enumerate(models):
            block = ({"type": "image", "file": f"{p}-{r}.png"} if images
                     else {"type": "text", "text": f"answer {p}.{r} by {model}"})
            lines.append({"prompt": prompt, "response": {"model": model, "content": [block]}})
    return lines


def build(*args: str) -> dict:
    out = io.StringIO()
    call_command("build_pairs", "--campaign", "built", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def load(tmp_path, prompts: int, models: list[str], *, images: bool = False) -> None:
    if images:
        for p in range(prompts):
            for r in range(len(models)):
                (tmp_path / f"{p}-{r}.png").write_bytes(png_bytes(p * 10 + r))
    path = write_jsonl(tmp_path / "responses.jsonl", response_lines(prompts, models, images=images))
    code, summary = run_import_json(path, "--campaign", "built", "--format", "concord", "--task", "text-to-image")
    assert (code, summary["created"]) == (0, prompts * len(models))


def test_all_pairs_every_two_responses_of_a_prompt_with_their_media(tmp_path):
    load(tmp_path, 3, ["m1", "m1", "m2", "m3"], images=True)
    assert build("--strategy", "all") == {"created": 18, "prompts": 3, "same_model": 3}
    pair = Pair.objects.select_related("response_a", "response_b").first()
    assert pair.response_a.prompt_id == pair.response_b.prompt_id == pair.prompt_id
    assert set(pair.media.values_list("sha256", flat=True)) == {
        pair.response_a.content[0]["media"], pair.response_b.content[0]["media"]}
    assert pair.status == Pair.Status.QUEUED
    assert build("--strategy", "all") == {"created": 0, "prompts": 0, "same_model": 0}
    assert Pair.objects.count() == 18


def test_a_and_b_are_drawn_at_random_so_position_carries_no_signal(tmp_path):
    load(tmp_path, 30, ["m1", "m2"])
    build("--strategy", "all", "--seed", "7")
    first_listed_is_a = sum(p.response_a_id < p.response_b_id for p in Pair.objects.all())
    assert 5 <= first_listed_is_a <= 25


def test_random_k_keeps_the_asked_share_of_same_model_pairs(tmp_path):
    load(tmp_path, 20, ["a", "a", "b", "c"])
    summary = build("--strategy", "random-k", "--k", "2", "--same-model-share", "0.5")
    assert summary == {"created": 40, "prompts": 20, "same_model": 20}
    assert build("--strategy", "random-k", "--k", "2", "--same-model-share", "0.5")["created"] == 0
    topped_up = build("--strategy", "random-k", "--k", "3", "--same-model-share", "0.0")
    assert topped_up == {"created": 20, "prompts": 20, "same_model": 0}
    for prompt_pairs in Pair.objects.values_list("prompt_id", flat=True).distinct():
        assert Pair.objects.filter(prompt_id=prompt_pairs).count() == 3


def test_random_k_fills_from_cross_model_pairs_when_same_model_ones_run_out(tmp_path):
    load(tmp_path, 4, ["a", "b", "c"])
    assert build("--strategy", "random-k", "--k", "2", "--same-model-share", "1.0") == {
        "created": 8, "prompts": 4, "same_model": 0}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--strategy", "random-k"], "random-k needs --k"),
        (["--strategy", "all", "--same-model-share", "0.5"], "--same-model-share applies to the random-k strategy"),
        (["--strategy", "random-k", "--k", "2", "--same-model-share", "1.5"], "between 0 and 1"),
    ],
)
def test_bad_options_are_refused_with_a_reason(tmp_path, args, message):
    load(tmp_path, 1, ["a", "b"])
    with pytest.raises(CommandError, match=message):
        build(*args)
    assert Pair.objects.count() == 0


def test_an_unknown_campaign_is_refused():
    with pytest.raises(CommandError, match="campaign 'built' does not exist"):
        build("--strategy", "all")
