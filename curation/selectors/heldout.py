"""Read queries for held-out submissions: a release's teams, a team's submissions, the published results."""

from __future__ import annotations

from django.db.models import Count, Max, Q, QuerySet

from curation.models import Release, Submission, SubmissionTeam


def submission_teams(*, release: Release) -> QuerySet[SubmissionTeam]:
    """The release's teams by name, with their scored submissions counted (never their token)."""
    return (SubmissionTeam.objects.filter(release=release).order_by("name")
            .annotate(scored=Count("submissions", filter=Q(submissions__status=Submission.Status.SCORED)),
                      last_submission=Max("submissions__created_at")))


def team_submissions(*, team: SubmissionTeam) -> QuerySet[Submission]:
    """A team's own submissions, newest first."""
    return Submission.objects.filter(team=team).order_by("-created_at", "-id")


def heldout_leaderboard(*, release: Release) -> list[dict]:
    """The results teams published on the release's private split, best first: aggregate figures only."""
    published = Submission.objects.filter(release=release, published=True).select_related("team").order_by(
        "-published_at", "-id")
    rows = [
        {"team": s.team.name, "judge": s.judge_name, "format": s.format, "submitted_at": s.created_at.isoformat(),
         "published_at": s.published_at.isoformat() if s.published_at else None,
         "accuracy": s.scores.get("accuracy"), "ci95": s.scores.get("ci95"),
         "without_ties": s.scores.get("without_ties") if s.format == "omnireward" else None,
         "evaluated": s.scores.get("evaluated"), "missing": s.scores.get("missing"),
         "per_task": {task: {"accuracy": f.get("accuracy"), "ci95": f.get("ci95")}
                      for task, f in s.scores.get("per_task", {}).items()}}
        for s in published
    ]
    return sorted(rows, key=lambda r: (-(r["accuracy"] or 0), r["team"], r["judge"]))


# What anyone may read of a release's split: its size and how it was drawn (as the card says), never which items.
PUBLIC_SPLIT = ("items", "fraction", "seed", "stratified_by", "per_task")


def heldout_public_split(*, release: Release) -> dict | None:
    """What the release's card says of its private split (None without one): how many items, per task, and how
    they were drawn."""
    split = (release.summary or {}).get("heldout")
    return {key: split[key] for key in PUBLIC_SPLIT if key in split} if split else None
