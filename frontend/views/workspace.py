"""The annotator's pages: campaigns, a campaign's queue, the annotation page, and their own record.

Views validate, call one engine service or selector, and render; the engine lives in
``annotation.workqueue.services.assignments`` and ``annotation.workqueue.selectors``.
"""

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views import View
from django.views.generic import TemplateView

from annotation.catalogue.models import TaskKind
from annotation.catalogue.selectors import campaigns_for_user
from annotation.workqueue.consistency import can_contradict
from annotation.workqueue.models import Assignment, PairReport
from annotation.workqueue.playback import FULL_PLAYBACK_TOLERANCE
from annotation.workqueue.selectors import (
    annotator_stats,
    assignment_for_annotator,
    blind_mask,
    campaign_has_work_for,
    my_reports,
    my_work,
    pair_display,
    review_display,
)
from annotation.workqueue.services.assignments import assignment_claim
from annotation.workqueue.services.preview import pair_preview_next
from annotation.workqueue.services.qualification import qualification_state, rater_admission
from annotation.workqueue.services.reports import REPORT_NOTE_MAX
from core.errors import ApplicationError
from curation.services import threads
from frontend.templatetags.workspace import IMAGE_SIZES

SKIP_REASONS = [
    ("outside_expertise", "I cannot judge this (outside my expertise or language)"),
    ("media_broken", "An image, video or audio does not load or play"),
    ("prompt_invalid", "The prompt is invalid, unanswerable or offensive"),
    ("responses_identical", "The two responses are identical"),
    ("other", "Other (say why)"),
]
INSTRUCTIONS_SEEN = "workspace_instructions_seen"
ADMISSION_REFUSALS = ("qualification_required", "paused_recalibrate")


def _member_campaign(user, slug: str):
    return get_object_or_404(campaigns_for_user(user=user).filter(members=user), slug=slug)


class CampaignListView(LoginRequiredMixin, TemplateView):
    """The campaigns an annotator belongs to, with their own progress in each."""

    template_name = "frontend/workspace/campaigns.html"

    def get_context_data(self, **kwargs):
        stats = annotator_stats(annotator=self.request.user)
        return {**super().get_context_data(**kwargs), "stats": stats}


class QueueView(LoginRequiredMixin, TemplateView):
    """One campaign's queue: progress, instructions (open on the first visit), and the way in."""

    template_name = "frontend/workspace/queue.html"

    def get_context_data(self, **kwargs):
        campaign = _member_campaign(self.request.user, self.kwargs["slug"])
        stats = annotator_stats(annotator=self.request.user, campaign=campaign)
        seen = campaign.slug in self.request.session.get(INSTRUCTIONS_SEEN, [])
        return {
            **super().get_context_data(**kwargs),
            "campaign": campaign,
            "kind_label": TaskKind(campaign.kind).label,
            "progress": stats["campaigns"][0],
            "has_work": stats["campaigns"][0]["has_open_assignment"]
            or campaign_has_work_for(campaign=campaign, annotator=self.request.user),
            "show_instructions": bool(campaign.instructions) and not seen,
            "admission": rater_admission(user=self.request.user, campaign=campaign),
        }


# The pages of one assignment, as patterns: a page prepared ahead learns its assignment from the claim.
ASSIGNMENT_ROUTES = {"draft": "api-assignment-draft", "submit": "api-assignment-submit", "skip": "api-assignment-skip",
                     "renewal": "api-assignment-renewal", "report": "api-assignment-report",
                     "check": "api-answers-check",
                     "page": "workspace-annotate"}


def assignment_urls(assignment_id: int | str) -> dict[str, str]:
    """The draft, submit, skip, renewal, report and check API and the page of one assignment; ``"{assignment}"`` gives
    the patterns."""
    return {name: reverse(route, args=[0]).replace("/0/", f"/{assignment_id}/") for name, route in ASSIGNMENT_ROUTES.items()}


class AnnotationPage(LoginRequiredMixin, TemplateView):
    """The annotation page of one pair: blind, side by side, with the rating form; the rest happens over the API.

    ``page_context`` renders a claimed assignment, or (``assignment`` None) the pair the next claim most likely gives,
    prepared ahead: its script claims when it is shown and keeps the page if the claim gave that very pair.
    """

    template_name = "frontend/workspace/annotate.html"

    def page_context(self, campaign, display: dict, *, show_instructions: bool) -> dict:
        assignment = display["assignment"]
        # A page prepared ahead reads the rater's progress once its claim is answered (the figures would be one
        # submission old by then): only a claimed page is given them here.
        progress = annotator_stats(annotator=self.request.user, campaign=campaign)["campaigns"][0] if assignment else None
        config = {
            "assignment": assignment,
            "pair_key": display["pair_key"],
            "urls": {
                **(assignment_urls(assignment) if assignment else {}),
                "claim": reverse("api-assignment-claim", args=[campaign.slug]),
                "next": reverse("workspace-next", args=[campaign.slug]),
                "queue": reverse("workspace-queue", args=[campaign.slug]),
                "stats": f"{reverse('api-my-stats')}?campaign={campaign.slug}",
            },
            "assignment_urls": assignment_urls("{assignment}"),
            "image_sizes": IMAGE_SIZES,
            "show_instructions": show_instructions,
            "lease_minutes": campaign.lease_minutes,
            "requires_full_playback": campaign.requires_full_playback,
            "full_playback_share": FULL_PLAYBACK_TOLERANCE,
            # Whether a submit asks the answers check first (consistency.js): only where answers can contradict.
            "consistency_check": can_contradict(display["schema"]),
            # For wavesurfer.js's own <style> (see core.web.csp); absent where the policy middleware did not run.
            "style_nonce": getattr(self.request, "csp_nonce", ""),
        }
        return {
            "campaign": campaign,
            "kind_label": TaskKind(campaign.kind).label,
            "display": display,
            "progress": progress,
            "config": config,
            "skip_reasons": SKIP_REASONS,
            "report_reasons": PairReport.Reason.choices,
            "report_note_max": REPORT_NOTE_MAX,
        }


class NextPairView(AnnotationPage):
    """GET: the pair the next claim most likely gives, as its page, prepared ahead (no lease is taken; 204 when
    nothing is left). The open page loads it in the background and shows it at "Next pair" while it claims.

    POST: resume the annotator's open pair or claim the next one, then show it (a browser that has no prepared page);
    a rater who owes the campaign's profile goes to it, a crowd rater whose quota is done to the completion URL.
    """

    def get(self, request, slug: str):
        campaign = _member_campaign(request.user, slug)
        try:
            display = pair_preview_next(campaign=campaign, annotator=request.user)
        except ApplicationError:
            return HttpResponse(status=204)  # refused as the claim is: the claim at "Next pair" then says why
        if display is None:
            return HttpResponse(status=204)
        return self.render_to_response(self.page_context(campaign, display, show_instructions=False))

    def post(self, request, slug: str):
        campaign = _member_campaign(request.user, slug)
        try:
            assignment = assignment_claim(campaign=campaign, annotator=request.user)
        except ApplicationError as error:
            if error.code == "profile_required":
                return redirect("workspace-profile", slug=campaign.slug)
            if error.code == "quota_done":
                return HttpResponseRedirect(error.extra["completion_url"])
            if error.code not in ADMISSION_REFUSALS:  # the queue itself says why a rater is not admitted
                messages.error(request, error.message)
            return redirect("workspace-queue", slug=campaign.slug)
        if assignment is None:
            messages.info(request, "Nothing is left for you in this campaign. Thank you!")
            return redirect("workspace-queue", slug=campaign.slug)
        # The page itself, not a redirect to it: one round trip less. The page's script puts its own URL in the
        # address bar (history.replaceState), so a reload or a bookmark is the GET of the annotation page.
        page = AnnotateView()
        page.setup(request, assignment_id=assignment.pk)
        page.assignment = assignment_for_annotator(assignment_id=assignment.pk, annotator=request.user)
        return page.render_to_response(page.get_context_data(assignment_id=assignment.pk))


class AnnotateView(AnnotationPage):
    """One claimed assignment's page (a submitted one opens for review, a finished one sends to the queue)."""

    def get(self, request, *args, **kwargs):
        try:
            self.assignment = assignment_for_annotator(assignment_id=kwargs["assignment_id"], annotator=request.user)
        except ApplicationError as error:
            raise Http404(error.message) from error
        if self.assignment.status in (Assignment.Status.SUBMITTED, Assignment.Status.WITHDRAWN):
            return redirect("workspace-review", assignment_id=self.assignment.pk)
        if self.assignment.status != Assignment.Status.ACTIVE:
            messages.info(request, f"That pair is {self.assignment.get_status_display().lower()}; here is your queue.")
            return redirect("workspace-queue", slug=self.assignment.campaign.slug)
        return super().get(request, *args, **kwargs)

    def get_context_data(self, **kwargs):
        campaign = self.assignment.campaign
        display = pair_display(assignment=self.assignment)
        seen = self.request.session.get(INSTRUCTIONS_SEEN, [])
        first_visit = bool(display["instructions"]) and campaign.slug not in seen
        if first_visit:
            self.request.session[INSTRUCTIONS_SEEN] = [*seen, campaign.slug]
        return {**super().get_context_data(**kwargs), **self.page_context(campaign, display, show_instructions=first_visit)}


class CalibrationView(LoginRequiredMixin, TemplateView):
    """The rater's calibration round: its next pair in the workspace's own layout, form and keys (the answer goes to
    the calibration API, which answers with the expected answer and the explanation), or the round's result.

    POST starts a round (or continues the open one) and shows it."""

    template_name = "frontend/workspace/calibration.html"

    def post(self, request, slug: str):
        campaign = _member_campaign(request.user, slug)
        try:
            qualification_state(user=request.user, campaign=campaign, start=True)
        except ApplicationError as error:
            messages.error(request, error.message)
        return redirect("workspace-calibration", slug=campaign.slug)

    def get_context_data(self, **kwargs):
        campaign = _member_campaign(self.request.user, self.kwargs["slug"])
        state = qualification_state(user=self.request.user, campaign=campaign, start=False)
        display, round_ = state["display"], state["round"]
        config = {
            "urls": {
                "answer": reverse("api-calibration-answer", args=[round_["round"]]) if round_ else "",
                "page": reverse("workspace-calibration", args=[campaign.slug]),
            },
            "item": display["calibration"]["item"] if display else None,
            "style_nonce": getattr(self.request, "csp_nonce", ""),
        }
        return {
            **super().get_context_data(**kwargs),
            "campaign": campaign,
            "kind_label": TaskKind(campaign.kind).label,
            "display": display,
            "round": round_,
            "admission": state["admission"],
            "config": config,
        }


class MyWorkView(LoginRequiredMixin, TemplateView):
    """What the annotator did today and overall, per campaign, the pairs they submitted, to review, and the pairs they
    reported with the curator's answers."""

    template_name = "frontend/workspace/me.html"

    def get_context_data(self, **kwargs):
        stats = annotator_stats(annotator=self.request.user)
        work = my_work(annotator=self.request.user)
        discussions = threads.rater_discussions(rater=self.request.user, assignment_ids=[w["assignment"] for w in work])
        for item in work:
            item["discussion"] = discussions.get(item["assignment"])
        return {**super().get_context_data(**kwargs), "stats": stats, "work": work,
                "reports": my_reports(annotator=self.request.user)}


class ReviewView(LoginRequiredMixin, TemplateView):
    """One submitted pair reopened as it was shown, with the answer given: correct it or withdraw it (over the API)
    while its pair has not gone into consensus."""

    template_name = "frontend/workspace/review.html"

    def get_context_data(self, **kwargs):
        assignment_id = self.kwargs["assignment_id"]
        try:
            assignment = assignment_for_annotator(assignment_id=assignment_id, annotator=self.request.user)
            display = review_display(assignment=assignment)
        except ApplicationError as error:
            raise Http404(error.message) from error
        config = {
            "assignment": assignment_id,
            "urls": {
                "correct": reverse("api-annotation-correct", args=[assignment_id]),
                "withdraw": reverse("api-annotation-withdraw", args=[assignment_id]),
                "check": reverse("api-answers-check", args=[assignment_id]),
                "back": reverse("workspace-me"),
            },
            # For wavesurfer.js's own <style> (see core.web.csp); absent where the policy middleware did not run.
            "style_nonce": getattr(self.request, "csp_nonce", ""),
        }
        thread = None
        if threads.thread_allowed(pair_id=assignment.pair_id, user=self.request.user):
            thread = threads.thread_messages(pair_id=assignment.pair_id, viewer=self.request.user,
                                             redact=blind_mask(assignment).redact)
            thread["a_shown_on"] = "right" if assignment.swapped else "left"
        return {
            **super().get_context_data(**kwargs),
            "kind_label": TaskKind(display["kind"]).label,
            "display": display,
            # Warnings confirmed at submit that the answer no longer raises (it was corrected since); those it still
            # raises are marked in the list of warnings.
            "confirmed_since_changed": [w for w in display["confirmed_warnings"] if w not in display["warnings"]],
            "config": config,
            "thread": thread,
        }


class ThreadPostView(LoginRequiredMixin, View):
    """POST a message to the discussion of a pair the rater rated and was invited into; back to its review page."""

    def post(self, request, assignment_id: int):
        try:
            assignment = assignment_for_annotator(assignment_id=assignment_id, annotator=request.user, for_display=False)
            threads.thread_post(pair_id=assignment.pair_id, author=request.user, body=request.POST.get("body", ""))
        except ApplicationError as error:
            if error.status_code == 404:
                raise Http404(error.message) from error
            messages.error(request, error.message)
        else:
            messages.success(request, "Message posted.")
        return HttpResponseRedirect(reverse("workspace-review", args=[assignment_id]) + "#discussion")
