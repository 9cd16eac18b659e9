"""The model leaderboard page: which model the human raters prefer, with intervals, win rates and a CSV.

A board never fitted before is fitted by a background job: the page shows its progress bar and reloads when it is
done (with eager tasks, the embedded default, the job has run and the page renders the board at once).
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpResponse
from django.views import View
from django.views.generic import TemplateView

from annotation.catalogue.models import Campaign, TaskKind
from core.errors import ApplicationError
from curation.selectors.leaderboard import leaderboard_campaigns, leaderboard_csv
from curation.services.leaderboard import LeaderboardAnswer, leaderboard_answer
from frontend.views.console import SLUG, CuratorRequiredMixin

PAGE_BOOTSTRAP = 200
FITTING_RETRY_SECONDS = 5


def _scope(query) -> dict:
    """The campaign, task kind and source a request asks for; unknown values are refused, not ignored."""
    slug, kind, source = query.get("campaign", ""), query.get("kind", ""), query.get("source", "")[:100]
    if slug and not SLUG.fullmatch(slug):
        raise ApplicationError("no such campaign", code="campaign_not_found", status_code=404)
    if kind and kind not in TaskKind.values:
        raise ApplicationError(f"unknown task kind {kind!r}", code="invalid_kind")
    return {"slug": slug, "kind": kind, "source": source}


def _answer(scope: dict, user) -> LeaderboardAnswer:
    campaigns = leaderboard_campaigns(slugs=[scope["slug"]] if scope["slug"] else None)
    return leaderboard_answer(campaigns=campaigns, kind=scope["kind"], source=scope["source"], bootstrap=PAGE_BOOTSTRAP,
                              created_by=user)


def _query(scope: dict) -> str:
    """The scope as the page's query string (the kind the page chose included), for its CSV link."""
    pairs = (("campaign", scope["slug"]), ("kind", scope["kind"]), ("source", scope["source"]))
    return urlencode({name: value for name, value in pairs if value})


def _refusal(exc: ApplicationError) -> HttpResponse:
    response = HttpResponse(exc.message, status=exc.status_code, content_type="text/plain; charset=utf-8")
    for name, value in exc.headers.items():
        response[name] = value
    return response


class ModelLeaderboardView(CuratorRequiredMixin, TemplateView):
    template_name = "frontend/console/leaderboard.html"

    def get(self, request, *args, **kwargs):
        try:
            scope = _scope(request.GET)
            try:
                answer = _answer(scope, request.user)
            except ApplicationError as exc:
                if exc.code != "kind_required":
                    raise
                # One board per task kind: without a kind chosen, the page shows the first kind's board and links
                # to the others; it never ranks models of different kinds together.
                scope = {**scope, "kind": exc.extra["kinds"][0], "kinds_present": exc.extra["kinds"]}
                answer = _answer(scope, request.user)
        except ApplicationError as exc:
            return _refusal(exc)
        report = answer.report
        board = report["leaderboard"]
        matrix = []
        if board:
            names = board["win_rate"]["models"]
            for i, name in enumerate(names):
                cells = [{"rate": board["win_rate"]["rows"][i][j], "ci95": board["win_rate"]["ci95"][i][j],
                          "n": board["pair_comparisons"]["rows"][i][j], "self": i == j} for j in range(len(names))]
                matrix.append({"model": name, "cells": cells})
        context = self.get_context_data(
            scope=scope, report=report, board=board, job=answer.job, matrix=matrix, query=_query(scope),
            campaigns=Campaign.objects.order_by("slug").only("slug", "name"), kinds=TaskKind.choices,
            chart={"models": board["models"]} if board else None,
        )
        return self.render_to_response(context)


class ModelLeaderboardCsvView(CuratorRequiredMixin, View):
    """The page's leaderboard as CSV, named for its scope."""

    def get(self, request):
        try:
            scope = _scope(request.GET)
            answer = _answer(scope, request.user)
        except ApplicationError as exc:
            return _refusal(exc)
        if answer.job is not None:
            return _refusal(ApplicationError(
                f"This leaderboard is being fitted in the background (job {answer.job.pk}); the leaderboard page shows "
                "its progress. Download the CSV once the board is shown.", code="leaderboard_fitting", status_code=503,
                headers={"Retry-After": str(FITTING_RETRY_SECONDS)}))
        report = answer.report
        name = "-".join(part for part in ("model-leaderboard", scope["slug"] or "all", scope["kind"]) if part)
        response = HttpResponse(leaderboard_csv(report), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
        return response
