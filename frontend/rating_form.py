"""The rating form, derived from a rating schema: plain data for the template, no Django.

Every answer is in the orientation shown (left = A). A question becomes one or more *rows*, each
one keyboard stop: a pair-scoped question is one row, a per-response question one row per side,
a criteria question one row per criterion. Each option carries the key that picks it and its value
as JSON (``form_value``), which the page sends back unchanged.

The keyboard grammar is defined here and nowhere else (``answer_options``): keys follow the screen. On a
question that names a side (``oriented``: the 6-point preference, A/B/tie, Omni's criteria, the arena's
choice) the options run from the left response better to the right response better, keyed ``1``, ``2``, …
by position, so ``1`` always means "the left response is better" and the last key "the right one is";
a tie, "both bad" and the like sit in the middle. The stored values do not change (``6`` is still "A
significantly better"); only the key that picks them does. Other scales keep their own digits (a 0–3
rubric is keyed 0–3), other choices are keyed by position, yes/no by ``y``/``n``. The buttons, the key
handler (which presses the button with that key) and the ``?`` sheet (which lists the buttons) all read it.
"""

from __future__ import annotations

import json

from annotation.catalogue.schemas import SIDES

BOOLEAN_OPTIONS = [{"value": True, "label": "Yes", "key": "y"}, {"value": False, "label": "No", "key": "n"}]
LEFT, RIGHT = SIDES  # as shown: the left response is "A", the right one "B"


def option_keys(question: dict) -> list[str]:
    """The key for each option, in the order given: by position (1, 2, 3…) on a question that names a side, else a
    scale's own digit when its values are 0–9, else by position."""
    values = [o["value"] for o in question.get("options", [])]
    if (not question.get("oriented") and question["type"] == "scale"
            and all(isinstance(v, int) and 0 <= v <= 9 for v in values)):
        return [str(v) for v in values]
    return [str(i + 1) for i in range(len(values))]


def screen_order(question: dict, options: list[dict]) -> list[dict]:
    """``options`` left to right as the screen has them: on a question that names a side, from the left response
    better to the right one better (a scale's highest value is A's, as ``schemas`` and the consistency check read
    it; a choice's "A" first, its "B" last, a tie or "both bad" between, in the schema's order); else as given."""
    if not question.get("oriented"):
        return list(options)
    if question["type"] == "scale":
        return sorted(options, key=lambda o: o["value"], reverse=True)
    middle = [o for o in options if o["value"] not in SIDES]
    return [o for o in options if o["value"] == LEFT] + middle + [o for o in options if o["value"] == RIGHT]


def answer_options(question: dict) -> list[dict]:
    """The options of a scale, choice or criteria question as the form shows them: in screen order, each with
    ``value``, ``label`` and the ``key`` that picks it. The one definition of the keyboard grammar."""
    options = scale_options(question) if question["type"] == "scale" else question["options"]
    ordered = screen_order(question, options)
    keys = option_keys({**question, "options": ordered})
    return [{"value": o["value"], "label": o.get("label", str(o["value"])), "key": key}
            for o, key in zip(ordered, keys, strict=True)]


def scale_options(question: dict) -> list[dict]:
    """A scale's labelled options; a scale without labels gets its integers (``screen_order`` orders them)."""
    if question.get("options"):
        return question["options"]
    values = range(question["min"], question["max"] + 1)
    return [{"value": v, "label": str(v)} for v in values]


def _options(question: dict, current) -> list[dict]:
    if question["type"] == "boolean":
        return [{**o, "checked": current is o["value"], "form_value": json.dumps(o["value"])} for o in BOOLEAN_OPTIONS]
    return [
        {**o, "checked": current is not None and current == o["value"] and not isinstance(current, bool),
         "form_value": json.dumps(o["value"])}
        for o in answer_options(question)
    ]


def build(definition: dict, *, criteria: list[str], draft: dict) -> list[dict]:
    """The questions of ``definition`` with their rows, pre-filled from ``draft`` (answers as shown)."""
    out = []
    for q in definition["questions"]:
        qid = q["id"]
        current = draft.get(qid)
        field = {
            "id": qid,
            "label": q.get("label", qid),
            "help": q.get("help", ""),
            "type": q["type"],
            "scope": q.get("scope", "pair"),
            "required": bool(q.get("required")),
            "oriented": bool(q.get("oriented")),
            "rows": [],
        }
        if q["type"] == "text":
            field["rows"].append({"name": qid, "side": None, "text": current if isinstance(current, str) else ""})
        elif q["type"] == "criteria":
            field["rows"] = _criteria_rows(q, criteria, current)
        elif field["scope"] == "response":
            per_side = current if isinstance(current, dict) else {}
            field["rows"] = [
                {"name": f"{qid}.{side}", "side": side, "options": _options(q, per_side.get(side))} for side in SIDES
            ]
        else:
            field["rows"].append({"name": qid, "side": None, "options": _options(q, current)})
        out.append(field)
    return out


def _criteria_rows(question: dict, criteria: list[str], current) -> list[dict]:
    given = {}
    if isinstance(current, list):
        for item in current:
            if isinstance(item, dict) and isinstance(item.get("criterion"), str):
                given[item["criterion"]] = item.get("label")
    if criteria:
        names, editable = list(criteria), False
    else:
        names, editable = (list(given) or [""]), True
    return [
        {"name": f"{question['id']}.{i}", "side": None, "criterion": name, "editable": editable,
         "options": _options(question, given.get(name) if name else None)}
        for i, name in enumerate(names)
    ]
