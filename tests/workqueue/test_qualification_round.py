"""The qualification round and the pause during work, through the services, the API and the commands: a new member
of a campaign with a calibration set rates its calibration pairs first, with feedback, and is admitted at the pass
mark; a rater whose gold answers fall is paused until a curator lifts it; calibration answers count nowhere."""

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.catalogue import schemas
from annotation.catalogue.models import CalibrationItem, CalibrationSet, Campaign, Pair
from annotation.catalogue.services.campaigns import rating_schema_for_preset
from annotation.workqueue.models import Annotation, Assignment, AssignmentEvent, CalibrationAnswer, QualificationRound, RaterPause
from annotation.workqueue.rules import orientation_swapped
from annotation.workqueue.selectors import annotator_stats
from annotation.workqueue.services import qualification as q
from annotation.workqueue.services.assignments import assignment_claim
from annotation.workqueue.services.review import annotation_correct
from core.errors import ApplicationError
from tests.factories import CuratorFactory, PairFactory, RatingSchemaFactory, UserFactory
from tests.workqueue.assignment_helpers import submit

pytestmark = pytest.mark.django_db

EXPECTED_A = {"overall": 6, "image_quality": {"A": 3, "B": 0}}


def shown_answer(prefers_shown: str) -> dict:
    """A complete mmrb2-generation answer, as shown, preferring the left ("A") or right ("B") response."""
    left = prefers_shown == "A"
    rubric = {"A": 3, "B": 0} if left else {"A": 0, "B": 3}
    return {"text_faithfulness": rubric, "image_quality": rubric, "overall": 6 if left else 1, "rationale": "seen",
            "prompt_valid": True}


def answer_for(round_, item_id: int, *, right: bool) -> dict:
    """The answer to a calibration pair (whose expected answer prefers canonical A) right or wrong, as shown."""
    item = CalibrationItem.objects.get(pk=item_id)
    swapped = orientation_swapped(round_.campaign.orientation_seed, item.pair_id, round_.rater_id)
    expected_side = "B" if swapped else "A"
    return shown_answer(expected_side if right else {"A": "B", "B": "A"}[expected_side])


def t2i_campaign(slug: str, *, calibration_pairs: int = 6, real_pairs: int = 3, **fields) -> Campaign:
    schema = rating_schema_for_preset(preset="mmrb2-generation", kind="text-to-image")
    campaign = Campaign.objects.create(slug=slug, name=slug.title(), kind="text-to-image", rating_schema=schema,
                                       overlap=2, max_overlap=3, **fields)
    for n in range(calibration_pairs):
        PairFactory(campaign=campaign, external_id=f"{slug}-cal-{n}", required_annotations=2,
                    response_a__model_name="secret-model-alpha", response_b__model_name="secret-model-beta")
    for n in range(real_pairs):
        PairFactory(campaign=campaign, external_id=f"{slug}-real-{n}", required_annotations=2)
    return campaign


def calibrate(campaign: Campaign, pairs: int = 6, **settings) -> None:
    rows = [{"pair": f"{campaign.slug}-cal-{n}", "expected": EXPECTED_A,
             "explanation": f"Pair {n}: A draws every object asked for; B misses the fox."} for n in range(pairs)]
    q.calibration_items_add(campaign=campaign, rows=rows)
    q.campaign_qualification_set(campaign=campaign, **{"round_size": 4, "pass_mark": 0.75, "retry_hours": 24,
                                                       **settings})


def play_round(user, campaign, *, right: int, now=None) -> dict:
    """Answer every pair of the rater's round, the first ``right`` of them right; returns the last feedback."""
    round_ = q.qualification_round_start(user=user, campaign=campaign, now=now)
    feedback = None
    for position, item_id in enumerate(round_.items):
        feedback = q.calibration_answer_submit(user=user, round_id=round_.pk, item_id=item_id,
                                               values=answer_for(round_, item_id, right=position < right), now=now)
    return feedback


def session_client(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def test_a_curator_marks_pairs_as_the_calibration_set_and_queued_ones_leave_the_real_queue():
    campaign = t2i_campaign("cal-set")
    calibrate(campaign)
    campaign.refresh_from_db()
    assert campaign.calibration_set.slug == "cal-set" and campaign.calibration_set.kind == "text-to-image"
    assert CalibrationItem.objects.filter(calibration_set=campaign.calibration_set).count() == 6
    calibration = Pair.objects.filter(external_id__startswith="cal-set-cal-")
    assert set(calibration.values_list("status", flat=True)) == {Pair.Status.EXCLUDED}
    assert calibration.first().status_reason == "calibration set cal-set"
    assert set(Pair.objects.filter(external_id__startswith="cal-set-real-").values_list("status", flat=True)) == {
        Pair.Status.QUEUED}
    listed = q.calibration_set_items(campaign=campaign)
    assert listed[0]["expected"] == EXPECTED_A and listed[0]["explanation"].startswith("Pair 0:")


@pytest.mark.parametrize(("row", "message"), [
    ({"pair": "cal-bad-cal-0", "expected": {"image_quality": {"A": 3, "B": 0}}, "explanation": "x"},
     "line 1: the expected answer needs the overall preference ('overall')."),
    ({"pair": "cal-bad-cal-0", "expected": {"overall": 9}, "explanation": "x"}, "line 1: overall:"),
    ({"pair": "nope", "expected": EXPECTED_A, "explanation": "x"}, "line 1: no pair 'nope' in campaign 'cal-bad'."),
    ({"pair": "cal-bad-cal-0", "expected": EXPECTED_A, "explanation": " "}, "line 1: \"explanation\" says why"),
])
def test_a_bad_calibration_row_is_refused_with_its_line_and_nothing_is_added(row, message):
    campaign = t2i_campaign("cal-bad")
    with pytest.raises(ApplicationError) as refused:
        q.calibration_items_add(campaign=campaign, rows=[row])
    assert refused.value.message.startswith(message)
    assert not CalibrationItem.objects.exists() and not CalibrationSet.objects.exists()


def test_a_set_is_shared_by_campaigns_of_the_same_kind_only():
    first = t2i_campaign("share-a")
    calibrate(first)
    second = t2i_campaign("share-b", calibration_pairs=0)
    q.campaign_qualification_set(campaign=second, calibration_set="share-a")
    second.refresh_from_db()
    assert second.calibration_set.slug == "share-a"
    schema = RatingSchemaFactory(preset="ab-tie", definition=schemas.preset("ab-tie", "text-to-text"))
    text = Campaign.objects.create(slug="share-text", name="Text", kind="text-to-text", rating_schema=schema)
    with pytest.raises(ApplicationError, match="is for text-to-image, and campaign 'share-text' is text-to-text"):
        q.campaign_qualification_set(campaign=text, calibration_set="share-a")


def test_a_new_member_is_refused_the_real_queue_until_they_pass_a_round():
    campaign = t2i_campaign("gate")
    calibrate(campaign)
    rater = UserFactory()
    campaign.members.add(rater)
    with pytest.raises(ApplicationError) as refused:
        assignment_claim(campaign=campaign, annotator=rater)
    assert (refused.value.code, refused.value.status_code) == ("qualification_required", 403)
    response = session_client(rater).post(f"/api/v1/campaigns/{campaign.slug}/claim/")
    assert response.status_code == 403 and response.json()["code"] == "qualification_required"
    assert not Assignment.objects.filter(annotator=rater).exists()


def test_the_round_shows_calibration_pairs_blind_with_sides_fixed_per_rater():
    campaign = t2i_campaign("blind")
    calibrate(campaign)
    rater = UserFactory()
    campaign.members.add(rater)
    state = session_client(rater).post(f"/api/v1/campaigns/{campaign.slug}/qualification/").json()
    display = state["display"]
    assert display["calibration"]["position"] == 1 and display["calibration"]["of"] == 4
    assert display["assignment"] is None and "secret-model" not in json.dumps(display)
    assert display["schema"]["questions"][0]["id"] == "text_faithfulness"
    round_ = QualificationRound.objects.get(rater=rater)
    item = CalibrationItem.objects.get(pk=round_.items[0])
    swapped = orientation_swapped(campaign.orientation_seed, item.pair_id, rater.pk)
    left_text = display["left"][0]["text"]
    assert left_text == (item.pair.response_b if swapped else item.pair.response_a).content[0]["text"]


def test_feedback_names_the_expected_answer_as_shown_the_explanation_and_the_differences():
    campaign = t2i_campaign("feedback")
    calibrate(campaign)
    rater = UserFactory()
    campaign.members.add(rater)
    round_ = q.qualification_round_start(user=rater, campaign=campaign)
    item_id = round_.items[0]
    wrong = answer_for(round_, item_id, right=False)
    feedback = q.calibration_answer_submit(user=rater, round_id=round_.pk, item_id=item_id, values=wrong)
    assert feedback["matched"] is False and feedback["explanation"].endswith("B misses the fox.")
    overall = next(d for d in feedback["differences"] if d["question"] == "overall")
    swapped = orientation_swapped(campaign.orientation_seed, CalibrationItem.objects.get(pk=item_id).pair_id, rater.pk)
    assert overall["expected"] == (1 if swapped else 6) and overall["given"] == (6 if swapped else 1)
    assert overall["same"] is False and overall["expected_text"] != overall["given_text"]
    quality = next(d for d in feedback["differences"] if d["question"] == "image_quality")
    assert quality["distance"] == 1.0 and feedback["rubric_distance"] == 1.0
    assert feedback["round"] == {"round": round_.pk, "answered": 1, "of": 4, "verdict": "open", "pass_mark": 0.75}
    again = q.calibration_answer_submit(user=rater, round_id=round_.pk, item_id=item_id, values=shown_answer("A"))
    assert again["matched"] is False and CalibrationAnswer.objects.count() == 1  # a repeat stores nothing
    stored = CalibrationAnswer.objects.get()
    assert stored.values == schemas.reorient(campaign.rating_schema.definition, wrong, swapped=swapped)


def test_fail_then_wait_or_a_curators_release_then_pass_then_the_real_queue_and_the_kind_carries_over():
    campaign = t2i_campaign("journey")
    calibrate(campaign)
    rater, curator = UserFactory(), CuratorFactory()
    campaign.members.add(rater)
    now = timezone.now()
    failed = play_round(rater, campaign, right=2, now=now)["round"]
    assert failed["verdict"] == "failed" and (failed["correct"], failed["of"]) == (2, 4)
    assert failed["message"].startswith("Not passed: 2 of 4 (50%, 95% interval 15%–85%)")
    assert [row["position"] for row in failed["study"]] == [3, 4]
    assert failed["retry_after"] == now + timedelta(hours=24)
    with pytest.raises(ApplicationError) as waiting:
        q.qualification_round_start(user=rater, campaign=campaign, now=now + timedelta(hours=1))
    assert waiting.value.code == "qualification_required" and "try again after" in waiting.value.message
    first_items = set(QualificationRound.objects.get(rater=rater).items)

    released = session_client(curator).post(f"/api/v1/calibration-rounds/{failed['round']}/release/")
    assert released.status_code == 200
    retry = q.qualification_round_start(user=rater, campaign=campaign, now=now + timedelta(hours=1))
    assert set(retry.items[:2]).isdisjoint(first_items)  # pairs not seen yet come first
    passed = play_round(rater, campaign, right=4, now=now + timedelta(hours=1))["round"]
    assert passed["verdict"] == "passed" and passed["study"] == []

    lease = assignment_claim(campaign=campaign, annotator=rater)
    assert lease is not None and lease.pair.external_id.startswith("journey-real-")
    sibling = t2i_campaign("journey-two", calibration_pairs=0)
    q.campaign_qualification_set(campaign=sibling, calibration_set="journey")
    sibling.members.add(rater)
    assert q.rater_admission(user=rater, campaign=sibling).admitted  # qualified per task kind


def test_a_rater_not_admitted_gets_no_pair_shown_ahead_and_the_report_says_where_each_member_stands():
    campaign = t2i_campaign("report")
    calibrate(campaign)
    waiting, passed = UserFactory(username="waiting"), UserFactory(username="passed")
    campaign.members.add(waiting, passed)
    play_round(passed, campaign, right=4)
    assert session_client(waiting).get(f"/work/campaigns/{campaign.slug}/next/").status_code == 204
    out = StringIO()
    call_command("qualification_report", "--campaign", campaign.slug, "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["calibration_set"] == "report" and report["calibration_pairs"] == 6
    by_name = {r["username"]: r for r in report["raters"]}
    assert by_name["waiting"]["status"] == "not started" and by_name["passed"]["status"] == "admitted"
    assert by_name["passed"]["round"]["correct"] == 4


def test_the_queues_pairs_complete_leaves_out_the_calibration_pairs_taken_out_of_the_queue():
    campaign = t2i_campaign("progress", calibration_pairs=6, real_pairs=3)
    # Rated and adjudicated before it joined the set: it stays complete, and counts as the real pair it was.
    Pair.objects.filter(external_id="progress-cal-5").update(status=Pair.Status.COMPLETE)
    calibrate(campaign)
    assert Pair.objects.filter(campaign=campaign, status=Pair.Status.EXCLUDED).count() == 5
    rater = UserFactory(username="progress-rater")
    campaign.members.add(rater)
    play_round(rater, campaign, right=4)
    Pair.objects.filter(external_id="progress-real-0").update(status=Pair.Status.COMPLETE)

    (row,) = annotator_stats(annotator=rater)["campaigns"]
    assert (row["pairs_complete"], row["pairs_total"]) == (2, 4)
    page = session_client(rater).get(f"/work/campaigns/{campaign.slug}/").content.decode()
    assert "<b>2 / 4</b>pairs complete" in page


def test_the_calibration_set_command_adds_lists_and_refuses_a_bad_file(tmp_path):
    campaign = t2i_campaign("command")
    path = tmp_path / "calibration.jsonl"
    path.write_text("\n".join(json.dumps({"pair": f"command-cal-{n}", "expected": EXPECTED_A, "explanation": "A wins"})
                              for n in range(3)) + "\n")
    out = StringIO()
    call_command("calibration_set", "--campaign", campaign.slug, "--add", str(path), "--pass-mark", "0.9",
                 "--round-size", "3", "--json", stdout=out)
    added = json.loads(out.getvalue())
    assert added["added"] == {"calibration_set": "command", "added": 3, "updated": 0, "taken_out_of_queue": 3}
    assert (added["pass_mark"], added["round_size"], added["pairs"]) == (0.9, 3, 3)
    listed = StringIO()
    call_command("calibration_set", "--campaign", campaign.slug, "--list", stdout=listed)
    assert "command/command-cal-0: expected" in listed.getvalue()
    path.write_text('{"pair": "command-cal-0", "expected": {"overall": 6}, "explanation": "ok"}\nnot json\n')
    with pytest.raises(CommandError, match="line 2: not JSON"):
        call_command("calibration_set", "--campaign", campaign.slug, "--add", str(path))


def test_only_curators_manage_the_calibration_set_over_the_api():
    campaign = t2i_campaign("api-set")
    rater, curator = UserFactory(), CuratorFactory()
    items = [{"pair": "api-set-cal-0", "expected": EXPECTED_A, "explanation": "A draws the fox"}]
    assert session_client(rater).post(f"/api/v1/campaigns/{campaign.slug}/calibration-set/", {"items": items},
                                      format="json").status_code == 403
    made = session_client(curator).post(f"/api/v1/campaigns/{campaign.slug}/calibration-set/", {"items": items},
                                        format="json")
    assert made.status_code == 201 and made.json()["added"] == 1
    changed = session_client(curator).patch(f"/api/v1/campaigns/{campaign.slug}/calibration-set/",
                                            {"pass_mark": 1.5}, format="json")
    assert changed.status_code == 400 and changed.json()["code"] == "invalid_pass_mark"


# The pause during work


def gold_campaign(slug: str, *, gold: int = 12, regular: int = 4) -> tuple[Campaign, object]:
    schema = RatingSchemaFactory(preset="ab-tie", definition=schemas.preset("ab-tie", "text-to-text"))
    campaign = Campaign.objects.create(slug=slug, name=slug, kind="text-to-text", rating_schema=schema, overlap=3,
                                       gold_rate=1.0, qualification_pass_mark=0.8, gold_pause_window=10,
                                       gold_pause_min=5)
    for n in range(gold):
        PairFactory(campaign=campaign, external_id=f"{slug}-gold-{n}", is_gold=True, gold_answer={"preference": "A"})
    for n in range(regular):
        PairFactory(campaign=campaign, external_id=f"{slug}-pair-{n}")
    rater = UserFactory()
    campaign.members.add(rater)
    return campaign, rater


def gold_answer(assignment, *, right: bool) -> dict:
    """The ab-tie answer, as shown, matching the gold (canonical A) or not."""
    side = "B" if assignment.swapped else "A"
    return {"preference": side if right else {"A": "B", "B": "A"}[side]}


def test_a_rater_is_not_paused_before_enough_gold_and_is_paused_when_the_interval_falls_below_the_mark():
    campaign, rater = gold_campaign("pause")
    for _ in range(4):
        lease = assignment_claim(campaign=campaign, annotator=rater)
        submit(lease, values=gold_answer(lease, right=False))
    assert not RaterPause.objects.exists()  # four misses: not enough gold to say so
    lease = assignment_claim(campaign=campaign, annotator=rater)
    submit(lease, values=gold_answer(lease, right=False))
    pause = RaterPause.objects.get(rater=rater, campaign=campaign)
    assert (pause.gold_answers, pause.gold_correct) == (5, 0) and pause.message.startswith("Paused: the last 5 gold")
    with pytest.raises(ApplicationError) as refused:
        assignment_claim(campaign=campaign, annotator=rater)
    assert (refused.value.code, refused.value.status_code) == ("paused_recalibrate", 403)
    response = session_client(rater).post(f"/api/v1/campaigns/{campaign.slug}/claim/")
    assert response.status_code == 403 and response.json()["code"] == "paused_recalibrate"
    assert "A curator can lift the pause." in response.json()["message"]


def test_a_pause_releases_the_open_lease_and_a_curator_lifts_it_so_the_gold_score_starts_again():
    campaign, rater = gold_campaign("lift")
    first = assignment_claim(campaign=campaign, annotator=rater)
    submit(first, values=gold_answer(first, right=True))
    for right in (True, True, False, False):
        lease = assignment_claim(campaign=campaign, annotator=rater)
        submit(lease, values=gold_answer(lease, right=right))
    assert not RaterPause.objects.exists()  # 3 of 5: the interval reaches the mark
    held = assignment_claim(campaign=campaign, annotator=rater)
    # Correcting a right gold answer to a wrong one makes 2 of 5, all the interval below 80%, while a lease is open.
    annotation_correct(assignment_id=first.pk, annotator=rater, values=gold_answer(first, right=False))
    assert RaterPause.objects.filter(rater=rater, lifted_at__isnull=True).exists()
    held.refresh_from_db()
    assert held.status == Assignment.Status.EXPIRED
    event = AssignmentEvent.objects.get(assignment=held, kind=AssignmentEvent.Kind.EXPIRE)
    assert event.detail["released"] == "paused: gold below the pass mark"

    report = q.qualification_report(campaign=campaign)
    assert report["raters"][0]["status"] == "paused"
    curator = CuratorFactory()
    assert session_client(rater).post(f"/api/v1/campaigns/{campaign.slug}/pauses/{rater.username}/lift/").status_code == 403
    lifted = session_client(curator).post(f"/api/v1/campaigns/{campaign.slug}/pauses/{rater.username}/lift/",
                                          {"reason": "talked it through"}, format="json")
    assert lifted.status_code == 200 and lifted.json()["lift_reason"] == "talked it through"
    lease = assignment_claim(campaign=campaign, annotator=rater)
    submit(lease, values=gold_answer(lease, right=False))
    assert not RaterPause.objects.filter(rater=rater, lifted_at__isnull=True).exists()  # the score started again
    assert q.qualification_report(campaign=campaign)["raters"][0]["gold"]["n"] == 1
    again = session_client(curator).post(f"/api/v1/campaigns/{campaign.slug}/pauses/{rater.username}/lift/")
    assert again.status_code == 404 and again.json()["code"] == "not_paused"


def test_a_paused_rater_recalibrates_by_passing_a_new_round():
    campaign = t2i_campaign("recal")
    calibrate(campaign)
    rater = UserFactory()
    campaign.members.add(rater)
    play_round(rater, campaign, right=4)
    RaterPause.objects.create(rater=rater, campaign=campaign, paused_at=timezone.now(), gold_answers=5,
                              gold_correct=0, upper=0.43, message="Paused: the last 5 gold pairs matched 0 of 5.")
    admission = q.rater_admission(user=rater, campaign=campaign)
    assert admission.code == "paused_recalibrate" and admission.can_start_round
    assert "Take a new calibration round" in admission.message
    play_round(rater, campaign, right=4)
    assert q.rater_admission(user=rater, campaign=campaign).admitted
    assert RaterPause.objects.get(rater=rater).lift_reason == "recalibrated"


# Calibration answers count nowhere


@pytest.fixture
def releases_root(settings, tmp_path):
    settings.CONCORD_RELEASES_ROOT = tmp_path / "releases"
    settings.CONCORD_RELEASES_S3 = {**settings.CONCORD_RELEASES_S3, "bucket": ""}
    return tmp_path / "releases"


def test_calibration_answers_never_reach_agreement_consensus_releases_or_the_leaderboard(releases_root, settings):
    from curation.models import ConsensusRecord
    from curation.releases.rows import rater_pseudonym
    from curation.selectors.leaderboard import model_comparisons
    from curation.services.agreement import agreement_compute
    from curation.services.consensus import consensus_apply
    from curation.services.releases import release_publish
    from tests.curation.console.world import make_world

    world = make_world("isolated")
    campaign = world.campaign

    def measured():
        report = agreement_compute(campaign=campaign, bootstrap=20, seed=1, slices=False).report
        consensus_apply(campaign=campaign)
        decided = sorted(ConsensusRecord.objects.filter(pair__campaign=campaign).values_list("pair_id", "decision", "chosen"))
        compared = model_comparisons(campaigns=[campaign]).comparisons
        return (json.dumps(report, sort_keys=True, default=str), decided,
                (compared.outcome.tolist(), compared.pair.tolist(), compared.models))

    before = measured()
    first = release_publish(name="isolated-bench", version="1.0.0", campaign_slugs=[campaign.slug])
    q.calibration_items_add(campaign=campaign, rows=[
        {"pair": world.pairs[key].external_id, "expected": {"overall": 6}, "explanation": "A is right."}
        for key in ("kept", "split")])
    q.campaign_qualification_set(campaign=campaign, round_size=2, pass_mark=0.5)
    dave = UserFactory(username="dave-calibrating")
    campaign.members.add(dave)
    round_ = q.qualification_round_start(user=dave, campaign=campaign)
    definition = campaign.rating_schema.definition
    for item_id in round_.items:
        values = {q_["id"]: None for q_ in definition["questions"]}
        values.update(text_faithfulness={"A": 0, "B": 3}, image_quality={"A": 0, "B": 3}, overall=1,
                      rationale="B, contrary to every rater", prompt_valid=True)
        values = {k: v for k, v in values.items() if v is not None}
        q.calibration_answer_submit(user=dave, round_id=round_.pk, item_id=item_id, values=values)
    assert CalibrationAnswer.objects.filter(round__rater=dave).count() == 2
    assert not Annotation.objects.filter(annotator=dave).exists()
    assert measured() == before
    second = release_publish(name="isolated-bench", version="1.0.1", campaign_slugs=[campaign.slug])
    assert second.pairs_count == first.pairs_count
    pseudonym = rater_pseudonym(secret=settings.CONCORD_RATER_ID_SECRET, annotator_id=dave.pk, rater_label="",
                                campaign_id=campaign.pk)
    for path in (releases_root / "isolated-bench" / "1.0.1").rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert b"dave-calibrating" not in data and b"contrary to every rater" not in data, path
            assert pseudonym.encode() not in data, path
