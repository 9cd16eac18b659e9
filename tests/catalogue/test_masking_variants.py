"""Masking by normalised text (issue 36, item 8), the reported variants end to end:
a model name hidden behind an invisible character, fullwidth or
lookalike letters, markup, an HTML entity or another dash is still found at import and hidden from the annotator,
in the text as written; ordinary text, in any script, is left exactly as it was."""

import json

import pytest
from django.test import Client
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.catalogue.masking import REDACTED, Mask, fold
from annotation.catalogue.models import Campaign, Pair
from annotation.catalogue.self_identification import scan
from tests.catalogue.import_helpers import run_import_json, write_jsonl
from tests.factories import UserFactory

MODEL = "secret-model-alpha"
VARIANTS = {
    "zero-width space": "I am secret\u200b-model-alpha, here to help.",
    "zero-width joiner": "I am secret-mo\u200ddel-alpha, here to help.",
    "soft hyphen": "I am secret-mod\u00adel-alpha, here to help.",
    "fullwidth letters": "I am ｓｅｃｒｅｔ-ｍｏｄｅｌ-ａｌｐｈａ, here to help.",
    "Cyrillic е": "I am secr\u0435t-mod\u0435l-alpha, here to help.",
    "markdown emphasis": "I am **secret**-model-**alpha**, here to help.",
    "HTML entities": "I am secret&#45;model&#45;alpha, here to help.",
    "hex entities": "I am secret&#x2d;model&#x2D;alpha, here to help.",
    "HTML tags": "I am <b>secret</b>-model-<i>alpha</i>, here to help.",
    "non-breaking hyphen": "I am secret\u2011model\u2011alpha, here to help.",
    "en dash": "I am secret\u2013model\u2013alpha, here to help.",
}
FAMILY_VARIANTS = {
    "non-breaking hyphen in a family": "I am GPT\u20114o, trained to help.",
    "fullwidth family": "I'm ＧＰＴ－４ｏ.",
    "mathematical bold": "I am 𝐐𝐰𝐞𝐧, a model.",
    "Cyrillic С in an ambiguous name": "I am \u0421laude, made by a lab.",
    "soft hyphen in an ambiguous name": "I am Cla\u00adude.",
}
ORDINARY = [
    "Line one\nline two\n\n  indented\tand tabbed",
    "Привет, как дела? Это обычный текст о погоде.",
    "这是一个普通的句子，没有模型的名字。",
    "Emoji 🦊🔥 and café, naïve, Ångström.",
    "Use snake_case_names and *emphasis* freely; 5 &lt; 6 and <br> tags.",
    "Αυτό είναι ελληνικό κείμενο.",
]


def _hidden_for(text: str, names=(MODEL, "other-bot-2")) -> str:
    hits = scan(sides={"A": text}, model_names=list(names))
    return Mask([MODEL], sorted({hit.term for hit in hits}, key=len, reverse=True)).redact(text)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_pairs_own_model_name_is_hidden_in_every_spelling(variant):
    shown = _hidden_for(VARIANTS[variant])
    assert REDACTED in shown and shown.endswith(", here to help."), shown
    assert "secret" not in fold(shown) and "alpha" not in fold(shown), shown


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_literal_secret_alone_is_enough_to_hide_it(variant):
    """Even without an import-time hit (a pair imported before the scan), the pair's model name is hidden."""
    shown = Mask([MODEL]).redact(VARIANTS[variant])
    assert "alpha" not in fold(shown), shown


@pytest.mark.parametrize("variant", sorted(FAMILY_VARIANTS))
def test_a_family_name_is_found_and_hidden_in_every_spelling(variant):
    text = FAMILY_VARIANTS[variant]
    hits = scan(sides={"A": text}, model_names=[MODEL])
    assert hits, text
    assert REDACTED in _hidden_for(text)


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_in_any_script_is_left_byte_for_byte(text):
    assert scan(sides={"A": text}, model_names=[MODEL, "other-bot-2"]) == []
    assert Mask([MODEL, "acme-vs-other"]).redact(text) == text


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("secrt-modlaph *_&#;45\u200b\u0435ｓ\n")), max_size=60))
def test_masking_is_idempotent_and_keeps_what_is_not_a_name(text):
    hidden = Mask([MODEL])
    once = hidden.redact(text)
    assert hidden.redact(once) == once
    assert "secret-model-alpha" not in fold(once)


@pytest.mark.django_db
def test_an_imported_response_hiding_its_name_is_masked_on_the_claim_and_the_page(tmp_path):
    texts = [VARIANTS["zero-width space"], VARIANTS["HTML entities"], VARIANTS["Cyrillic е"],
             VARIANTS["markdown emphasis"], FAMILY_VARIANTS["non-breaking hyphen in a family"]]
    record = {
        "id": "hidden-names", "prompt": {"id": "p-1", "content": [{"type": "text", "text": "Who are you?"}]},
        "response_a": {"model": MODEL, "content": [{"type": "text", "text": t} for t in texts]},
        "response_b": {"model": "other-bot-2", "content": [{"type": "text", "text": "A fox is a small canid."}]},
    }
    code, summary = run_import_json(write_jsonl(tmp_path / "pairs.jsonl", [record]), "--campaign", "masking",
                                    "--format", "concord", "--task", "text-to-text", "--schema", "ab-tie")
    assert (code, summary["created"]) == (0, 1), summary
    campaign = Campaign.objects.get(slug="masking")
    assert len(Pair.objects.get().self_identification) == 5
    rater = UserFactory(username="masking-rater")
    campaign.members.add(rater)
    client = Client()
    client.force_login(rater)
    claimed = client.post(f"/api/v1/campaigns/{campaign.slug}/claim/").json()
    page = client.get(f"/work/assignments/{claimed['assignment']}/").content.decode()
    for what, text in (("the claim", json.dumps(claimed, ensure_ascii=False)), ("the page", page)):
        folded = fold(text)
        for secret in ("secret", "gpt-4o", "gpt\\u2011"):
            assert secret not in folded, f"{secret} in {what}"
    shown = [block["text"] for block in claimed["left"] + claimed["right"] if block["type"] == "text"]
    assert sum(text.count(REDACTED) for text in shown) == 5
