"""Read queries for releases, their files and the judges evaluated against them."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from annotation.catalogue.models import Campaign
from core.errors import ApplicationError
from curation.models import JudgeEvaluation, Release
from curation.releases.card import parse_version


def release_list() -> QuerySet[Release]:
    """Every release, newest first, with its campaigns' slugs prefetched."""
    return (
        Release.objects.select_related("job")
        .prefetch_related(Prefetch("campaigns", queryset=Campaign.objects.only("id", "slug").order_by("slug")))
        .order_by("name", "-created_at")
    )


def release_parse_ref(ref: str) -> tuple[str, str]:
    """``NAME@X.Y.Z`` → (name, version); ApplicationError when malformed."""
    name, sep, version = (ref or "").partition("@")
    if not sep or not name or parse_version(version) is None:
        raise ApplicationError(f"{ref!r} is not a release reference; write NAME@X.Y.Z", code="release_bad_ref")
    return name, version


def release_get(*, name: str, version: str, published: bool = False) -> Release:
    """The release NAME@VERSION (published only, when asked); ApplicationError 404 otherwise."""
    release = Release.objects.filter(name=name, version=version).first()
    if release is None:
        raise ApplicationError(f"no release {name}@{version}", code="release_not_found", status_code=404)
    if published and release.status != Release.Status.PUBLISHED:
        raise ApplicationError(
            f"{release} is {release.status}, not published" + (f": {release.error}" if release.error else ""),
            code="release_not_published", status_code=409,
        )
    return release


def release_previous(release: Release) -> Release | None:
    """The published release of the same name with the highest version below this one's."""
    mine = parse_version(release.version)
    candidates = [
        (parse_version(r.version), r)
        for r in Release.objects.filter(name=release.name, status=Release.Status.PUBLISHED).exclude(pk=release.pk)
    ]
    lower = [(v, r) for v, r in candidates if v is not None and v < mine]
    return max(lower, key=lambda item: item[0])[1] if lower else None


def release_leaderboard(*, release: Release) -> dict:
    """The latest evaluation of every judge on the release, best first, beside the humans' agreement."""
    latest: dict[str, JudgeEvaluation] = {}
    for evaluation in JudgeEvaluation.objects.filter(release=release).order_by("judge_name", "-created_at", "-id"):
        latest.setdefault(evaluation.judge_name, evaluation)
    judges = sorted(latest.values(), key=lambda e: (-(e.scores.get("accuracy") or 0), e.judge_name))
    summary = release.summary or {}
    tasks = sorted(summary.get("per_task", {}))
    return {
        "release": str(release),
        "tasks": tasks,
        "human_agreement": summary.get("human_agreement", {}),
        "judges": [
            {
                "judge": e.judge_name,
                "format": e.format,
                "evaluated_at": e.created_at.isoformat(),
                "accuracy": e.scores.get("accuracy"),
                "ci95": e.scores.get("ci95"),
                "with_ties": e.scores.get("with_ties"),
                "without_ties": e.scores.get("without_ties"),
                "without_ties_from": e.scores.get("without_ties_from"),
                "tie_calibrated_accuracy": e.scores.get("tie_calibrated_accuracy"),
                "tie_calibrated_ci95": e.scores.get("tie_calibrated_ci95"),
                "tie_epsilon": e.scores.get("tie_epsilon"),
                "macro_by_source": (e.scores.get("macro_by_source") or {}).get("accuracy"),
                "files": e.scores.get("files", {}),
                "position_consistency": e.scores.get("position_consistency"),
                "evaluated": e.scores.get("evaluated"),
                "missing": e.scores.get("missing"),
                "per_task": {
                    task: {"accuracy": v.get("accuracy"), "ci95": v.get("ci95")}
                    for task, v in e.scores.get("per_task", {}).items()
                },
            }
            for e in judges
        ],
    }
