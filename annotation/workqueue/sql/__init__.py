"""The work queue's hand-written SQL: one ``.sql`` file per statement, beside this module.

A statement names its tables and select lists as ``${name}``; ``statement(name)`` reads the file and fills them
from the models' ``_meta`` (``names()``) on first use, and keeps the text (``functools.cache``): nothing here
touches the models or ``connection.ops`` at import. Parameters are psycopg's named ``%(name)s``.

The select lists are ``core.rows`` parts (``parts(name)``), so that a row comes back, in the order it was
selected, as the ORM's values (``rows.values``) or model instances (``rows.instances``). Each statement has a query-plan test in
``tests/workqueue/test_assignment_plans.py`` (and ``test_assignments.py`` for the claim's walk).
"""

from __future__ import annotations

import functools
from pathlib import Path
from string import Template

from core import rows

_HERE = Path(__file__).parent

# The columns each hand-written read selects, by table alias: the model's label and its attnames, or None for every
# concrete field.
_PARTS: dict[str, list[tuple[str, str, list[str] | None]]] = {
    # The campaign as the claim statement reads it: what deciding the claim, writing the lease and the display need
    # (the others load on access; a claim by id keeps the caller's campaign).
    "claim_campaign": [("c", "annotation.Campaign", ["id", "slug", "kind", "instructions", "rating_schema_id", "status",
                                                    "gold_rate", "orientation_seed", "lease_minutes",
                                                    "calibration_set_id"])],
    "display": [
        ("a", "annotation.Assignment",
         ["id", "pair_id", "campaign_id", "annotator_id", "swapped", "draft", "status", "expires_at"]),
        ("c", "annotation.Campaign", ["id", "slug", "kind", "instructions", "rating_schema_id"]),
        ("s", "annotation.RatingSchema", ["id", "definition"]),
        ("p", "annotation.Pair",
         ["id", "prompt_id", "response_a_id", "response_b_id", "criteria", "external_id", "self_identification"]),
        ("q", "annotation.Prompt", ["id", "content", "external_id"]),
        ("ra", "annotation.Response", ["id", "content", "model_name"]),
        ("rb", "annotation.Response", ["id", "content", "model_name"]),
    ],
    # What the claim statement reads for the display of the lease it took (annotation.workqueue.selectors.Shown.read), after
    # the campaign's and the lease's own columns.
    "claim_display": [
        ("s", "annotation.RatingSchema", ["definition"]),
        ("p", "annotation.Pair", ["criteria", "external_id", "self_identification"]),
        ("q", "annotation.Prompt", ["content", "external_id"]),
        ("ra", "annotation.Response", ["content", "model_name"]),
        ("rb", "annotation.Response", ["content", "model_name"]),
    ],
    "locked": [
        ("a", "annotation.Assignment", None), ("p", "annotation.Pair", None), ("c", "annotation.Campaign", None),
        ("s", "annotation.RatingSchema", None),
    ],
    "submit": [
        ("a", "annotation.Assignment", ["id", "pair_id", "campaign_id", "annotator_id", "status", "swapped"]),
        ("p", "annotation.Pair", ["id", "criteria", "is_gold", "gold_answer"]),
        ("c", "annotation.Campaign", ["id", "rating_schema_id", "kind", "requires_full_playback"]),
        ("s", "annotation.RatingSchema", ["id", "definition"]),
    ],
    "earlier": [("n", "annotation.Annotation", ["id", "assignment_id", "created_at"])],
}


@functools.cache
def parts(name: str) -> tuple[rows.Part, ...]:
    """The ``rows`` parts of one select list."""
    from django.apps import apps

    return tuple(
        rows.part(alias, apps.get_model(model), tuple(names) if names else None)  # type: ignore[arg-type]
        for alias, model, names in _PARTS[name]
    )


@functools.cache
def names() -> dict[str, str]:
    """What ``${name}`` stands for in the statements: tables and columns from ``_meta``, and the select lists."""
    from annotation.catalogue.models import Campaign, Pair, Prompt, RatingSchema, Response
    from annotation.workqueue.models import (
        Annotation,
        Assignment,
        AssignmentEvent,
        CampaignQuestionnaire,
        CrowdEntry,
        CrowdEntryLink,
        CrowdParticipant,
        ProfileAnswer,
        QualificationRound,
        RaterPause,
    )

    members = Campaign.members.through._meta
    return {
        "assignment": Assignment._meta.db_table,
        "assignment_event": AssignmentEvent._meta.db_table,
        "annotation": Annotation._meta.db_table,
        "campaign": Campaign._meta.db_table,
        "rater_pause": RaterPause._meta.db_table,
        "qualification_round": QualificationRound._meta.db_table,
        "campaign_questionnaire": CampaignQuestionnaire._meta.db_table,
        "profile_answer": ProfileAnswer._meta.db_table,
        "crowd_entry": CrowdEntry._meta.db_table,
        "crowd_link": CrowdEntryLink._meta.db_table,
        "crowd_participant": CrowdParticipant._meta.db_table,
        "pair": Pair._meta.db_table,
        "prompt": Prompt._meta.db_table,
        "response": Response._meta.db_table,
        "rating_schema": RatingSchema._meta.db_table,
        "members": members.db_table,
        "member_campaign": members.get_field("campaign").column,
        "member_user": members.get_field("user").column,
        "claim_campaign_columns": rows.select_list(parts("claim_campaign")),
        "display_columns": rows.select_list(parts("display")),
        "claim_display_columns": rows.select_list(parts("claim_display")),
        "locked_columns": rows.select_list(parts("locked")),
        "submit_columns": rows.select_list(parts("submit")),
        "earlier_columns": rows.select_list(parts("earlier")),
    }


@functools.cache
def statement(name: str, **values: str | int) -> str:
    """The text of ``name``.sql with its ``${names}`` filled (``values`` for the ones a caller chooses, such as the
    claim's head size); a name left unfilled is an error. Comment lines (``--``) are left out."""
    # The comments and the indentation stay in the file: the database gets the statement alone.
    lines = (_HERE / f"{name}.sql").read_text().splitlines()
    text = "\n".join(line.strip() for line in lines if not line.lstrip().startswith("--"))
    return Template(text).substitute({**names(), **{key: str(value) for key, value in values.items()}})
