"""Judge answers → verdicts, prompts, settings and vote rules: pure functions, no database."""

import pytest

from curation.judges import parsing, prompts
from curation.judges.base import JudgeConfigError, PermanentJudgeError, clean_text, validate_settings
from curation.judges.openai_chat import OpenAIChatJudge
from curation.judges.registry import validate
from curation.judges.reward_model import response_scores, verdict_from_scores
from curation.prefilter import metrics, rules

# --- MMRB2-style JSON answers ---


def test_fenced_json_with_chatter_around_it_is_parsed():
    text = 'Let me compare.\n```json\n{"score": 6, "better_response": "A", "confidence": 0.8}\n```\nDone.'
    answer = parsing.parse_scored_json(text)
    assert (answer.label, answer.score, answer.confidence) == ("A", 1.0, 0.8)


def test_bare_json_followed_by_trailing_text_is_parsed():
    answer = parsing.parse_scored_json('{"score": 2, "better_response": "B", "confidence": 0.6} because B is sharper')
    assert answer.label == "B"
    assert answer.score == pytest.approx(-0.6)


def test_score_four_and_three_lean_to_a_and_b():
    assert parsing.parse_scored_json('{"score": 4}').label == "A"
    assert parsing.parse_scored_json('{"score": 3}').label == "B"


def test_better_response_spelled_as_response_b_is_understood():
    assert parsing.parse_scored_json('{"better_response": "Response B"}').label == "B"


def test_a_score_that_contradicts_better_response_is_invalid():
    answer = parsing.parse_scored_json('{"score": 6, "better_response": "B"}')
    assert answer.label == "invalid"
    assert "contradicts" in answer.problem


def test_two_json_answers_that_disagree_are_invalid():
    answer = parsing.parse_scored_json('{"better_response": "A"} on reflection {"better_response": "B"}')
    assert answer.label == "invalid"
    assert "conflicting" in answer.problem


def test_two_json_answers_that_agree_are_one_answer():
    assert parsing.parse_scored_json('{"score": 5} final: {"score": 6, "better_response": "A"}').label == "A"


@pytest.mark.parametrize("text", ['{"score": 9, "better_response": "A"}', '{"score": "lots"}', '{"score": NaN}'])
def test_scores_off_the_six_point_scale_are_invalid(text):
    assert parsing.parse_scored_json(text).label == "invalid"


def test_an_unknown_better_response_is_invalid():
    assert parsing.parse_scored_json('{"better_response": "the left one"}').label == "invalid"


@pytest.mark.parametrize("text", ["", "   ", "A is better.", "{not json at all", "[[A]]"])
def test_answers_without_a_json_verdict_are_invalid(text):
    assert parsing.parse_scored_json(text).label == "invalid"


def test_python_literal_dicts_are_accepted():
    assert parsing.parse_scored_json("{'score': 1, 'better_response': 'B'}").label == "B"


def test_reasoning_in_think_tags_is_ignored():
    text = '<think>maybe {"better_response": "A"}</think>{"score": 2, "better_response": "B"}'
    assert parsing.parse_scored_json(text).label == "B"


def test_confidence_given_as_a_percentage_is_scaled():
    assert parsing.parse_scored_json('{"score": 5, "confidence": "85%"}').confidence == pytest.approx(0.85)


# --- Omni-style bracket verdicts ---


@pytest.mark.parametrize(("text", "label"), [("Overall [[A]]", "A"), ("[[b]]", "B"), ("They tie: [[C]]", "tie"),
                                             ("[[B]] ... so [[B]]", "B")])
def test_bracket_verdicts(text, label):
    assert parsing.parse_bracket_verdict(text).label == label


def test_both_bracket_labels_present_is_invalid():
    answer = parsing.parse_bracket_verdict("A has merits [[A]] but [[B]] is better")
    assert answer.label == "invalid"
    assert "conflicting" in answer.problem


def test_no_bracket_label_is_invalid():
    assert parsing.parse_bracket_verdict("Response A is better.").label == "invalid"


def test_swapped_labels_map_back_to_the_pair_orientation():
    assert parsing.to_canonical("A", swapped=True) == "B"
    assert parsing.to_canonical("tie", swapped=True) == "tie"
    assert parsing.to_canonical("A", swapped=False) == "A"
    assert parsing.score_to_canonical(0.6, swapped=True) == -0.6


# --- prompts ---


def test_content_parts_keep_reading_order_and_merge_text():
    blocks = [
        {"type": "text", "text": "Look:"},
        {"type": "reasoning", "blocks": [{"type": "code", "language": "python", "code": "crop()"}]},
        {"type": "image", "media": "a" * 64, "alt": ""},
        {"type": "final_answer", "text": "42"},
    ]
    parts = prompts.content_parts(blocks, lambda b: {"type": "image_url", "image_url": {"url": "data:x"}})
    assert [p["type"] for p in parts] == ["text", "image_url", "text"]
    assert "crop()" in parts[0]["text"] and parts[2]["text"] == "Final answer: 42"


def test_media_a_judge_does_not_take_becomes_a_placeholder():
    parts = prompts.content_parts([{"type": "video", "media": "b" * 64, "alt": ""}], lambda b: None)
    assert parts == [{"type": "text", "text": "[video not shown to this judge]"}]


def test_mmrb2_prompt_carries_rubric_scale_and_json_format_in_order():
    messages = prompts.build_messages(
        style="mmrb2", kind="text-to-image", prompt=[{"type": "text", "text": "a red cube"}],
        first=[{"type": "text", "text": "FIRST"}], second=[{"type": "text", "text": "SECOND"}], criteria=[],
        media_part=lambda b: None,
    )
    text = messages[1]["content"][0]["text"]
    assert "Image quality" in text and "6 = A significantly better" in text and '"better_response"' in text
    assert text.index("FIRST") < text.index("## Response B") < text.index("SECOND")


def test_pairs_with_criteria_get_the_omni_prompt_in_auto_style():
    assert prompts.style_for(configured="auto", criteria=["fewer artifacts"]) == "omni"
    assert prompts.style_for(configured="auto", criteria=[]) == "mmrb2"
    messages = prompts.build_messages(style="omni", kind="text-to-text", prompt=[], first=[], second=[],
                                      criteria=["fewer artifacts"], media_part=lambda b: None)
    assert "fewer artifacts" in messages[1]["content"][0]["text"] and "[[C]]" in messages[1]["content"][0]["text"]


# --- settings ---


def test_a_literal_api_key_is_refused_and_the_env_variable_is_suggested():
    with pytest.raises(JudgeConfigError, match="api_key_env"):
        validate("openai-chat", {"base_url": "http://x/v1", "model": "m", "api_key": "sk-live-123"})


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"model": "m"}, "settings.base_url: required"),
        ({"base_url": "ftp://x", "model": "m"}, "settings.base_url: expected an http"),
        ({"base_url": "http://x", "model": "m", "api_key_env": "not a name"}, "NAME of an environment variable"),
        ({"base_url": "http://x", "model": "m", "concurrency": 0}, "settings.concurrency: must be from 1"),
        ({"base_url": "http://x", "model": "m", "colour": "red"}, "settings.colour: unknown setting"),
        ({"base_url": "http://x", "model": "m", "extra_body": {"messages": []}}, "extra_body.messages"),
        ({"base_url": "http://x", "model": "m", "modalities": ["smell"]}, "settings.modalities"),
    ],
)
def test_bad_openai_settings_name_the_setting(settings, message):
    with pytest.raises(JudgeConfigError, match=message.replace("(", r"\(")):
        OpenAIChatJudge.validate(settings)


def test_defaults_are_filled_in():
    settings = validate("openai-chat", {"base_url": "http://x/v1", "model": "m"})
    assert settings["prompt_style"] == "auto" and settings["max_retries"] == 4 and settings["modalities"] == ["image"]


def test_unknown_backend_is_named():
    with pytest.raises(JudgeConfigError, match="unknown backend 'gpt'"):
        validate("gpt", {})


def test_settings_must_be_an_object():
    with pytest.raises(JudgeConfigError, match="expected an object"):
        validate_settings({}, ["a"])


def test_stored_text_loses_secrets_and_nul_characters():
    assert clean_text("key sk-abcdef\x00!", limit=100, secrets=["sk-abcdef"]) == "key [redacted]\ufffd!"


# --- reward model ---


def test_reward_scores_within_the_tie_band_are_a_tie():
    assert verdict_from_scores(1.0, 0.95, tie_band=0.1, scale=1.0)[0] == "tie"
    label, score, confidence = verdict_from_scores(2.0, 0.0, tie_band=0.1, scale=1.0)
    assert label == "A" and 0 < score < 1 and confidence > 0.5


def test_reward_replies_in_both_shapes_are_read_and_others_refused():
    assert response_scores({"scores": [1, 2.5]}) == (1.0, 2.5)
    assert response_scores({"data": [{"score": 0.1}, {"score": 0.2}]}) == (0.1, 0.2)
    with pytest.raises(PermanentJudgeError):
        response_scores({"scores": [1]})


# --- vote rules (MMRB2: 17 of 18 planned votes is easy, 16 of 18 is not) ---


def votes(**counts):
    out = []
    for label, n in counts.items():
        name = {"inv": "invalid", "fail": "invalid"}.get(label, label)
        out += [rules.Vote(judge=f"j{i}", order="forward", label=name, failed=label == "fail") for i in range(n)]
    return out


MMRB2 = rules.rule_from_config({})
OF_VALID = rules.rule_from_config({"rule": "majority-of-valid"})


def test_seventeen_of_eighteen_planned_votes_make_a_pair_easy():
    decision = rules.decide(MMRB2, votes(A=17, B=1))
    assert decision.easy and decision.label == "A" and decision.support == 17 and decision.planned == 18
    assert decision.reason == "prefilter: easy — A holds 17 of 18 planned votes ≥ 90%"


def test_sixteen_of_eighteen_planned_votes_keep_a_pair():
    decision = rules.decide(MMRB2, votes(A=16, B=2))
    assert not decision.easy and decision.reason == "prefilter: kept — A holds 16 of 18 planned votes < 90%"


def test_invalid_answers_and_failed_calls_count_against_agreement():
    decision = rules.decide(MMRB2, votes(A=16, B=1, inv=1))
    assert not decision.easy and decision.reason == "prefilter: kept — A holds 16 of 18 planned votes (1 invalid) < 90%"
    decision = rules.decide(MMRB2, votes(B=2, fail=16))
    assert (decision.easy, decision.failed, decision.invalid) == (False, 16, 0)
    assert decision.reason == "prefilter: kept — B holds 2 of 18 planned votes (16 failed) < 90%"


def test_votes_planned_but_never_stored_count_as_failed():
    decision = rules.decide(MMRB2, votes(A=16), planned=18)
    assert not decision.easy and decision.failed == 2 and "(2 failed)" in decision.reason


def test_a_tie_majority_never_makes_a_pair_easy():
    decision = rules.decide(MMRB2, votes(tie=18))
    assert not decision.easy and decision.label == "tie"
    assert decision.reason == "prefilter: kept — tie holds 18 of 18 planned votes; a tie majority never makes a pair easy"
    assert not rules.decide(OF_VALID, votes(tie=17, inv=1)).easy


def test_exactly_the_threshold_is_easy():
    assert rules.decide(rules.rule_from_config({"threshold": 0.9}), votes(A=9, B=1)).easy


def test_the_valid_votes_variant_leaves_invalid_and_failed_votes_out_and_says_so():
    decision = rules.decide(OF_VALID, votes(A=16, B=1, inv=1))
    assert decision.easy and decision.reason == (
        "prefilter: easy — A holds 16 of 17 valid votes ≥ 90% (majority-of-valid; left out: 1 invalid)")


def test_too_few_valid_votes_keep_the_pair_under_the_valid_votes_variant():
    decision = rules.decide(rules.rule_from_config({"rule": "majority-of-valid", "min_votes": 18}), votes(A=17, inv=1))
    assert not decision.easy and "fewer than the minimum 18" in decision.reason


def test_a_tied_count_has_no_majority():
    decision = rules.decide(rules.rule_from_config({"threshold": 0.51}), votes(A=2, B=2))
    assert not decision.easy and decision.label is None


def test_the_published_rule_takes_no_min_votes_and_names_the_variant_that_does():
    with pytest.raises(rules.RuleError, match="name 'majority-of-valid' to count valid votes only"):
        rules.rule_from_config({"rule": "majority", "min_votes": 2})


def test_score_margin_rule_drops_when_the_mean_exceeds_the_threshold():
    rule = rules.rule_from_config({"rule": "score-margin", "threshold": 0.5})
    strong = [rules.Vote("j", "forward", "A", 0.8), rules.Vote("k", "forward", "A", 0.6)]
    weak = [rules.Vote("j", "forward", "A", 0.8), rules.Vote("k", "forward", "B", -0.2)]
    assert rules.decide(rule, strong).easy and rules.decide(rule, strong).label == "A"
    assert not rules.decide(rule, weak).easy


@pytest.mark.parametrize(
    ("config", "message"),
    [({"rule": "vibes"}, "unknown rule"), ({"threshold": 0.4}, "above 0.5"),
     ({"rule": "majority-of-valid", "min_votes": 0}, "min_votes"),
     ({"threshold": "high"}, "expected a number"), ({"quorum": 3}, "prefilter_rule.quorum"), ([1], "expected an object")],
)
def test_bad_rules_are_refused_with_the_field_named(config, message):
    with pytest.raises(rules.RuleError, match=message):
        rules.rule_from_config(config)


def test_the_command_line_threshold_overrides_the_campaign_rule():
    assert rules.rule_from_config({"threshold": 0.95}, threshold=0.85).threshold == 0.85


# --- per-judge figures ---


def test_position_consistency_counts_pairs_whose_verdict_survives_the_swap():
    rows = [
        metrics.VerdictRow(1, "j", "forward", "A", 100), metrics.VerdictRow(1, "j", "swapped", "A", 200),
        metrics.VerdictRow(2, "j", "forward", "A", 100), metrics.VerdictRow(2, "j", "swapped", "B", 300),
        metrics.VerdictRow(3, "j", "forward", "invalid", None, True), metrics.VerdictRow(3, "j", "swapped", "B", 100),
    ]
    figures = metrics.judge_figures(rows)["j"]
    assert figures["position_consistency"] == 0.5
    # A failed call is an error, not also an invalid answer (the two columns counted it twice).
    assert figures["calls"] == 6 and figures["errors"] == 1 and figures["invalid_rate"] == 0
    assert figures["latency_ms"]["p50"] == 100


def test_a_huge_answer_is_capped_with_its_length_noted():
    stored = clean_text("x" * 150_000, limit=100_000, secrets=[])
    assert len(stored) < 100_100 and stored.endswith("[truncated, 150,000 characters in all]")


def test_more_votes_than_planned_are_all_counted_and_the_reason_says_so():
    """20 votes where 18 were planned printed "17 of 18 planned votes (-2 invalid)"."""
    votes = [rules.Vote(judge=f"j{i // 2}", order=("forward", "reverse")[i % 2], label="A") for i in range(18)]
    votes += [rules.Vote(judge="j9", order="forward", label="B"), rules.Vote(judge="j9", order="reverse", label="B")]
    decision = rules.decide(rules.rule_from_config({"rule": "majority", "threshold": 0.9}), votes, planned=18)
    assert (decision.planned, decision.invalid, decision.support) == (20, 0, 18)
    assert decision.easy, "18 of the 20 votes given agree: 0.9"
    assert "-" not in decision.reason.split("—")[1].split("where")[0]
    assert "A holds 18 of 20 votes" in decision.reason
    assert "20 votes where 18 were planned, all 20 counted" in decision.reason
