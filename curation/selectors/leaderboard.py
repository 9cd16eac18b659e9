"""The model leaderboard read from the database: every human preference of the chosen campaigns as a comparison.

A rating counts when its campaign's schema has a preference question (the pair-level oriented
question) and the rater answered it within its domain; adjudications are not ratings, and pairs a
curator excluded or the pre-filter dropped (or has yet to see) are left out. One streamed query per
campaign reads only the preference answer, the side shown and both model names, with the same
rating set (``campaign_ratings``) and answer check (``codes_from_json_text``) as the agreement statistics.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import numpy as np
from django.db.models import F, QuerySet
from django.db.models.fields.json import KeyTransform

from annotation.catalogue.models import Campaign, Pair
from annotation.catalogue.schemas import preference_question
from core.errors import ApplicationError
from curation.agreement.variables import SIDE_A, SIDE_B, variables_of_schema
from curation.csv_cells import csv_safe
from curation.leaderboard.bradley_terry import TIE, WIN_A, WIN_B, Comparisons, comparisons_from_names, leaderboard
from curation.selectors.ratings import campaign_ratings, codes_from_json_text, stream_frame, swapped_code

LEFT_OUT = (Pair.Status.EXCLUDED, Pair.Status.DROPPED_EASY, Pair.Status.PENDING)
MAX_BOOTSTRAP = 2000


@dataclass(frozen=True)
class CampaignComparisons:
    """Comparisons with the task kind and source benchmark of each, and the campaigns that had none."""

    comparisons: Comparisons
    kind: np.ndarray
    source: np.ndarray
    without_preference: list[str]


def _campaign_preferences(campaign: Campaign, variable, pair_ids: np.ndarray | QuerySet | None):
    """One streamed query: per counted rating its pair, the side shown left, the answer's code and both models."""
    ratings = (campaign_ratings(campaign).exclude(pair__status__in=LEFT_OUT)
               .annotate(c_swapped=swapped_code(), c_answer=KeyTransform(variable.qid, "values"),
                         c_model_a=F("pair__response_a__model_name"), c_model_b=F("pair__response_b__model_name"),
                         c_source=F("pair__prompt__source")))
    if pair_ids is not None:
        ratings = ratings.filter(pair_id__in=pair_ids.tolist() if isinstance(pair_ids, np.ndarray) else pair_ids)
    frame = stream_frame(ratings, names=["pair_id", "c_swapped", "c_answer", "c_model_a", "c_model_b", "c_source"],
                         json_columns={"c_answer"}, text_columns={"c_model_a", "c_model_b", "c_source"})
    code = codes_from_json_text(variable, frame["c_answer"])
    answered = code >= 0
    return frame[answered], code[answered]


def model_comparisons(*, campaigns: list[Campaign], pair_ids: np.ndarray | QuerySet | None = None) -> CampaignComparisons:
    """Every counted human preference of the campaigns as one comparison between the two responses' models.

    ``pair_ids`` (ids, or a queryset of them), when given, limits the count to the ratings of those pairs
    (a release's own pairs).
    An answer outside the question's domain is left out, as in the agreement statistics.
    """
    a_names, b_names, outcomes, lefts, pairs, kinds, sources, without = [], [], [], [], [], [], [], []
    for campaign in campaigns:
        question = preference_question(campaign.rating_schema.definition)
        if question is None:
            without.append(campaign.slug)
            continue
        variable = variables_of_schema(campaign.rating_schema.definition)[question["id"]]
        frame, code = _campaign_preferences(campaign, variable, pair_ids)
        side = np.asarray(variable.side_of_code, dtype=np.int64)[code]
        swapped = frame["c_swapped"].to_numpy(dtype=np.int64)
        a_names.extend(frame["c_model_a"].fillna("").tolist())
        b_names.extend(frame["c_model_b"].fillna("").tolist())
        outcomes.append(np.where(side == SIDE_A, WIN_A, np.where(side == SIDE_B, WIN_B, TIE)))
        lefts.append(np.where(swapped == 0, 1, np.where(swapped == 1, -1, 0)))
        pairs.append(frame["pair_id"].to_numpy(dtype=np.int64))
        kinds.extend([campaign.kind] * len(frame))
        sources.append(frame["c_source"].fillna("").to_numpy(dtype=object))

    def joined(parts, dtype):
        return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)

    # comparisons_from_names leaves out self-matches; the same mask keeps kinds and sources aligned.
    keep = np.asarray(a_names, dtype=object) != np.asarray(b_names, dtype=object)
    comparisons = comparisons_from_names(model_a=a_names, model_b=b_names, outcome=joined(outcomes, float),
                                         left=joined(lefts, float), pair=joined(pairs, np.int64))
    return CampaignComparisons(comparisons=comparisons, kind=np.asarray(kinds, dtype=object)[keep],
                               source=joined(sources, object)[keep], without_preference=without)


def leaderboard_campaigns(*, slugs: list[str] | None = None) -> list[Campaign]:
    """The campaigns named (all when none is), in slug order; ApplicationError naming any unknown slug."""
    campaigns = Campaign.objects.select_related("rating_schema").order_by("slug")
    if not slugs:
        return list(campaigns)
    found = list(campaigns.filter(slug__in=slugs))
    missing = sorted(set(slugs) - {c.slug for c in found})
    if missing:
        raise ApplicationError(f"no campaign {', '.join(missing)}", code="campaign_not_found", status_code=404)
    return found


def model_leaderboard(*, campaigns: list[Campaign], kind: str = "", source: str = "", bootstrap: int = 200,
                      seed: int = 0, pair_ids: np.ndarray | QuerySet | None = None) -> dict:
    """The leaderboard of the campaigns' human preferences (optionally of one task kind or source benchmark).

    Also lists the task kinds and sources present, so a page can offer the split, and the campaigns
    whose schema has no preference question. ``leaderboard`` is None with fewer than two models.
    """
    if not isinstance(bootstrap, int) or not 0 <= bootstrap <= MAX_BOOTSTRAP:
        raise ApplicationError(f"bootstrap must be a whole number from 0 to {MAX_BOOTSTRAP}", code="invalid_bootstrap")
    data = model_comparisons(campaigns=campaigns, pair_ids=pair_ids)
    keep = np.ones(len(data.comparisons), dtype=bool)
    if kind:
        keep &= data.kind == kind
    if source:
        keep &= data.source == source
    board = leaderboard(data.comparisons.restrict(keep), bootstrap=bootstrap, seed=seed)
    return {
        "campaigns": [c.slug for c in campaigns],
        "kind": kind,
        "source": source,
        "kinds": sorted(set(data.kind.tolist())),
        "sources": sorted(s for s in set(data.source.tolist()) if s),
        "campaigns_without_preference": data.without_preference,
        "leaderboard": board.as_dict() if board else None,
    }


def _ci(interval, digits: int) -> tuple[str, str]:
    return ("", "") if not interval else (f"{interval[0]:.{digits}f}", f"{interval[1]:.{digits}f}")


def leaderboard_csv(report: dict) -> str:
    """The leaderboard as CSV: one row per model, then one row per ordered pair of models (win rate, comparisons)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    board = report["leaderboard"]
    scope = f"campaigns={' '.join(report['campaigns'])}; kind={report['kind'] or 'all'}; source={report['source'] or 'all'}"
    writer.writerow(["# " + (board["method"] if board else "no leaderboard: fewer than two models compared"), scope])
    writer.writerow(["section", "rank", "model", "opponent", "rating", "rating_ci95_low", "rating_ci95_high",
                     "comparisons", "score_or_win_rate", "win_rate_ci95_low", "win_rate_ci95_high"])
    if not board:
        return out.getvalue()
    for entry in board["models"]:
        low, high = _ci(entry["rating_ci95"], 1)
        score = "" if entry["score"] is None else f"{entry['score']:.4f}"
        writer.writerow(["rating", entry["rank"], csv_safe(entry["model"]), "", f"{entry['rating']:.1f}", low, high,
                         entry["comparisons"], score, "", ""])
    names = board["win_rate"]["models"]
    for i, row in enumerate(board["win_rate"]["rows"]):
        for j, rate in enumerate(row):
            n = board["pair_comparisons"]["rows"][i][j]
            if i == j or not n:
                continue
            low, high = _ci(board["win_rate"]["ci95"][i][j], 4)
            writer.writerow(["pair", "", csv_safe(names[i]), csv_safe(names[j]), "", "", "", n, f"{rate:.4f}", low, high])
    low, high = _ci(board["left_advantage_ci95"], 1)
    writer.writerow(["left_advantage", "", "", "", f"{board['left_advantage']:.1f}", low, high,
                     board["comparisons"], "", "", ""])
    return out.getvalue()
