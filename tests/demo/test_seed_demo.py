"""seed_demo end to end: campaigns of every kind with their pairs, members and accounts; twice changes nothing."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotation.accounts.models import Role
from annotation.catalogue.models import Campaign, Media, Pair, Prompt, RatingSchema, Response
from demo import generation, meshes, omni, stories, traces
from demo.services import DEMO_ACCOUNTS
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]

EXPECTED = {
    "demo-text-to-image": ("text-to-image", "mmrb2-generation"),
    "demo-image-editing": ("image-editing", "mmrb2-generation"),
    "demo-interleaved": ("interleaved", "mmrb2-generation"),
    "demo-reasoning": ("reasoning", "mmrb2-reasoning"),
    "demo-text-to-audio": ("text-to-audio", "omni-criteria"),
    "demo-text-to-text": ("text-to-text", "omni-criteria"),
    "demo-text-to-3d": ("text-to-3d", "omni-criteria"),
}
MODEL_NAMES = {m.name for m in (*generation.T2I_MODELS, *generation.EDIT_MODELS, *stories.STORY_MODELS, *traces.AGENTS,
                                *omni.AUDIO_MODELS)} | set(omni.TEXT_MODELS) | set(meshes.MESH_MODELS)


def seed(out) -> str:
    stdout = io.StringIO()
    call_command("seed_demo", "--out", str(out), stdout=stdout)
    return stdout.getvalue()


def counts() -> dict:
    from annotation.catalogue.models import CalibrationItem, CalibrationSet
    from annotation.workqueue.models import Questionnaire

    return {model.__name__: model.objects.count()
            for model in (Campaign, Pair, Prompt, Response, Media, RatingSchema, get_user_model(), Questionnaire,
                          CalibrationSet, CalibrationItem)}


def test_seed_demo_loads_every_kind_with_members_media_and_accounts(tmp_path):
    """Seven campaigns with their presets, every JSONL line a pair, the three annotators in each, five working logins,
    and every file stored once by digest and linked to the pairs that show it."""
    output = seed(tmp_path)
    campaigns = {c.slug: c for c in Campaign.objects.select_related("rating_schema")}
    assert set(campaigns) == set(EXPECTED)
    annotators = {u for u, _, role in DEMO_ACCOUNTS if role == Role.ANNOTATOR}
    for slug, (kind, preset) in EXPECTED.items():
        campaign = campaigns[slug]
        assert (campaign.kind, campaign.rating_schema.preset) == (kind, preset)
        assert campaign.instructions
        lines = (tmp_path / f"{slug}.jsonl").read_text(encoding="utf-8").splitlines()
        assert campaign.pairs.count() == len(lines)
        assert {u.username for u in campaign.members.all()} == annotators
    for slug in ("demo-text-to-image", "demo-image-editing", "demo-interleaved", "demo-reasoning"):
        assert 20 <= campaigns[slug].pairs.count() <= 40
    assert all(p.criteria for p in Pair.objects.filter(campaign__slug__in=["demo-text-to-audio", "demo-text-to-text",
                                                                           "demo-text-to-3d"]))
    users = get_user_model().objects.in_bulk([u for u, _, _ in DEMO_ACCOUNTS], field_name="username")
    for username, password, role in DEMO_ACCOUNTS:
        assert users[username].role == role
        assert users[username].check_password(password)
        assert f"{role:<10} {username:<12} {password}" in output
    assert users["admin"].is_superuser and users["admin"].is_staff

    # Media is content-addressed (no model or original file name in storage) and linked to the pairs showing it.
    assert Media.objects.filter(kind="image").count() > 250
    assert Media.objects.filter(kind="audio").count() >= 16
    assert Media.objects.filter(kind="model3d", mime_type="model/gltf-binary").count() == 16
    for media in Media.objects.all():
        assert media.sha256 in media.file.name
        assert not any(name in media.file.name for name in MODEL_NAMES)
    image_campaigns = ["demo-text-to-image", "demo-image-editing", "demo-interleaved", "demo-reasoning"]
    assert not Pair.objects.filter(campaign__slug__in=image_campaigns, media__isnull=True).exists()
    assert set(Response.objects.values_list("model_name", flat=True)) <= MODEL_NAMES
    edit = Pair.objects.filter(campaign__slug="demo-image-editing").select_related("prompt")
    assert {sum(b["type"] == "image" for b in p.prompt.content) for p in edit} == {1, 2, 3}
    stored = json.dumps([r.content for r in Response.objects.filter(prompt__campaign__slug="demo-reasoning")])
    assert '"type": "tool_call"' in stored and '"type": "final_answer"' in stored
    assert '"file"' not in stored, "every file reference was resolved to a stored media digest"


def test_seed_demo_runs_the_heuristic_judges_pre_filter_on_two_campaigns(tmp_path):
    """image-sanity and text-sanity are configured; the two campaigns needing the pre-filter have every pair judged
    in both orders, some dropped as easy (a plainly broken side) and the rest queued; the others need none."""
    from curation.models import Judge, JudgeVerdict

    output = seed(tmp_path)
    assert set(Judge.objects.filter(enabled=True, backend="python").values_list("name", flat=True)) == {
        "image-sanity", "text-sanity"}
    needing = set(Campaign.objects.filter(requires_prefilter=True).values_list("slug", flat=True))
    assert needing == {"demo-text-to-image", "demo-text-to-text"}
    for slug in needing:
        pairs = Pair.objects.filter(campaign__slug=slug)
        assert not pairs.filter(status=Pair.Status.PENDING).exists()
        assert pairs.filter(status=Pair.Status.DROPPED_EASY).exists() and pairs.filter(status=Pair.Status.QUEUED).exists()
        assert JudgeVerdict.objects.filter(pair__campaign__slug=slug).count() == pairs.count() * 2 * 2
    dropped = Pair.objects.filter(campaign__slug="demo-text-to-image", status=Pair.Status.DROPPED_EASY).first()
    assert dropped.status_reason.startswith("prefilter: easy")
    assert "pre-filter:" in output and "dropped as easy" in output


def test_seed_demo_sets_up_a_profile_and_a_calibration_round_on_one_campaign(tmp_path):
    """demo-text-to-image asks the rater profile, then a round of its calibration pairs: pairs the image judge
    dropped as easy, whose expected side is the one both its calls preferred, so the real queue keeps every pair.
    A demo annotator is refused the queue until they answer the profile and pass; other campaigns ask neither."""
    from annotation.workqueue.services.assignments import assignment_claim
    from annotation.workqueue.services.profile import profile_answer_save
    from annotation.workqueue.services.qualification import rater_admission
    from core.errors import ApplicationError
    from curation.models import JudgeVerdict

    output = seed(tmp_path)
    campaign = Campaign.objects.get(slug="demo-text-to-image")
    assert ("Qualification: demo-text-to-image asks the profile 'demo-rater-profile', then a calibration round of 4 of "
            "its 6 calibration pairs (pass mark 75%) before the real queue (docs/qualification.md).") in output
    items = list(campaign.calibration_set.items.select_related("pair"))
    assert len(items) == 6 and (campaign.qualification_round_size, campaign.qualification_pass_mark) == (4, 0.75)
    for item in items:
        assert item.pair.status == Pair.Status.DROPPED_EASY
        judged = set(JudgeVerdict.objects.filter(pair=item.pair, judge__name="image-sanity").values_list("verdict", flat=True))
        assert judged == {"A" if item.expected["overall"] == 6 else "B"}
        assert item.explanation.startswith("One of the two pictures is ") and "A " not in item.explanation
    assert campaign.pairs.filter(status=Pair.Status.QUEUED).count() == 20, "no pair left the real queue"

    annotator = get_user_model().objects.get(username="annotator1")
    with pytest.raises(ApplicationError) as refused:
        assignment_claim(campaign=campaign, annotator=annotator)
    assert refused.value.code == "profile_required"
    profile_answer_save(user=annotator, questionnaire=campaign.questionnaire_link.questionnaire,
                        raw={"expertise": ["Photography"], "languages": "English", "years": "4"})
    with pytest.raises(ApplicationError) as refused:
        assignment_claim(campaign=campaign, annotator=annotator)
    assert refused.value.code == "qualification_required" and rater_admission(
        user=annotator, campaign=campaign).can_start_round
    other = Campaign.objects.get(slug="demo-image-editing")
    assert other.calibration_set_id is None and assignment_claim(campaign=other, annotator=annotator) is not None


def test_seeding_twice_creates_nothing_new_and_still_prints_the_accounts(tmp_path):
    """The second run adds no campaign, pair, prompt, response, media, schema or user, and prints the logins again."""
    seed(tmp_path)
    before = counts()
    user = get_user_model().objects.get(username="annotator1")
    user.set_password("changed-by-the-user")
    user.save()
    output = seed(tmp_path)
    assert counts() == before
    assert "(0 new)" in output
    for username, password, _ in DEMO_ACCOUNTS:
        assert username in output and password in output
    assert "annotator1" in output and "password was changed, not reset" in output
    assert get_user_model().objects.get(username="annotator1").check_password("changed-by-the-user")


PRODUCTION_ENV = {
    "DJANGO_SETTINGS_MODULE": "config.settings.production",
    "DJANGO_SECRET_KEY": "k" * 20 + "Q7v!x9#Lm2$pR8@w" * 3, "CONCORD_RATER_ID_SECRET": "r" * 10 + "Zt5#qW8!" * 6,
    "DJANGO_ALLOWED_HOSTS": "concord.example.org",
}


def test_seed_demo_refuses_production_settings_with_a_clear_error(tmp_path):
    """Under config.settings.production the command stops before touching the database or writing a file."""
    database = tmp_path / "production.sqlite3"
    env = {**os.environ, **PRODUCTION_ENV, "DATABASE_URL": f"sqlite:///{database}"}
    run = subprocess.run([sys.executable, "manage.py", "seed_demo", "--out", str(tmp_path / "demo")], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    assert ("CommandError: seed_demo refuses to run under production settings (config.settings.production): it creates"
            " demo accounts, an admin among them.") in run.stderr
    assert "--allow-production" in run.stderr
    assert not database.exists() and not (tmp_path / "demo").exists()


def test_seed_demo_allowed_in_production_leaves_no_account_with_a_published_password(tmp_path, settings):
    """With --allow-production every new demo account gets a random password, printed once; an account seeded
    earlier that still has its published password gets a random one too; a changed password is left alone."""
    settings.CONCORD_PRODUCTION = True
    UserFactory(username="admin", password="demo-admin", role=Role.ADMIN)
    UserFactory(username="annotator1", password="chosen-by-the-rater", role=Role.ANNOTATOR)
    stdout = io.StringIO()
    call_command("seed_demo", "--out", str(tmp_path), "--allow-production", stdout=stdout)
    output = stdout.getvalue()
    users = get_user_model().objects.in_bulk([u for u, _, _ in DEMO_ACCOUNTS], field_name="username")
    for username, published, _role in DEMO_ACCOUNTS:
        assert not users[username].check_password(published), username
        assert published not in output
    assert users["annotator1"].check_password("chosen-by-the-rater")
    assert "annotator1   (not shown)   (existing account" in output
    printed = {line.split()[1]: line.split()[2] for line in output.splitlines() if line.startswith("  ") and
               line.split()[1:2] and line.split()[1] in users and line.split()[2] != "(not"}
    assert set(printed) == {"annotator2", "annotator3", "curator", "admin"}
    assert all(users[name].check_password(password) and len(password) >= 24 for name, password in printed.items())
    assert "These random passwords are shown only now." in output
