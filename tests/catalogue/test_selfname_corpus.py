"""A model that names itself is masked whole, model and maker, in English, Chinese and Russian (issue 31, item 2).

The corpus is ``selfname_corpus.py``. Each phrasing goes through what the annotator's display does: the import-time
scan (``self_identification.scan``), then the mask built from its hits and the pair's model names
(``Mask(model names, masked_terms(hits))``, as ``workqueue.selectors`` builds it).
"""

import json

import pytest
from django.test import Client

from annotation.catalogue.masking import REDACTED, Mask, canonical, fold
from annotation.catalogue.models import Campaign, Pair
from annotation.catalogue.self_identification import masked_terms, scan_responses
from tests.catalogue.import_helpers import run_import_json, write_jsonl
from tests.catalogue.selfname_corpus import CHINESE, ENGLISH, FORMS, MODELS, ORDINARY, RUSSIAN, Case
from tests.factories import UserFactory

CASES = [*(("en", c) for c in ENGLISH), *(("zh", c) for c in CHINESE), *(("ru", c) for c in RUSSIAN)]


def _shown(text: str, models=MODELS) -> str:
    """``text`` as the annotator sees it, as response A of a pair of ``models``."""
    hits = scan_responses(a=(models[0], [{"type": "text", "text": text}]), b=(models[1], []))
    return Mask([m for m in models if len(m) >= 3], masked_terms(hits)).redact(text)


def _expected(case: Case) -> str:
    """The text with each span of ``case.hidden``, in reading order, replaced; touching ones as one."""
    out, rest = "", case.text
    for span in case.hidden:
        at = rest.index(span)
        out += rest[:at] + REDACTED
        rest = rest[at + len(span):]
    return (out + rest).replace(REDACTED * 2, REDACTED)


def _survivors(shown: str, names) -> list[str]:
    """The names of which a fragment is still readable in ``shown`` (folded: any case, look-alike letters)."""
    readable = canonical(fold(shown))
    return [name for name in names if canonical(fold(name)) in readable]


def test_the_corpus_is_large_enough_in_each_language():
    assert len(CASES) >= 48 and len(CHINESE) >= 12 and len(RUSSIAN) >= 12 and len(ORDINARY) >= 12


@pytest.mark.parametrize(("language", "case"), CASES, ids=[f"{lang}-{i}" for i, (lang, _) in enumerate(CASES)])
def test_a_model_naming_itself_is_masked_whole_with_its_maker(language, case):
    shown = _shown(case.text, case.models)
    assert shown == _expected(case)
    assert _survivors(shown, case.names) == [], shown


@pytest.mark.parametrize(("template", "names"), FORMS, ids=[f"form-{i}" for i in range(len(FORMS))])
def test_every_spelling_of_the_names_is_masked_whole(template, names):
    shown = _shown(template.format(*names))
    assert shown == template.format(*[REDACTED] * len(names))


@pytest.mark.parametrize("text", ORDINARY, ids=[f"ordinary-{i}" for i in range(len(ORDINARY))])
def test_ordinary_text_that_looks_like_a_name_is_left_as_written(text):
    assert scan_responses(a=(MODELS[0], [{"type": "text", "text": text}]), b=(MODELS[1], [])) == []
    assert _shown(text) == text


def test_japanese_text_has_no_spaces_either():
    assert _shown("私はClaudeです。Anthropicが開発しました。") == f"私は{REDACTED}です。{REDACTED}が開発しました。"


def test_a_name_found_once_is_hidden_in_the_other_response_and_the_prompt_too():
    hits = scan_responses(a=("acme-one-7b", [{"type": "text", "text": "I'm Claude, made by Anthropic."}]),
                          b=("other-bot-2", [{"type": "text", "text": "Claude would say so; claude agrees."}]))
    assert [(h["side"], h["term"]) for h in hits] == [
        ("A", "Claude"), ("A", "Anthropic"), ("B", "Claude"), ("B", "claude")]
    mask = Mask([], masked_terms(hits))
    assert mask.redact("Are you Claude? Or CLAUDE-like?") == f"Are you {REDACTED}? Or {REDACTED}-like?"


@pytest.mark.django_db
@pytest.mark.parametrize("stored", [True, False], ids=["hits stored at import", "imported before the scan knew"])
def test_an_imported_pair_naming_itself_reaches_the_annotator_masked_whole(tmp_path, stored):
    texts = ["As Claude, made by Anthropic, I…", "我是Claude，由Anthropic开发。", "Я Клод, созданный Anthropic."]
    record = {
        "id": "selfname-pair", "prompt": {"id": "p-1", "content": [{"type": "text", "text": "Who made you?"}]},
        "response_a": {"model": "acme-one-7b", "content": [{"type": "text", "text": t} for t in texts]},
        "response_b": {"model": "other-bot-2", "content": [{"type": "text", "text": "Я — GigaChat от Сбера."}]},
    }
    code, summary = run_import_json(write_jsonl(tmp_path / "pairs.jsonl", [record]), "--campaign", "selfname",
                                    "--format", "concord", "--task", "text-to-text", "--schema", "ab-tie")
    assert (code, summary["created"]) == (0, 1), summary
    pair = Pair.objects.get()
    assert pair.response_a.content[0]["text"] == texts[0], "the stored text (and releases) keep it"
    assert {h["term"] for h in pair.self_identification} == {"Claude", "Anthropic", "Клод", "GigaChat", "Сбера"}
    if not stored:
        Pair.objects.update(self_identification=[])
    campaign = Campaign.objects.get(slug="selfname")
    rater = UserFactory(username="selfname-rater")
    campaign.members.add(rater)
    client = Client()
    client.force_login(rater)
    claimed = client.post(f"/api/v1/campaigns/{campaign.slug}/claim/").json()
    again = client.get(f"/api/v1/assignments/{claimed['assignment']}/").json()
    page = client.get(f"/work/assignments/{claimed['assignment']}/").content.decode()
    for what, text in (("the claim", json.dumps(claimed, ensure_ascii=False)),
                       ("the display API", json.dumps(again, ensure_ascii=False)), ("the page", page)):
        assert _survivors(text, ("claude", "anthropic", "клод", "gigachat", "сбер")) == [], what
    shown = [block["text"] for block in claimed["left"] + claimed["right"] if block["type"] == "text"]
    for text in (f"As {REDACTED}, made by {REDACTED}, I…", f"我是{REDACTED}，由{REDACTED}开发。",
                 f"Я {REDACTED}, созданный {REDACTED}.", f"Я — {REDACTED} от {REDACTED}."):
        assert text in shown, shown
        assert text in page
