"""The console's queue of raters' reports on pairs: read them, answer them, exclude a pair or mark it fixed.

Curators and admins only, as every console page. Views validate, call one service or selector, and render.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpResponseRedirect
from django.urls import reverse
from django.views import View
from django.views.generic import TemplateView

from annotation.catalogue.models import Campaign
from annotation.workqueue.models import PairReport
from core.errors import ApplicationError
from curation.selectors.reports import pair_reports_list
from curation.services.reports import REPORT_ANSWER_MAX, pair_report_answer
from frontend.views.console import SLUG, CuratorRequiredMixin, campaign_or_404

DONE = {"none": "Answered; the rater sees it in My work.", "exclude": "Answered, and the pair is excluded.",
        "fixed": "Answered, and the report is closed as fixed."}


def _scope(query) -> dict[str, str]:
    """The page's filters from ``query``: a campaign slug ("" for all) and a status ("all" for every one)."""
    slug, status = query.get("campaign", ""), query.get("status", PairReport.Status.OPEN)
    if slug and not SLUG.fullmatch(slug):
        raise Http404("no such campaign")
    if status not in (*PairReport.Status.values, "all"):
        status = PairReport.Status.OPEN
    return {"campaign": slug, "status": status}


class PairReportsView(CuratorRequiredMixin, TemplateView):
    """Reports, oldest first: open ones unless the filter says otherwise, of one campaign or all."""

    template_name = "frontend/console/reports.html"

    def get_context_data(self, **kwargs):
        scope = _scope(self.request.GET)
        campaign = campaign_or_404(scope["campaign"]) if scope["campaign"] else None
        reports = pair_reports_list(campaign=campaign, status=None if scope["status"] == "all" else scope["status"])
        return {
            **super().get_context_data(**kwargs),
            "scope": scope,
            "campaign": campaign,
            "campaigns": Campaign.objects.order_by("slug").only("slug", "name"),
            "statuses": PairReport.Status.choices,
            "reports": reports,
            "answer_max": REPORT_ANSWER_MAX,
        }


class PairReportAnswerView(CuratorRequiredMixin, View):
    """POST a curator's answer to one report (with ``action`` none, exclude or fixed), then back to the queue."""

    def post(self, request, report_id: int):
        action = request.POST.get("action", "none")
        try:
            pair_report_answer(report_id=report_id, answer=request.POST.get("answer", ""), action=action,
                               actor=request.user)
        except ApplicationError as exc:
            if exc.status_code == 404:
                raise Http404(exc.message) from exc
            messages.error(request, exc.message)
        else:
            messages.success(request, DONE[action])
        scope = _scope(request.POST)
        return HttpResponseRedirect(f"{reverse('console-reports')}?{urlencode(scope)}")
