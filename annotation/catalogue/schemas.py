"""Rating schemas: the questions a rater answers, their values and their level of measurement.

A schema is plain data (JSON), validated here without Django, so forms, agreement and consensus
all read the same description. A question has:

- ``id``: key of the answer in ``Annotation.values``;
- ``type``: ``scale`` (integers ``min``..``max``), ``choice`` (one of ``options``), ``text``,
  ``boolean`` or ``criteria`` (one A/B/tie label per free-form criterion);
- ``scope``: ``pair`` (one answer) or ``response`` (one answer per response, ``{"A": .., "B": ..}``);
- ``level``: ``nominal``, ``ordinal`` or ``interval`` (``null`` for text);
- ``oriented``: the answer names a side, so it is flipped when the sides were shown swapped;
- ``required``, ``label``, ``help`` and, for scales and choices, labelled ``options``.
"""

from __future__ import annotations

import copy

QUESTION_TYPES = {"scale", "choice", "text", "boolean", "criteria"}
SCOPES = {"pair", "response"}
LEVELS = {"nominal", "ordinal", "interval", None}
SIDES = ("A", "B")
CRITERIA_LABELS = ("A", "B", "tie")


class SchemaError(ValueError):
    """A schema definition or a set of answers does not fit the rules above."""


def _rubric(qid: str, label: str, help_text: str, *, required: bool = True) -> dict:
    return {
        "id": qid,
        "label": label,
        "help": help_text,
        "type": "scale",
        "scope": "response",
        "min": 0,
        "max": 3,
        "level": "ordinal",
        "required": required,
        "options": [
            {"value": 0, "label": "Poor"},
            {"value": 1, "label": "Weak"},
            {"value": 2, "label": "Good"},
            {"value": 3, "label": "Excellent"},
        ],
    }


RUBRICS = {
    "text_faithfulness": ("Faithful to the instruction", "Does the output do what the text asks?"),
    "image_faithfulness": ("Faithful to the input image(s)", "Does it keep what should stay from the inputs?"),
    "image_quality": ("Image quality", "Artifacts, anatomy, composition, realism."),
    "text_rendering": ("Text rendering", "Is drawn text spelled and placed correctly? Skip when no text is drawn."),
    "cross_image_congruence": ("Cross-image congruence", "Do the images stay consistent with each other?"),
    "text_image_alignment": ("Text–image alignment", "Does each image match the text around it?"),
    "text_quality": ("Text quality", "Is the text coherent, correct and well written?"),
}

GENERATION_RUBRICS_BY_KIND = {
    "text-to-image": ["text_faithfulness", "image_quality", "text_rendering"],
    "image-editing": ["text_faithfulness", "image_faithfulness", "image_quality", "text_rendering"],
    "interleaved": [
        "text_faithfulness",
        "image_faithfulness",
        "image_quality",
        "cross_image_congruence",
        "text_image_alignment",
        "text_quality",
    ],
    "text-to-video": ["text_faithfulness", "image_quality"],
    "text-to-3d": ["text_faithfulness", "image_quality"],
}
OPTIONAL_RUBRICS = {"text_rendering"}

OVERALL_PREFERENCE = {
    "id": "overall",
    "label": "Overall preference",
    "type": "scale",
    "scope": "pair",
    "min": 1,
    "max": 6,
    "level": "ordinal",
    "oriented": True,
    "required": True,
    "options": [
        {"value": 6, "label": "A significantly better"},
        {"value": 5, "label": "A marginally better"},
        {"value": 4, "label": "Unsure / A negligibly better"},
        {"value": 3, "label": "Unsure / B negligibly better"},
        {"value": 2, "label": "B marginally better"},
        {"value": 1, "label": "B significantly better"},
    ],
}
RATIONALE = {"id": "rationale", "label": "Rationale", "type": "text", "scope": "pair", "level": None, "required": True}
PROMPT_VALID = {
    "id": "prompt_valid",
    "label": "Is the prompt valid and answerable?",
    "type": "boolean",
    "scope": "pair",
    "level": "nominal",
    "required": True,
}
REASONING_CORRECTNESS = {
    "id": "correctness",
    "label": "Correctness",
    "type": "scale",
    "scope": "response",
    "min": 1,
    "max": 5,
    "level": "ordinal",
    "required": True,
    "options": [
        {"value": 1, "label": "Correct, no major errors"},
        {"value": 2, "label": "Correct, minor improvements possible"},
        {"value": 3, "label": "Correct answer, major reasoning errors"},
        {"value": 4, "label": "Correct, no reasoning given"},
        {"value": 5, "label": "Incorrect or cannot verify"},
    ],
}


def _choice(qid: str, label: str, options: list[tuple[str, str]]) -> dict:
    return {
        "id": qid,
        "label": label,
        "type": "choice",
        "scope": "pair",
        "level": "nominal",
        "oriented": True,
        "required": True,
        "options": [{"value": value, "label": text} for value, text in options],
    }


def preset(name: str, kind: str) -> dict:
    """The built-in schema ``name`` for a campaign of task ``kind``."""
    if name == "mmrb2-generation":
        rubrics = GENERATION_RUBRICS_BY_KIND.get(kind, ["text_faithfulness", "image_quality"])
        questions = [
            _rubric(r, *RUBRICS[r], required=r not in OPTIONAL_RUBRICS) for r in rubrics
        ] + [OVERALL_PREFERENCE, RATIONALE, PROMPT_VALID]
    elif name == "mmrb2-reasoning":
        questions = [REASONING_CORRECTNESS, RATIONALE, PROMPT_VALID]
    elif name == "omni-criteria":
        questions = [
            {
                "id": "criteria",
                "label": "Preference per criterion",
                "type": "criteria",
                "scope": "pair",
                "level": "nominal",
                "oriented": True,
                "required": True,
                "options": [
                    {"value": "A", "label": "A better"},
                    {"value": "B", "label": "B better"},
                    {"value": "tie", "label": "Equivalent"},
                ],
            },
            {**RATIONALE, "required": False},
        ]
    elif name == "ab-tie":
        questions = [_choice("preference", "Which response is better?", [("A", "A"), ("B", "B"), ("tie", "Tie")])]
        questions.append({**RATIONALE, "required": False})
    elif name == "arena":
        questions = [
            _choice(
                "preference",
                "Which response is better?",
                [("A", "A is better"), ("B", "B is better"), ("tie", "Tie"), ("both_bad", "Both are bad")],
            )
        ]
        questions.append({**RATIONALE, "required": False})
    else:
        raise SchemaError(f"unknown rating schema preset {name!r}; choose one of {', '.join(PRESETS)}")
    definition = {"preset": name, "kind": kind, "questions": copy.deepcopy(questions)}
    validate_schema(definition)
    return definition


PRESETS = ("mmrb2-generation", "mmrb2-reasoning", "omni-criteria", "ab-tie", "arena")

# The task kinds whose campaigns each preset's questions fit (None: every kind). The generation rubrics rate
# pictures ("Image quality", "Faithful to the input image(s)"), so they fit the kinds whose responses are images,
# or videos and 3D models judged by their frames and renders. The reasoning scale grades a written answer and the
# reasoning that led to it ("Correct answer, major reasoning errors", "no reasoning given"), so it fits the kinds
# whose responses are text. The criteria and A/B presets only ask which response is better: any kind.
GENERATION_KINDS = frozenset(GENERATION_RUBRICS_BY_KIND)
TEXT_ANSWER_KINDS = frozenset({"reasoning", "text-to-text", "image-to-text", "video-to-text", "audio-to-text"})
PRESET_KINDS: dict[str, frozenset[str] | None] = {
    "mmrb2-generation": GENERATION_KINDS,
    "mmrb2-reasoning": TEXT_ANSWER_KINDS,
    "omni-criteria": None,
    "ab-tie": None,
    "arena": None,
}


def preset_fits(name: str, kind: str) -> bool:
    """Whether the questions of preset ``name`` make sense for a campaign of task ``kind``."""
    kinds = PRESET_KINDS.get(name)
    return kinds is None or kind in kinds


def presets_for_kind(kind: str) -> list[str]:
    """The presets a campaign of task ``kind`` may use, in the order of PRESETS."""
    return [name for name in PRESETS if preset_fits(name, kind)]


def check_preset_fits(name: str, kind: str) -> None:
    """Raise SchemaError when preset ``name`` asks questions a ``kind`` campaign's responses cannot answer."""
    if name in PRESETS and not preset_fits(name, kind):
        raise SchemaError(
            f"rating schema preset {name!r} does not fit a {kind} campaign (it is for "
            f"{', '.join(sorted(PRESET_KINDS[name] or ()))}); for {kind} choose one of {', '.join(presets_for_kind(kind))}"
        )


def validate_schema(definition: dict) -> None:
    """Raise SchemaError unless ``definition`` is a well-formed schema."""
    if not isinstance(definition, dict) or not isinstance(definition.get("questions"), list):
        raise SchemaError("a schema is an object with a list of questions")
    if not definition["questions"]:
        raise SchemaError("a schema needs at least one question")
    seen = set()
    for i, q in enumerate(definition["questions"]):
        where = f"questions[{i}]"
        if not isinstance(q, dict):
            raise SchemaError(f"{where}: a question is an object")
        qid = q.get("id")
        if not isinstance(qid, str) or not qid.isidentifier():
            raise SchemaError(f"{where}: id must be an identifier, got {qid!r}")
        if qid in seen:
            raise SchemaError(f"{where}: duplicate question id {qid!r}")
        seen.add(qid)
        if q.get("type") not in QUESTION_TYPES:
            raise SchemaError(f"{where} ({qid}): type must be one of {sorted(QUESTION_TYPES)}")
        if q.get("scope", "pair") not in SCOPES:
            raise SchemaError(f"{where} ({qid}): scope must be pair or response")
        if q.get("level") not in LEVELS:
            raise SchemaError(f"{where} ({qid}): level must be nominal, ordinal, interval or null")
        if q["type"] == "scale":
            lo, hi = q.get("min"), q.get("max")
            if not (isinstance(lo, int) and isinstance(hi, int) and lo < hi):
                raise SchemaError(f"{where} ({qid}): a scale needs integer min < max")
        if q["type"] in ("choice", "criteria"):
            values = [o.get("value") for o in q.get("options", []) if isinstance(o, dict)]
            if len(values) < 2 or len(set(values)) != len(values):
                raise SchemaError(f"{where} ({qid}): a choice needs two or more distinct option values")
        if q.get("oriented") and q.get("scope", "pair") != "pair":
            raise SchemaError(f"{where} ({qid}): only pair-scoped questions can be oriented")


def questions(definition: dict) -> list[dict]:
    return definition["questions"]


def _check_value(q: dict, value, where: str) -> list[str]:
    t = q["type"]
    if t == "scale":
        if isinstance(value, bool) or not isinstance(value, int) or not q["min"] <= value <= q["max"]:
            return [f"{where}: choose a whole number from {q['min']} to {q['max']}"]
    elif t == "choice":
        allowed = [o["value"] for o in q["options"]]
        if value not in allowed:
            return [f"{where}: choose one of {', '.join(map(str, allowed))}"]
    elif t == "boolean":
        if not isinstance(value, bool):
            return [f"{where}: answer yes or no"]
    elif t == "text":
        if not isinstance(value, str) or (q.get("required") and not value.strip()):
            return [f"{where}: write a few words"]
        if len(value) > 20_000:
            return [f"{where}: keep it under 20,000 characters"]
    return []


# An error names at most this many unknown keys, each cut to NAME_CHARS: the echo of a hostile body stays small.
MAX_NAMED = 20
NAME_CHARS = 100


def shown_names(names: list[str]) -> list[str]:
    """The first MAX_NAMED names, each cut to NAME_CHARS characters."""
    return [name if len(name) <= NAME_CHARS else name[:NAME_CHARS] + "…" for name in names[:MAX_NAMED]]


def validate_answers(definition: dict, values: dict, *, criteria: list[str] | None = None) -> dict[str, str]:
    """Errors per question id (empty when the answers are complete and well-typed)."""
    errors: dict[str, str] = {}
    if not isinstance(values, dict):
        return {"__all__": "answers must be an object keyed by question id"}
    known = {q["id"] for q in definition["questions"]}
    unknown = [key for key in values if key not in known]
    for key in shown_names(unknown):
        errors[key] = f"unknown question {key!r}"
    if len(unknown) > MAX_NAMED:
        errors["__unknown__"] = f"{len(unknown):,} unknown questions in all; the first {MAX_NAMED} are named"
    for q in definition["questions"]:
        qid = q["id"]
        value = values.get(qid)
        missing = value is None or (q["type"] == "text" and isinstance(value, str) and not value.strip())
        if missing:
            if q.get("required"):
                errors[qid] = "This question is required."
            continue
        if q["type"] == "criteria":
            problems = _check_criteria(q, value, criteria)
        elif q.get("scope") == "response":
            if not isinstance(value, dict) or set(value) - set(SIDES):
                problems = ["answer per response, as {\"A\": .., \"B\": ..}"]
            else:
                problems = [
                    p
                    for side in SIDES
                    for p in (
                        _check_value(q, value[side], f"response {side}")
                        if value.get(side) is not None
                        else (["required for both responses"] if q.get("required") else [])
                    )
                ]
        else:
            problems = _check_value(q, value, q.get("label", qid))
        if problems:
            errors[qid] = "; ".join(problems)
    return errors


def _check_criteria(q: dict, value, criteria: list[str] | None) -> list[str]:
    if not isinstance(value, list) or not value:
        return ["give a label for at least one criterion"]
    allowed = [o["value"] for o in q["options"]]
    problems = []
    for i, item in enumerate(value):
        if not isinstance(item, dict) or not str(item.get("criterion", "")).strip():
            problems.append(f"criterion {i + 1}: write the criterion")
        elif item.get("label") not in allowed:
            problems.append(f"criterion {i + 1}: choose one of {', '.join(allowed)}")
    if criteria:
        given = [item.get("criterion") for item in value if isinstance(item, dict)]
        for c in criteria:
            if c not in given:
                problems.append(f"label the criterion {c!r}")
    return problems


def _flip_label(value):
    return {"A": "B", "B": "A"}.get(value, value)


def reorient(definition: dict, values: dict, *, swapped: bool) -> dict:
    """Answers as seen on screen (left = A) ↔ canonical orientation; its own inverse."""
    if not swapped:
        return copy.deepcopy(values)
    out = {}
    by_id = {q["id"]: q for q in definition["questions"]}
    for qid, value in values.items():
        q = by_id.get(qid)
        if q is None or value is None:
            out[qid] = value
        elif q.get("scope") == "response" and isinstance(value, dict):
            out[qid] = {_flip_label(k): v for k, v in value.items()}
        elif q.get("oriented") and q["type"] == "scale":
            out[qid] = q["min"] + q["max"] - value
        elif q.get("oriented") and q["type"] == "choice":
            out[qid] = _flip_label(value)
        elif q.get("oriented") and q["type"] == "criteria":
            out[qid] = [{**item, "label": _flip_label(item.get("label"))} for item in value]
        else:
            out[qid] = copy.deepcopy(value)
    return out


def offers_tie(definition: dict) -> bool:
    """Whether a rater can answer "tie" to the schema's preference (a choice or criteria option, not a scale's middle)."""
    return any(q.get("oriented") and q["type"] in ("choice", "criteria")
               and any(o.get("value") == "tie" for o in q.get("options", [])) for q in definition["questions"])


def preference_question(definition: dict) -> dict | None:
    """The pair-level oriented question that carries the overall preference, if any."""
    for q in definition["questions"]:
        if q.get("oriented") and q["type"] in ("scale", "choice"):
            return q
    return None
