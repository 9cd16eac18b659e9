"""The setup API: the same operations as the console's setup pages and the commands, with the same refusals."""

import pytest
from rest_framework.test import APIClient

from annotation.accounts.models import AccountEvent, Invitation, Role, User
from annotation.accounts.services.accounts import user_create
from annotation.catalogue.models import Campaign, Pair
from tests.factories import CampaignFactory, CuratorFactory, PairFactory, UserFactory

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def curator():
    return client_for(CuratorFactory())


def test_a_curator_creates_a_campaign_with_a_custom_schema_and_edits_it(curator):
    schema = {"questions": [{"id": "winner", "type": "choice", "scope": "pair", "level": "nominal", "oriented": True,
                             "required": True, "options": [{"value": "A", "label": "A"}, {"value": "B", "label": "B"}]}]}
    response = curator.post("/api/v1/campaigns/create/", {
        "slug": "api-made", "kind": "text-to-text", "schema_definition": schema, "overlap": 2, "gold_rate": 0.05,
        "lease_minutes": 10, "requires_prefilter": True, "instructions": "Be *fair*.", "status": "draft"}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["status"], body["overlap"], body["schema"]) == ("draft", 2, "api-made-custom v1")
    response = curator.post("/api/v1/campaigns/api-made/update/", {"status": "active", "overlap": 4,
                                                                    "preset": "ab-tie"}, format="json")
    assert response.status_code == 200, response.content
    assert (response.json()["status"], response.json()["overlap"]) == ("active", 4)
    assert response.json()["schema"] == "ab-tie-text-to-text v1"


def test_a_curator_sets_the_longest_lease_and_clears_it_back_to_the_default(curator):
    created = curator.post("/api/v1/campaigns/create/", {"slug": "long-leases", "kind": "text-to-text",
                                                         "lease_minutes": 10, "lease_max_minutes": 90}, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["lease_max_minutes"] == 90
    cleared = curator.post("/api/v1/campaigns/long-leases/update/", {"lease_max_minutes": None}, format="json")
    assert cleared.status_code == 200 and cleared.json()["lease_max_minutes"] is None
    assert Campaign.objects.get(slug="long-leases").lease_max_minutes is None


def test_a_curator_requires_full_playback_of_an_audio_campaign_and_lifts_it(curator):
    created = curator.post("/api/v1/campaigns/create/", {"slug": "voices", "kind": "text-to-audio",
                                                         "requires_full_playback": True}, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["requires_full_playback"] is True
    lifted = curator.post("/api/v1/campaigns/voices/update/", {"requires_full_playback": False}, format="json")
    assert lifted.json()["requires_full_playback"] is False
    assert Campaign.objects.get(slug="voices").requires_full_playback is False


@pytest.mark.parametrize(("payload", "code"), [
    ({"slug": "x", "kind": "text-to-paint"}, "unknown_task_kind"),
    ({"slug": "x", "kind": "text-to-text", "preset": "likert-99"}, "unknown_schema"),
    ({"slug": "x", "kind": "text-to-text", "preset": "mmrb2-generation"}, "preset_kind_mismatch"),
    ({"slug": "x", "kind": "text-to-image", "preset": "mmrb2-reasoning"}, "preset_kind_mismatch"),
    ({"slug": "x", "kind": "text-to-text", "overlap": 0}, "invalid_overlap"),
    ({"slug": "x", "kind": "text-to-text", "schema_definition": {"questions": []}}, "invalid_schema"),
    ({"slug": "x", "kind": "text-to-text", "requires_full_playback": True}, "invalid_full_playback"),
    ({"slug": "x", "kind": "text-to-text", "lease_minutes": 30, "lease_max_minutes": 20}, "invalid_lease_max_minutes"),
])
def test_bad_campaign_settings_are_refused_and_nothing_is_created(curator, payload, code):
    response = curator.post("/api/v1/campaigns/create/", payload, format="json")
    assert response.status_code == 400 and response.json()["code"] == code
    assert not Campaign.objects.exists()


def test_a_status_moves_forward_only_as_allowed(curator):
    CampaignFactory(slug="old", status=Campaign.Status.ARCHIVED)
    response = curator.post("/api/v1/campaigns/old/update/", {"status": "active"}, format="json")
    assert response.status_code == 409 and response.json()["message"] == "a campaign that is archived cannot become active"


def test_members_are_added_and_removed_and_an_unknown_user_changes_nothing(curator):
    campaign = CampaignFactory(slug="team")
    UserFactory(username="ann")
    response = curator.post("/api/v1/campaigns/team/members/", {"add": ["ann", "ghost"]}, format="json")
    assert response.status_code == 404 and response.json()["message"] == "unknown user(s): ghost; nothing changed"
    assert campaign.members.count() == 0
    response = curator.post("/api/v1/campaigns/team/members/", {"add": ["ann"]}, format="json")
    assert response.json() == {"added": ["ann"], "removed": [], "members": ["ann"]}


def test_a_curator_invites_an_annotator_who_sets_a_password_once(curator):
    response = curator.post("/api/v1/users/create/", {"username": "newbie"}, format="json")
    assert response.status_code == 201
    link = response.json()["invitation_url"]
    token = link.rstrip("/").rsplit("/", 1)[1]
    anonymous = APIClient()
    payload = {"token": token, "password": "quiet-river-4821", "password_again": "quiet-river-4821"}
    assert anonymous.post("/api/v1/invitations/accept/", payload, format="json").json() == {"username": "newbie"}
    assert User.objects.get(username="newbie").check_password("quiet-river-4821")
    again = anonymous.post("/api/v1/invitations/accept/", {**payload, "password": "x" * 12, "password_again": "x" * 12},
                           format="json")
    assert again.status_code == 410 and again.json()["code"] == "invitation_used"
    assert User.objects.get(username="newbie").check_password("quiet-river-4821")


def test_only_admins_create_curators_and_change_roles(curator):
    response = curator.post("/api/v1/users/create/", {"username": "boss", "role": "curator"}, format="json")
    assert response.status_code == 403 and response.json()["message"] == "only admins create curator and admin accounts"
    assert not User.objects.filter(username="boss").exists() and not Invitation.objects.exists()
    UserFactory(username="ann")
    assert curator.post("/api/v1/users/ann/role/", {"role": "curator"}, format="json").status_code == 403
    admin = client_for(UserFactory(role=Role.ADMIN))
    assert admin.post("/api/v1/users/create/", {"username": "boss", "role": "curator", "password": "long-enough-pw-1"},
                      format="json").status_code == 201
    assert admin.post("/api/v1/users/ann/role/", {"role": "curator"}, format="json").json()["role"] == "curator"


def test_annotators_cannot_set_anything_up():
    annotator = client_for(UserFactory())
    assert annotator.post("/api/v1/campaigns/create/", {"slug": "x", "kind": "text-to-text"}, format="json").status_code == 403
    assert annotator.post("/api/v1/users/create/", {"username": "y"}, format="json").status_code == 403
    assert not Campaign.objects.exists()


def test_a_new_link_for_an_invited_annotator_is_returned_once_and_curators_cannot_relink_a_curator(curator):
    user_create(username="ann", password=None)
    response = curator.post("/api/v1/users/ann/invite/")
    assert response.status_code == 200 and "/invite/" in response.json()["invitation_url"]
    assert not AccountEvent.objects.exists(), "renewing a link nobody used yet hands over nothing"
    CuratorFactory(username="other-curator")
    refused = curator.post("/api/v1/users/other-curator/invite/")
    assert refused.status_code == 403 and Invitation.objects.filter(user__username="other-curator").count() == 0


def test_a_curator_cannot_relink_an_annotator_who_uses_the_account_and_an_admins_link_is_recorded(curator):
    """The report: a curator re-invited an active annotator, set their password through the link and signed in
    as them, with no trace. Now that is refused to curators; an admin may, and both the link and the password it
    sets are recorded."""
    UserFactory(username="ann")
    refused = curator.post("/api/v1/users/ann/invite/")
    assert refused.status_code == 403
    assert refused.json()["code"] == "account_in_use"
    assert refused.json()["message"].startswith("ann already uses this account (a password is set): a new link would let")
    assert "only an admin can issue one" in refused.json()["message"]
    assert not Invitation.objects.exists() and User.objects.get(username="ann").check_password("pw")
    admin_user = UserFactory(username="root-admin", role=Role.ADMIN)
    issued = client_for(admin_user).post("/api/v1/users/ann/invite/")
    assert issued.status_code == 200
    token = issued.json()["invitation_url"].rstrip("/").rsplit("/", 1)[1]
    payload = {"token": token, "password": "quiet-river-4821", "password_again": "quiet-river-4821"}
    assert APIClient().post("/api/v1/invitations/accept/", payload, format="json").status_code == 200
    trail = list(AccountEvent.objects.order_by("pk").values_list("kind", "username", "actor_username", "actor_id"))
    assert trail == [("link_for_account_in_use", "ann", "root-admin", admin_user.pk),
                     ("password_set_by_link", "ann", "root-admin", admin_user.pk)]
    assert AccountEvent.objects.first().detail["invitation"] == Invitation.objects.get().pk


def test_the_schema_is_fixed_once_a_campaign_has_ratings(curator):
    from tests.factories import AnnotationFactory, PairFactory

    campaign = CampaignFactory(slug="rated")
    schema_before = campaign.rating_schema_id
    AnnotationFactory(pair=PairFactory(campaign=campaign))
    response = curator.post("/api/v1/campaigns/rated/update/", {"preset": "arena", "overlap": 4}, format="json")
    assert response.status_code == 409 and response.json()["code"] == "schema_in_use"
    assert "its questions can no longer change" in response.json()["message"]
    campaign.refresh_from_db()
    assert (campaign.rating_schema_id, campaign.overlap) == (schema_before, 3)
    assert curator.post("/api/v1/campaigns/rated/update/", {"overlap": 4}, format="json").json()["overlap"] == 4


def test_a_new_overlap_applies_to_the_existing_pairs_only_when_asked_and_says_how_many_it_changes(curator):
    campaign = CampaignFactory(slug="follow", overlap=3)
    pairs = [PairFactory(campaign=campaign) for _ in range(3)]
    kept = curator.post("/api/v1/campaigns/follow/update/", {"overlap": 2}, format="json").json()
    assert kept["overlap_change"] == {"before": 3, "after": 2, "pairs": 3, "requeued": 0, "completed": 0,
                                      "applied": False}
    assert set(Pair.objects.filter(campaign=campaign).values_list("required_annotations", flat=True)) == {3}
    applied = curator.post("/api/v1/campaigns/follow/update/", {"overlap": 4, "apply_to_existing": True},
                           format="json").json()
    assert (applied["overlap"], applied["overlap_change"]["pairs"], applied["overlap_change"]["applied"]) == (4, 3, True)
    assert {p.required_annotations for p in Pair.objects.filter(pk__in=[p.pk for p in pairs])} == {4}
    same = curator.post("/api/v1/campaigns/follow/update/", {"overlap": 4, "apply_to_existing": True}, format="json")
    assert same.json()["overlap_change"] == {"before": 4, "after": 4, "pairs": 0, "requeued": 0, "completed": 0,
                                             "applied": True}
    assert curator.post("/api/v1/campaigns/follow/update/", {"name": "Follow"}, format="json").json()[
        "overlap_change"] is None
