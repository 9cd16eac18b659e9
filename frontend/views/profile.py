"""The rater profile in the workspace, the crowd entry link, and the curator's pages for both and for hours.

Views read the form, call one service or selector, and render; the rules live in
``annotation.workqueue.services.profile``, ``annotation.workqueue.services.crowd`` and ``annotation.workqueue.hours``.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views import View

from annotation.catalogue.selectors import campaigns_for_user
from annotation.workqueue.hours import hours_csv
from annotation.workqueue.models import CrowdEntryLink, Questionnaire
from annotation.workqueue.profile import DEFAULT_QUESTIONS, answer_matches
from annotation.workqueue.selectors import campaign_hours, campaign_questionnaire, profile_answers
from annotation.workqueue.services.crowd import (
    PROLIFIC_PLACEHOLDERS,
    crowd_enter,
    crowd_ids_check,
    crowd_link_create,
    crowd_link_deactivate,
)
from annotation.workqueue.services.profile import (
    campaign_questionnaire_set,
    profile_answer_save,
    questionnaire_create,
)
from core.errors import ApplicationError
from frontend.views.console import CuratorRequiredMixin, campaign_or_404

BACKEND = "annotation.accounts.backends.UserBackend"


def profile_fields(questions: list[dict], answers: dict | None) -> list[dict]:
    """The questions as the form shows them, with what was answered (or typed before a refusal) filled in."""
    answers = answers or {}
    fields = []
    for q in questions:
        value = answers.get(q["id"])
        shown = ", ".join(value) if q["kind"] == "list" and isinstance(value, list) else value
        fields.append({**q, "value": "" if shown is None else shown,
                       "chosen": set(value) if q["kind"] == "choices" and isinstance(value, list) else set()})
    return fields


def profile_line(answers: dict | None, questions: list[dict] | None = None) -> str:
    """A rater's answers on one line for the console ("expertise: Photography, Video · years: 5"), in the
    questionnaire's order when its questions are given."""
    if not answers:
        return ""
    order = [q["id"] for q in questions] if questions else list(answers)
    parts = []
    for qid in order:
        if qid in answers:
            value = answers[qid]
            parts.append(f"{qid}: {', '.join(value) if isinstance(value, list) else value}")
    return " · ".join(parts)


def members_with_profiles(campaign, answer_filter: str) -> tuple[list[dict], object]:
    """The campaign's members with their answers to its questionnaire (one line each), kept by ``answer_filter``
    (``QUESTION:VALUE``, see ``profile.answer_matches``); and the questionnaire (None when it asks none)."""
    questionnaire = campaign_questionnaire(campaign=campaign)
    qid, _, wanted = (answer_filter or "").partition(":")
    members = list(campaign.members.order_by("username").values_list("pk", "username", "role"))
    answers = profile_answers(questionnaire=questionnaire, users=[m[0] for m in members]) if questionnaire else {}
    rows = [{"username": name, "role": role, "answers": answers.get(pk),
             "line": profile_line(answers.get(pk), questionnaire.questions if questionnaire else None)}
            for pk, name, role in members if not qid or answer_matches(answers.get(pk) or {}, qid, wanted)]
    return rows, questionnaire


def people_profiles(accounts, answer_filter: str) -> list:
    """The People page's accounts, each with ``profile_lines`` (one per questionnaire answered), only those whose
    answers to some questionnaire match ``answer_filter`` (``QUESTION:VALUE``) when it is given."""
    from annotation.workqueue.models import ProfileAnswer

    people = list(accounts)
    found: dict[int, list] = {}
    rows = ProfileAnswer.objects.filter(user__in=[p.pk for p in people]).select_related("questionnaire")
    for answer in rows.order_by("questionnaire__slug"):
        found.setdefault(answer.user_id, []).append(answer)
    qid, _, wanted = (answer_filter or "").partition(":")
    kept = []
    for person in people:
        answers = found.get(person.pk, [])
        if qid and not any(answer_matches(a.answers, qid, wanted) for a in answers):
            continue
        person.profile_lines = [f"{a.questionnaire.slug}: {profile_line(a.answers, a.questionnaire.questions)}"
                                for a in answers]
        kept.append(person)
    return kept


def raw_answers(questions: list[dict], form) -> dict:
    """A posted form's values by question id, as ``profile.answers_clean`` takes them (unknown fields left out)."""
    raw = {}
    for q in questions:
        if q["kind"] == "choices":
            raw[q["id"]] = form.getlist(q["id"])
        else:
            raw[q["id"]] = form.get(q["id"], "")
    return raw


class ProfileView(LoginRequiredMixin, View):
    """The campaign's rater profile, asked before the first pair: saved, it goes straight on to the first pair."""

    template_name = "frontend/workspace/profile.html"

    def _campaign(self, request, slug: str):
        return get_object_or_404(campaigns_for_user(user=request.user).filter(members=request.user), slug=slug)

    def _render(self, request, campaign, questionnaire, answers, *, error: str = "", status: int = 200):
        context = {"campaign": campaign, "questionnaire": questionnaire, "error": error,
                   "fields": profile_fields(questionnaire.questions, answers)}
        return TemplateResponse(request, self.template_name, context, status=status)

    def get(self, request, slug: str):
        campaign = self._campaign(request, slug)
        questionnaire = campaign_questionnaire(campaign=campaign)
        if questionnaire is None:
            return redirect("workspace-queue", slug=campaign.slug)
        answers = profile_answers(questionnaire=questionnaire, users=[request.user]).get(request.user.pk)
        return self._render(request, campaign, questionnaire, answers)

    def post(self, request, slug: str):
        from frontend.views.workspace import NextPairView

        campaign = self._campaign(request, slug)
        questionnaire = campaign_questionnaire(campaign=campaign)
        if questionnaire is None:
            return redirect("workspace-queue", slug=campaign.slug)
        raw = raw_answers(questionnaire.questions, request.POST)
        try:
            profile_answer_save(user=request.user, questionnaire=questionnaire, raw=raw)
        except ApplicationError as exc:
            return self._render(request, campaign, questionnaire, raw, error=exc.message, status=400)
        page = NextPairView()
        page.setup(request, slug=campaign.slug)
        return page.post(request, slug=campaign.slug)


class CrowdEntryView(View):
    """``/crowd/<token>/?PROLIFIC_PID=…&STUDY_ID=…&SESSION_ID=…``: signs the participant in (a new account the first
    time), then their profile, their queue, or the completion URL once their quota is done. Bad ids: 400 saying
    which and why."""

    def get(self, request, token: str):
        try:
            participant, study, session = crowd_ids_check(dict(request.GET.lists()))
            entered = crowd_enter(token=token, participant_id=participant, study_id=study, session_id=session)
        except ApplicationError as exc:
            return TemplateResponse(request, "frontend/errors/error.html", {
                "status": exc.status_code, "heading": "This entry link cannot be used",
                "explanation": exc.message}, status=exc.status_code)
        login(request, entered.user, backend=BACKEND)
        if entered.quota_done:
            return HttpResponseRedirect(entered.entry.link.completion_url)
        campaign = entered.entry.link.campaign
        questionnaire = campaign_questionnaire(campaign=campaign)
        if questionnaire is not None and not profile_answers(questionnaire=questionnaire, users=[entered.user]):
            return redirect("workspace-profile", slug=campaign.slug)
        return redirect("workspace-queue", slug=campaign.slug)


class CampaignProfileSetupView(CuratorRequiredMixin, View):
    """The console's page for a campaign's rater profile, crowd entry links and hours: choose or define the
    questionnaire, read and filter the members' answers, make links, download hours."""

    template_name = "frontend/console/profile.html"

    def _context(self, request, campaign, **extra) -> dict:
        rows, questionnaire = members_with_profiles(campaign, request.GET.get("answer", ""))
        links = [{"link": link, "url": request.build_absolute_uri(reverse("crowd-entry", args=[link.token]))
                  + PROLIFIC_PLACEHOLDERS,
                  "entries": link.entries.count(), "completed": link.entries.filter(completed_at__isnull=False).count()}
                 for link in CrowdEntryLink.objects.filter(campaign=campaign).order_by("-created_at")]
        return {"campaign": campaign, "questionnaire": questionnaire, "questionnaires": Questionnaire.objects.order_by("slug"),
                "rows": rows, "answer_filter": request.GET.get("answer", ""), "links": links,
                "default_questions": json.dumps(DEFAULT_QUESTIONS, indent=1), **extra}

    def get(self, request, slug: str):
        return TemplateResponse(request, self.template_name, self._context(request, campaign_or_404(slug)))

    def post(self, request, slug: str):
        campaign = campaign_or_404(slug)
        form = request.POST
        try:
            action = form.get("action")
            if action == "create":
                try:
                    questions = json.loads(form.get("questions", ""))
                except ValueError as exc:
                    raise ApplicationError(f"the questions are not JSON: {exc}", code="invalid_questionnaire") from exc
                made = questionnaire_create(slug=form.get("slug", ""), title=form.get("title", ""), questions=questions,
                                            intro=form.get("intro", ""), created_by=request.user)
                campaign_questionnaire_set(campaign=campaign, questionnaire=made)
                messages.success(request, f"Questionnaire {made.slug} created; this campaign asks it before the first "
                                          "pair.")
            elif action == "use":
                chosen = form.get("questionnaire", "")
                questionnaire = Questionnaire.objects.filter(slug=chosen).first() if chosen else None
                if chosen and questionnaire is None:
                    raise ApplicationError(f"no questionnaire named {chosen[:80]!r}", code="not_found", status_code=404)
                campaign_questionnaire_set(campaign=campaign, questionnaire=questionnaire)
                messages.success(request, f"This campaign asks {questionnaire.slug}." if questionnaire
                                 else "This campaign asks no rater profile.")
            elif action == "crowd-link":
                try:
                    quota = int(form.get("quota", ""))
                except ValueError:
                    raise ApplicationError("the quota is a whole number of pairs", code="invalid_crowd_link") from None
                crowd_link_create(campaign=campaign, completion_url=form.get("completion_url", ""), quota=quota,
                                  study_id=form.get("study_id", ""), created_by=request.user)
                messages.success(request, "Crowd entry link created.")
            elif action == "close-link":
                link = get_object_or_404(CrowdEntryLink, campaign=campaign, pk=form.get("link") or 0)
                crowd_link_deactivate(link=link)
                messages.success(request, "Entry link closed.")
            else:
                raise ApplicationError("unknown action", code="invalid")
        except ApplicationError as exc:
            return TemplateResponse(request, self.template_name,
                                    self._context(request, campaign, error=exc.message, values=form),
                                    status=exc.status_code)
        return HttpResponseRedirect(reverse("console-campaign-profile", args=[campaign.slug]))


class CampaignHoursCsvView(CuratorRequiredMixin, View):
    """Each rater's active time, output and gold score as CSV (``?idle_minutes=``), for paying them."""

    def get(self, request, slug: str):
        from annotation.workqueue.api.profile import idle_minutes_from

        campaign = campaign_or_404(slug)
        try:
            minutes = idle_minutes_from(request.GET.get("idle_minutes"))
        except ApplicationError as exc:
            return HttpResponse(exc.message, status=400, content_type="text/plain; charset=utf-8")
        response = HttpResponse(hours_csv(campaign_hours(campaign=campaign, idle_minutes=minutes)),
                                content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{campaign.slug}-hours-idle{minutes:g}m.csv"'
        return response
