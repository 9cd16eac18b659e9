"""Model names are hidden from annotators as a reader sees them, however the text spells them."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.catalogue.masking import REDACTED, Mask, fold
from annotation.catalogue.models import Campaign, Pair
from annotation.catalogue.self_identification import AMBIGUOUS, FAMILIES, scan
from tests.catalogue.import_helpers import run_import_json, write_jsonl
from tests.factories import UserFactory

MODEL = "secret-model-alpha"

# (how the name is written, what the annotator sees in its place): markup around the name stays as written.
HOSTILE = [
    ("secr\u200bet-model-alpha", REDACTED),  # ZERO WIDTH SPACE
    ("secret-\u200bmodel-alpha", REDACTED),
    ("sec\u200cret-mo\u200ddel-alpha", REDACTED),  # ZWNJ, ZWJ
    ("secret\u2060-model-alpha", REDACTED),  # WORD JOINER
    ("se\u00adcret-model-al\u00adpha", REDACTED),  # SOFT HYPHEN
    ("secret-\ufeffmodel-alpha", REDACTED),  # BOM
    ("secret\ufe0f-model-alpha", REDACTED),  # a variation selector
    ("secret-\u202emodel\u202c-alpha", REDACTED),  # bidi override and pop
    ("ｓｅｃｒｅｔ－ｍｏｄｅｌ－ａｌｐｈａ", REDACTED),  # fullwidth
    ("SECRET-MODEL-ALPHA", REDACTED),
    ("s\u0435cret-model-alpha", REDACTED),  # CYRILLIC SMALL LETTER IE
    ("\u0405\u0415\u0421R\u0415\u0422-model-\u0391lpha", REDACTED),  # Cyrillic capitals, a Greek Alpha
    ("s\u0336e\u0336cret-model-alpha", REDACTED),  # struck through with combining marks
    ("**secret**-model-**alpha**", f"**{REDACTED}**"),
    ("__secret-model-alpha__", f"__{REDACTED}__"),
    ("*secret*-_model_-alpha", f"*{REDACTED}"),
    ("`secret-model-alpha`", f"`{REDACTED}`"),
    ("~~secret~~-model-alpha", f"~~{REDACTED}"),
    ("<b>secret</b>-model-<i>alpha</i>", f"<b>{REDACTED}</i>"),
    ('<span class="x">secret</span>-model-alpha', f'<span class="x">{REDACTED}'),
    ("secret&#45;model&#45;alpha", REDACTED),
    ("secret&#x2d;model&#X2D;alpha", REDACTED),
    ("secret&hyphen;model&dash;alpha", REDACTED),
    ("secret&#8209;model&shy;-alpha", REDACTED),  # an entity for a non-breaking hyphen, one for a soft hyphen
    ("secret\u2011model\u2010alpha", REDACTED),  # NON-BREAKING HYPHEN, HYPHEN
    ("secret\u2013model\u2014alpha", REDACTED),  # en and em dashes
    ("secret\u2212model\ufe63alpha", REDACTED),  # MINUS SIGN, SMALL HYPHEN-MINUS
]


@pytest.mark.parametrize(("written", "shown"), HOSTILE)
def test_a_name_written_to_slip_past_the_mask_is_hidden_and_the_text_around_it_kept(written, shown):
    mask = Mask([MODEL])
    text = f"Hi!\nI am {written}, your assistant. 😀\n"
    assert mask.redact(text) == f"Hi!\nI am {shown}, your assistant. 😀\n"


@pytest.mark.parametrize(("written", "shown"), HOSTILE)
def test_the_scan_finds_the_name_however_it_is_written_and_keeps_the_words_as_written(written, shown):
    (hit,) = scan(sides={"A": f"Hello. I am {written}, your assistant."}, model_names=[MODEL])
    assert hit.term in written and fold(hit.term).replace("-", "") == "secretmodelalpha"
    assert f"[{hit.term}]" in hit.context
    assert Mask([], [hit.term]).redact(f"Hello. I am {written}.") == f"Hello. I am {shown}."


def test_a_non_breaking_hyphen_or_fullwidth_letters_do_not_hide_a_family_name():
    assert [h.term for h in scan(sides={"A": "Made with GPT\u20114o and ＯｐｅｎＡＩ."}, model_names=[])] == [
        "GPT\u20114o", "ＯｐｅｎＡＩ"]
    assert [h.term for h in scan(sides={"A": "I am Gem\u200bini, a model by G\u043eogle."}, model_names=[])] == [
        "Gem\u200bini", "G\u043eogle"]


ORDINARY = [
    "Plain English.\r\nTwo lines,\ttabs,  double  spaces and a trailing newline.\n",
    "Emoji stay whole: 👩\u200d💻 ❤\ufe0f 🇺🇦 👍🏽 — and a ™ sign, ﬁ ligature, ½, x² and — dashes – too.\n",
    "中文文本：模型回答了问题。日本語のテキストもあります。한국어 문장도 있습니다.\n",
    "Привет! Сорок воробьёв сидели на ветке. Рос сор у горы, оса ехала в город на рассвете.\n",
    "Ελληνικά: ο άνθρωπος και η θάλασσα. עברית ועربية: مرحبا بالعالم.\n",
    "Markdown **bold**, _italic_, `code`, ~~struck~~, <b>tags</b>, &amp; entities &#45; stay as written.\n",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_text_that_names_no_model_is_shown_byte_for_byte(text):
    mask = Mask([MODEL, "gpt-4o-2024-08-06", "pair-000123", "prompt-7"], [*FAMILIES, *AMBIGUOUS])
    assert mask.redact(text).encode() == text.encode()
    assert scan(sides={"A": text}, model_names=[MODEL, "qwen2.5-vl-72b"]) == []


def test_a_word_of_another_script_is_hidden_only_where_it_spells_a_name():
    """Folding turns "сор" into "cop": a Russian sentence is masked only where its letters spell the model's name."""
    mask = Mask(["copa-3"])
    assert mask.redact("Сорок сор. Сора-3 ответила.") == f"Сорок сор. {REDACTED} ответила."


def test_the_same_name_twice_and_overlapping_names_leave_no_part_visible():
    mask = Mask(["flux-pro", "pro-kimi"], ["Gemini"])
    assert mask.redact("flux\u200b-pro-kimi! GEMINI, gemini-ish, Gеmini") == f"{REDACTED}! {REDACTED}, {REDACTED}-ish, {REDACTED}"
    assert mask.redact("Geminis are twins") == "Geminis are twins", "a word only as a whole word"


PIECES = ["secret", "-", "model", "alpha", "\u200b", "\u2011", "**", "_", "<b>", "</b>", '<a href="x">', "&#45;",
          "&amp;", "&", "ｓｅｃｒｅｔ", "\u0435", "gemini", "Gemini", " ", "\n", "Привет", "中文", "👩\u200d💻", REDACTED,
          "[", "hidden", "]", "\u0301", "ﬁ"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=25).map("".join) | st.text(max_size=60))
def test_masking_is_idempotent_and_leaves_no_name(text):
    mask = Mask([MODEL, "gpt-4o"], ["Gemini"])
    once = mask.redact(text)
    assert mask.redact(once) == once
    assert MODEL not in fold(once) and "gpt-4o" not in fold(once)


def _import(tmp_path) -> Campaign:
    record = {
        "id": "hostile-pair", "prompt": {"id": "p-1", "content": [{"type": "text", "text": "Who are you?"}]},
        "response_a": {"model": MODEL, "content": [
            {"type": "text", "text": "Hi!\nI am s\u0435cret\u200b-model\u2011alpha.\n"},
            {"type": "text", "text": "Still **secret**-model-**alpha**, or secret&#45;model&#45;alpha. 中文"}]},
        "response_b": {"model": "other-bot-2", "content": [{"type": "text", "text": "A fox is a small canid."}]},
    }
    code, summary = run_import_json(write_jsonl(tmp_path / "pairs.jsonl", [record]), "--campaign", "hostile", "--format",
                                    "concord", "--task", "text-to-text", "--schema", "ab-tie")
    assert (code, summary["created"]) == (0, 1), summary
    return Campaign.objects.get(slug="hostile")


@pytest.mark.django_db
def test_a_hostile_spelling_is_flagged_by_the_scan_command_and_never_reaches_the_annotator(tmp_path):
    campaign = _import(tmp_path)
    Pair.objects.update(self_identification=[])
    out = StringIO()
    call_command("scan_self_identification", "--campaign", campaign.slug, "--json", stdout=out)
    assert json.loads(out.getvalue()) == {"pairs": 1, "flagged": 1, "changed": 1}
    assert [h["term"] for h in Pair.objects.get().self_identification] == [
        "s\u0435cret\u200b-model\u2011alpha", "secret**-model-**alpha", "secret&#45;model&#45;alpha"]

    rater = UserFactory(username="hostile-rater")
    campaign.members.add(rater)
    client = Client()
    client.force_login(rater)
    shown = client.post(f"/api/v1/campaigns/{campaign.slug}/claim/").json()
    texts = [block["text"] for side in ("left", "right") for block in shown[side]]
    assert f"Hi!\nI am {REDACTED}.\n" in texts
    assert f"Still **{REDACTED}**, or {REDACTED}. 中文" in texts
    assert MODEL not in fold(json.dumps(shown, ensure_ascii=False))
