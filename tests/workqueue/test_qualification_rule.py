"""The qualification and pause rules: a round passes at the pass mark with enough answers; during work a rater is
paused only when the whole interval of their recent gold is below the mark — never for one unlucky miss."""

import random

import pytest

from annotation.workqueue.qualification import pause_decision, qualification_decision, score

MARK, WINDOW, MIN_GOLD = 0.7, 30, 15


def test_the_score_is_the_share_with_its_wilson_interval():
    s = score(correct=8, n=10)
    assert s.share == 0.8 and round(s.lower, 4) == 0.4902 and round(s.upper, 4) == 0.9433
    empty = score(correct=0, n=0)
    assert empty.share is None and (empty.lower, empty.upper) == (0.0, 1.0)
    with pytest.raises(ValueError, match="11 correct of 10 answers is not a count"):
        score(correct=11, n=10)


def test_a_round_is_incomplete_until_its_pairs_are_answered_then_passed_at_the_mark_or_failed_below_it():
    assert qualification_decision(correct=4, answered=4, pass_mark=0.8, min_items=10).verdict == "incomplete"
    passed = qualification_decision(correct=8, answered=10, pass_mark=0.8, min_items=10)
    assert passed.verdict == "passed" and passed.message.startswith("Passed: 8 of 10 (80%, 95% interval 49%–94%)")
    failed = qualification_decision(correct=7, answered=10, pass_mark=0.8, min_items=10)
    assert failed.verdict == "failed" and "the pass mark is 80%" in failed.message


def test_a_good_rater_is_not_paused_for_one_miss_or_a_short_bad_streak():
    assert pause_decision(outcomes=[False], pass_mark=MARK, window=WINDOW, min_gold=MIN_GOLD).verdict == "working"
    streak = [True] * 20 + [False, False]
    assert pause_decision(outcomes=streak, pass_mark=MARK, window=WINDOW, min_gold=MIN_GOLD).verdict == "working"
    early = [False, False, False]
    decision = pause_decision(outcomes=early, pass_mark=MARK, window=WINDOW, min_gold=MIN_GOLD)
    assert decision.verdict == "working" and "at least 15 are needed" in decision.message


def test_a_rater_answering_at_random_is_paused_and_told_why():
    rng = random.Random(7)
    outcomes, paused_at = [], None
    for n in range(1, 200):
        outcomes.append(rng.random() < 0.5)
        if pause_decision(outcomes=outcomes, pass_mark=MARK, window=WINDOW, min_gold=MIN_GOLD).verdict == "paused":
            paused_at = n
            break
    assert paused_at is not None and MIN_GOLD <= paused_at <= 60
    decision = pause_decision(outcomes=outcomes, pass_mark=MARK, window=WINDOW, min_gold=MIN_GOLD)
    assert decision.message.startswith("Paused: the last") and decision.score.upper < MARK


def test_only_the_window_counts_so_a_rater_who_improves_is_judged_on_recent_gold():
    improved = [False] * 40 + [True] * 30
    assert pause_decision(outcomes=improved, pass_mark=MARK, window=WINDOW, min_gold=MIN_GOLD).verdict == "working"
    assert pause_decision(outcomes=[False] * 40, pass_mark=MARK, window=WINDOW, min_gold=MIN_GOLD).verdict == "paused"


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"pass_mark": 0}, "the pass mark is a share above 0 and at most 1, not 0"),
    ({"pass_mark": 1.5}, "not 1.5"),
    ({"window": 0}, "the window is a number of gold answers of at least 1, not 0"),
    ({"min_gold": 31}, "the gold needed to pause is 1 to the window (30), not 31"),
    ({"confidence": 1}, "the confidence is a share between 0 and 1, not 1"),
])
def test_a_bad_parameter_is_refused_with_what_it_must_be(kwargs, message):
    arguments = {"outcomes": [True], "pass_mark": MARK, "window": WINDOW, "min_gold": MIN_GOLD, **kwargs}
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        pause_decision(**arguments)
