"""The model leaderboard read from the database: every human preference of the chosen campaigns as a comparison.

A rating counts when its campaign's schema has a preference question (the pair-level oriented
question) and the rater answered it within its domain; adjudications are not ratings, and pairs a
curator excluded or the pre-filter dropped (or has yet to see) are left out. One streamed query per
campaign reads only the preference answer, the side shown and both model names, with the same
rating set (``campaign_ratings``) and answer check (``codes_from_json_text``) as the agreement statistics.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

import numpy as np
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.db.models import Count, F, Func, QuerySet, TextField
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import MD5, Cast
from django.utils import timezone

from annotation.catalogue.models import Campaign, Pair
from annotation.catalogue.schemas import preference_question
from annotation.jobs.models import Job
from core.errors import ApplicationError
from curation.agreement.variables import SIDE_A, SIDE_B, SIDE_NONE, Variable, variables_of_schema
from curation.consensus import get_policy
from curation.csv_cells import csv_safe
from curation.leaderboard.bradley_terry import (
    FIT_VERSION,
    TIE,
    WIN_A,
    WIN_B,
    Comparisons,
    comparisons_from_names,
    leaderboard,
)
from curation.selectors.ratings import campaign_ratings, codes_from_json_text, stream_frame, swapped_code

LEFT_OUT = (Pair.Status.EXCLUDED, Pair.Status.DROPPED_EASY, Pair.Status.PENDING)
MAX_BOOTSTRAP = 2000
# A fitted board is kept under a digest of exactly the comparisons it was fitted on (and the bootstrap and seed), so
# a cached board is never one of other data: a new rating, exclusion or withdrawal changes the digest.
CACHE_SECONDS = 24 * 3600
# The background job that fits a board a request found in neither the cache nor a finished job.
FIT_JOB_KIND = "leaderboard_fit"


@dataclass(frozen=True)
class CampaignComparisons:
    """Comparisons with the task kind and source benchmark of each, and the campaigns that had none."""

    comparisons: Comparisons
    kind: np.ndarray
    source: np.ndarray
    without_preference: list[str]
    basis: dict[str, str]


@dataclass(frozen=True)
class Basis:
    """What a campaign's ratings count as comparisons: ``how`` is preference, criteria or grades (None: not counted)."""

    how: str | None
    variable: Variable | None
    text: str


def leaderboard_basis(campaign: Campaign) -> Basis:
    """How the campaign's ratings become comparisons, or why they do not (``text`` says which, for the page).

    - a pair-level oriented scale or choice (MMRB2's overall, A/B/tie, arena): one comparison per rating;
    - an Omni-style criteria question: one comparison per criterion a rater answered A, B or tie;
    - MMRB2's reasoning grades (campaigns under the ``mmrb2-reasoning`` policy, whose scale runs from best to
      worst): one comparison per rating, won by the better-graded response, a tie when both grades are equal.
    """
    definition = campaign.rating_schema.definition
    variables = variables_of_schema(definition)
    question = preference_question(definition)
    if question is not None:
        variable = variables[question["id"]]
        return Basis("preference", variable, f"{question['id']} ({variable.values_text()}): one comparison per rating")
    for q in definition["questions"]:
        if q.get("oriented") and q["type"] == "criteria":
            return Basis("criteria", variables[q["id"]], f"{q['id']}: one comparison per criterion answered A, B or tie")
    if campaign.consensus_policy == "mmrb2-reasoning":
        qid = {**get_policy("mmrb2-reasoning").defaults, **(campaign.consensus_params or {})}["question"]
        graded = variables.get(qid)
        if graded is not None and graded.numeric and graded.scope == "response":
            return Basis("grades", graded, f"{qid} per response ({graded.values_text()}, lower is better): one "
                                             "comparison per rating, a tie when both responses got the same grade")
    return Basis(None, None, "not counted: no question names the better response, and no grade of both responses "
                             "under the mmrb2-reasoning policy")


def _campaign_ratings_rows(campaign: Campaign, answers: dict, pair_ids: np.ndarray | QuerySet | None) -> QuerySet:
    """Per counted rating its pair, the side shown left, both models, the source and ``answers`` (column name → JSON
    expression): the rows ``model_comparisons`` reads, and ``comparisons_fingerprint`` digests."""
    ratings = (campaign_ratings(campaign).exclude(pair__status__in=LEFT_OUT)
               .annotate(c_swapped=swapped_code(), c_model_a=F("pair__response_a__model_name"),
                         c_model_b=F("pair__response_b__model_name"), c_source=F("pair__prompt__source"), **answers))
    if pair_ids is not None:
        ratings = ratings.filter(pair_id__in=pair_ids.tolist() if isinstance(pair_ids, np.ndarray) else pair_ids)
    return ratings


ROW_COLUMNS = ["pair_id", "c_swapped", "c_model_a", "c_model_b", "c_source"]


def _campaign_ratings_frame(campaign: Campaign, answers: dict, pair_ids: np.ndarray | QuerySet | None):
    """``_campaign_ratings_rows`` as one streamed query into a frame."""
    return stream_frame(_campaign_ratings_rows(campaign, answers, pair_ids), names=[*ROW_COLUMNS, *answers],
                        json_columns=set(answers), text_columns={"c_model_a", "c_model_b", "c_source"})


def _basis_answers(basis: Basis) -> dict:
    """The answer columns a basis reads: the question's answer, or (grades) each response's grade."""
    variable = basis.variable
    assert variable is not None, "a counted campaign has its variable"
    if basis.how == "grades":
        return {f"c_{side}": KeyTransform(side, KeyTransform(variable.qid, "values")) for side in "AB"}
    return {"c_answer": KeyTransform(variable.qid, "values")}


def _campaign_sides(campaign: Campaign, basis: Basis, pair_ids):
    """The comparisons of one campaign: one frame row per comparison and the side it names (SIDE_A, SIDE_B or
    neither for a tie)."""
    variable = basis.variable
    assert variable is not None, "a counted campaign has its variable"
    frame = _campaign_ratings_frame(campaign, _basis_answers(basis), pair_ids)
    if basis.how == "preference":
        code = codes_from_json_text(variable, frame["c_answer"])
        answered = code >= 0
        return frame[answered], np.asarray(variable.side_of_code, dtype=np.int64)[code[answered]]
    if basis.how == "grades":
        values = np.asarray(variable.values, dtype=float)
        code_a, code_b = (codes_from_json_text(variable, frame[f"c_{side}"]) for side in "AB")
        answered = (code_a >= 0) & (code_b >= 0)
        grade_a, grade_b = values[code_a[answered]], values[code_b[answered]]
        return frame[answered], np.where(grade_a < grade_b, SIDE_A, np.where(grade_b < grade_a, SIDE_B, SIDE_NONE))
    rows, sides = [], []
    for row, text in enumerate(frame["c_answer"].tolist()):
        answer = json.loads(text) if isinstance(text, str) else None
        for item in answer if isinstance(answer, list) else []:
            found = variable.code_of(item.get("label")) if isinstance(item, dict) else -1
            if found >= 0 and str(item.get("criterion", "")).strip():
                rows.append(row)
                sides.append(variable.side_of_code[found])
    return frame.iloc[rows], np.asarray(sides, dtype=np.int64)


def model_comparisons(*, campaigns: list[Campaign], pair_ids: np.ndarray | QuerySet | None = None) -> CampaignComparisons:
    """Every counted human preference of the campaigns as one comparison between the two responses' models
    (``leaderboard_basis`` says what counts in each campaign).

    ``pair_ids`` (ids, or a queryset of them), when given, limits the count to the ratings of those pairs
    (a release's own pairs).
    An answer outside the question's domain is left out, as in the agreement statistics.
    """
    a_names, b_names, outcomes, lefts, pairs, kinds, sources, without = [], [], [], [], [], [], [], []
    bases = {}
    for campaign in campaigns:
        basis = leaderboard_basis(campaign)
        bases[campaign.slug] = basis.text
        if basis.how is None:
            without.append(campaign.slug)
            continue
        frame, side = _campaign_sides(campaign, basis, pair_ids)
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
                               source=joined(sources, object)[keep], without_preference=without, basis=bases)


def comparisons_fingerprint(campaigns: list[Campaign]) -> str | None:
    """A digest of everything ``model_comparisons(campaigns=…)`` reads, from one aggregate query per campaign: each
    campaign's basis and schema, and per counted rating its id, pair, side shown, models, source and answers.

    Equal digests mean equal comparisons, so a request reads the comparisons it was answered from before out of the
    cache instead of streaming every rating again. None off PostgreSQL (no MD5 and ordered string aggregate there):
    the comparisons are then read each time."""
    if connection.vendor != "postgresql":
        return None
    from django.contrib.postgres.aggregates import StringAgg

    h = hashlib.sha256(f"comparisons:v1\0{FIT_VERSION}\0".encode())
    for campaign in campaigns:
        basis = leaderboard_basis(campaign)
        h.update(json.dumps([campaign.pk, campaign.slug, campaign.kind, basis.how, basis.text,
                             campaign.rating_schema.definition, campaign.consensus_policy, campaign.consensus_params],
                            sort_keys=True, default=str).encode())
        if basis.how is None:
            continue
        answers = _basis_answers(basis)
        # A row value's text quotes any field with a separator or quote in it: one text per row, unambiguously.
        row = Cast(Func(F("id"), *map(F, ROW_COLUMNS), *map(F, answers), function="ROW", output_field=TextField()),
                   output_field=TextField())
        found = _campaign_ratings_rows(campaign, answers, None).aggregate(
            n=Count("id"), digest=MD5(StringAgg(row, delimiter="\n", order_by="id")))
        h.update(f"\0{found['n']}\0{found['digest'] or ''}\0".encode())
    return f"leaderboard:comparisons:v1:{h.hexdigest()}"


def _comparisons_read(campaigns: list[Campaign], pair_ids: np.ndarray | QuerySet | None) -> CampaignComparisons:
    """``model_comparisons``, kept in the cache under ``comparisons_fingerprint`` when the ratings did not change
    while they were read (the digest is taken before and after: a submit in between leaves nothing cached)."""
    key = comparisons_fingerprint(campaigns) if pair_ids is None else None
    if key is not None:
        found = cache.get(key)
        if found is not None:
            return found
    data = model_comparisons(campaigns=campaigns, pair_ids=pair_ids)
    if key is not None and comparisons_fingerprint(campaigns) == key:
        cache.set(key, data, CACHE_SECONDS)
    return data


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


def board_key(c: Comparisons, *, bootstrap: int, seed: int) -> str:
    """The cache key of the board of exactly these comparisons with this bootstrap and seed (a SHA-256 digest)."""
    h = hashlib.sha256(f"{FIT_VERSION}\0{bootstrap}\0{seed}\0{len(c)}\0".encode())
    h.update("\0".join(c.models).encode())
    for part in (c.model_a, c.model_b, c.outcome, c.left, c.pair):
        h.update(np.ascontiguousarray(part).tobytes())
    return f"leaderboard:v1:{h.hexdigest()}"


def check_bootstrap(bootstrap: object) -> None:
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or not 0 <= bootstrap <= MAX_BOOTSTRAP:
        raise ApplicationError(f"bootstrap must be a whole number from 0 to {MAX_BOOTSTRAP}", code="invalid_bootstrap")


def check_bootstrap_budget(c: Comparisons, *, bootstrap: int) -> None:
    """A curator's request may ask for at most ``CONCORD_LEADERBOARD_BOOTSTRAP_BUDGET`` pair draws (resamples ×
    pairs); beyond it, 400 ``bootstrap_over_budget`` with what is allowed, never a silently smaller bootstrap."""
    pairs = len(np.unique(c.pair))
    budget = settings.CONCORD_LEADERBOARD_BOOTSTRAP_BUDGET
    if bootstrap * pairs > budget:
        allowed = budget // max(pairs, 1)
        raise ApplicationError(
            f"{bootstrap:,} bootstrap resamples of {pairs:,} pairs are more than one request may compute "
            f"({budget:,} pair draws, CONCORD_LEADERBOARD_BOOTSTRAP_BUDGET); ask for at most {allowed:,}.",
            code="bootstrap_over_budget", extra={"bootstrap_allowed": allowed, "pairs": pairs},
        )


def stored_leaderboard(*, key: str) -> dict | None:
    """``{"board": …}`` when the board under ``key`` was fitted before (in the cache, or the result of a fit job
    finished less than a day ago, which a web process without the worker's cache reads); None when it never was."""
    found = cache.get(key)
    if found is not None:
        return found
    since = timezone.now() - timedelta(seconds=CACHE_SECONDS)
    job = (Job.objects.filter(kind=FIT_JOB_KIND, status=Job.Status.SUCCEEDED, result__digest=key, finished_at__gte=since)
           .order_by("-finished_at").only("result").first())
    if job is None or not isinstance(job.result, dict) or "board" not in job.result:
        return None
    found = {"board": job.result["board"]}
    cache.set(key, found, CACHE_SECONDS)
    return found


def fitted_leaderboard(c: Comparisons, *, bootstrap: int, seed: int,
                       progress: Callable[[int, int], None] | None = None) -> dict | None:
    """The leaderboard of exactly these comparisons (a dict, None with fewer than two models), fitted here unless
    the same comparisons were fitted with the same bootstrap and seed before.

    Background work only (a fit job, a release build): a request path never fits (``curation.services.leaderboard``).
    ``progress(done, total)`` hears per bootstrap resample.
    """
    key = board_key(c, bootstrap=bootstrap, seed=seed)
    found = stored_leaderboard(key=key)
    if found is not None:
        return found["board"]
    fitted = leaderboard(c, bootstrap=bootstrap, seed=seed, progress=progress)
    board = fitted.as_dict() if fitted else None
    cache.set(key, {"board": board}, CACHE_SECONDS)
    return board


@dataclass(frozen=True)
class LeaderboardScope:
    """The comparisons a leaderboard request fits (its campaigns, task kind and source) and what the page offers."""

    campaigns: list[Campaign]
    kind: str
    source: str
    comparisons: Comparisons
    kinds: list[str]
    sources: list[str]
    without_preference: list[str]
    basis: dict[str, str]

    def report(self, board: dict | None) -> dict:
        """The JSON of the API and the page around ``board``."""
        return {
            "campaigns": [c.slug for c in self.campaigns],
            "kind": self.kind,
            "source": self.source,
            "kinds": self.kinds,
            "sources": self.sources,
            "campaigns_without_preference": self.without_preference,
            "counted": self.basis,
            "leaderboard": board,
        }


def leaderboard_scope(*, campaigns: list[Campaign], kind: str = "", source: str = "",
                      pair_ids: np.ndarray | QuerySet | None = None) -> LeaderboardScope:
    """The campaigns' comparisons of one task kind and source benchmark (all when blank), read in one streamed query
    per campaign, or (the same ratings as a request before) from the cache after one aggregate query per campaign."""
    data = _comparisons_read(campaigns, pair_ids)
    keep = np.ones(len(data.comparisons), dtype=bool)
    present = sorted(set(data.kind.tolist()))
    if not kind and len(present) > 1:
        counts = ", ".join(f"{k}: {int(np.count_nonzero(data.kind == k)):,} ratings" for k in present)
        raise ApplicationError(
            f"these campaigns hold preferences of {len(present)} task kinds ({counts}); models of different kinds "
            "answered different prompts and are never ranked together: choose a kind",
            code="kind_required", extra={"kinds": present})
    if kind:
        keep &= data.kind == kind
    if source:
        keep &= data.source == source
    return LeaderboardScope(campaigns=campaigns, kind=kind, source=source, comparisons=data.comparisons.restrict(keep),
                            kinds=sorted(set(data.kind.tolist())),
                            sources=sorted(s for s in set(data.source.tolist()) if s),
                            without_preference=data.without_preference, basis=data.basis)


def model_leaderboard(*, campaigns: list[Campaign], kind: str = "", source: str = "", bootstrap: int = 200,
                      seed: int = 0, pair_ids: np.ndarray | QuerySet | None = None) -> dict:
    """The leaderboard of the campaigns' human preferences (optionally of one task kind or source benchmark), fitted
    here when not fitted before: for background work and scripts (a request path starts a fit job instead).

    Also lists the task kinds and sources present, so a page can offer the split, and the campaigns
    whose schema has no preference question. ``leaderboard`` is None with fewer than two models.
    """
    check_bootstrap(bootstrap)
    scope = leaderboard_scope(campaigns=campaigns, kind=kind, source=source, pair_ids=pair_ids)
    return scope.report(fitted_leaderboard(scope.comparisons, bootstrap=bootstrap, seed=seed))


def model_leaderboards_per_kind(*, campaigns: list[Campaign], pair_ids: np.ndarray | QuerySet | None = None,
                                bootstrap: int = 200, seed: int = 0) -> dict[str, dict | None]:
    """One leaderboard per task kind of the campaigns (kinds in order; None where fewer than two models were
    compared): models of different kinds answer different prompts and are never ranked together."""
    data = model_comparisons(campaigns=campaigns, pair_ids=pair_ids)
    kinds = sorted({c.kind for c in campaigns if c.slug not in data.without_preference})
    return {kind: fitted_leaderboard(data.comparisons.restrict(data.kind == kind), bootstrap=bootstrap, seed=seed)
            for kind in kinds}


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
    for entry in board.get("apart", []):
        score = "" if entry["score"] is None else f"{entry['score']:.4f}"
        writer.writerow(["apart: never compared with the ranked models", "", csv_safe(entry["model"]),
                         csv_safe(" ".join(entry["compared_with"])), "", "", "", entry["comparisons"], score, "", ""])
    if board.get("position_controlled", True):
        low, high = _ci(board["left_advantage_ci95"], 1)
        writer.writerow(["left_advantage", "", "", "", f"{board['left_advantage']:.1f}", low, high,
                         board["comparisons"], "", "", ""])
    return out.getvalue()
