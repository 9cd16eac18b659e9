"""The rating form, derived from a rating schema: plain data for the template, no Django.

Every answer is in the orientation shown (left = A). A question becomes one or more *rows*, each
one keyboard stop: a pair-scoped question is one row, a per-response question one row per side,
a criteria question one row per criterion. Each option carries the key that picks it and its value
as JSON (``form_value``), which the page sends back unchanged.
"""

from __future__ import annotations

import json

from annotation.catalogue.schemas import SIDES

BOOLEAN_OPTIONS = [{"value": True, "label": "Yes", "key": "y"}, {"value": False, "label": "No", "key": "n"}]


def option_keys(question: dict) -> list[str]:
    """The key for each option: a scale's own digit when its values are 0–9, else 1, 2, 3… by position."""
    values = [o["value"] for o in question.get("options", [])]
    if question["type"] == "scale" and all(isinstance(v, int) and 0 <= v <= 9 for v in values):
        return [str(v) for v in values]
    return [str(i + 1) for i in range(len(values))]


def scale_options(question: dict) -> list[dict]:
    """A scale's labelled options; a scale without labels gets its integers, highest first for oriented ones."""
    if question.get("options"):
        return question["options"]
    values = range(question["min"], question["max"] + 1)
    return [{"value": v, "label": str(v)} for v in values]


def _options(question: dict, current) -> list[dict]:
    if question["type"] == "boolean":
        return [{**o, "checked": current is o["value"], "form_value": json.dumps(o["value"])} for o in BOOLEAN_OPTIONS]
    options = scale_options(question) if question["type"] == "scale" else question["options"]
    keys = option_keys({**question, "options": options})
    return [
        {"value": o["value"], "label": o.get("label", str(o["value"])), "key": key,
         "checked": current is not None and current == o["value"] and not isinstance(current, bool),
         "form_value": json.dumps(o["value"])}
        for o, key in zip(options, keys, strict=True)
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
