"""The rater profile: a curator's questionnaire, answered before the first pair (the claim refuses until then, the
workspace shows the form and goes on to the pair), visible and filterable to curators, and counted, never named,
in a release's card when the curator asks."""

import json
import re

import pytest
from django.test import Client
from rest_framework.test import APIClient

from annotation.workqueue.models import Assignment, ProfileAnswer
from annotation.workqueue.profile import (
    CARD_MIN_COUNT,
    DEFAULT_QUESTIONS,
    ProfileError,
    answer_matches,
    answers_clean,
    profile_summary,
    questions_check,
)
from annotation.workqueue.services.assignments import assignment_claim
from annotation.workqueue.services.profile import (
    campaign_questionnaire_set,
    profile_answer_save,
    questionnaire_create,
)
from core.errors import ApplicationError
from tests.factories import CuratorFactory
from tests.workqueue.assignment_helpers import ab_tie_campaign

QUESTIONS = questions_check(DEFAULT_QUESTIONS)
GOOD = {"expertise": ["Photography", "Video"], "languages": "English, french , English", "years": "7",
        "tools": ["Photoshop"], "about": "  I shoot weddings.  "}


# The rules, without a database.

def test_answers_are_cleaned_choices_in_option_order_entries_deduplicated_numbers_parsed():
    assert answers_clean(QUESTIONS, GOOD) == {"expertise": ["Photography", "Video"], "languages": ["English", "french"],
                                              "years": 7, "tools": ["Photoshop"], "about": "I shoot weddings."}
    assert answers_clean(QUESTIONS, {"expertise": "Video", "languages": ["Greek"], "years": 2.5}) == {
        "expertise": ["Video"], "languages": ["Greek"], "years": 2.5}


@pytest.mark.parametrize(("raw", "message"), [
    ({**GOOD, "expertise": ["Astrology"]}, "expertise: 'Astrology' is not one of the options"),
    ({**GOOD, "years": "lots"}, "years: 'lots' is not a number"),
    ({**GOOD, "years": "1e999"}, "years: give a finite number"),
    ({**GOOD, "years": 200}, "years: give a number from 0 to 70, not 200"),
    ({**GOOD, "languages": ""}, "languages: an answer is required"),
    ({**GOOD, "shoe_size": 44}, "no such question: shoe_size"),
    ({**GOOD, "languages": ["x" * 81]}, "languages: each entry is at most 80 characters"),
    ({**GOOD, "about": "nul\x00"}, "about: at most 2000 characters of plain text"),
    ({**GOOD, "tools": [1, 2]}, "tools: give a list of texts"),
])
def test_a_bad_answer_is_refused_saying_which_question_and_why(raw, message):
    with pytest.raises(ProfileError, match=message.replace("(", r"\(")):
        answers_clean(QUESTIONS, raw)


@pytest.mark.parametrize(("questions", "message"), [
    ([], "a questionnaire is a non-empty list"),
    ([{"id": "Bad Id", "kind": "text", "label": "x"}], "the id must be"),
    ([{"id": "a", "kind": "text", "label": "x"}, {"id": "a", "kind": "text", "label": "y"}], "used twice"),
    ([{"id": "a", "kind": "slider", "label": "x"}], "the kind must be one of"),
    ([{"id": "a", "kind": "choices", "label": "x", "options": []}], "options must be"),
    ([{"id": "a", "kind": "number", "label": "x", "min": 5, "max": 1}], "min ≤ max"),
])
def test_a_bad_questionnaire_is_refused(questions, message):
    with pytest.raises(ProfileError, match=message):
        questions_check(questions)


def test_filters_match_a_choice_or_entry_in_any_case_a_number_at_least_and_text_containing():
    answers = answers_clean(QUESTIONS, GOOD)
    assert answer_matches(answers, "languages", "FRENCH") and not answer_matches(answers, "languages", "Greek")
    assert answer_matches(answers, "years", "5") and not answer_matches(answers, "years", "8")
    assert answer_matches(answers, "about", "wedding") and not answer_matches(answers, "nothing", "x")


def test_the_card_summary_counts_values_folds_rare_ones_and_never_copies_free_text():
    raters = [answers_clean(QUESTIONS, {**GOOD, "languages": "English", "about": f"I am Jane Doe {n}",
                                        "tools": ["RareToolOfJane"] if n == 0 else ["GIMP"], "years": n * 4})
              for n in range(4)]
    summary = profile_summary(QUESTIONS, raters)
    text = json.dumps(summary)
    assert "Jane" not in text and "RareToolOfJane" not in text
    by_id = {q["id"]: q for q in summary["questions"]}
    assert "about" not in by_id
    assert by_id["languages"]["counts"] == {"English": 4}
    assert by_id["tools"]["counts"] == {"Gimp": 3} and by_id["tools"]["other"] == 1 < CARD_MIN_COUNT
    assert by_id["years"]["counts"] == {"0–2": 1, "2–5": 1, "5–10": 1, "10+": 1}
    assert summary["raters"] == 4


# Through the database: the claim's gate, the page, the curator's views.


def _profiled_campaign(**kwargs):
    campaign, raters, pairs = ab_tie_campaign(**kwargs)
    questionnaire = questionnaire_create(slug=f"{campaign.slug}-profile", title="About you", questions=DEFAULT_QUESTIONS)
    campaign_questionnaire_set(campaign=campaign, questionnaire=questionnaire)
    return campaign, raters, pairs, questionnaire


@pytest.mark.django_db
def test_the_claim_refuses_with_profile_required_until_the_rater_answered_then_gives_a_pair():
    campaign, (rater, *_), _, questionnaire = _profiled_campaign(pairs=2)
    with pytest.raises(ApplicationError) as refused:
        assignment_claim(campaign=campaign, annotator=rater)
    assert (refused.value.code, refused.value.status_code) == ("profile_required", 403)
    api = APIClient()
    api.force_authenticate(rater)
    response = api.post(f"/api/v1/campaigns/{campaign.slug}/claim/")
    assert response.status_code == 403 and response.json()["code"] == "profile_required"
    assert Assignment.objects.count() == 0
    put = api.put(f"/api/v1/campaigns/{campaign.slug}/profile/", {"answers": {"expertise": ["Video"],
                  "languages": ["English"], "years": 3}}, format="json")
    assert put.status_code == 200 and put.json()["answers"]["years"] == 3
    assert api.post(f"/api/v1/campaigns/{campaign.slug}/claim/").status_code == 200


@pytest.mark.django_db
def test_a_non_member_still_hears_not_a_member_and_a_campaign_without_questionnaire_needs_none():
    from tests.factories import UserFactory

    campaign, _, _, _ = _profiled_campaign(pairs=1)
    with pytest.raises(ApplicationError) as refused:
        assignment_claim(campaign=campaign, annotator=UserFactory())
    assert refused.value.code == "not_a_member"
    other, (rater, *_), _ = ab_tie_campaign(pairs=1)
    assert assignment_claim(campaign=other, annotator=rater) is not None


@pytest.mark.django_db
def test_a_questionnaire_is_reused_across_campaigns_and_answered_once():
    campaign, (rater, *_), _, questionnaire = _profiled_campaign(pairs=1)
    second, _, _ = ab_tie_campaign(pairs=1)
    second.members.add(rater)
    campaign_questionnaire_set(campaign=second, questionnaire=questionnaire)
    profile_answer_save(user=rater, questionnaire=questionnaire, raw=GOOD)
    assert assignment_claim(campaign=campaign, annotator=rater) is not None
    assert assignment_claim(campaign=second, annotator=rater) is not None
    profile_answer_save(user=rater, questionnaire=questionnaire, raw={**GOOD, "years": 9})
    assert ProfileAnswer.objects.get().answers["years"] == 9


@pytest.mark.django_db
def test_a_bad_answer_over_the_api_is_a_400_naming_the_question():
    campaign, (rater, *_), _, _ = _profiled_campaign(pairs=1)
    api = APIClient()
    api.force_authenticate(rater)
    response = api.put(f"/api/v1/campaigns/{campaign.slug}/profile/", {"answers": {**GOOD, "years": -3}}, format="json")
    assert response.status_code == 400
    assert response.json() == {"code": "invalid_profile", "message": "years: give a number from 0 to 70, not -3"}


@pytest.mark.django_db
def test_the_workspace_sends_a_new_rater_to_the_form_and_the_saved_form_on_to_the_first_pair():
    campaign, (rater, *_), _, _ = _profiled_campaign(pairs=2)
    browser = Client()
    browser.force_login(rater)
    start = browser.post(f"/work/campaigns/{campaign.slug}/next/")
    assert start.status_code == 302 and start["Location"] == f"/work/campaigns/{campaign.slug}/profile/"
    form = browser.get(start["Location"])
    assert form.status_code == 200 and b'name="expertise"' in form.content and b'name="years"' in form.content
    bad = browser.post(start["Location"], {"expertise": ["Video"], "languages": "English", "years": "abc"})
    assert bad.status_code == 400 and b"years: &#x27;abc&#x27; is not a number" in bad.content
    assert b'value="English"' in bad.content  # what was typed is kept
    saved = browser.post(start["Location"], {"expertise": ["Video", "Software"], "languages": "English, Greek",
                                             "years": "4", "about": ""})
    assert saved.status_code == 200 and b"data-workspace" in saved.content
    assert Assignment.objects.filter(annotator=rater, status=Assignment.Status.ACTIVE).count() == 1
    assert ProfileAnswer.objects.get(user=rater).answers == {"expertise": ["Video", "Software"],
                                                             "languages": ["English", "Greek"], "years": 4}


@pytest.mark.django_db
def test_curators_see_and_filter_answers_on_the_members_page_people_and_the_api():
    campaign, (first, second, third), _, questionnaire = _profiled_campaign(pairs=1)
    profile_answer_save(user=first, questionnaire=questionnaire, raw={**GOOD, "languages": "French"})
    profile_answer_save(user=second, questionnaire=questionnaire, raw={**GOOD, "languages": "German", "years": 1})
    curator = CuratorFactory()
    browser = Client()
    browser.force_login(curator)
    page = browser.get(f"/console/campaigns/{campaign.slug}/settings/?answer=languages:french").content.decode()
    members = re.search(r'data-testid="members">(.*?)</ul>', page, re.S).group(1)
    assert first.username in members and second.username not in members and third.username not in members
    everyone = browser.get(f"/console/campaigns/{campaign.slug}/settings/").content.decode()
    assert "profile not answered" in everyone and "languages: German" in everyone
    people = browser.get("/console/people/?answer=years:5").content.decode()
    assert f'data-person="{first.username}"' in people and f'data-person="{second.username}"' not in people
    page = browser.get(f"/console/campaigns/{campaign.slug}/profile/?answer=languages:German").content.decode()
    assert second.username in page and first.username not in page
    api = APIClient()
    api.force_authenticate(curator)
    listed = api.get(f"/api/v1/campaigns/{campaign.slug}/profiles/?answer=languages:french").json()
    assert [r["username"] for r in listed["raters"]] == [first.username]
    annotator_api = APIClient()
    annotator_api.force_authenticate(first)
    assert annotator_api.get(f"/api/v1/campaigns/{campaign.slug}/profiles/").status_code == 403


@pytest.mark.django_db
def test_a_curator_defines_a_questionnaire_in_the_console_and_a_bad_one_is_refused_with_its_reason():
    campaign, _, _ = ab_tie_campaign(pairs=1)
    browser = Client()
    browser.force_login(CuratorFactory())
    url = f"/console/campaigns/{campaign.slug}/profile/"
    bad = browser.post(url, {"action": "create", "slug": "exp", "title": "About you",
                             "questions": json.dumps([{"id": "x", "kind": "slider", "label": "X"}])})
    assert bad.status_code == 400 and "the kind must be one of" in bad.content.decode()
    made = browser.post(url, {"action": "create", "slug": "exp", "title": "About you",
                              "questions": json.dumps(DEFAULT_QUESTIONS)})
    assert made.status_code == 302
    assert campaign.questionnaire_link.questionnaire.slug == "exp"
    cleared = browser.post(url, {"action": "use", "questionnaire": ""})
    assert cleared.status_code == 302
    campaign.refresh_from_db()
    assert not type(campaign).objects.filter(pk=campaign.pk, questionnaire_link__isnull=False).exists()


@pytest.mark.django_db
def test_the_answers_list_runs_the_same_queries_for_three_members_as_for_thirty():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    api = APIClient()
    api.force_authenticate(CuratorFactory())
    counts = []
    for members in (3, 30):
        campaign, raters, _, questionnaire = _profiled_campaign(pairs=1, members=members)
        for rater in raters:
            profile_answer_save(user=rater, questionnaire=questionnaire, raw=GOOD)
        with CaptureQueriesContext(connection) as queries:
            assert len(api.get(f"/api/v1/campaigns/{campaign.slug}/profiles/").json()["raters"]) == members
        counts.append(len(queries))
    assert counts[0] == counts[1], counts
