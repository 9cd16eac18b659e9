"""The curator's queue of raters' reports on pairs: what was reported, by whom (a pseudonym), and the answer."""

from __future__ import annotations

import hashlib
import hmac

from django.conf import settings

from annotation.catalogue import content
from annotation.catalogue.models import Campaign
from annotation.workqueue.models import PairReport

REPORTS_PAGE = 200
PROMPT_EXCERPT = 200


def reporter_pseudonym(*, secret: str, campaign_id: int, annotator_id: int) -> str:
    """The rater's id in a campaign's reports: the same for all their reports there, another in another campaign,
    and naming no account (no username, no database id) without the site's secret."""
    subject = f"pair-report:{campaign_id}:{annotator_id}".encode()
    return "rater-" + hmac.new(secret.encode(), subject, hashlib.sha256).hexdigest()[:10]


def open_reports_count() -> int:
    """How many reports wait for a curator's answer, in every campaign."""
    return PairReport.objects.filter(status=PairReport.Status.OPEN).count()


def _reports():
    return PairReport.objects.select_related("campaign", "pair__prompt", "answered_by").order_by("created_at", "id")


def pair_reports_list(*, campaign: Campaign | None = None, status: str | None = PairReport.Status.OPEN,
                      limit: int = REPORTS_PAGE) -> list[dict]:
    """Reports, oldest first (one query): of ``campaign`` (every campaign when None), in ``status`` (every status
    when None). Each with its pair's status, the prompt's first text and the reporter's pseudonym, never their
    username."""
    reports = _reports()
    if campaign is not None:
        reports = reports.filter(campaign=campaign)
    if status:
        reports = reports.filter(status=status)
    secret = settings.SECRET_KEY
    return [_row(report, secret) for report in reports[:limit]]


def pair_report_row(*, report_id: int) -> dict | None:
    """One report as ``pair_reports_list`` shows it; None when there is none."""
    report = _reports().filter(pk=report_id).first()
    return None if report is None else _row(report, settings.SECRET_KEY)


def _row(report: PairReport, secret: str) -> dict:
    return {
        "id": report.pk,
        "campaign": report.campaign.slug,
        "campaign_name": report.campaign.name,
        "pair": report.pair_id,
        "pair_external_id": report.pair.external_id,
        "pair_status": report.pair.status,
        "pair_status_label": report.pair.get_status_display(),
        "prompt": content.plain_text(report.pair.prompt.content or [])[:PROMPT_EXCERPT],
        "reporter": reporter_pseudonym(secret=secret, campaign_id=report.campaign_id, annotator_id=report.reporter_id),
        "reason": report.reason,
        "reason_label": report.get_reason_display(),
        "note": report.note,
        "status": report.status,
        "answer": report.answer,
        "action": report.action,
        "action_label": report.get_action_display(),
        "answered_by": report.answered_by.username if report.answered_by else "",
        "created_at": report.created_at,
        "answered_at": report.answered_at,
    }
