"""Curator console pages: funnel, pair browser, pair detail with actions, dashboards, annotator drill-down.

Curators and admins only: anonymous visitors are sent to the login page, annotators get 403.
"""

from __future__ import annotations

import csv
import re
from pathlib import PurePosixPath

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.mixins import LoginRequiredMixin, UserPassesTestMixin
from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views import View
from django.views.generic import TemplateView

from annotation.catalogue import schemas
from annotation.catalogue.models import Campaign, Media, Pair
from annotation.catalogue.selectors import media_url
from core.errors import ApplicationError
from curation import quality
from curation.csv_cells import csv_safe
from curation.selectors import console as console_selectors
from curation.selectors.dashboards import (
    FIGURES,
    annotator_quality,
    dashboard_figure,
    human_position_bias,
    judge_human_agreement,
    judge_position_bias,
    judge_tallies,
)
from curation.selectors.judges import judges_list
from curation.services import curator_actions, threads
from curation.services.agreement import agreement_job_create
from curation.services.bulk_actions import BULK_ACTIONS, pairs_bulk_apply
from curation.services.consensus import ON_DISPUTE, consensus_job_create, pair_adjudicate
from curation.services.prefilter import prefilter_start

SLUG = re.compile(r"[-a-zA-Z0-9_]{1,100}")


class CuratorRequiredMixin(LoginRequiredMixin, UserPassesTestMixin):
    """Anonymous → the login page; a signed-in annotator → 403."""

    def test_func(self):
        return self.request.user.is_curator


def campaign_or_404(slug: str) -> Campaign:
    return get_object_or_404(Campaign.objects.select_related("rating_schema"), slug=slug)


class ConsoleHomeView(CuratorRequiredMixin, TemplateView):
    template_name = "frontend/console/home.html"

    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), "campaigns": console_selectors.campaigns_with_progress()}


class CampaignFunnelView(CuratorRequiredMixin, TemplateView):
    template_name = "frontend/console/campaign.html"

    def get_context_data(self, **kwargs):
        campaign = campaign_or_404(self.kwargs["slug"])
        funnel = console_selectors.campaign_funnel(campaign=campaign)
        agreement_run = funnel["last_runs"].get("agreement")
        return {
            **super().get_context_data(**kwargs),
            "campaign": campaign,
            "funnel": funnel,
            "agreement_headline": quality.agreement_points(agreement_run.result) if agreement_run else {},
            "judges": [judge for judge in judges_list() if judge.enabled],
            "on_dispute": ON_DISPUTE,
        }


class CampaignRunView(CuratorRequiredMixin, View):
    """POST: start one pipeline job of the campaign through its area's service, then show the overview.

    The overview follows the job's live progress and shows its result when it finishes. A job that
    cannot start (no enabled judge, an unknown judge) comes back as a message, and nothing is queued.
    """

    def post(self, request, slug: str, kind: str):
        campaign = campaign_or_404(slug)
        try:
            if kind == "prefilter":
                judges = [name for name in request.POST.getlist("judge") if name]
                job = prefilter_start(
                    campaign=campaign, judge_names=judges or None, force=request.POST.get("force") == "on",
                    created_by=request.user,
                )
                done = f"Pre-filter run #{job.pk} started."
            elif kind == "agreement":
                job = agreement_job_create(campaign=campaign, created_by=request.user)
                done = f"Agreement job #{job.pk} started."
            elif kind == "consensus":
                on_dispute = request.POST.get("on_dispute") or None
                if on_dispute is not None and on_dispute not in ON_DISPUTE:
                    raise ApplicationError(f"on a dispute choose one of {', '.join(ON_DISPUTE)}", code="invalid_on_dispute")
                job = consensus_job_create(campaign=campaign, created_by=request.user, on_dispute=on_dispute)
                done = f"Consensus job #{job.pk} started."
            else:
                raise Http404("no such job")
        except ApplicationError as exc:
            if exc.status_code == 404 and exc.code != "unknown_judge":
                raise Http404(exc.message) from exc
            messages.error(request, exc.message)
        else:
            messages.success(request, done)
        return HttpResponseRedirect(reverse("console-campaign", args=[campaign.slug]))


FILTER_FIELDS = ("status", "source", "judge_agreement_min", "judge_agreement_max", "human_agreement_min",
                 "human_agreement_max", "disputed", "gold", "sort", "q")


def filters_from_query(query) -> console_selectors.PairFilters:
    """PairFilters from a page's query string; a malformed number or flag is an ApplicationError."""
    values: dict = {}
    for name in FILTER_FIELDS:
        raw = query.get(name, "").strip()
        if not raw:
            continue
        if "\x00" in raw or len(raw) > 200:
            raise ApplicationError(f"{name} is not a valid filter value", code="invalid_filter")
        if name.endswith(("_min", "_max")):
            try:
                values[name] = float(raw)
            except ValueError as exc:
                raise ApplicationError(f"{name} must be a number between 0 and 1", code="invalid_filter") from exc
        elif name in ("disputed", "gold"):
            if raw not in ("yes", "no"):
                raise ApplicationError(f"{name} must be yes or no", code="invalid_filter")
            values[name] = raw == "yes"
        else:
            values[name] = raw
    return console_selectors.PairFilters(**values)


class PairBrowserView(CuratorRequiredMixin, TemplateView):
    template_name = "frontend/console/pairs.html"

    def get_context_data(self, **kwargs):
        campaign = campaign_or_404(self.kwargs["slug"])
        context = {
            **super().get_context_data(**kwargs),
            "campaign": campaign,
            "statuses": Pair.Status.choices,
            "sorts": list(console_selectors.SORTS),
            "sources": console_selectors.campaign_sources(campaign=campaign),
            "query": self.request.GET,
            "bulk_actions": BULK_ACTIONS,
            "back": self.request.GET.urlencode(),
        }
        try:
            filters = filters_from_query(self.request.GET)
            page = console_selectors.pair_browse(campaign=campaign, filters=filters, cursor=self.request.GET.get("cursor"))
        except ApplicationError as exc:
            self.response_status = 400
            return {**context, "error": exc.message, "rows": []}
        next_query = None
        if page.next_cursor:
            query = self.request.GET.copy()
            query["cursor"] = page.next_cursor
            next_query = query.urlencode()
        first_query = self.request.GET.copy()
        first_query.pop("cursor", None)
        return {**context, "rows": page.rows, "next_query": next_query, "first_query": first_query.urlencode(),
                "deep": bool(self.request.GET.get("cursor"))}

    def render_to_response(self, context, **response_kwargs):
        response_kwargs.setdefault("status", getattr(self, "response_status", 200))
        return super().render_to_response(context, **response_kwargs)


class PairBulkActionView(CuratorRequiredMixin, View):
    """POST one action for the pairs ticked in the browser; back to the same page with what happened to each."""

    def post(self, request, slug: str):
        campaign = campaign_or_404(slug)
        form = request.POST
        back = reverse("console-pairs", args=[campaign.slug]) + (f"?{form['back']}" if form.get("back") else "")
        try:
            ids = [int(v) for v in form.getlist("pair") if v.isdigit()]
            by = form.get("by", "1")
            if not by.isdigit():
                raise ApplicationError("extend the overlap by a whole number of at least 1", code="invalid_overlap")
            result = pairs_bulk_apply(campaign=campaign, pair_ids=ids, action=form.get("action", ""), actor=request.user,
                                      note=form.get("note", ""), by=int(by), side=form.get("side", ""))
        except ApplicationError as exc:
            messages.error(request, exc.message)
        else:
            (messages.warning if result.refused else messages.success)(request, result.summary())
        return HttpResponseRedirect(back)


def blocks_with_urls(blocks, media: dict[str, Media]) -> list[dict]:
    """Content blocks with a ``url`` on each media block, served by Concord's role-checked media view."""
    out = []
    for block in blocks or []:
        block = dict(block)
        stored = media.get(block.get("media", ""))
        if stored is not None:
            block["url"] = media_url(stored.sha256, PurePosixPath(stored.file.name).suffix.lstrip(".") or "bin")
        if block.get("type") == "reasoning":
            block["blocks"] = blocks_with_urls(block.get("blocks"), media)
        if block.get("type") == "tool_call":
            block["result"] = blocks_with_urls(block.get("result"), media)
        out.append(block)
    return out


ACTIONS = ("extend-overlap", "send-to-adjudication", "adjudicate", "mark-gold", "unmark-gold", "exclude", "restore")
ADJUDICATION_CHOICES = {"A": "A", "B": "B", "tie": "tie", "drop": None}


class PairDetailView(CuratorRequiredMixin, TemplateView):
    template_name = "frontend/console/pair_detail.html"

    def get_context_data(self, **kwargs):
        try:
            detail = console_selectors.pair_detail(pair_id=self.kwargs["pair_id"])
        except ApplicationError as exc:
            raise Http404(exc.message) from exc
        pair = detail.pair
        media = {m.sha256: m for m in pair.media.all()}
        return {
            **super().get_context_data(**kwargs),
            "detail": detail,
            "pair": pair,
            "prompt_blocks": blocks_with_urls(pair.prompt.content, media),
            "response_a_blocks": blocks_with_urls(pair.response_a.content, media),
            "response_b_blocks": blocks_with_urls(pair.response_b.content, media),
            "unrenderable": sorted((m for m in media.values() if m.render_error), key=lambda m: m.sha256),
            "max_extra": max(0, pair.campaign.max_overlap - pair.required_annotations),
            "in_annotation": pair.status in curator_actions.ANNOTATION_STATUSES,
            "offers_tie": schemas.offers_tie(pair.campaign.rating_schema.definition),
            "thread": threads.thread_messages(pair_id=pair.pk, viewer=self.request.user),
        }


class PairActionView(CuratorRequiredMixin, View):
    """POST one curator action from the pair page, then go back to it with a message saying what happened."""

    def post(self, request, pair_id: int, action: str):
        form = request.POST
        try:
            if action == "extend-overlap":
                by = form.get("by", "1")
                if not by.isdigit():
                    raise ApplicationError("extend the overlap by a whole number of at least 1", code="invalid_overlap")
                curator_actions.pair_extend_overlap(pair_id=pair_id, by=int(by), note=form.get("note", ""), actor=request.user)
                done = "Overlap extended; the pair is back in the queue."
            elif action == "send-to-adjudication":
                curator_actions.pair_send_to_adjudication(pair_id=pair_id, note=form.get("note", ""), actor=request.user)
                done = "Sent to adjudication."
            elif action == "adjudicate":
                choice = form.get("chosen", "")
                if choice not in ADJUDICATION_CHOICES:
                    raise ApplicationError("choose A, B, tie, or drop the pair", code="invalid_chosen")
                pair_adjudicate(pair_id=pair_id, curator=request.user, chosen=ADJUDICATION_CHOICES[choice],
                                note=form.get("note", ""))
                done = {"drop": "Adjudicated: dropped.", "tie": "Adjudicated: kept as a tie."}.get(
                    choice, f"Adjudicated: {choice} preferred.")
            elif action == "mark-gold":
                curator_actions.pair_mark_gold(
                    pair_id=pair_id, side=form.get("side", ""), note=form.get("note", ""), actor=request.user
                )
                done = f"Marked gold; the expected answer is {form.get('side')}."
            elif action == "unmark-gold":
                curator_actions.pair_unmark_gold(pair_id=pair_id, actor=request.user)
                done = "No longer gold."
            elif action == "exclude":
                curator_actions.pair_exclude(pair_id=pair_id, reason=form.get("reason", ""), actor=request.user)
                done = "Excluded."
            elif action == "comment":
                threads.thread_post(pair_id=pair_id, author=request.user, body=form.get("body", ""))
                done = "Message posted."
            elif action == "invite-raters":
                invited = threads.thread_invite_raters(pair_id=pair_id, curator=request.user)
                done = (f"Invited {invited['invited']} rater{'s' if invited['invited'] != 1 else ''} into the discussion"
                        + (f" ({invited['already_invited']} were already)." if invited["already_invited"] else "."))
            elif action == "restore":
                curator_actions.pair_restore(pair_id=pair_id, note=form.get("note", ""), actor=request.user)
                done = "Restored."
            else:
                raise Http404("no such action")
        except ApplicationError as exc:
            if exc.status_code == 404:
                raise Http404(exc.message) from exc
            messages.error(request, exc.message)
        else:
            messages.success(request, done)
        return HttpResponseRedirect(reverse("console-pair", args=[pair_id]))


def _figure_scope(request) -> Campaign | None:
    slug = request.GET.get("campaign", "")
    if slug and not SLUG.fullmatch(slug):
        raise Http404("no such campaign")
    return campaign_or_404(slug) if slug else None


class DashboardsView(CuratorRequiredMixin, TemplateView):
    template_name = "frontend/console/dashboards.html"

    def get_context_data(self, **kwargs):
        campaign = _figure_scope(self.request)
        shared = ("annotators", "human-position-bias", "judge-human-agreement", "judge-position-bias")
        figures = {name: dashboard_figure(name=name, campaign=campaign) for name in FIGURES if name not in shared}
        figures["annotators"] = annotator_quality(campaign=campaign)
        figures["human-position-bias"] = human_position_bias(campaign=campaign, annotators=figures["annotators"])
        tallies = judge_tallies(campaign=campaign)
        figures["judge-human-agreement"] = judge_human_agreement(campaign=campaign, tallies=tallies)
        figures["judge-position-bias"] = judge_position_bias(campaign=campaign, tallies=tallies)
        figures = {name: figures[name] for name in FIGURES}
        return {
            **super().get_context_data(**kwargs),
            "campaign": campaign,
            "campaigns": Campaign.objects.order_by("slug").only("slug", "name"),
            "figures": figures,
            "charts": {name: {"title": f.title, "columns": list(f.columns), "rows": f.rows} for name, f in figures.items()},
        }


class DashboardCsvView(CuratorRequiredMixin, View):
    """One figure as CSV, named for the figure and the campaign it covers."""

    def get(self, request, figure: str):
        campaign = _figure_scope(request)
        result = dashboard_figure(name=figure, campaign=campaign)
        if result is None:
            raise Http404("no such figure")
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{result.name}-{campaign.slug if campaign else "all"}.csv"'
        writer = csv.DictWriter(response, fieldnames=result.columns, extrasaction="ignore")
        writer.writeheader()
        for row in result.rows:
            writer.writerow({key: csv_safe(value) for key, value in row.items()})
        return response


class AnnotatorView(CuratorRequiredMixin, TemplateView):
    template_name = "frontend/console/annotator.html"

    def get_context_data(self, **kwargs):
        annotator = get_object_or_404(get_user_model(), pk=self.kwargs["user_id"])
        return {
            **super().get_context_data(**kwargs),
            "annotator": annotator,
            "rows": console_selectors.annotator_recent_work(annotator_id=annotator.pk, limit=100),
        }
