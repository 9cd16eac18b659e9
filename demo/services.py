"""Seeding the demo: accounts, campaigns and their pairs, all idempotent."""

from __future__ import annotations

import io
import json
import secrets
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotation.accounts.models import Role
from annotation.accounts.services.accounts import user_create
from annotation.catalogue.models import Campaign
from annotation.catalogue.services.campaigns import campaign_add_members, campaign_create
from core.errors import ApplicationError

if TYPE_CHECKING:
    from collections.abc import Callable

DEMO_ACCOUNTS = (
    ("annotator1", "demo-annotator1", Role.ANNOTATOR),
    ("annotator2", "demo-annotator2", Role.ANNOTATOR),
    ("annotator3", "demo-annotator3", Role.ANNOTATOR),
    ("curator", "demo-curator", Role.CURATOR),
    ("admin", "demo-admin", Role.ADMIN),
)


@dataclass(frozen=True)
class DemoAccount:
    username: str
    password: str
    role: str
    created: bool
    password_works: bool


@dataclass(frozen=True)
class DemoCampaignResult:
    slug: str
    kind: str
    pairs: int
    created_pairs: int
    prefilter: dict | None = None
    qualification: DemoQualification | None = None


# The built-in heuristic judges (curation.judges.heuristics): cheap checks, not models, so the demo needs no GPU.
DEMO_JUDGES = (
    ("image-sanity", "curation.judges.heuristics.image_sanity"),
    ("text-sanity", "curation.judges.heuristics.text_sanity"),
)


def demo_judges_ensure() -> list[str]:
    """The demo's two heuristic judges, created when missing; an existing judge is left as a curator set it."""
    from curation.models import Judge
    from curation.services.judges import judge_create

    for name, path in DEMO_JUDGES:
        if not Judge.objects.filter(name=name).exists():
            judge_create(name=name, backend=Judge.Backend.PYTHON, settings={"callable": path, "concurrency": 4})
    return [name for name, _ in DEMO_JUDGES]


# The built-in heuristic judges abstain unless one side is plainly broken, and MMRB2's rule counts an abstention
# against agreement: with them the demo names the valid-votes rule, as a curator would for heuristics.
DEMO_PREFILTER_RULE = {"rule": "majority-of-valid", "threshold": 0.9, "min_votes": 2}


def demo_prefilter_run(*, campaign: Campaign, judges: list[str], on_progress: Callable[[int], None] | None = None) -> dict | None:
    """Run the pre-filter on the campaign's pairs still awaiting it, in this process; None when none await it."""
    from annotation.catalogue.models import Pair
    from curation.services.prefilter import prefilter_job_create, prefilter_run_inline

    if not campaign.pairs.filter(status=Pair.Status.PENDING).exists():
        return None
    job = prefilter_job_create(campaign=campaign, judge_names=judges)
    return prefilter_run_inline(job_id=job.pk, on_progress=on_progress)


# The campaign where a demo user tries qualification: its raters answer a profile, then a calibration round.
DEMO_QUALIFICATION_CAMPAIGN = "demo-text-to-image"
DEMO_QUESTIONNAIRE = "demo-rater-profile"
DEMO_CALIBRATION_PAIRS = 6
DEMO_ROUND_SIZE, DEMO_PASS_MARK, DEMO_RETRY_HOURS = 4, 0.75, 1
FAULT_WORDS = {"blur": "blurred", "noise": "noisy", "blank": "almost blank", "corrupt": "broken", "size": "misshapen",
               "missing": "missing"}


@dataclass(frozen=True)
class DemoQualification:
    campaign: str
    questionnaire: str
    calibration_set: str
    calibration_pairs: int
    round_size: int
    pass_mark: float


def _calibration_row(pair, verdicts: list) -> dict | None:
    """A calibration row for a pair the image judge dropped as easy, when both of its calls name the same sound side:
    that side is expected, clearly, and the explanation says what is wrong with the other without naming a side
    (the rater sees the sides in their own order)."""
    sides = {verdict.verdict for verdict in verdicts}
    if len(verdicts) < 2 or len(sides) != 1 or not sides <= {"A", "B"}:
        return None
    better = sides.pop()
    worse = "B" if better == "A" else "A"
    faults = json.loads(verdicts[0].raw_output or "{}").get(worse) or []
    if not faults:
        return None
    kind, _, detail = faults[0].partition(": ")
    return {
        "pair": pair.external_id,
        "expected": {"overall": 6 if better == "A" else 1},
        "explanation": (f"One of the two pictures is {FAULT_WORDS.get(kind, kind)} ({detail}): the other is better, "
                        "since a defect that spoils the picture decides before the prompt's details do."),
    }


def demo_qualification_ensure() -> DemoQualification | None:
    """A profile questionnaire and a calibration set for ``DEMO_QUALIFICATION_CAMPAIGN``, made once: a campaign that
    asks a questionnaire or has a set already is left as a curator set it. The calibration pairs are ones the
    pre-filter dropped as easy (both calls of the image judge prefer the same side), so none leaves the real queue.
    None when the campaign is missing or has no such pairs."""
    from annotation.catalogue.models import Pair
    from annotation.workqueue.models import Questionnaire
    from annotation.workqueue.profile import DEFAULT_QUESTIONS
    from annotation.workqueue.selectors import campaign_questionnaire
    from annotation.workqueue.services.profile import campaign_questionnaire_set, questionnaire_create
    from annotation.workqueue.services.qualification import calibration_items_add, campaign_qualification_set
    from curation.models import JudgeVerdict

    campaign = Campaign.objects.filter(slug=DEMO_QUALIFICATION_CAMPAIGN).first()
    if campaign is None:
        return None
    if campaign_questionnaire(campaign=campaign) is None:
        questionnaire = (Questionnaire.objects.filter(slug=DEMO_QUESTIONNAIRE).first() or questionnaire_create(
            slug=DEMO_QUESTIONNAIRE, title="About you", questions=DEFAULT_QUESTIONS,
            intro="A few questions before your first pair: the curator reads them to know who rated what."))
        campaign_questionnaire_set(campaign=campaign, questionnaire=questionnaire)
    if campaign.calibration_set_id is None:
        rows = []
        for pair in campaign.pairs.filter(status=Pair.Status.DROPPED_EASY).order_by("external_id"):
            verdicts = list(JudgeVerdict.objects.filter(pair=pair, judge__name="image-sanity").order_by("order"))
            row = _calibration_row(pair, verdicts)
            if row is not None:
                rows.append(row)
            if len(rows) == DEMO_CALIBRATION_PAIRS:
                break
        if not rows:
            return None
        calibration_items_add(campaign=campaign, rows=rows, set_slug=f"{campaign.slug}-calibration")
        campaign_qualification_set(campaign=campaign, round_size=DEMO_ROUND_SIZE, pass_mark=DEMO_PASS_MARK,
                                   retry_hours=DEMO_RETRY_HOURS)
    campaign.refresh_from_db()
    if campaign.calibration_set_id is None:
        return None
    return DemoQualification(campaign.slug, campaign_questionnaire(campaign=campaign).slug, campaign.calibration_set.slug,
                             campaign.calibration_set.items.count(), campaign.qualification_round_size,
                             campaign.qualification_pass_mark)


def demo_accounts_ensure(*, random_passwords: bool = False) -> list[DemoAccount]:
    """The five demo accounts, created when missing; an existing account keeps its password and role.

    With ``random_passwords`` (production) no account is left with a published demo password: a new one gets a
    random password, and an existing one that still has its demo password gets a random one instead."""
    accounts = []
    for username, known_password, role in DEMO_ACCOUNTS:
        user = get_user_model().objects.filter(username=username).first()
        created = user is None
        password = secrets.token_urlsafe(18) if random_passwords else known_password
        if created:
            user = user_create(username=username, password=password, role=role, check_strength=False)
        elif random_passwords:
            if not user.check_password(known_password):
                accounts.append(DemoAccount(username, "", user.role, created, False))
                continue
            user.set_password(password)
            user.save(update_fields=["password"])
        accounts.append(DemoAccount(username, password, user.role, created, user.check_password(password)))
    return accounts


def demo_seed(*, out_dir: Path, on_progress: Callable[[int], None] | None = None,
              random_passwords: bool = False) -> tuple[list[DemoAccount], list[DemoCampaignResult]]:
    """Generate the demo files under ``out_dir``, import them, make the annotators members of every campaign, run
    the heuristic judges' pre-filter on the campaigns that need it, and set up qualification on one of them
    (``demo_qualification_ensure``).

    Idempotent: the generator writes the same bytes each time and re-importing a file creates
    nothing, so a second run changes nothing. Precondition: migrations are applied.
    """
    from demo.build import build_demo

    campaigns, media_root = build_demo(out_dir)
    accounts = demo_accounts_ensure(random_passwords=random_passwords)
    annotators = get_user_model().objects.filter(username__in=[a.username for a in accounts if a.role == Role.ANNOTATOR])
    judges = demo_judges_ensure()
    results = []
    for demo in campaigns:
        campaign = Campaign.objects.filter(slug=demo.slug).first()
        if campaign is None:
            campaign = campaign_create(slug=demo.slug, kind=demo.kind, preset=demo.preset, name=demo.name,
                                       instructions=demo.instructions, requires_prefilter=demo.prefilter,
                                       prefilter_rule=DEMO_PREFILTER_RULE if demo.prefilter else None)
        outcome = _import(demo.jsonl, slug=demo.slug, kind=demo.kind, preset=demo.preset, media_root=media_root)
        campaign_add_members(campaign=campaign, users=annotators)
        report = demo_prefilter_run(campaign=campaign, judges=judges, on_progress=on_progress) if demo.prefilter else None
        results.append(DemoCampaignResult(demo.slug, demo.kind, demo.pairs, outcome["created"], report))
    qualification = demo_qualification_ensure()
    if qualification is not None:
        results = [replace(r, qualification=qualification) if r.slug == qualification.campaign else r
                   for r in results]
    return accounts, results


def _import(path: Path, *, slug: str, kind: str, preset: str, media_root: Path) -> dict:
    output = io.StringIO()
    try:
        call_command("import_pairs", str(path), "--campaign", slug, "--format", "concord", "--task", kind,
                     "--schema", preset, "--media-root", str(media_root), "--json", stdout=output, stderr=io.StringIO())
    except SystemExit as exc:  # import_pairs exits 2 (partial) or 1 (failed) unless every row is in; its JSON says which
        raise ApplicationError(f"demo import of {path.name} failed (exit {exc.code}): {output.getvalue()[:2000]}",
                               code="demo_import_failed") from exc
    outcome = json.loads(output.getvalue())
    if outcome["errors"]:
        raise ApplicationError(f"demo import of {path.name} reported errors: {outcome['errors'][:5]}",
                               code="demo_import_failed")
    return outcome
