"""Responses that name themselves are found at import, masked for annotators and listed for curators."""

import json

import pytest
from django.test import Client

from annotation.catalogue.models import Campaign, Pair
from annotation.catalogue.self_identification import name_variants, scan
from tests.catalogue.import_helpers import run_import_json, write_jsonl
from tests.factories import UserFactory


def _terms(text: str, names=()) -> list[str]:
    return [hit.term for hit in scan(sides={"A": text}, model_names=list(names))]


def test_a_model_name_is_found_in_the_spellings_a_text_uses():
    assert name_variants("gpt-4o-2024-08-06")[-1] == ["gpt", "4o"]
    assert ["Qwen2", "5", "VL"] in name_variants("Qwen/Qwen2.5-VL-72B-Instruct")
    assert name_variants("model-x") == [["model", "x"]], "never shortened to a common word"
    assert _terms("Hi, GPT 4o here. And qwen2.5-vl too.", ["gpt-4o-2024-08-06", "Qwen/Qwen2.5-VL-72B-Instruct"]) == [
        "GPT 4o", "qwen2.5-vl"]
    assert _terms("A model xylophone, a model of models.", ["model-x"]) == []


def test_makers_and_families_are_found_and_the_longer_name_wins():
    assert _terms("As an AI model developed by OpenAI, I use GPT-4.1 and Stable Diffusion.") == [
        "OpenAI", "GPT-4.1", "Stable Diffusion"]


def test_names_that_are_also_words_count_only_where_the_text_speaks_of_a_model():
    assert _terms("I am Gemini, a large language model trained by Google.") == ["Gemini", "Google"]
    assert _terms("I'm Claude. Grok AI disagrees.") == ["Claude", "Grok"]
    ordinary = ("Gemini is the third sign of the zodiac. Claude Monet painted lilies. I am going to write a haiku. "
                "Such as Google Maps. The magnetic flux grows. A meta-analysis shows.")
    assert _terms(ordinary) == []


def test_each_hit_says_where_why_and_in_which_words():
    (hit,) = scan(sides={"B": "Sure! " * 20 + "I was made by Anthropic. " + "More. " * 20}, model_names=[])
    assert (hit.side, hit.term, hit.reason) == ("B", "Anthropic", "a model family or maker")
    assert hit.context.startswith("…") and "made by [Anthropic]." in hit.context and hit.context.endswith("…")


MODEL = "acme-chat-7b-2024-05"


def _import(tmp_path) -> Campaign:
    record = {
        "id": "acme-vs-other", "prompt": {"id": "p-1", "content": [{"type": "text", "text": "Who are you?"}]},
        "response_a": {"model": MODEL, "content": [
            {"type": "text", "text": "Hello! I am Acme Chat, a large language model trained by OpenAI."},
            {"type": "reasoning", "blocks": [{"type": "text", "text": "Acme-Chat thinks step by step."}]}]},
        "response_b": {"model": "other-bot-2", "content": [{"type": "text", "text": "A fox is a small canid."}]},
    }
    code, summary = run_import_json(write_jsonl(tmp_path / "pairs.jsonl", [record]), "--campaign", "selfid", "--format",
                                    "concord", "--task", "text-to-text", "--schema", "ab-tie")
    assert (code, summary["created"]) == (0, 1), summary
    return Campaign.objects.get(slug="selfid")


@pytest.mark.django_db
def test_a_response_naming_its_model_is_masked_for_the_annotator_and_listed_for_the_curator(tmp_path):
    campaign = _import(tmp_path)
    pair = Pair.objects.get()
    assert [(h["side"], h["term"]) for h in pair.self_identification] == [
        ("A", "Acme Chat"), ("A", "OpenAI"), ("A", "Acme-Chat")]
    assert pair.response_a.content[0]["text"].startswith("Hello! I am Acme Chat"), "the stored text (and releases) keep it"

    rater = UserFactory(username="selfid-rater")
    campaign.members.add(rater)
    client = Client()
    client.force_login(rater)
    claimed = client.post(f"/api/v1/campaigns/{campaign.slug}/claim/")
    page = client.get(f"/work/assignments/{claimed.json()['assignment']}/")
    for what, text in (("the claim", json.dumps(claimed.json())), ("the page", page.content.decode())):
        for secret in ("acme", "openai"):
            assert secret not in text.lower(), f"{secret} in {what}"
    shown = json.dumps(claimed.json()["left"] + claimed.json()["right"])
    assert "Hello! I am [hidden], a large language model trained by [hidden]." in shown
    assert "[hidden] thinks step by step." in shown

    curator = UserFactory(username="selfid-curator", role="curator")
    console = Client()
    console.force_login(curator)
    html = console.get(f"/console/pairs/{pair.pk}/").content.decode()
    assert html.count('data-testid="self-identification"') == 3
    assert "the pair&#x27;s model name acme-chat-7b-2024-05" in html
    assert "I am [Acme Chat], a large language model" in html


@pytest.mark.django_db
def test_pairs_imported_before_the_scan_are_scanned_again_and_a_second_run_changes_nothing(tmp_path):
    from io import StringIO

    from django.core.management import call_command

    campaign = _import(tmp_path)
    Pair.objects.update(self_identification=[])
    runs = []
    for _ in range(2):
        out = StringIO()
        call_command("scan_self_identification", "--campaign", campaign.slug, "--json", stdout=out)
        runs.append(json.loads(out.getvalue()))
    assert runs == [{"pairs": 1, "flagged": 1, "changed": 1}, {"pairs": 1, "flagged": 1, "changed": 0}]
    assert [h["term"] for h in Pair.objects.get().self_identification] == ["Acme Chat", "OpenAI", "Acme-Chat"]


def test_a_name_followed_by_its_maker_is_masked_with_the_maker():
    assert _terms("As Claude, made by Anthropic, I think the left image is better.") == ["Claude", "Anthropic"]
    assert _terms("Gemini, developed by Google, answers: 42.") == ["Gemini", "Google"]
    assert _terms("I'm Grok, an AI built by xAI.") == ["Grok", "xAI"]
    assert _terms("Claude Monet, made famous by his lilies, painted water.") == []
