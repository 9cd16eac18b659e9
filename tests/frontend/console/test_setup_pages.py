"""The console's setup pages: new campaign and settings with previews, members, people, invitations, judges."""

import json
import re

import pytest
from django.urls import reverse

from annotation.accounts.models import AccountEvent, Invitation, Role, User
from annotation.catalogue.models import Campaign, Pair
from curation.models import Judge
from tests.curation.judge_server import JudgeServer, votes_script
from tests.curation.prefilter_support import campaign as prefilter_campaign
from tests.curation.prefilter_support import marked_pair
from tests.factories import AnnotationFactory, CampaignFactory, CuratorFactory, PairFactory, UserFactory

pytestmark = pytest.mark.django_db

CUSTOM = {"questions": [
    {"id": "winner", "label": "Which image follows the prompt?", "type": "choice", "scope": "pair", "level": "nominal",
     "oriented": True, "required": True, "options": [{"value": "A", "label": "Left"}, {"value": "B", "label": "Right"}]},
    {"id": "why", "label": "Why?", "type": "text", "scope": "pair", "level": None, "required": False}]}


@pytest.fixture
def curator(client):
    client.force_login(CuratorFactory())
    return client


def campaign_form(**overrides) -> dict:
    return {"slug": "sunsets", "kind": "text-to-image", "name": "Sunsets", "status": "draft", "overlap": "2",
            "gold_rate": "0.1", "lease_minutes": "20", "requires_prefilter": "on", "prefilter_rule": "majority",
            "prefilter_threshold": "0.8", "schema_source": "custom", "schema_json": json.dumps(CUSTOM),
            "instructions": "Look at the **sky**.", **overrides}


def test_a_curator_creates_a_campaign_with_a_custom_schema_from_the_page(curator):
    response = curator.post(reverse("console-campaign-new"), campaign_form())
    assert response.status_code == 302 and response["Location"] == reverse("console-campaign-settings", args=["sunsets"])
    campaign = Campaign.objects.select_related("rating_schema").get(slug="sunsets")
    assert (campaign.status, campaign.overlap, campaign.gold_rate, campaign.lease_minutes) == ("draft", 2, 0.1, 20)
    assert campaign.requires_prefilter and campaign.prefilter_rule["threshold"] == 0.8
    assert campaign.rating_schema.definition == CUSTOM and campaign.rating_schema.preset == ""
    page = curator.get(response["Location"]).content.decode()
    assert "Campaign sunsets created (draft)" in page and "&quot;winner&quot;" in page  # the custom JSON, to edit
    assert campaign.lease_max_minutes is None and 'name="lease_max_minutes"' in page


def test_the_longest_lease_is_set_on_the_settings_page_and_a_short_one_is_refused(curator):
    assert curator.post(reverse("console-campaign-new"), campaign_form(lease_max_minutes="60")).status_code == 302
    campaign = Campaign.objects.get(slug="sunsets")
    assert campaign.lease_max_minutes == 60
    page = curator.get(reverse("console-campaign-settings", args=["sunsets"])).content.decode()
    assert 'name="lease_max_minutes" type="number" min="1" value="60"' in page
    refused = curator.post(reverse("console-campaign-settings", args=["sunsets"]),
                           campaign_form(lease_max_minutes="5")).content.decode()
    assert "the longest lease must be a whole number of minutes from the lease time (20)" in refused
    campaign.refresh_from_db()
    assert campaign.lease_max_minutes == 60


def test_a_curator_requires_full_playback_on_the_settings_page_and_sees_it_ticked(curator):
    response = curator.post(reverse("console-campaign-new"), campaign_form(kind="text-to-audio", requires_full_playback="on"))
    assert response.status_code == 302, response.content.decode()[:500]
    assert Campaign.objects.get(slug="sunsets").requires_full_playback is True
    page = curator.get(response["Location"]).content.decode()
    assert 'name="requires_full_playback" checked' in page


@pytest.mark.parametrize(("overrides", "message"), [
    ({"overlap": "0"}, "overlap must be a whole number from 1 to 50, got 0"),
    ({"overlap": "two"}, "overlap must be a number, got &#x27;two&#x27;"),
    ({"schema_json": "{not json"}, "the custom schema is not valid JSON: Expecting property name"),
    ({"schema_json": '{"questions": []}'}, "invalid rating schema: a schema needs at least one question"),
    ({"schema_json": '{"questions": [{"id": "q", "max": 1e999}]}'},
     "the custom schema: questions[0].max is not a finite number (infinity), which is not accepted."),
    ({"kind": "text-to-paint"}, "unknown task kind"),
    ({"kind": "text-to-text", "schema_source": "preset", "preset": "mmrb2-generation"},
     "rating schema preset &#x27;mmrb2-generation&#x27; does not fit a text-to-text campaign"),
])
def test_a_refused_campaign_form_comes_back_with_the_reason_and_the_values_typed(curator, overrides, message):
    response = curator.post(reverse("console-campaign-new"), campaign_form(**overrides))
    page = response.content.decode()
    assert response.status_code == 400 and message in page
    assert 'value="sunsets"' in page
    assert not Campaign.objects.exists()


def test_the_previews_render_the_raters_form_and_the_markdown(curator):
    response = curator.post(reverse("console-preview-form"), {"schema_source": "custom", "schema_json": json.dumps(CUSTOM)})
    assert "Which image follows the prompt?" in response.json()["html"] and 'name="winner"' in response.json()["html"]
    preset = curator.post(reverse("console-preview-form"), {"schema_source": "preset", "kind": "text-to-image"}).json()
    assert preset["definition"]["preset"] == "mmrb2-generation" and "Overall preference" in preset["html"]
    misfit = curator.post(reverse("console-preview-form"), {"schema_source": "preset", "kind": "text-to-text",
                                                            "preset": "mmrb2-generation"})
    assert misfit.status_code == 400 and "does not fit a text-to-text campaign" in misfit.json()["error"]
    bad = curator.post(reverse("console-preview-form"), {"schema_source": "custom", "schema_json": '{"questions": 3}'})
    assert bad.status_code == 400 and bad.json()["error"].startswith("invalid rating schema")
    markdown = curator.post(reverse("console-preview-markdown"), {"text": "**bold** <script>x()</script>"}).json()
    assert "<strong>bold</strong>" in markdown["html"] and "<script>" not in markdown["html"]


def test_settings_change_the_status_and_members_are_added_removed_and_invited(curator):
    campaign = CampaignFactory(slug="team", status=Campaign.Status.DRAFT)
    UserFactory(username="ann")
    form = {"status": "active", "overlap": "3", "lease_minutes": "30", "gold_rate": "0", "schema_source": "preset"}
    assert curator.post(reverse("console-campaign-settings", args=["team"]), form).status_code == 302
    campaign.refresh_from_db()
    assert campaign.status == "active"
    members = reverse("console-campaign-members", args=["team"])
    curator.post(members, {"action": "add", "usernames": "ann, ghost"})
    assert campaign.members.count() == 0
    curator.post(members, {"action": "add", "usernames": "ann"})
    assert list(campaign.members.values_list("username", flat=True)) == ["ann"]
    page = curator.post(members, {"action": "invite", "username": "newbie"}).content.decode()
    link = re.search(r'value="(http://testserver/invite/[^"]+)"', page).group(1)
    assert set(campaign.members.values_list("username", flat=True)) == {"ann", "newbie"}
    assert not User.objects.get(username="newbie").has_usable_password()
    curator.post(members, {"action": "remove", "usernames": "ann"})
    assert list(campaign.members.values_list("username", flat=True)) == ["newbie"]
    assert link.startswith("http://testserver/invite/")


def test_the_invitation_page_sets_the_password_once(client):
    curator = CuratorFactory()
    client.force_login(curator)
    page = client.post(reverse("console-people"), {"username": "newbie", "role": "annotator", "mode": "invite"})
    path = re.search(r'value="http://testserver(/invite/[^"]+)"', page.content.decode()).group(1)
    client.logout()
    assert "Welcome, <strong data-testid=\"invited-username\">newbie</strong>" in client.get(path).content.decode()
    mismatch = client.post(path, {"password": "quiet-river-4821", "password_again": "quiet-river-4822"})
    assert mismatch.status_code == 400 and "the two passwords differ" in mismatch.content.decode()
    done = client.post(path, {"password": "quiet-river-4821", "password_again": "quiet-river-4821"})
    assert done.status_code == 302 and done["Location"] == reverse("login")
    assert User.objects.get(username="newbie").check_password("quiet-river-4821")
    used = client.get(path)
    assert used.status_code == 410 and "already been used" in used.content.decode()
    assert client.login(username="newbie", password="quiet-river-4821")


def test_the_people_page_refuses_a_curator_a_new_link_for_an_account_in_use_and_gives_it_to_an_admin(client):
    ann = UserFactory(username="ann")
    ann.last_login = ann.date_joined
    ann.save(update_fields=["last_login"])
    client.force_login(CuratorFactory())
    people = client.get(reverse("console-people")).content.decode()
    assert "in use: a new link is for admins" in people
    refused = client.post(reverse("console-person-action", args=[ann.pk, "invite"]))
    assert refused.status_code == 403
    assert "ann already uses this account (a password is set, last sign-in" in refused.content.decode()
    assert not Invitation.objects.exists() and not AccountEvent.objects.exists()
    client.force_login(UserFactory(username="root-admin", role=Role.ADMIN))
    assert "New link (replaces their password)" in client.get(reverse("console-people")).content.decode()
    shown = client.post(reverse("console-person-action", args=[ann.pk, "invite"]))
    assert shown.status_code == 200 and "http://testserver/invite/" in shown.content.decode()
    event = AccountEvent.objects.get()
    assert (event.kind, event.user, event.actor_username) == ("link_for_account_in_use", ann, "root-admin")


def test_curators_invite_annotators_only_and_admins_change_roles(client):
    client.force_login(CuratorFactory())
    refused = client.post(reverse("console-people"), {"username": "boss", "role": "curator", "mode": "invite"})
    assert refused.status_code == 403 and "only admins create curator and admin accounts" in refused.content.decode()
    assert not User.objects.filter(username="boss").exists() and not Invitation.objects.exists()
    admin = UserFactory(role=Role.ADMIN)
    client.force_login(admin)
    client.post(reverse("console-people"), {"username": "boss", "role": "curator", "mode": "password",
                                            "password": "long-enough-pw-1", "password_again": "long-enough-pw-1"})
    boss = User.objects.get(username="boss")
    assert boss.role == "curator" and boss.check_password("long-enough-pw-1")
    client.post(reverse("console-person-action", args=[boss.pk, "role"]), {"role": "admin"})
    boss.refresh_from_db()
    assert boss.role == "admin" and boss.is_staff


def test_annotators_get_403_on_every_setup_page(client):
    client.force_login(UserFactory())
    for name in ("console-campaign-new", "console-people", "console-judges"):
        assert client.get(reverse(name)).status_code == 403


def test_a_curator_configures_an_http_judge_enables_it_and_tries_it_on_a_pair(curator):
    pair = marked_pair(prefilter_campaign(), "p1")
    with JudgeServer(votes_script({"vlm": {("p1", "forward"): "A"}})) as server:
        settings = {"base_url": f"{server.url}/v1", "model": "vlm", "max_retries": 0}
        response = curator.post(reverse("console-judges"), {"name": "vlm", "backend": "openai-chat",
                                                            "settings": json.dumps(settings)})
        assert response.status_code == 302
        judge = Judge.objects.get(name="vlm")
        assert judge.enabled is False  # the box was not ticked
        curator.post(reverse("console-judge-action", args=["vlm", "enable"]))
        judge.refresh_from_db()
        assert judge.enabled
        page = curator.post(reverse("console-judge-action", args=["vlm", "test"]), {"pair": pair.pk, "order": "forward"})
    text = page.content.decode()
    assert "Parsed verdict: <strong>A</strong>" in text and "&quot;better_response&quot;: &quot;A&quot;" in text


def test_a_curator_cannot_configure_a_python_judge_and_sees_why(curator):
    response = curator.post(reverse("console-judges"), {
        "name": "h", "backend": "python", "settings": '{"callable": "curation.judges.heuristics.image_sanity"}'})
    assert response.status_code == 403 and "only admins may configure a python judge" in response.content.decode()
    assert not Judge.objects.exists()


def test_a_curators_judges_page_says_who_sets_keys_and_offers_no_key_in_its_example(curator):
    """Only admins set api_key_env: a curator's example has none, a refused stored variable is named, and a curator's
    judge with a key is refused with the reason."""
    Judge.objects.create(name="old", backend="openai-chat",
                         settings={"base_url": "http://x/v1", "model": "m", "api_key_env": "DATABASE_URL"})
    page = curator.get(reverse("console-judges")).content.decode()
    assert "only admins set or change it" in page and "CONCORD_JUDGE_KEY_*" in page
    new_form = page[page.index('data-testid="judge-new"'):]
    assert "api_key_env" not in new_form[:new_form.index("<details>")]
    assert "api_key_env: DATABASE_URL is a variable Concord itself reads" in page
    refused = curator.post(reverse("console-judges"), {"name": "keyed", "backend": "openai-chat", "settings": json.dumps(
        {"base_url": "http://x/v1", "model": "m", "api_key_env": "CONCORD_JUDGE_KEY_A"})})
    assert refused.status_code == 403 and "only admins set or change api_key_env" in refused.content.decode()
    assert not Judge.objects.filter(name="keyed").exists()


def test_an_admins_judges_page_offers_a_judge_key_variable_in_its_example(client):
    client.force_login(UserFactory(role=Role.ADMIN))
    page = client.get(reverse("console-judges")).content.decode()
    assert "only admins (you are one)" in page and "&quot;api_key_env&quot;: &quot;CONCORD_JUDGE_KEY_VLLM&quot;" in page


def test_a_judge_form_with_broken_settings_says_they_are_not_valid_json(curator):
    """The new-judge form and a judge's settings form both name the JSON error in a plain sentence."""
    response = curator.post(reverse("console-judges"), {"name": "vlm", "backend": "openai-chat", "settings": "{not json"})
    assert response.status_code == 400
    assert "the settings are not valid JSON: Expecting property name enclosed in double quotes (line 1, column 2)" \
        in response.content.decode()
    assert not Judge.objects.exists()
    settings = json.dumps({"base_url": "http://127.0.0.1:9/v1", "model": "vlm"})
    created = curator.post(reverse("console-judges"), {"name": "vlm", "backend": "openai-chat", "settings": settings})
    assert created.status_code == 302
    page = curator.post(reverse("console-judge-action", args=["vlm", "settings"]), {"settings": "[1,"}, follow=True)
    assert "the settings are not valid JSON: Expecting value (line 1, column 4)" in page.content.decode()


def test_the_people_page_takes_the_same_queries_for_3_or_30_accounts(client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(UserFactory(role=Role.ADMIN))
    UserFactory.create_batch(2)
    with CaptureQueriesContext(connection) as few:
        assert client.get(reverse("console-people")).status_code == 200
    UserFactory.create_batch(27)
    with CaptureQueriesContext(connection) as many:
        page = client.get(reverse("console-people"))
    assert page.content.decode().count("data-person=") == 30
    assert len(many.captured_queries) == len(few.captured_queries)


def _rated_pairs(campaign, n: int, done: int) -> list:
    pairs = [PairFactory(campaign=campaign, status=Pair.Status.EXCLUDED) for _ in range(n)]
    for pair in pairs:
        for _ in range(done):
            AnnotationFactory(pair=pair)
    Pair.objects.filter(pk__in=[p.pk for p in pairs]).update(annotations_done=done, status=Pair.Status.COMPLETE)
    return pairs


def test_a_new_overlap_asks_whether_the_existing_pairs_follow_it_and_says_how_many(curator):
    """Overlap 3 → 4 on 8 pairs rated 3 times: the page asks before saving, then applies it to the 8 pairs."""
    campaign = CampaignFactory(slug="raise", overlap=3)
    pairs = _rated_pairs(campaign, 8, 3)
    url = reverse("console-campaign-settings", args=["raise"])
    form = {"status": "active", "overlap": "4", "lease_minutes": "30", "gold_rate": "0", "schema_source": "preset"}
    asked = curator.post(url, form)
    page = asked.content.decode()
    assert asked.status_code == 200 and 'data-testid="overlap-change"' in page
    assert "Apply to the 8 existing pairs" in page and "8 complete pairs go back to the queue." in page
    assert 'name="overlap_confirmed" value="4"' in page
    campaign.refresh_from_db()
    assert campaign.overlap == 3, "nothing is saved before the curator answers"

    saved = curator.post(url, {**form, "overlap_confirmed": "4", "apply_to_existing": "on"}, follow=True)
    assert "Overlap 3 → 4, applied to the 8 existing pairs." in saved.content.decode()
    assert set(Pair.objects.filter(pk__in=[p.pk for p in pairs]).values_list("status", "required_annotations")) == {
        ("queued", 4)}
    overview = curator.get(reverse("console-campaign", args=["raise"])).content.decode()
    assert "24 / 32 annotations" in overview and "0 of 8 pairs complete" in overview


def test_a_new_overlap_kept_for_new_pairs_says_the_existing_ones_keep_their_counts(curator):
    campaign = CampaignFactory(slug="keep", overlap=3)
    pairs = _rated_pairs(campaign, 2, 3)
    url = reverse("console-campaign-settings", args=["keep"])
    form = {"status": "active", "overlap": "4", "lease_minutes": "30", "gold_rate": "0", "schema_source": "preset",
            "overlap_confirmed": "4"}
    saved = curator.post(url, form, follow=True)
    assert "Overlap 3 → 4 for pairs imported from now on; the 2 existing pairs keep their counts." in saved.content.decode()
    campaign.refresh_from_db()
    assert campaign.overlap == 4
    assert set(Pair.objects.filter(pk__in=[p.pk for p in pairs]).values_list("status", "required_annotations")) == {
        ("complete", 3)}
    again = curator.post(url, {**form, "overlap": "5"})
    assert again.status_code == 200 and "Apply to the 2 existing pairs" in again.content.decode(), \
        "a confirmation for 4 is no answer for 5"

    overview = curator.get(reverse("console-campaign", args=["keep"])).content.decode()
    assert "2 pairs ask for fewer ratings than the overlap of 4" in overview
    settings_page = curator.get(url).content.decode()
    assert "Apply the overlap of 4 to the 2 existing pairs that ask for fewer (2 complete ones go back" in settings_page
    applied = curator.post(url, {**form, "apply_to_existing": "on"}, follow=True).content.decode()
    assert "Overlap 4 applied to the 2 existing pairs that asked for fewer." in applied
    assert set(Pair.objects.filter(pk__in=[p.pk for p in pairs]).values_list("status", "required_annotations")) == {
        ("queued", 4)}
    assert 'data-testid="below-overlap"' not in curator.get(reverse("console-campaign", args=["keep"])).content.decode()
