"""Agreement drill-down pages: per question, per answer, the most disputed pairs and per annotator, each with CSV."""

from __future__ import annotations

import csv

from django.http import Http404, HttpResponse
from django.views import View
from django.views.generic import TemplateView

from curation.csv_cells import csv_safe
from curation.selectors.agreement_drilldown import SECTIONS, WILSON_NOTE, agreement_drilldown
from frontend.views.console import CuratorRequiredMixin, campaign_or_404


def _slice(request, slices: list[str]) -> str:
    key = request.GET.get("slice", "")
    if key and key not in slices:
        raise Http404("no agreement report for that slice")
    return key


class AgreementView(CuratorRequiredMixin, TemplateView):
    template_name = "frontend/console/agreement.html"

    def get_context_data(self, **kwargs):
        campaign = campaign_or_404(self.kwargs["slug"])
        data = agreement_drilldown(campaign=campaign)
        key = _slice(self.request, data["slices"])
        if key:
            data = agreement_drilldown(campaign=campaign, slice_key=key)
        return {**super().get_context_data(**kwargs), "campaign": campaign, "data": data, "wilson_note": WILSON_NOTE}


class AgreementCsvView(CuratorRequiredMixin, View):
    """One drill-down table as CSV, named for the campaign, slice and section."""

    def get(self, request, slug: str, section: str):
        if section not in SECTIONS:
            raise Http404("no such table")
        campaign = campaign_or_404(slug)
        data = agreement_drilldown(campaign=campaign)
        key = _slice(request, data["slices"])
        if key:
            data = agreement_drilldown(campaign=campaign, slice_key=key)
        if data["report"] is None:
            raise Http404("no agreement report yet; compute agreement first")
        rows = data[section]
        name = "-".join(part for part in (campaign.slug, "agreement", section, key.replace("=", "-")) if part)
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
        if rows:
            writer = csv.DictWriter(response, fieldnames=list(rows[0]))
            writer.writeheader()
            for row in rows:
                writer.writerow({k: csv_safe(v) for k, v in row.items()})
        return response
