"""Setting up the work without /admin/: campaigns (create, edit, status, members), accounts and invitations,
judges (configure, enable, try on one pair). Each page action calls the same service as its API endpoint
and management command; these views only read the form and show the outcome.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.mixins import UserPassesTestMixin
from django.http import Http404, HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views import View

from annotation.accounts.models import Role
from annotation.accounts.selectors import accounts_list
from annotation.accounts.services.accounts import (
    account_role_check,
    invitation_reissue,
    user_create,
    user_invite,
    user_reactivate,
    user_set_role,
)
from annotation.catalogue import schemas
from annotation.catalogue.models import Campaign, Pair, TaskKind
from annotation.catalogue.selectors import campaign_member_candidates, campaign_members, campaign_overlap_change
from annotation.catalogue.services.campaigns import (
    DEFAULT_PRESET_BY_KIND,
    STATUS_MOVES,
    campaign_create,
    campaign_members_change,
    campaign_update,
)
from annotation.workqueue.services.accounts import account_deactivate
from core.errors import ApplicationError
from core.text_checks import HostileInput, json_loads
from curation.judges import egress, keys, registry
from curation.models import Judge, JudgeVerdict
from curation.prefilter import rules
from curation.services.judges import judge_create, judge_test, judge_update
from frontend import rating_form
from frontend.templatetags.workspace import render_markdown
from frontend.views.console import CuratorRequiredMixin, campaign_or_404
from frontend.views.profile import members_with_profiles, people_profiles

MAX_PREVIEW_CHARS = 200_000


class AdminRequiredMixin(CuratorRequiredMixin, UserPassesTestMixin):
    def test_func(self):
        return self.request.user.is_admin_role


def _number(form, name: str, cast, default, label: str):
    raw = (form.get(name) or "").strip()
    if not raw:
        return default
    try:
        return cast(raw)
    except ValueError as exc:
        raise ApplicationError(f"{label} must be a number, got {raw!r}", code=f"invalid_{name}") from exc


def _json_field(raw: str, label: str, code: str, *, plural: bool = False):
    verb = "are" if plural else "is"
    if len(raw) > MAX_PREVIEW_CHARS:
        raise ApplicationError(f"{label} {verb} longer than {MAX_PREVIEW_CHARS:,} characters", code=code)
    try:
        return json_loads(raw, where=label)
    except HostileInput as exc:
        raise ApplicationError(f"{label}: {exc}", code=code) from exc
    except json.JSONDecodeError as exc:
        raise ApplicationError(f"{label} {verb} not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
                               code=code) from exc


def campaign_settings_from_form(form) -> dict:
    """The service's keyword arguments from the campaign form; a malformed number or JSON is an ApplicationError."""
    values = {
        "name": form.get("name", "").strip(),
        "overlap": _number(form, "overlap", int, 3, "overlap"),
        "gold_rate": _number(form, "gold_rate", float, 0.0, "gold rate"),
        "lease_minutes": _number(form, "lease_minutes", int, 30, "lease minutes"),
        "lease_max_minutes": _number(form, "lease_max_minutes", int, None, "longest lease"),
        "instructions": form.get("instructions", ""),
        "requires_prefilter": form.get("requires_prefilter") == "on",
        "requires_full_playback": form.get("requires_full_playback") == "on",
    }
    if form.get("schema_source") == "custom":
        values["schema_definition"] = _json_field(form.get("schema_json", ""), "the custom schema", "invalid_schema")
    elif form.get("preset"):
        values["preset"] = form["preset"]
    rule_name = form.get("prefilter_rule", "")
    if rule_name:
        rule = {"rule": rule_name}
        threshold = _number(form, "prefilter_threshold", float, None, "pre-filter threshold")
        if threshold is not None:
            rule["threshold"] = threshold
        values["prefilter_rule"] = rule
    return values


def _form_context(campaign: Campaign | None, form) -> dict:
    rule = (campaign.prefilter_rule if campaign else {}) or {}
    schema = campaign.rating_schema if campaign else None
    initial = {
        "name": campaign.name if campaign else "",
        "overlap": campaign.overlap if campaign else 3,
        "gold_rate": campaign.gold_rate if campaign else 0.0,
        "lease_minutes": campaign.lease_minutes if campaign else 30,
        "lease_max_minutes": (campaign.lease_max_minutes if campaign else None) or "",
        "instructions": campaign.instructions if campaign else "",
        "requires_prefilter": "on" if campaign and campaign.requires_prefilter else "",
        "requires_full_playback": "on" if campaign and campaign.requires_full_playback else "",
        "schema_source": "custom" if schema and not schema.preset else "preset",
        "preset": schema.preset if schema and schema.preset else "",
        "schema_json": json.dumps(schema.definition, indent=2) if schema and not schema.preset else "",
        "prefilter_rule": rule.get("rule", ""),
        "prefilter_threshold": rule.get("threshold", ""),
        "status": campaign.status if campaign else Campaign.Status.ACTIVE,
        "kind": campaign.kind if campaign else TaskKind.TEXT_TO_IMAGE,
        "slug": campaign.slug if campaign else "",
    }
    if form is not None:
        initial.update({key: form.get(key, "") for key in initial if key in form})
        initial["requires_prefilter"] = form.get("requires_prefilter", "")
        initial["requires_full_playback"] = form.get("requires_full_playback", "")
    statuses = Campaign.Status.choices
    if campaign is not None:
        allowed = STATUS_MOVES[campaign.status] | {campaign.status}
        statuses = [(value, label) for value, label in statuses if value in allowed]
    return {
        "values": initial,
        "kinds": TaskKind.choices,
        "presets": [{"name": name, "kinds": " ".join(sorted(schemas.PRESET_KINDS[name] or ()))} for name in schemas.PRESETS],
        "default_presets": {str(k): v for k, v in DEFAULT_PRESET_BY_KIND.items()},
        "rules": rules.RULES,
        "statuses": statuses,
    }


class CampaignCreateView(CuratorRequiredMixin, View):
    template_name = "frontend/console/campaign_form.html"

    def get(self, request):
        return TemplateResponse(request, self.template_name, {**_form_context(None, None), "creating": True})

    def post(self, request):
        form = request.POST
        try:
            campaign = campaign_create(slug=form.get("slug", "").strip(), kind=form.get("kind", ""),
                                       status=form.get("status") or Campaign.Status.ACTIVE,
                                       **campaign_settings_from_form(form))
        except ApplicationError as exc:
            context = {**_form_context(None, form), "creating": True, "error": exc.message}
            return TemplateResponse(request, self.template_name, context, status=400)
        messages.success(request, f"Campaign {campaign.slug} created ({campaign.get_status_display().lower()}). "
                                  "Add its members below, then import pairs.")
        return HttpResponseRedirect(reverse("console-campaign-settings", args=[campaign.slug]))


def _overlap_outcome(before: int, campaign: Campaign, change: dict | None, applied: bool) -> str:
    if change is None:
        return ""
    if not change["pairs"]:
        return f" Overlap {before} → {campaign.overlap}; no existing pair asks for another count."
    pairs = f"{change['pairs']} existing pair{'' if change['pairs'] == 1 else 's'}"
    if applied and before == campaign.overlap:
        return f" Overlap {campaign.overlap} applied to the {pairs} that asked for fewer."
    if applied:
        return f" Overlap {before} → {campaign.overlap}, applied to the {pairs}."
    return (f" Overlap {before} → {campaign.overlap} for pairs imported from now on; the {pairs} keep their "
            f"counts.")


def _member_profiles(campaign: Campaign, answer_filter: str) -> dict:
    """The members section's profile answers (each member's on one line), filtered by ``?answer=QUESTION:VALUE``."""
    rows, questionnaire = members_with_profiles(campaign, answer_filter)
    return {"member_profiles": rows, "profile_questionnaire": questionnaire, "answer_filter": answer_filter}


class CampaignSettingsView(CuratorRequiredMixin, View):
    template_name = "frontend/console/campaign_form.html"

    def _context(self, campaign: Campaign, form=None) -> dict:
        behind = campaign_overlap_change(campaign=campaign, overlap=campaign.overlap)
        return {
            **_form_context(campaign, form),
            "behind": behind if behind["pairs"] else None,
            "campaign": campaign,
            "members": campaign_members(campaign=campaign),
            "candidates": campaign_member_candidates(campaign=campaign),
            **_member_profiles(campaign, self.request.GET.get("answer", "")),
        }

    def get(self, request, slug: str):
        return TemplateResponse(request, self.template_name, self._context(campaign_or_404(slug)))

    def post(self, request, slug: str):
        campaign = campaign_or_404(slug)
        form = request.POST
        try:
            settings = campaign_settings_from_form(form)
            if "schema_definition" in settings and settings["schema_definition"] == campaign.rating_schema.definition:
                del settings["schema_definition"]
            if settings.get("preset") == campaign.rating_schema.preset:
                del settings["preset"]
            overlap_before, change = campaign.overlap, None
            if settings["overlap"] == campaign.overlap and form.get("apply_to_existing") == "on":
                change = campaign_overlap_change(campaign=campaign, overlap=campaign.overlap)
            elif settings["overlap"] != campaign.overlap:
                change = campaign_overlap_change(campaign=campaign, overlap=settings["overlap"])
                if change["pairs"] and form.get("overlap_confirmed") != str(settings["overlap"]):
                    # Nothing is saved until the curator says whether the existing pairs follow the new overlap.
                    context = {**self._context(campaign, form), "overlap_change": {**change, "to": settings["overlap"]}}
                    return TemplateResponse(request, self.template_name, context)
            applied = form.get("apply_to_existing") == "on"
            campaign = campaign_update(campaign=campaign, status=form.get("status") or None,
                                       apply_to_existing=applied, **settings)
        except ApplicationError as exc:
            context = {**self._context(campaign, form), "error": exc.message}
            return TemplateResponse(request, self.template_name, context, status=400)
        outcome = _overlap_outcome(overlap_before, campaign, change, applied)
        messages.success(request, f"Campaign {campaign.slug} saved ({campaign.get_status_display().lower()}, "
                                  f"schema {campaign.rating_schema}).{outcome}")
        return HttpResponseRedirect(reverse("console-campaign-settings", args=[campaign.slug]))


class CampaignMembersView(CuratorRequiredMixin, View):
    """POST: add or remove members, or invite a new annotator straight into the campaign (link shown once)."""

    def post(self, request, slug: str):
        campaign = campaign_or_404(slug)
        form = request.POST
        names = [n.strip() for n in form.get("usernames", "").replace("\n", ",").split(",") if n.strip()]
        try:
            if form.get("action") == "invite":
                user, issued = user_invite(username=form.get("username", "").strip(), role=Role.ANNOTATOR,
                                           email=form.get("email", "").strip(), created_by=request.user)
                campaign_members_change(campaign=campaign, add=[user.username])
                link = request.build_absolute_uri(reverse("invitation-accept", args=[issued.token]))
                context = {"campaign": campaign, "invited": user, "link": link, "expires_at": issued.invitation.expires_at}
                return TemplateResponse(request, "frontend/console/invitation_link.html", context)
            if form.get("action") == "remove":
                change = campaign_members_change(campaign=campaign, remove=names)
            else:
                change = campaign_members_change(campaign=campaign, add=names)
        except ApplicationError as exc:
            messages.error(request, exc.message)
        else:
            done = [f"added {', '.join(change.added)}" if change.added else "",
                    f"removed {', '.join(change.removed)}" if change.removed else ""]
            messages.success(request, "Members: " + ("; ".join(d for d in done if d) or "no change") + ".")
        return HttpResponseRedirect(reverse("console-campaign-settings", args=[campaign.slug]) + "#members")


class SchemaPreviewView(CuratorRequiredMixin, View):
    """POST a preset and kind, or a custom schema: the rater's form as it will look (HTML), or the schema's error."""

    def post(self, request):
        form = request.POST
        try:
            if form.get("schema_source") == "custom":
                definition = _json_field(form.get("schema_json", ""), "the custom schema", "invalid_schema")
                try:
                    schemas.validate_schema(definition)
                except schemas.SchemaError as exc:
                    raise ApplicationError(f"invalid rating schema: {exc}", code="invalid_schema") from exc
            else:
                kind = form.get("kind", "")
                name = form.get("preset") or DEFAULT_PRESET_BY_KIND.get(kind, "ab-tie")
                try:
                    schemas.check_preset_fits(name, kind)
                    definition = schemas.preset(name, kind)
                except schemas.SchemaError as exc:
                    raise ApplicationError(str(exc), code="unknown_schema") from exc
        except ApplicationError as exc:
            return JsonResponse({"error": exc.message}, status=400)
        fields = rating_form.build(definition, criteria=["Follows the instruction", "Image quality"], draft={})
        html = render_to_string("frontend/workspace/form.html", {"fields": fields}, request=request)
        return JsonResponse({"html": html, "definition": definition})


class MarkdownPreviewView(CuratorRequiredMixin, View):
    def post(self, request):
        text = request.POST.get("text", "")[:MAX_PREVIEW_CHARS]
        return JsonResponse({"html": str(render_markdown(text))})


class PeopleView(CuratorRequiredMixin, View):
    """Accounts: admins create any role and change roles; curators invite annotators only."""

    template_name = "frontend/console/people.html"

    def _context(self, request, **extra) -> dict:
        roles = Role.choices if request.user.is_admin_role else [(Role.ANNOTATOR, Role.ANNOTATOR.label)]
        answer_filter = request.GET.get("answer", "")
        people = people_profiles(accounts_list(), answer_filter)
        return {"people": people, "roles": roles, "all_roles": Role.choices, "answer_filter": answer_filter, **extra}

    def get(self, request):
        return TemplateResponse(request, self.template_name, self._context(request))

    def post(self, request):
        form = request.POST
        role = form.get("role", Role.ANNOTATOR)
        username, email = form.get("username", "").strip(), form.get("email", "").strip()
        try:
            account_role_check(actor=request.user, role=role)
            if form.get("mode") == "password":
                if form.get("password", "") != form.get("password_again", ""):
                    raise ApplicationError("the two passwords differ", code="password_mismatch")
                user = user_create(username=username, password=form.get("password", ""), role=role, email=email)
                messages.success(request, f"Created {user.role} {user.username}.")
                return HttpResponseRedirect(reverse("console-people"))
            user, issued = user_invite(username=username, role=role, email=email, created_by=request.user)
        except ApplicationError as exc:
            return TemplateResponse(request, self.template_name, self._context(request, error=exc.message,
                                                                                 values=form), status=exc.status_code)
        link = request.build_absolute_uri(reverse("invitation-accept", args=[issued.token]))
        return TemplateResponse(request, "frontend/console/invitation_link.html",
                                {"invited": user, "link": link, "expires_at": issued.invitation.expires_at})


class PersonActionView(CuratorRequiredMixin, View):
    """POST ``invite`` (a fresh link; earlier ones stop working; for an account in use, admins only), ``role``
    (admins only), ``deactivate`` (sessions ended, leases released) or ``reactivate`` (curators for annotators,
    admins for anyone, nobody for themselves). A refused link is the people page with the reason, with the
    refusal's status."""

    def post(self, request, user_id: int, action: str):
        person = get_object_or_404(get_user_model(), pk=user_id)
        if action == "invite":
            try:
                issued = invitation_reissue(user=person, actor=request.user)
            except ApplicationError as exc:
                return TemplateResponse(request, PeopleView.template_name,
                                        PeopleView()._context(request, error=exc.message), status=exc.status_code)
            link = request.build_absolute_uri(reverse("invitation-accept", args=[issued.token]))
            return TemplateResponse(request, "frontend/console/invitation_link.html",
                                    {"invited": person, "link": link, "expires_at": issued.invitation.expires_at})
        try:
            if action == "role":
                if not request.user.is_admin_role:
                    raise ApplicationError("only admins change roles", code="admin_only")
                if person.pk == request.user.pk:
                    raise ApplicationError("you cannot change your own role", code="own_role")
                user_set_role(user=person, role=request.POST.get("role", ""))
                messages.success(request, f"{person.username} is now {person.role}.")
            elif action == "deactivate":
                done = account_deactivate(user=person, actor=request.user)
                leases = done.leases_released
                messages.success(request, f"{person.username} is deactivated: signed out everywhere, cannot sign in"
                                          f"{'' if not leases else f', {leases} open pair(s) given back to the queue'}.")
            elif action == "reactivate":
                user_reactivate(user=person, actor=request.user)
                messages.success(request, f"{person.username} can sign in again.")
            else:
                raise Http404("no such action")
        except ApplicationError as exc:
            messages.error(request, exc.message)
        return HttpResponseRedirect(reverse("console-people"))


JUDGE_EXAMPLES = {
    "openai-chat": {"base_url": "http://127.0.0.1:8001/v1", "model": "Qwen/Qwen2.5-VL-7B-Instruct",
                    "api_key_env": "CONCORD_JUDGE_KEY_VLLM", "concurrency": 4},
    "reward-model": {"url": "http://127.0.0.1:8002/score"},
    "python": {"callable": "curation.judges.heuristics.image_sanity"},
}


def judge_examples(user) -> dict[str, dict]:
    """The settings shown as examples: with a key variable for admins, who alone may set one."""
    if user.is_admin_role:
        return JUDGE_EXAMPLES
    return {backend: {k: v for k, v in example.items() if k != "api_key_env"} for backend, example in JUDGE_EXAMPLES.items()}


class JudgesView(CuratorRequiredMixin, View):
    template_name = "frontend/console/judges.html"

    def _context(self, user, **extra) -> dict:
        judges = list(Judge.objects.order_by("name"))
        for judge in judges:
            judge.secret_status = registry.secret_status(judge.settings or {})
            judge.settings_json = json.dumps(judge.settings, indent=2, sort_keys=True)
        sample = Pair.objects.order_by("pk").values_list("pk", flat=True).first()
        examples = judge_examples(user)
        return {"judges": judges, "backends": Judge.Backend.choices, "orders": JudgeVerdict.Order.choices,
                "examples": {k: json.dumps(v, indent=2) for k, v in examples.items()}, "sample_pair": sample,
                "default_settings": json.dumps(examples["openai-chat"], indent=2),
                "may_set_keys": user.is_admin_role, "key_pattern": keys.configured_pattern(),
                "key_pattern_setting": keys.SETTING, "allowed_hosts": egress.configured_allow_list(),
                "allowed_hosts_setting": egress.SETTING,
                **extra}

    def get(self, request):
        return TemplateResponse(request, self.template_name, self._context(request.user))

    def post(self, request):
        form = request.POST
        try:
            settings = _json_field(form.get("settings", "") or "{}", "the settings", "invalid_judge_settings", plural=True)
            judge = judge_create(name=form.get("name", "").strip(), backend=form.get("backend", ""), settings=settings,
                                 enabled=form.get("enabled") == "on", user=request.user)
        except ApplicationError as exc:
            return TemplateResponse(request, self.template_name,
                                    self._context(request.user, error=exc.message, values=form), status=exc.status_code)
        messages.success(request, f"Judge {judge.name} configured ({'enabled' if judge.enabled else 'disabled'}). "
                                  "Try it on a pair below.")
        return HttpResponseRedirect(reverse("console-judges") + f"#judge-{judge.name}")


class JudgeActionView(CuratorRequiredMixin, View):
    """POST ``enable``, ``disable``, ``settings`` (new settings JSON) or ``test`` (one call on one pair)."""

    def post(self, request, name: str, action: str):
        judge = get_object_or_404(Judge, name=name)
        form = request.POST
        try:
            if action == "test":
                raw_pair = form.get("pair", "").strip()
                if not raw_pair.isdigit():
                    raise ApplicationError("give the id of the pair to try the judge on", code="invalid_pair")
                trial = judge_test(judge=judge, pair_id=int(raw_pair), order=form.get("order", "forward"))
                return TemplateResponse(request, JudgesView.template_name,
                                        JudgesView()._context(request.user, trial=trial, tried=judge.name))
            if action in ("enable", "disable"):
                judge_update(judge=judge, enabled=action == "enable", user=request.user)
                messages.success(request, f"Judge {judge.name} {action}d.")
            elif action == "settings":
                settings = _json_field(form.get("settings", ""), "the settings", "invalid_judge_settings", plural=True)
                judge_update(judge=judge, settings=settings, user=request.user)
                messages.success(request, f"Judge {judge.name} saved.")
            else:
                raise Http404("no such action")
        except ApplicationError as exc:
            if exc.status_code == 404 and exc.code != "pair_not_found":
                raise Http404(exc.message) from exc
            messages.error(request, exc.message)
        return HttpResponseRedirect(reverse("console-judges") + f"#judge-{judge.name}")
