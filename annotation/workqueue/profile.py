"""A rater-profile questionnaire's questions, a rater's answers to them, and the counts a release card may show.

Plain Python with no Django import. Four kinds of question:

- ``choices``: any number of ``options`` (expertise areas);
- ``list``: short entries of the rater's own, comma- or line-separated in a form (languages, tools used);
- ``number``: one number between ``min`` and ``max`` (years of experience);
- ``text``: free text up to ``max_length`` characters, for curators only: never counted in a release card.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence

KINDS = ("choices", "list", "number", "text")
QUESTION_ID = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
LABEL_MAX = 300
OPTION_MAX = 100
OPTIONS_MAX = 100
QUESTIONS_MAX = 30
ENTRY_MAX = 80
ENTRIES_MAX = 30
TEXT_MAX = 5000
# A value fewer raters than this gave is counted under "other" in a release card: a rare answer (one rater's only
# language, a tool only one lab uses) could point at a person.
CARD_MIN_COUNT = 3
YEARS_BANDS = ((0, 2), (2, 5), (5, 10), (10, None))

DEFAULT_QUESTIONS = [
    {"id": "expertise", "kind": "choices", "label": "Your areas of expertise", "required": True,
     "options": ["Photography", "Illustration and design", "Video", "Audio and music", "Writing and editing",
                 "Software", "Mathematics and science", "Medicine", "Law", "Other"]},
    {"id": "languages", "kind": "list", "label": "Languages you read fluently (comma-separated)", "required": True},
    {"id": "years", "kind": "number", "label": "Years of professional experience in these areas", "required": True,
     "min": 0, "max": 70},
    {"id": "tools", "kind": "list", "label": "Tools you use (comma-separated)", "required": False},
    {"id": "about", "kind": "text", "label": "Anything else the curators should know", "required": False,
     "max_length": 2000},
]


class ProfileError(ValueError):
    """A question or an answer that is refused; the message says which and why."""


def _text_ok(text: str) -> bool:
    return "\x00" not in text and not any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def questions_check(questions) -> list[dict]:
    """``questions`` as stored: each with ``id``, ``kind``, ``label`` and ``required``, and its kind's settings."""
    if not isinstance(questions, list) or not questions:
        raise ProfileError("a questionnaire is a non-empty list of questions")
    if len(questions) > QUESTIONS_MAX:
        raise ProfileError(f"a questionnaire has at most {QUESTIONS_MAX} questions, not {len(questions)}")
    checked, seen = [], set()
    for n, question in enumerate(questions, 1):
        if not isinstance(question, dict):
            raise ProfileError(f"question {n} is not an object")
        qid = question.get("id")
        if not isinstance(qid, str) or not QUESTION_ID.match(qid):
            raise ProfileError(f"question {n}: the id must be 1–40 lowercase letters, digits or _ starting with a letter")
        if qid in seen:
            raise ProfileError(f"question {n}: the id {qid!r} is used twice")
        seen.add(qid)
        kind = question.get("kind")
        if kind not in KINDS:
            raise ProfileError(f"question {qid!r}: the kind must be one of {', '.join(KINDS)}, not {kind!r}")
        label = question.get("label")
        if not isinstance(label, str) or not label.strip() or len(label) > LABEL_MAX or not _text_ok(label):
            raise ProfileError(f"question {qid!r}: the label must be text of 1–{LABEL_MAX} characters")
        required = question.get("required", True)
        if not isinstance(required, bool):
            raise ProfileError(f"question {qid!r}: required is true or false")
        out = {"id": qid, "kind": kind, "label": label.strip(), "required": required}
        if kind == "choices":
            options = question.get("options")
            if (not isinstance(options, list) or not options or len(options) > OPTIONS_MAX
                    or not all(isinstance(o, str) and o.strip() and len(o) <= OPTION_MAX and _text_ok(o) for o in options)):
                raise ProfileError(f"question {qid!r}: options must be 1–{OPTIONS_MAX} texts of at most {OPTION_MAX} "
                                   "characters")
            stripped = [o.strip() for o in options]
            if len(set(stripped)) != len(stripped):
                raise ProfileError(f"question {qid!r}: an option is listed twice")
            out["options"] = stripped
        elif kind == "number":
            low, high = question.get("min", 0), question.get("max", 100)
            if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in (low, high)) \
                    or low > high:
                raise ProfileError(f"question {qid!r}: min and max must be finite numbers with min ≤ max")
            out["min"], out["max"] = low, high
        elif kind == "text":
            limit = question.get("max_length", 2000)
            if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= TEXT_MAX:
                raise ProfileError(f"question {qid!r}: max_length is a whole number from 1 to {TEXT_MAX}")
            out["max_length"] = limit
        checked.append(out)
    return checked


def _entries(raw, qid: str) -> list[str]:
    if isinstance(raw, str):
        raw = re.split(r"[,\n;]", raw)
    if not isinstance(raw, list) or not all(isinstance(e, str) for e in raw):
        raise ProfileError(f"{qid}: give a list of texts")
    kept: dict[str, str] = {}
    for entry in raw:
        entry = " ".join(entry.split())
        if not entry:
            continue
        if len(entry) > ENTRY_MAX or not _text_ok(entry):
            raise ProfileError(f"{qid}: each entry is at most {ENTRY_MAX} characters of plain text")
        kept.setdefault(entry.casefold(), entry)
    if len(kept) > ENTRIES_MAX:
        raise ProfileError(f"{qid}: at most {ENTRIES_MAX} entries, not {len(kept)}")
    return list(kept.values())


def answers_clean(questions: Sequence[Mapping], raw: Mapping) -> dict:
    """The answers to keep from ``raw`` (a form's or a JSON body's values by question id): choices within the
    options, list entries trimmed and de-duplicated, a number within its bounds, text within its length. An empty
    optional answer is left out; an unknown question id is refused."""
    if not isinstance(raw, Mapping):
        raise ProfileError("the answers are an object keyed by question id")
    known = {q["id"] for q in questions}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ProfileError(f"no such question: {', '.join(str(u)[:40] for u in unknown[:3])}")
    answers: dict = {}
    for q in questions:
        qid, value = q["id"], raw.get(q["id"])
        if q["kind"] == "choices":
            chosen = [value] if isinstance(value, str) else (value or [])
            if not isinstance(chosen, list) or not all(isinstance(c, str) for c in chosen):
                raise ProfileError(f"{qid}: choose among the options")
            wrong = [c for c in chosen if c not in q["options"]]
            if wrong:
                raise ProfileError(f"{qid}: {wrong[0][:40]!r} is not one of the options")
            kept = [o for o in q["options"] if o in chosen]
        elif q["kind"] == "list":
            kept = _entries(value if value is not None else [], qid)
        elif q["kind"] == "number":
            kept = _number(value, q)
        else:
            if value is not None and not isinstance(value, str):
                raise ProfileError(f"{qid}: give text")
            kept = (value or "").strip()
            if len(kept) > q["max_length"] or not _text_ok(kept):
                raise ProfileError(f"{qid}: at most {q['max_length']} characters of plain text ({len(kept)} given)")
        if kept in (None, "", []):
            if q["required"]:
                raise ProfileError(f"{qid}: an answer is required ({q['label']})")
            continue
        answers[qid] = kept
    return answers


def _number(value, q: Mapping) -> int | float | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise ProfileError(f"{q['id']}: give a number")
    if isinstance(value, str):
        try:
            value = float(value.strip().replace(",", "."))
        except ValueError:
            raise ProfileError(f"{q['id']}: {value.strip()[:20]!r} is not a number") from None
    if not isinstance(value, int | float) or not math.isfinite(value):
        raise ProfileError(f"{q['id']}: give a finite number")
    if not q["min"] <= value <= q["max"]:
        raise ProfileError(f"{q['id']}: give a number from {q['min']} to {q['max']}, not {value:g}")
    return int(value) if float(value).is_integer() else value


def answer_matches(answers: Mapping, qid: str, wanted: str) -> bool:
    """Whether ``answers`` hold ``wanted`` for question ``qid``: a choice or list entry (any case), a number at
    least ``wanted``, or text containing it. Used to filter raters in the console."""
    value = answers.get(qid)
    wanted = wanted.strip()
    if value is None or not wanted:
        return False
    if isinstance(value, list):
        return wanted.casefold() in {v.casefold() for v in value}
    if isinstance(value, int | float):
        try:
            return value >= float(wanted)
        except ValueError:
            return False
    return wanted.casefold() in str(value).casefold()


def _band(years: float) -> str:
    for low, high in YEARS_BANDS:
        if high is None or years < high:
            return f"{low}+" if high is None else f"{low}–{high}"
    raise AssertionError("unreachable")


def profile_summary(questions: Sequence[Mapping], answers: Sequence[Mapping]) -> dict:
    """Counts only: per choices or list question how many raters gave each value (values fewer than CARD_MIN_COUNT
    raters gave folded into ``other``), per number question the raters in each band, per text question nothing.
    ``answers``: one mapping per rater. No answer text is copied but option labels and values many raters share."""
    summary: dict = {"raters": len(answers), "questions": []}
    for q in questions:
        if q["kind"] == "text":
            continue
        counts: Counter = Counter()
        if q["kind"] in ("choices", "list"):
            spelled: dict[str, str] = {}
            for a in answers:
                for value in a.get(q["id"], []):
                    key = value.casefold()
                    spelled.setdefault(key, value if q["kind"] == "choices" else value.title())
                    counts[key] += 1
            shown = {spelled[k]: n for k, n in counts.items() if n >= CARD_MIN_COUNT}
            other = sum(n for n in counts.values() if n < CARD_MIN_COUNT)
        else:
            for a in answers:
                if isinstance(a.get(q["id"]), int | float):
                    counts[_band(a[q["id"]])] += 1
            shown = {band: counts[band] for band in (_band(low) for low, _ in YEARS_BANDS) if counts[band]}
            other = 0
        entry = {"id": q["id"], "label": q["label"], "counts": dict(sorted(shown.items(), key=lambda kv: (-kv[1], kv[0])))
                 if q["kind"] != "number" else shown, "answered": sum(1 for a in answers if q["id"] in a)}
        if other:
            entry["other"] = other
        summary["questions"].append(entry)
    return summary
