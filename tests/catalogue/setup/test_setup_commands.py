"""create_campaign, campaign_members and create_user: what the console's setup pages do, from the command line."""

import io
import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from annotation.accounts.models import AccountEvent, Invitation, User
from annotation.accounts.services.accounts import invitation_accept
from annotation.catalogue.models import Campaign, Pair, RatingSchema
from core.errors import ApplicationError
from tests.factories import CampaignFactory, PairFactory, UserFactory

pytestmark = pytest.mark.django_db


def run(*args):
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def refused(*args) -> tuple[str, dict]:
    """The CommandError message and the --json error object of a refused command."""
    out = io.StringIO()
    with pytest.raises(CommandError) as caught:
        call_command(*args, "--json", stdout=out, stderr=io.StringIO())
    return str(caught.value), json.loads(out.getvalue())["error"]


def world_snapshot() -> tuple:
    return (Campaign.objects.count(), RatingSchema.objects.count(), User.objects.count(), Invitation.objects.count())


def test_create_campaign_stores_every_setting_given(tmp_path):
    instructions = tmp_path / "rules.md"
    instructions.write_text("# Rate carefully\n\nLook at **both** images.", encoding="utf-8")
    out = json.loads(run("create_campaign", "sunsets", "--task", "text-to-image", "--schema", "ab-tie", "--overlap", "4",
                         "--gold-rate", "0.1", "--lease-minutes", "15", "--prefilter", "--prefilter-rule",
                         '{"rule": "majority", "threshold": 0.8}', "--instructions", str(instructions), "--json"))
    campaign = Campaign.objects.select_related("rating_schema").get(slug="sunsets")
    assert (campaign.kind, campaign.overlap, campaign.gold_rate, campaign.lease_minutes) == ("text-to-image", 4, 0.1, 15)
    assert campaign.requires_prefilter and campaign.prefilter_rule == {"rule": "majority", "threshold": 0.8}
    assert campaign.instructions.startswith("# Rate carefully")
    assert campaign.rating_schema.preset == "ab-tie"
    assert out["slug"] == "sunsets" and out["schema"] == "ab-tie-text-to-image v1" and out["status"] == "active"


def test_create_campaign_and_edit_campaign_set_the_full_playback_requirement():
    out = json.loads(run("create_campaign", "voices", "--task", "text-to-audio", "--require-full-playback", "--json"))
    assert out["requires_full_playback"] is True
    assert Campaign.objects.get(slug="voices").requires_full_playback is True
    run("edit_campaign", "voices", "--full-playback", "off")
    assert Campaign.objects.get(slug="voices").requires_full_playback is False


def test_create_campaign_takes_a_custom_schema_file(tmp_path):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"questions": [
        {"id": "winner", "type": "choice", "scope": "pair", "level": "nominal", "oriented": True, "required": True,
         "options": [{"value": "A", "label": "A"}, {"value": "B", "label": "B"}]}]}))
    run("create_campaign", "custom", "--task", "text-to-text", "--schema-file", str(schema))
    campaign = Campaign.objects.select_related("rating_schema").get(slug="custom")
    assert campaign.rating_schema.slug == "custom-custom"
    assert campaign.rating_schema.definition["questions"][0]["id"] == "winner"


@pytest.mark.parametrize(("args", "code", "message"), [
    (["--task", "text-to-paint"], "unknown_task_kind", "unknown task kind 'text-to-paint'; expected one of text-to-image"),
    (["--task", "text-to-image", "--schema", "likert-99"], "unknown_schema", "unknown rating schema preset 'likert-99'"),
    (["--task", "text-to-text", "--schema", "mmrb2-generation"], "preset_kind_mismatch",
     "rating schema preset 'mmrb2-generation' does not fit a text-to-text campaign"),
    (["--task", "text-to-image", "--overlap", "0"], "invalid_overlap", "overlap must be a whole number from 1 to 50, got 0"),
    (["--task", "text-to-image", "--gold-rate", "1.5"], "invalid_gold_rate", "gold rate must be a share from 0 to 1, got 1.5"),
    (["--task", "text-to-image", "--lease-minutes", "0"], "invalid_lease_minutes", "lease minutes must be a whole number"),
    (["--task", "text-to-image", "--prefilter-rule", '{"rule": "coin"}'], "invalid_prefilter_rule",
     "prefilter_rule.rule: unknown rule 'coin'"),
    (["--task", "text-to-image", "--status", "finished"], "invalid_status", "unknown status 'finished'"),
    (["--task", "text-to-image", "--require-full-playback"], "invalid_full_playback",
     "full playback can be required only of a campaign with audio or video (audio-to-text, text-to-audio, text-to-video, "
     "video-to-text); text-to-image has none"),
])
def test_create_campaign_refuses_bad_settings_and_writes_nothing(args, code, message):
    before = world_snapshot()
    text, error = refused("create_campaign", "new-one", *args)
    assert message in text and error["code"] == code and message in error["message"]
    assert world_snapshot() == before


def test_create_campaign_refuses_a_duplicate_slug_and_leaves_the_first_as_it_was():
    run("create_campaign", "twice", "--task", "text-to-image", "--overlap", "2")
    before = world_snapshot()
    text, error = refused("create_campaign", "twice", "--task", "text-to-text", "--overlap", "5")
    assert text == "campaign 'twice' already exists" and error["code"] == "campaign_exists"
    assert world_snapshot() == before
    assert Campaign.objects.get(slug="twice").overlap == 2


def test_create_campaign_refuses_an_unreadable_schema_file(tmp_path):
    broken = tmp_path / "schema.json"
    broken.write_text('{"questions": [}')
    before = world_snapshot()
    text, _error = refused("create_campaign", "x", "--task", "text-to-text", "--schema-file", str(broken))
    assert text.startswith(f"schema file {broken}: not JSON")
    text, error = refused("create_campaign", "x", "--task", "text-to-text", "--schema-file", str(tmp_path / "nope.json"))
    assert "cannot be read" in text and error["code"] == "file_unreadable"
    assert world_snapshot() == before


def test_campaign_members_adds_and_removes_by_username():
    campaign = CampaignFactory(slug="team")
    ann, bob, cat = UserFactory(username="ann"), UserFactory(username="bob"), UserFactory(username="cat")
    campaign.members.add(cat)
    out = json.loads(run("campaign_members", "team", "--add", "ann,bob", "--remove", "cat", "--json"))
    assert out == {"campaign": "team", "added": ["ann", "bob"], "removed": ["cat"], "members": ["ann", "bob"]}
    assert set(campaign.members.all()) == {ann, bob}
    again = json.loads(run("campaign_members", "team", "--add", "ann", "--json"))
    assert again["added"] == [] and again["members"] == ["ann", "bob"]


def test_campaign_members_refuses_an_unknown_user_and_changes_nobody():
    campaign = CampaignFactory(slug="team")
    UserFactory(username="ann")
    text, error = refused("campaign_members", "team", "--add", "ann,ghost,nobody")
    assert text == "unknown user(s): ghost, nobody; nothing changed" and error["code"] == "unknown_user"
    assert campaign.members.count() == 0
    text, _ = refused("campaign_members", "no-such-campaign", "--add", "ann")
    assert text == "campaign 'no-such-campaign' does not exist"


def test_create_user_takes_the_password_from_the_environment(monkeypatch):
    monkeypatch.setenv("CONCORD_NEW_USER_PASSWORD", "a-long-secret-phrase")
    out = json.loads(run("create_user", "dana", "--role", "curator", "--email", "dana@example.org", "--json"))
    user = User.objects.get(username="dana")
    assert out == {"username": "dana", "role": "curator", "email": "dana@example.org", "password_set": True}
    assert user.check_password("a-long-secret-phrase") and user.is_curator and not user.is_staff
    assert not Invitation.objects.exists()


def test_create_user_without_a_password_prints_a_single_use_link(monkeypatch):
    monkeypatch.delenv("CONCORD_NEW_USER_PASSWORD", raising=False)
    out = json.loads(run("create_user", "eve", "--role", "annotator", "--base-url", "https://concord.example", "--json"))
    user = User.objects.get(username="eve")
    assert not user.has_usable_password()
    assert out["invitation_url"].startswith("https://concord.example/invite/")
    token = out["invitation_url"].rstrip("/").rsplit("/", 1)[1]
    assert token not in Invitation.objects.get().token_sha256  # only its hash is stored
    invitation_accept(token=token, password="violet-harbour-91", password_again="violet-harbour-91")
    user.refresh_from_db()
    assert user.check_password("violet-harbour-91")
    with pytest.raises(ApplicationError, match="this invitation link has already been used; ask for a new one"):
        invitation_accept(token=token, password="another-long-one-7", password_again="another-long-one-7")
    user.refresh_from_db()
    assert user.check_password("violet-harbour-91")


def test_an_expired_invitation_is_refused_and_the_password_stays_unset(monkeypatch):
    monkeypatch.delenv("CONCORD_NEW_USER_PASSWORD", raising=False)
    out = json.loads(run("create_user", "fay", "--role", "annotator", "--json"))
    token = out["invitation_url"].rstrip("/").rsplit("/", 1)[1]
    Invitation.objects.update(expires_at=timezone.now() - timedelta(minutes=1))
    with pytest.raises(ApplicationError, match=r"this invitation link expired at .* UTC; ask for a new one"):
        invitation_accept(token=token, password="violet-harbour-91", password_again="violet-harbour-91")
    assert not User.objects.get(username="fay").has_usable_password()
    assert Invitation.objects.get().used_at is None


@pytest.mark.parametrize(("args", "code", "message"), [
    (["--role", "owner"], "unknown_role", "unknown role 'owner'; choose one of annotator, curator, admin"),
    (["--role", "annotator", "--email", "not-an-address"], "invalid_email", "'not-an-address' is not an e-mail address"),
    (["--role", "annotator", "--expires-hours", "0"], "invalid_invitation_hours", "an invitation lasts 1 to 720 hours"),
])
def test_create_user_refuses_bad_input_and_creates_nobody(monkeypatch, args, code, message):
    monkeypatch.delenv("CONCORD_NEW_USER_PASSWORD", raising=False)
    before = world_snapshot()
    text, error = refused("create_user", "gil", *args)
    assert message in text and error["code"] == code
    assert world_snapshot() == before


def test_create_user_refuses_a_taken_username_and_a_weak_password(monkeypatch):
    UserFactory(username="hal")
    before = world_snapshot()
    text, error = refused("create_user", "HAL", "--role", "annotator")
    assert text == "user 'HAL' already exists as 'hal'" and error["code"] == "user_exists"
    monkeypatch.setenv("CONCORD_NEW_USER_PASSWORD", "short")
    text, error = refused("create_user", "ivy", "--role", "annotator")
    assert "too short" in text and error["code"] == "weak_password"
    assert world_snapshot() == before


def test_edit_campaign_changes_only_what_is_given_and_moves_the_status():
    run("create_campaign", "edit-me", "--task", "text-to-image", "--overlap", "2", "--status", "draft")
    out = json.loads(run("edit_campaign", "edit-me", "--status", "active", "--lease-minutes", "45", "--schema", "ab-tie",
                         "--prefilter", "on", "--json"))
    campaign = Campaign.objects.select_related("rating_schema").get(slug="edit-me")
    assert (campaign.status, campaign.overlap, campaign.lease_minutes) == ("active", 2, 45)
    assert campaign.requires_prefilter and campaign.rating_schema.preset == "ab-tie" and out["schema"].startswith("ab-tie")
    assert json.loads(run("edit_campaign", "edit-me", "--lease-max-minutes", "120", "--json"))["lease_max_minutes"] == 120
    assert json.loads(run("edit_campaign", "edit-me", "--lease-max-minutes", "0", "--json"))["lease_max_minutes"] is None


def test_edit_campaign_applies_a_new_overlap_to_the_existing_pairs_only_when_asked():
    run("create_campaign", "more-raters", "--task", "text-to-image", "--overlap", "2")
    campaign = Campaign.objects.get(slug="more-raters")
    pairs = [PairFactory(campaign=campaign) for _ in range(2)]
    assert "2 existing pairs keep their counts" in run("edit_campaign", "more-raters", "--overlap", "3")
    assert {p.required_annotations for p in Pair.objects.filter(pk__in=[p.pk for p in pairs])} == {2}
    out = json.loads(run("edit_campaign", "more-raters", "--overlap", "4", "--apply-to-existing", "--json"))
    assert out["overlap_change"] == {"before": 3, "after": 4, "pairs": 2, "requeued": 0, "completed": 0, "applied": True}
    assert {p.required_annotations for p in Pair.objects.filter(pk__in=[p.pk for p in pairs])} == {4}


@pytest.mark.parametrize(("args", "message"), [
    (["--status", "finished"], "unknown status 'finished'"),
    (["--overlap", "0"], "overlap must be a whole number from 1 to 50, got 0"),
    (["--schema", "likert-99"], "unknown rating schema preset 'likert-99'"),
])
def test_edit_campaign_refuses_bad_input_and_changes_nothing(args, message):
    run("create_campaign", "keep-me", "--task", "text-to-image", "--overlap", "2", "--status", "archived")
    before = (world_snapshot(), list(Campaign.objects.values()))
    text, _error = refused("edit_campaign", "keep-me", *args)
    assert message in text
    assert (world_snapshot(), list(Campaign.objects.values())) == before
    text, _error = refused("edit_campaign", "keep-me", "--status", "active")
    assert text == "a campaign that is archived cannot become active"
    text, _error = refused("edit_campaign", "no-such", "--overlap", "2")
    assert text == "campaign 'no-such' does not exist"


def test_invite_user_voids_the_earlier_link_and_set_role_changes_the_role(monkeypatch):
    monkeypatch.delenv("CONCORD_NEW_USER_PASSWORD", raising=False)
    first = json.loads(run("create_user", "jo", "--role", "annotator", "--json"))["invitation_url"]
    second = json.loads(run("invite_user", "jo", "--json"))["invitation_url"]
    with pytest.raises(ApplicationError, match="this invitation link expired at"):
        invitation_accept(token=first.rstrip("/").rsplit("/", 1)[1], password="violet-harbour-91",
                          password_again="violet-harbour-91")
    invitation_accept(token=second.rstrip("/").rsplit("/", 1)[1], password="violet-harbour-91",
                      password_again="violet-harbour-91")
    assert json.loads(run("set_role", "jo", "--role", "admin", "--json")) == {"username": "jo", "role": "admin"}
    assert User.objects.get(username="jo").is_superuser
    text, error = refused("set_role", "jo", "--role", "owner")
    assert text.startswith("unknown role 'owner'") and User.objects.get(username="jo").role == "admin"
    text, error = refused("invite_user", "ghost")
    assert text == "unknown user 'ghost'" and error["code"] == "unknown_user"
    # jo now uses the account: the command line (the server's own rights) may still issue a link, and it is recorded.
    run("invite_user", "jo", "--json")
    assert list(AccountEvent.objects.values_list("kind", "username", "actor_username")) == [
        ("link_for_account_in_use", "jo", "")]
