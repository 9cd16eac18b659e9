"""A release's card counts the raters' profile answers only when the curator asks (``--profile-summary``), and no
release file ever holds a profile's free text, a rare answer, a username or a crowd platform's ids."""

import pytest

from annotation.workqueue import profile
from annotation.workqueue.models import CrowdEntry, CrowdParticipant
from annotation.workqueue.services.crowd import crowd_link_create
from annotation.workqueue.services.profile import (
    campaign_questionnaire_set,
    profile_answer_save,
    questionnaire_create,
)
from tests.curation.releases.test_release_publish import every_release_text, publish_json

pytestmark = pytest.mark.django_db

PID, STUDY, SESSION = "5f8e0a1b2c3d4e5f6a7b8c9d", "60aa11bb22cc33dd44ee55ff", "sess-77aa88bb99cc"


def _profiles(release_data):
    alice, bob = release_data["users"]
    questionnaire = questionnaire_create(slug="fox-raters", title="About you", questions=profile.DEFAULT_QUESTIONS)
    campaign_questionnaire_set(campaign=release_data["t2i"], questionnaire=questionnaire)
    profile_answer_save(user=alice, questionnaire=questionnaire, raw={
        "expertise": ["Photography"], "languages": "English, Basque", "years": 12, "tools": "AliceCamPro",
        "about": "I am Alice Liddell of the Wonderland Photo Lab"})
    profile_answer_save(user=bob, questionnaire=questionnaire, raw={
        "expertise": ["Photography", "Video"], "languages": "english", "years": 3, "about": "Bob Builder here"})
    # Bob came in through a crowd platform.
    participant = CrowdParticipant.objects.create(user=bob, participant_id=PID)
    link = crowd_link_create(campaign=release_data["t2i"], completion_url="https://app.prolific.com/c?cc=X", quota=5)
    CrowdEntry.objects.create(link=link, participant=participant, study_id=STUDY, session_id=SESSION,
                              entered_at=link.created_at)
    return alice, bob


FORBIDDEN = ["Alice Liddell", "Wonderland", "Bob Builder", "AliceCamPro", "Basque", PID, STUDY, SESSION]


def test_the_card_counts_shared_answers_when_asked_and_no_file_holds_a_name_free_text_or_crowd_id(
        release_data, releases_root, monkeypatch):
    alice, bob = _profiles(release_data)
    # Two raters here: count values two of them share (the default asks three) to see counts in the card.
    monkeypatch.setattr(profile, "CARD_MIN_COUNT", 2)
    publish_json("--campaign", "t2i-wave,reasoning-wave", "--name", "fox-bench", "--version", "1.0.0",
                 "--profile-summary")
    folder = releases_root / "fox-bench" / "1.0.0"
    card = (folder / "README.md").read_text()
    assert "### Raters' profile" in card
    assert "About you (2 raters answered):" in card
    assert "- Your areas of expertise (2 answered): Photography 2, other 1" in card
    assert "- Languages you read fluently (comma-separated) (2 answered): English 2, other 1" in card
    assert "- Years of professional experience in these areas (2 answered): 2–5 1, 10+ 1" in card
    assert "Anything else" not in card  # free text is never counted, not even its question
    texts = every_release_text(folder)
    for path, text in texts.items():
        for word in FORBIDDEN + [alice.username, bob.username, alice.email, bob.email]:
            assert word not in text, f"{word!r} in {path}"


def test_without_the_flag_the_card_says_nothing_of_profiles_and_the_ids_stay_out_all_the_same(release_data,
                                                                                              releases_root):
    _profiles(release_data)
    publish_json("--campaign", "t2i-wave", "--name", "fox-bench", "--version", "1.0.0")
    folder = releases_root / "fox-bench" / "1.0.0"
    assert "Raters' profile" not in (folder / "README.md").read_text()
    for path, text in every_release_text(folder).items():
        for word in FORBIDDEN:
            assert word not in text, f"{word!r} in {path}"
