"""A curator action applied to a selection of pairs from the pair browser, one pair at a time.

Each pair goes through the same service as the pair page's button (``curator_actions``), in its own
transaction, so every rule and side effect of the single action holds for each pair; a pair the
action does not apply to is refused with that service's own message and the others still proceed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from annotation.catalogue.models import Campaign, Pair
from core.errors import ApplicationError
from curation.services import curator_actions

if TYPE_CHECKING:
    from annotation.accounts.models import User

BULK_ACTIONS = ("exclude", "restore", "send-to-adjudication", "extend-overlap", "mark-gold")
MAX_SELECTION = 200


@dataclass
class BulkResult:
    action: str
    done: list[int] = field(default_factory=list)
    refused: list[tuple[int, str]] = field(default_factory=list)

    def summary(self) -> str:
        """One line for the page: how many pairs changed, and each refusal with its reason."""
        verb = self.action.replace("-", " ")
        text = f"{verb}: {len(self.done)} pair(s) done"
        if self.refused:
            text += f"; {len(self.refused)} refused (" + "; ".join(f"#{pk}: {why}" for pk, why in self.refused) + ")"
        return text + "."


def _apply(action: str, pair_id: int, *, actor, note: str, by: int, side: str) -> None:
    if action == "exclude":
        curator_actions.pair_exclude(pair_id=pair_id, reason=note, actor=actor)
    elif action == "restore":
        curator_actions.pair_restore(pair_id=pair_id, note=note, actor=actor)
    elif action == "send-to-adjudication":
        curator_actions.pair_send_to_adjudication(pair_id=pair_id, note=note, actor=actor)
    elif action == "extend-overlap":
        curator_actions.pair_extend_overlap(pair_id=pair_id, by=by, note=note, actor=actor)
    else:
        curator_actions.pair_mark_gold(pair_id=pair_id, side=side, note=note, actor=actor)


def pairs_bulk_apply(*, campaign: Campaign, pair_ids: list[int], action: str, actor: User | None = None, note: str = "",
                     by: int = 1, side: str = "") -> BulkResult:
    """Apply ``action`` to each selected pair of the campaign through its single-pair service.

    Preconditions: ``action`` is one of BULK_ACTIONS and the selection holds 1 to MAX_SELECTION pairs;
    otherwise ApplicationError and nothing changes. A pair of another campaign is refused, never touched.
    """
    if action not in BULK_ACTIONS:
        raise ApplicationError(f"unknown bulk action {action!r}; choose one of {', '.join(BULK_ACTIONS)}",
                               code="invalid_action")
    selection = list(dict.fromkeys(pair_ids))
    if not selection:
        raise ApplicationError("select at least one pair", code="empty_selection")
    if len(selection) > MAX_SELECTION:
        raise ApplicationError(f"{len(selection)} pairs selected; act on at most {MAX_SELECTION} at a time",
                               code="selection_too_large")
    mine = set(Pair.objects.filter(campaign=campaign, pk__in=selection).values_list("pk", flat=True))
    result = BulkResult(action=action)
    for pair_id in selection:
        if pair_id not in mine:
            result.refused.append((pair_id, f"not a pair of {campaign.slug}"))
            continue
        try:
            _apply(action, pair_id, actor=actor, note=note, by=by, side=side)
        except ApplicationError as exc:
            result.refused.append((pair_id, exc.message))
        else:
            result.done.append(pair_id)
    return result
