"""The crowd-platform entry link: a curator makes one for a campaign; following it with Prolific's ids signs in an
account bound to the participant id (made the first time, the same one after), runs the profile, and sends the
rater to the completion URL at the quota. Hostile ids are a 400 saying which and why; ids never reach a username."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from rest_framework.test import APIClient

from annotation.workqueue.models import CrowdEntry, CrowdParticipant
from annotation.workqueue.profile import DEFAULT_QUESTIONS
from annotation.workqueue.services.assignments import assignment_claim
from annotation.workqueue.services.crowd import crowd_link_create
from annotation.workqueue.services.profile import (
    campaign_questionnaire_set,
    profile_answer_save,
    questionnaire_create,
)
from core.errors import ApplicationError
from tests.factories import CuratorFactory
from tests.workqueue.assignment_helpers import ab_tie_campaign, submit

pytestmark = pytest.mark.django_db

PID, STUDY, SESSION = "5f8e0a1b2c3d4e5f6a7b8c9d", "60aa11bb22cc33dd44ee55ff", "sess_0123456789abcdef"
DONE = "https://app.prolific.com/submissions/complete?cc=C1A2B3"
ANSWERS = {"expertise": ["Video"], "languages": "English", "years": "3"}


def _entry_url(link, pid=PID, study=STUDY, session=SESSION) -> str:
    return f"/crowd/{link.token}/?PROLIFIC_PID={pid}&STUDY_ID={study}&SESSION_ID={session}"


def _campaign_with_link(quota=2, pairs=4, profile=True):
    campaign, _, _ = ab_tie_campaign(pairs=pairs, members=0)
    if profile:
        questionnaire = questionnaire_create(slug=f"{campaign.slug}-p", title="About you", questions=DEFAULT_QUESTIONS)
        campaign_questionnaire_set(campaign=campaign, questionnaire=questionnaire)
    return campaign, crowd_link_create(campaign=campaign, completion_url=DONE, quota=quota)


def test_a_first_visit_makes_a_member_account_not_named_after_the_id_and_asks_the_profile():
    campaign, link = _campaign_with_link()
    browser = Client()
    response = browser.get(_entry_url(link))
    assert response.status_code == 302 and response["Location"] == f"/work/campaigns/{campaign.slug}/profile/"
    participant = CrowdParticipant.objects.select_related("user").get()
    user = participant.user
    assert participant.participant_id == PID
    assert user.username.startswith("crowd-") and PID not in user.username and STUDY not in user.username
    assert not user.has_usable_password() and user.role == "annotator"
    assert campaign.members.filter(pk=user.pk).exists()
    entry = CrowdEntry.objects.get()
    assert (entry.study_id, entry.session_id) == (STUDY, SESSION)
    # Signed in: the profile page opens for them.
    assert browser.get(response["Location"]).status_code == 200


def test_a_second_visit_signs_in_the_same_account_with_the_new_session_id():
    campaign, link = _campaign_with_link(profile=False)
    first = Client()
    assert first.get(_entry_url(link))["Location"] == f"/work/campaigns/{campaign.slug}/"
    again = Client()
    assert again.get(_entry_url(link, session="sess_second"))["Location"] == f"/work/campaigns/{campaign.slug}/"
    assert CrowdParticipant.objects.count() == 1
    assert CrowdEntry.objects.get().session_id == "sess_second"
    assert again.get(f"/work/campaigns/{campaign.slug}/").status_code == 200


def test_at_the_quota_the_claim_refuses_and_the_workspace_and_the_link_send_to_the_completion_url():
    campaign, link = _campaign_with_link(quota=2, profile=False)
    browser = Client()
    browser.get(_entry_url(link))
    user = CrowdParticipant.objects.get().user
    for _ in range(2):
        submit(assignment_claim(campaign=campaign, annotator=user))
    with pytest.raises(ApplicationError) as refused:
        assignment_claim(campaign=campaign, annotator=user)
    assert refused.value.code == "quota_done" and refused.value.extra == {"completion_url": DONE}
    api = APIClient()
    api.force_authenticate(user)
    claimed = api.post(f"/api/v1/campaigns/{campaign.slug}/claim/")
    assert claimed.status_code == 403 and claimed.json()["extra"]["completion_url"] == DONE
    start = browser.post(f"/work/campaigns/{campaign.slug}/next/")
    assert start.status_code == 302 and start["Location"] == DONE
    assert CrowdEntry.objects.get().completed_at is not None
    assert Client().get(_entry_url(link))["Location"] == DONE


def test_the_profile_comes_before_the_first_pair_for_a_crowd_rater_too():
    campaign, link = _campaign_with_link()
    browser = Client()
    browser.get(_entry_url(link))
    user = CrowdParticipant.objects.get().user
    with pytest.raises(ApplicationError) as refused:
        assignment_claim(campaign=campaign, annotator=user)
    assert refused.value.code == "profile_required"
    profile_answer_save(user=user, questionnaire=campaign.questionnaire_link.questionnaire, raw=ANSWERS)
    assert assignment_claim(campaign=campaign, annotator=user) is not None


@pytest.mark.parametrize(("query", "message"), [
    ("", "This entry link needs PROLIFIC_PID, STUDY_ID, SESSION_ID in its address; PROLIFIC_PID and STUDY_ID and "
         "SESSION_ID are missing."),
    (f"PROLIFIC_PID={PID}&STUDY_ID={STUDY}", "SESSION_ID is missing."),
    (f"PROLIFIC_PID={PID}&PROLIFIC_PID=other&STUDY_ID={STUDY}&SESSION_ID={SESSION}", "PROLIFIC_PID is given 2 times"),
    (f"PROLIFIC_PID=%3Cscript%3E&STUDY_ID={STUDY}&SESSION_ID={SESSION}", "PROLIFIC_PID contains &#x27;&lt;&#x27;; "
                                                                        "only letters, digits, - and _ are accepted."),
    (f"PROLIFIC_PID={'a' * 65}&STUDY_ID={STUDY}&SESSION_ID={SESSION}", "PROLIFIC_PID is 65 characters long; at most "
                                                                      "64 are accepted."),
    # Refused by the request checks before the view (core.web.hostile_input), as precisely.
    (f"PROLIFIC_PID={PID}&STUDY_ID=%00&SESSION_ID={SESSION}", "STUDY_ID contains a NUL character (U+0000)"),
    (f"PROLIFIC_PID={PID}&STUDY_ID={STUDY}&SESSION_ID=a%20b", "SESSION_ID contains &#x27; &#x27;"),
    (f"PROLIFIC_PID={PID}&STUDY_ID={STUDY}&SESSION_ID=%E2%80%AEevil", "SESSION_ID contains U+202E"),
    (f"PROLIFIC_PID=&STUDY_ID={STUDY}&SESSION_ID={SESSION}", "PROLIFIC_PID is empty."),
])
def test_hostile_or_missing_ids_are_a_400_saying_which_and_why_and_make_nothing(query, message):
    campaign, link = _campaign_with_link()
    response = Client().get(f"/crowd/{link.token}/?{query}")
    assert response.status_code == 400
    assert message in response.content.decode()
    assert "&lt;script" not in response.content.decode()  # the value itself is never echoed
    assert CrowdParticipant.objects.count() == 0 and not campaign.members.exists()


def test_an_unknown_or_closed_link_is_a_404_and_another_study_a_403():
    campaign, link = _campaign_with_link()
    assert Client().get(_entry_url(link).replace(link.token, "nope")).status_code == 404
    pinned = crowd_link_create(campaign=campaign, completion_url=DONE, quota=1, study_id=STUDY)
    assert Client().get(_entry_url(pinned, study="someotherstudy")).status_code == 403
    assert Client().get(_entry_url(pinned)).status_code == 302
    link.is_active = False
    link.save()
    assert Client().get(_entry_url(link)).status_code == 404


def test_a_participant_a_curator_removed_is_not_let_back_in():
    from annotation.catalogue.services.campaigns import campaign_members_change

    campaign, link = _campaign_with_link(profile=False)
    Client().get(_entry_url(link))
    user = CrowdParticipant.objects.get().user
    campaign_members_change(campaign=campaign, remove=[user.username])
    response = Client().get(_entry_url(link))
    assert response.status_code == 403 and "removed from this study" in response.content.decode()
    assert not campaign.members.filter(pk=user.pk).exists()


@pytest.mark.parametrize(("fields", "message"), [
    ({"completion_url": "javascript:alert(1)", "quota": 3}, "must be an absolute http(s) address"),
    ({"completion_url": DONE, "quota": 0}, "Ensure this value is greater than or equal to 1."),
    ({"completion_url": "https://x.test/a b", "quota": 3}, "contains a space or a control character"),
    ({"completion_url": DONE, "quota": 3, "study_id": "bad id"}, "the study id contains"),
])
def test_a_curator_makes_links_over_the_api_and_bad_settings_are_refused(fields, message):
    campaign, _ = _campaign_with_link()
    api = APIClient()
    api.force_authenticate(CuratorFactory())
    refused = api.post(f"/api/v1/campaigns/{campaign.slug}/crowd-links/", fields, format="json")
    assert refused.status_code == 400 and message in json.dumps(refused.json())
    made = api.post(f"/api/v1/campaigns/{campaign.slug}/crowd-links/", {"completion_url": DONE, "quota": 5},
                    format="json")
    assert made.status_code == 201 and made.json()["url"].startswith("http://testserver/crowd/")


def test_a_curator_makes_and_closes_a_link_in_the_console_which_shows_the_prolific_placeholders():
    campaign, _ = _campaign_with_link()
    browser = Client()
    browser.force_login(CuratorFactory())
    url = f"/console/campaigns/{campaign.slug}/profile/"
    assert browser.post(url, {"action": "crowd-link", "completion_url": DONE, "quota": "7"}).status_code == 302
    page = browser.get(url).content.decode()
    assert "?PROLIFIC_PID={{%PROLIFIC_PID%}}&amp;STUDY_ID={{%STUDY_ID%}}&amp;SESSION_ID={{%SESSION_ID%}}" in page
    link = campaign.crowd_links.get(quota=7)
    assert browser.post(url, {"action": "close-link", "link": link.pk}).status_code == 302
    link.refresh_from_db()
    assert not link.is_active


def test_the_crowd_link_command_prints_the_open_links_and_makes_one_that_signs_a_participant_in(settings):
    settings.CONCORD_BASE_URL = "https://concord.example.org/"
    campaign, first = _campaign_with_link(quota=2)
    closed = crowd_link_create(campaign=campaign, completion_url=DONE, quota=9)
    closed.is_active = False
    closed.save(update_fields=["is_active"])
    placeholders = "?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"

    out = StringIO()
    call_command("crowd_link", "--campaign", campaign.slug, stdout=out)
    assert out.getvalue().splitlines()[1:] == [
        f"  https://concord.example.org/crowd/{first.token}/{placeholders}", f"    quota 2, then {DONE}"]

    out = StringIO()
    call_command("crowd_link", "--campaign", campaign.slug, "--completion-url", DONE, "--quota", "3",
                 "--study-id", STUDY, "--json", stdout=out)
    made = json.loads(out.getvalue())
    (row,) = made["links"]
    assert made["created"] is True and (row["quota"], row["study_id"]) == (3, STUDY)
    new = campaign.crowd_links.get(quota=3)
    assert row["url"] == f"https://concord.example.org/crowd/{new.token}/{placeholders}"
    path = row["url"].removeprefix("https://concord.example.org").split("?")[0]
    entered = Client().get(f"{path}?PROLIFIC_PID={PID}&STUDY_ID={STUDY}&SESSION_ID={SESSION}")
    assert entered.status_code == 302 and entered["Location"] == f"/work/campaigns/{campaign.slug}/profile/"

    out = StringIO()
    call_command("crowd_link", "--campaign", campaign.slug, stdout=out)
    assert [line.split("/crowd/")[1].split("/")[0] for line in out.getvalue().splitlines() if "/crowd/" in line] == [
        new.token, first.token], "open links, newest first; the closed one left out"


@pytest.mark.parametrize(("arguments", "message"), [
    (["--campaign", "nowhere"], "campaign 'nowhere' does not exist"),
    (["--completion-url", DONE], "a new link needs --quota N: the pairs each participant submits"),
    (["--quota", "3"], "--quota and --study-id make a new link: give --completion-url too"),
    (["--completion-url", "javascript:alert(1)", "--quota", "3"], "must be an absolute http(s) address"),
    (["--completion-url", DONE, "--quota", "0"], "the quota is a whole number of pairs from 1 to 10000"),
])
def test_the_crowd_link_command_refuses_bad_settings_saying_why_and_makes_nothing(arguments, message):
    campaign, _ = _campaign_with_link()
    with pytest.raises(CommandError) as refused:
        call_command("crowd_link", "--campaign", campaign.slug, *arguments, stdout=StringIO())
    assert message in str(refused.value)
    assert campaign.crowd_links.count() == 1


def test_the_crowd_link_command_says_how_to_make_a_link_when_none_is_open():
    campaign, _, _ = ab_tie_campaign(pairs=1, members=0)
    with pytest.raises(CommandError) as refused:
        call_command("crowd_link", "--campaign", campaign.slug, stdout=StringIO())
    assert str(refused.value) == (f"campaign {campaign.slug!r} has no open crowd entry link; make one with "
                                  "--completion-url URL --quota N")


def test_hours_name_a_crowd_rater_by_their_platform_id_for_paying_them():
    campaign, link = _campaign_with_link(profile=False)
    Client().get(_entry_url(link))
    user = CrowdParticipant.objects.get().user
    submit(assignment_claim(campaign=campaign, annotator=user))
    api = APIClient()
    api.force_authenticate(CuratorFactory())
    (row,) = api.get(f"/api/v1/campaigns/{campaign.slug}/hours/").json()["raters"]
    assert (row["username"], row["crowd_id"], row["pairs_submitted"]) == (user.username, PID, 1)
