"""The pre-filter end to end against the local judge endpoint: MMRB2's 17-of-18 rule, caching, errors."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.catalogue.models import Pair
from annotation.jobs.models import Job
from annotation.jobs.services import job_cancel
from annotation.workqueue.models import Assignment
from curation.models import JudgeVerdict
from curation.services.judges import judge_create
from curation.services.prefilter import (
    pair_restore,
    prefilter_job_create,
    prefilter_resume,
    prefilter_rule_set,
    prefilter_run_inline,
)
from tests.curation import prefilter_support as support
from tests.curation.judge_server import JudgeServer, Reply, votes_script
from tests.factories import CuratorFactory, UserFactory

pytestmark = pytest.mark.django_db

# Canonical votes that differ from the default "A", per judge and (pair, order). Nine judges × 2 orders = 18 votes.
BOUNDARY_VOTES = {
    "j9": {("easy17", "swapped"): "B", ("hard16", "swapped"): "B", ("inv16", "swapped"): "B", ("inv15", "swapped"): "B"},
    "j8": {("hard16", "swapped"): "B", ("inv16", "swapped"): "garbage", ("inv15", "swapped"): "garbage",
           ("inv15", "forward"): "B"},
}


def prefilter(slug, *args):
    out = StringIO()
    call_command("prefilter", "--campaign", slug, "--json", *args, stdout=out)
    return json.loads(out.getvalue())


@pytest.fixture
def boundary():
    """Four pending pairs at MMRB2's boundary and nine judges answering from BOUNDARY_VOTES."""
    with JudgeServer(votes_script(BOUNDARY_VOTES)) as server:
        campaign = support.campaign()
        pairs = {m: support.marked_pair(campaign, m) for m in ("easy17", "hard16", "inv16", "inv15")}
        support.chat_judges(server, support.NINE)
        yield server, campaign, pairs


def statuses(pairs):
    return {m: Pair.objects.get(pk=p.pk).status for m, p in pairs.items()}


def _patterns() -> dict[str, dict[tuple[str, str], str]]:
    """Issue 18's vote patterns over nine judges: canonical votes that differ from the default "A"."""
    votes: dict[str, dict[tuple[str, str], str]] = {name: {} for name in support.NINE}
    votes["j9"][("of17", "swapped")] = "B"
    votes["j9"][("of16", "swapped")] = votes["j8"][("of16", "swapped")] = "B"
    votes["j9"][("inv16", "swapped")] = votes["j8"][("inv16", "swapped")] = "garbage"
    votes["j9"][("inv17", "swapped")] = "garbage"
    for name in support.NINE:
        for order in ("forward", "swapped"):
            votes[name][("ties17", order)] = "tie"
            if name != "j1":
                votes[name][("failed16", order)] = "fail"
        votes[name][("fwdonly", "swapped")] = "garbage"
    votes["j9"][("ties17", "swapped")] = "A"
    return votes


PATTERN_REASONS = {
    "all18": "prefilter: easy — A holds 18 of 18 planned votes ≥ 90%",
    "of17": "prefilter: easy — A holds 17 of 18 planned votes ≥ 90%",
    "of16": "prefilter: kept — A holds 16 of 18 planned votes < 90%",
    "inv16": "prefilter: kept — A holds 16 of 18 planned votes (2 invalid) < 90%",
    "inv17": "prefilter: easy — A holds 17 of 18 planned votes (1 invalid) ≥ 90%",
    "ties17": "prefilter: kept — tie holds 17 of 18 planned votes; a tie majority never makes a pair easy",
    "failed16": "prefilter: kept — A holds 2 of 18 planned votes (16 failed) < 90%",
    "fwdonly": "prefilter: kept — A holds 9 of 18 planned votes (9 invalid) < 90%",
}


@pytest.fixture
def patterns():
    """One pending pair per vote pattern and nine judges answering from ``_patterns()``."""
    with JudgeServer(votes_script(_patterns())) as server:
        campaign = support.campaign()
        pairs = {m: support.marked_pair(campaign, m) for m in PATTERN_REASONS}
        support.chat_judges(server, support.NINE)
        yield server, campaign, pairs


def reasons(pairs):
    return {m: Pair.objects.get(pk=p.pk).status_reason for m, p in pairs.items()}


def test_mmrb2s_rule_counts_planned_votes_so_invalid_failed_and_tied_votes_never_make_a_pair_easy(patterns):
    """Easy at 17 of 18 planned votes for A or B; invalid answers and failed calls count against agreement."""
    server, campaign, pairs = patterns
    report = prefilter(campaign.slug)
    assert reasons(pairs) == PATTERN_REASONS
    assert {m for m, status in statuses(pairs).items() if status == "dropped_easy"} == {"all18", "of17", "inv17"}
    assert set(statuses(pairs).values()) == {"dropped_easy", "queued"}
    assert server.count() == 144
    assert {k: report[k] for k in ("pairs", "verdicts", "verdicts_stored", "calls_made", "errors", "planned_votes",
                                   "dropped_easy", "kept")} == {
        "pairs": 8, "verdicts": 144, "verdicts_stored": 144, "calls_made": 144, "errors": 16, "planned_votes": 18,
        "dropped_easy": 3, "kept": 5}
    assert report["rule"] == {"rule": "majority", "threshold": 0.9}


def test_a_rerun_calls_only_the_failed_calls_and_a_threshold_change_calls_nobody(patterns):
    server, campaign, pairs = patterns
    prefilter(campaign.slug)
    server.reset()
    again = prefilter(campaign.slug)
    assert server.count() == 16 and server.count(marker="failed16") == 16
    assert (again["calls_made"], again["verdicts_stored"], again["verdicts"]) == (16, 16, 144)
    assert reasons(pairs) == PATTERN_REASONS
    server.reset()
    looser = prefilter(campaign.slug, "--threshold", "0.85")
    assert server.count() == 0 and (looser["calls_made"], looser["verdicts_stored"]) == (0, 0)
    assert looser["rule"] == {"rule": "majority", "threshold": 0.85}
    dropped = {m for m, status in statuses(pairs).items() if status == "dropped_easy"}
    assert dropped == {"all18", "of17", "inv17", "of16", "inv16"}
    assert reasons(pairs)["inv16"] == "prefilter: easy — A holds 16 of 18 planned votes (2 invalid) ≥ 85%"
    assert JudgeVerdict.objects.count() == 144 and JudgeVerdict.objects.exclude(error="").count() == 16


def test_the_valid_votes_variant_applies_only_when_named_and_says_so(patterns):
    server, campaign, pairs = patterns
    prefilter(campaign.slug)
    prefilter_rule_set(campaign=campaign, rule={"rule": "majority-of-valid"})
    server.reset()
    report = prefilter(campaign.slug, "--threshold", "0.9")
    assert server.count() == 0 and report["rule"] == {"rule": "majority-of-valid", "threshold": 0.9, "min_votes": 2}
    found = reasons(pairs)
    assert found["failed16"] == (
        "prefilter: easy — A holds 2 of 2 valid votes ≥ 90% (majority-of-valid; left out: 16 failed)")
    assert found["fwdonly"].startswith("prefilter: easy — A holds 9 of 9 valid votes ≥ 90%")
    assert found["ties17"].startswith("prefilter: kept — tie holds 17 of 18 valid votes; a tie majority never")
    assert statuses(pairs)["ties17"] == "queued"


def test_calls_made_counts_every_http_request_including_retries():
    """A judge answering 500 is tried three times per verdict: three requests, one stored verdict."""

    def script(seen):
        return Reply(status=500) if seen.model == "j2" else votes_script({})(seen)

    with JudgeServer(script) as server:
        campaign = support.campaign()
        support.marked_pair(campaign, "p")
        support.chat_judges(server, ["j1", "j2"])
        report = prefilter(campaign.slug)
    assert server.count(model="j2") == 6
    assert report["per_judge"]["j2"]["calls_made"] == 6 and report["per_judge"]["j2"]["verdicts_stored"] == 2
    assert report["per_judge"]["j1"]["calls_made"] == 2 and report["calls_made"] == 8
    assert JudgeVerdict.objects.get(judge__name="j2", order="forward").requests == 3


def test_verdicts_are_stored_in_the_pairs_own_orientation_with_the_raw_answer(boundary):
    server, campaign, pairs = boundary
    prefilter(campaign.slug)
    verdict = JudgeVerdict.objects.get(pair=pairs["easy17"], judge__name="j9", order="swapped")
    assert verdict.verdict == "B"  # the judge saw B first and wrote "A"
    assert '"better_response": "A"' in verdict.raw_output
    assert verdict.score == -1.0 and verdict.confidence == 0.9 and verdict.latency_ms is not None
    assert verdict.prompt_tokens == 120 and verdict.error == ""
    garbage = JudgeVerdict.objects.get(pair=pairs["inv16"], judge__name="j8", order="swapped")
    assert garbage.verdict == "invalid" and "[[A]] and [[B]]" in garbage.raw_output and garbage.error == ""


def test_force_calls_every_judge_again_and_keeps_one_verdict_per_call(boundary):
    server, campaign, pairs = boundary
    prefilter(campaign.slug)
    report = prefilter(campaign.slug, "--force")
    assert server.count() == 144 and report["calls_made"] == 72
    assert JudgeVerdict.objects.count() == 72


def test_only_the_named_judges_vote(boundary):
    server, campaign, pairs = boundary
    report = prefilter(campaign.slug, "--judges", "j1,j9")
    assert server.count() == 16 and set(report["per_judge"]) == {"j1", "j9"}
    assert statuses(pairs)["easy17"] == "queued"  # 2 of 4 votes: 50%


def test_a_restored_pair_and_a_claimed_pair_are_never_moved_by_a_later_run(boundary):
    server, campaign, pairs = boundary
    prefilter(campaign.slug)
    pair_restore(pair=pairs["easy17"], user=CuratorFactory(username="cora"))
    Assignment.objects.create(pair=pairs["hard16"], campaign=pairs["hard16"].campaign, annotator=UserFactory(), swapped=False,
                              claimed_at="2026-01-01T00:00:00Z", expires_at="2026-01-01T01:00:00Z")
    report = prefilter(campaign.slug, "--threshold", "0.85")
    restored = Pair.objects.get(pk=pairs["easy17"].pk)
    assert (restored.status, restored.status_reason) == ("queued", "restored by cora after the pre-filter")
    assert Pair.objects.get(pk=pairs["hard16"].pk).status == "queued"
    assert report["pairs"] == 2


def test_after_a_forced_run_the_report_counts_the_pairs_it_left_alone_as_the_funnel_does(boundary):
    """A forced run judged the 2 pairs it may move and said "kept" of those only, while the funnel counted the
    restored and the claimed pair as kept too (the curator read "17 kept" beside a funnel of 20)."""
    from curation.selectors.console import campaign_funnel

    server, campaign, pairs = boundary
    prefilter(campaign.slug)
    pair_restore(pair=pairs["easy17"], user=CuratorFactory(username="cora"))
    Assignment.objects.create(pair=pairs["hard16"], campaign=campaign, annotator=UserFactory(), swapped=False,
                              claimed_at="2026-01-01T00:00:00Z", expires_at="2026-01-01T01:00:00Z")
    report = prefilter(campaign.slug, "--force")
    funnel = campaign_funnel(campaign=campaign)["prefilter"]
    assert report["pairs"] == 2 and report["left_alone"] == 2
    assert report["campaign_after"] == funnel
    assert report["kept"] + report["left_alone"] == funnel["kept"]
    assert report["dropped_easy"] == funnel["dropped_easy"]


def test_restoring_a_pair_that_was_not_dropped_is_refused(boundary):
    server, campaign, pairs = boundary
    with pytest.raises(Exception, match="not dropped by the pre-filter"):
        pair_restore(pair=pairs["easy17"], user=CuratorFactory())


def test_a_run_on_a_campaign_without_the_prefilter_is_refused_with_the_reason():
    """It finished "succeeded · 0 verdicts" and said nothing."""
    from core.errors import ApplicationError
    from curation.services.prefilter import prefilter_start

    campaign = support.campaign()
    campaign.requires_prefilter = False
    campaign.save(update_fields=["requires_prefilter"])
    support.marked_pair(campaign, "human", status=Pair.Status.QUEUED)
    judge_create(name="sanity", backend="python", settings={"callable": "curation.judges.heuristics.image_sanity"})
    with pytest.raises(ApplicationError, match="has no pair a pre-filter run could judge: it does not use the pre-filter"):
        prefilter_start(campaign=campaign)
    assert not Job.objects.filter(kind="prefilter").exists()


def test_abstentions_are_counted_apart_from_invalid_answers_in_the_rule_and_the_report():
    from curation.prefilter import metrics, rules

    votes = [rules.Vote(judge=f"j{i}", order="forward", label="A") for i in range(15)]
    votes += [rules.Vote(judge="k1", order="forward", label="abstain"), rules.Vote(judge="k2", order="forward",
                                                                                      label="abstain"),
              rules.Vote(judge="k3", order="forward", label="invalid")]
    decision = rules.decide(rules.rule_from_config({"rule": "majority", "threshold": 0.9}), votes)
    assert (decision.abstained, decision.invalid, decision.failed) == (2, 1, 0)
    assert "(2 abstained, 1 invalid)" in decision.reason
    figures = metrics.judge_figures([metrics.VerdictRow(1, "h", "forward", "abstain"),
                                     metrics.VerdictRow(1, "h", "swapped", "A"),
                                     metrics.VerdictRow(2, "h", "forward", "invalid", error=True)])["h"]
    assert (figures["abstained"], figures["invalid"], figures["errors"]) == (1, 0, 1)


def test_pairs_outside_the_prefilter_are_not_judged(boundary):
    server, campaign, pairs = boundary
    support.marked_pair(campaign, "human", status=Pair.Status.QUEUED)
    prefilter(campaign.slug)
    assert server.count(marker="human") == 0


def test_a_failing_judge_is_reported_and_does_not_stop_the_others_then_only_its_calls_are_retried():
    broken = {"on": True}

    def script(seen):
        if seen.model == "j9" and broken["on"]:
            return Reply(status=500)
        return votes_script({})(seen)

    with JudgeServer(script) as server:
        campaign = support.campaign()
        pairs = [support.marked_pair(campaign, f"p{i}") for i in range(2)]
        support.chat_judges(server, support.NINE)
        report = prefilter(campaign.slug)
        assert report["per_judge"]["j9"]["errors"] == 4 and report["errors"] == 4
        assert "HTTP 500" in report["error_samples"]["j9"][0] and "gave up after 3 attempts" in report["error_samples"]["j9"][0]
        assert report["per_judge"]["j1"]["errors"] == 0
        assert {Pair.objects.get(pk=p.pk).status_reason for p in pairs} == {
            "prefilter: kept — A holds 16 of 18 planned votes (2 failed) < 90%"}
        assert server.count(model="j9") == 12 and report["per_judge"]["j9"]["calls_made"] == 12
        broken["on"] = False
        server.reset()
        report = prefilter(campaign.slug)
        assert server.count() == 4 and server.count(model="j9") == 4
        assert report["errors"] == 0 and report["per_judge"]["j9"]["calls_made"] == 4
        assert all(Pair.objects.get(pk=p.pk).status == "dropped_easy" for p in pairs)
        assert JudgeVerdict.objects.filter(error="").count() == 36


def test_a_slow_judge_times_out_and_its_retry_is_kept():
    def script(seen):
        return Reply(content=votes_script({})(seen).content, delay=1.5 if seen.attempt == 1 and seen.model == "j1" else 0)

    with JudgeServer(script) as server:
        campaign = support.campaign()
        support.marked_pair(campaign, "p")
        support.chat_judges(server, ["j1", "j2"], timeout_s=0.3)
        report = prefilter(campaign.slug)
    assert report["errors"] == 0 and server.count(model="j1") == 4
    assert report["per_judge"]["j1"]["latency_ms"]["p95"] < 1000


def test_images_reach_the_endpoint_in_the_order_shown():
    with JudgeServer(votes_script({})) as server:
        campaign = support.campaign(kind="image-editing")
        source, red, blue = support.png((0, 0, 0)), support.png((255, 0, 0)), support.png((0, 0, 255))
        pair = support.marked_pair(campaign, "img", prompt_extra=[support.image_block(source)],
                                   a_extra=[support.image_block(red)], b_extra=[support.image_block(blue)])
        pair.media.set(list(pair.media.model.objects.all()))
        support.chat_judges(server, ["j1"])
        prefilter(campaign.slug)
        digests = [support.image_block(x)["media"] for x in (source, red, blue)]
        by_order = {s.order: s.images for s in server.seen}
    assert by_order == {"forward": digests, "swapped": [digests[0], digests[2], digests[1]]}
    assert set(digests) == set(pair.media.values_list("sha256", flat=True))


def test_omni_pairs_with_criteria_get_bracket_verdicts():
    with JudgeServer(votes_script({"j1": {("om", "swapped"): "B"}})) as server:
        campaign = support.campaign(kind="text-to-text")
        pair = support.marked_pair(campaign, "om", criteria=["fewer factual errors"])
        support.chat_judges(server, ["j1"])
        prefilter(campaign.slug)
        assert "fewer factual errors" in json.dumps(server.seen[0].body)
    stored = dict(JudgeVerdict.objects.filter(pair=pair).values_list("order", "verdict"))
    assert stored == {"forward": "A", "swapped": "B"}
    assert "[[A]]" in JudgeVerdict.objects.get(pair=pair, order="swapped").raw_output


def test_a_mixed_ensemble_of_chat_reward_model_and_python_judges():
    def script(seen):
        if seen.path == "/score":
            return Reply(scores=(3.0, 1.0) if seen.order == "forward" else (1.0, 3.0))
        return votes_script({})(seen)

    with JudgeServer(script) as server:
        campaign = support.campaign()
        pair = support.marked_pair(campaign, "mix")
        support.chat_judges(server, ["chat"])
        judge_create(name="rm", backend="reward-model", settings={"url": f"{server.url}/score", "tie_band": 0.5})
        judge_create(name="local", backend="python", settings={
            "callable": "tests.curation.judge_callables.prefer_marked_side", "options": {"winner": "a"}})
        report = prefilter(campaign.slug)
    assert report["verdicts"] == 6 and report["invalid"] == 0
    assert set(JudgeVerdict.objects.filter(pair=pair).values_list("verdict", flat=True)) == {"A"}
    assert Pair.objects.get(pk=pair.pk).status == "dropped_easy"


def test_a_cancelled_run_keeps_its_verdicts_and_a_resume_makes_only_the_missing_calls(django_capture_on_commit_callbacks):
    with JudgeServer(lambda seen: Reply(content=votes_script({})(seen).content, delay=0.2)) as server:
        campaign = support.campaign()
        pairs = [support.marked_pair(campaign, f"p{i}") for i in range(6)]
        support.chat_judges(server, ["j1", "j2", "j3"], concurrency=2)
        job = prefilter_job_create(campaign=campaign)
        seen_progress = []

        def cancel_midway(written):
            seen_progress.append(written)
            if sum(seen_progress) >= 10:
                job_cancel(job_id=job.pk)

        assert prefilter_run_inline(job_id=job.pk, on_progress=cancel_midway) is None
        stored = set(JudgeVerdict.objects.values_list("pair__external_id", "judge__name", "order"))
        assert 10 <= len(stored) < 36
        assert all(Pair.objects.get(pk=p.pk).status == "pending" for p in pairs)
        assert Job.objects.get(pk=job.pk).status == "cancelled"
        server.reset()
        with django_capture_on_commit_callbacks(execute=True):
            prefilter_resume(job=job)
        every = {(p.external_id, judge, order) for p in pairs for judge in ("j1", "j2", "j3") for order in ("forward", "swapped")}
        called = sorted((s.marker, s.model, s.order) for s in server.seen)
        errors = list(JudgeVerdict.objects.exclude(error="").values_list("pair__external_id", "judge__name", "order", "error"))
        assert called == sorted(every - stored), f"stored before the resume: {sorted(stored)}; errors: {errors}"
    job.refresh_from_db()
    assert job.status == "succeeded" and job.progress_done == job.progress_total == 36
    assert JudgeVerdict.objects.count() == 36 and job.result["dropped_easy"] == 6


def test_the_command_refuses_unknown_campaigns_judges_and_rules(boundary):
    server, campaign, pairs = boundary
    with pytest.raises(CommandError, match="does not exist"):
        prefilter("nope")
    with pytest.raises(CommandError, match="unknown judge"):
        prefilter(campaign.slug, "--judges", "j1,ghost")
    with pytest.raises(CommandError, match="above 0.5"):
        prefilter(campaign.slug, "--threshold", "0.3")
    assert server.count() == 0 and JudgeVerdict.objects.count() == 0


def test_without_json_the_command_prints_a_summary_per_judge(boundary):
    server, campaign, pairs = boundary
    out = StringIO()
    call_command("prefilter", "--campaign", campaign.slug, stdout=out)
    text = out.getvalue()
    assert "72 stored by this run" in text and "72 requests to judges, retries included" in text
    assert "rule majority at 0.9 of 18 planned votes: dropped as easy 1, kept 3" in text
    assert "j9: 8 calls, 0 errors" in text and "position consistency 0.0%" in text


def test_imported_pairs_wait_for_the_prefilter_and_their_images_reach_the_judges(tmp_path):
    """The chain an operator runs: import into a campaign that requires the pre-filter, then pre-filter it."""
    (tmp_path / "img").mkdir()
    lines = []
    for i, colours in enumerate([((255, 0, 0), (0, 255, 0)), ((0, 0, 255), (9, 9, 9))]):
        for side, colour in zip("ab", colours, strict=True):
            (tmp_path / "img" / f"{i}{side}.png").write_bytes(support.png(colour))
        lines.append(json.dumps({
            "id": f"imp{i}",
            "prompt": {"id": f"p{i}", "content": [{"type": "text", "text": f"Draw PAIR[imp{i}]"}]},
            "response_a": {"model": "m1", "content": [{"type": "text", "text": f"RESP[imp{i}-a]"},
                                                       {"type": "image", "file": f"img/{i}a.png"}]},
            "response_b": {"model": "m2", "content": [{"type": "text", "text": f"RESP[imp{i}-b]"},
                                                       {"type": "image", "file": f"img/{i}b.png"}]},
        }))
    (tmp_path / "pairs.jsonl").write_text("\n".join(lines) + "\n")
    campaign = support.campaign(kind="text-to-image")
    call_command("import_pairs", str(tmp_path / "pairs.jsonl"), "--campaign", campaign.slug, "--format", "concord",
                 "--json", stdout=StringIO())
    assert set(Pair.objects.filter(campaign=campaign).values_list("status", flat=True)) == {"pending"}
    with JudgeServer(votes_script({"j1": {("imp1", "swapped"): "B"}})) as server:
        support.chat_judges(server, ["j1"])
        report = prefilter(campaign.slug)
        seen = {(s.marker, s.order): s.images for s in server.seen}
    for i in range(2):
        pair = Pair.objects.get(campaign=campaign, external_id=f"imp{i}")
        a, b = (content["media"] for content in (pair.response_a.content[1], pair.response_b.content[1]))
        assert seen[(f"imp{i}", "forward")] == [a, b] and seen[(f"imp{i}", "swapped")] == [b, a]
    assert report["pairs"] == 2 and report["dropped_easy"] == 1 and report["kept"] == 1
