"""Judge backends over real HTTP against the local endpoint: retries, limits, failures, images."""

import base64
import hashlib
import time

import pytest

from curation.judges import registry
from curation.judges.base import JudgeRequest, MediaFile, MediaStore
from curation.judges.runner import JudgeRunner, WorkItem
from tests.curation.judge_server import JudgeServer, Reply, json_verdict, pair_text, response_text

FORWARD = JudgeRequest(
    kind="text-to-image",
    prompt=[{"type": "text", "text": f"Draw a cat {pair_text('p1')}"}],
    first=[{"type": "text", "text": response_text("p1", "a")}],
    second=[{"type": "text", "text": response_text("p1", "b")}],
)


def judge(server, name="j1", media=None, **settings):
    base = {"base_url": f"{server.url}/v1", "model": name, "backoff_s": 0.01, "max_backoff_s": 0.05, "timeout_s": 2}
    return registry.build(name=name, backend="openai-chat", settings={**base, **settings}, media=media or MediaStore())


def run(backends, items, **kwargs):
    results = []
    finished = JudgeRunner({b.name: b for b in backends}).run(items, deliver=results.extend, **kwargs)
    return finished, {item.key: call for item, call in results}


def test_a_429_is_retried_after_backoff_and_the_answer_is_kept():
    def script(seen):
        if seen.attempt <= 2:
            return Reply(status=429, headers={"retry-after": "0"})
        return Reply(content=json_verdict("A"))

    with JudgeServer(script) as server:
        _, calls = run([judge(server)], [WorkItem("j1", ("k",), FORWARD)])
        assert server.count() == 3
    call = calls[("k",)]
    assert (call.label, call.error, call.attempts) == ("A", "", 3)
    assert call.prompt_tokens == 120 and call.completion_tokens == 20
    assert '"better_response": "A"' in call.raw_output


def test_a_500_that_persists_is_given_up_after_the_configured_retries():
    with JudgeServer(lambda seen: Reply(status=500)) as server:
        _, calls = run([judge(server, max_retries=2)], [WorkItem("j1", ("k",), FORWARD)])
        assert server.count() == 3
    call = calls[("k",)]
    assert call.label == "invalid" and "HTTP 500" in call.error and "gave up after 3 attempts" in call.error


def test_a_timeout_is_retried_and_a_fast_answer_then_accepted():
    def script(seen):
        return Reply(content=json_verdict("B"), delay=1.0 if seen.attempt == 1 else 0)

    with JudgeServer(script) as server:
        _, calls = run([judge(server, timeout_s=0.2)], [WorkItem("j1", ("k",), FORWARD)])
        assert server.count() == 2
    assert calls[("k",)].label == "B" and calls[("k",)].attempts == 2


def test_a_refused_request_is_not_retried():
    with JudgeServer(lambda seen: Reply(status=400, body=b'{"error": "context too long"}')) as server:
        _, calls = run([judge(server)], [WorkItem("j1", ("k",), FORWARD)])
        assert server.count() == 1
    assert "HTTP 400" in calls[("k",)].error and "context too long" in calls[("k",)].error


def test_a_garbage_body_is_an_error_with_the_raw_body_kept():
    with JudgeServer(lambda seen: Reply(body=b"<html>bad gateway\x00</html>")) as server:
        _, calls = run([judge(server)], [WorkItem("j1", ("k",), FORWARD)])
    call = calls[("k",)]
    assert "not JSON" in call.error and call.raw_output.startswith("<html>bad gateway") and "\x00" not in call.raw_output


def test_a_garbage_answer_is_an_invalid_verdict_without_error():
    with JudgeServer(lambda seen: Reply(content="I like both [[A]] and [[B]]")) as server:
        _, calls = run([judge(server)], [WorkItem("j1", ("k",), FORWARD)])
    call = calls[("k",)]
    assert call.label == "invalid" and call.error == "" and call.raw_output == "I like both [[A]] and [[B]]"


def test_an_unreachable_endpoint_is_an_error_after_retries():
    backend = registry.build(name="j1", backend="openai-chat", media=MediaStore(), settings={
        "base_url": "http://127.0.0.1:9/v1", "model": "j1", "max_retries": 1, "backoff_s": 0.01})
    _, calls = run([backend], [WorkItem("j1", ("k",), FORWARD)])
    assert "could not be reached" in calls[("k",)].error and calls[("k",)].attempts == 2


def test_per_judge_concurrency_is_never_exceeded_and_one_judge_does_not_block_another():
    def script(seen):
        if seen.model == "broken":
            return Reply(status=503)
        return Reply(content=json_verdict("A"), delay=0.05)

    with JudgeServer(script) as server:
        fast = judge(server, "fast", concurrency=3)
        broken = judge(server, "broken", max_retries=1)
        items = [WorkItem("fast", (i,), FORWARD) for i in range(12)] + [WorkItem("broken", ("b", i), FORWARD) for i in range(4)]
        _, calls = run([fast, broken], items)
        assert server.max_in_flight["fast"] == 3
    assert all(calls[(i,)].label == "A" for i in range(12))
    assert all("HTTP 503" in calls[("b", i)].error for i in range(4))


def test_the_rate_limit_spaces_out_calls():
    with JudgeServer(lambda seen: Reply(content=json_verdict("A"))) as server:
        started = time.monotonic()
        run([judge(server, rate_per_s=20)], [WorkItem("j1", (i,), FORWARD) for i in range(6)])
        elapsed = time.monotonic() - started
    assert elapsed >= 5 / 20 * 0.9


def test_stopping_drops_unfinished_calls():
    with JudgeServer(lambda seen: Reply(content=json_verdict("A"), delay=0.3)) as server:
        items = [WorkItem("j1", (i,), FORWARD) for i in range(40)]
        finished, calls = run([judge(server, concurrency=2)], items, should_stop=lambda: True, poll_s=0.05)
    assert finished is False and len(calls) < 40


def test_images_reach_the_endpoint_as_data_urls_in_the_order_shown():
    first_png, second_png = b"\x89PNG first", b"\x89PNG second"
    digests = [hashlib.sha256(x).hexdigest() for x in (first_png, second_png)]
    media = MediaStore({digests[0]: MediaFile("image/png", first_png), digests[1]: MediaFile("image/png", second_png)})
    request = JudgeRequest(
        kind="text-to-image", prompt=[{"type": "text", "text": pair_text("p1")}],
        first=[{"type": "text", "text": response_text("p1", "a")}, {"type": "image", "media": digests[0], "alt": ""}],
        second=[{"type": "text", "text": response_text("p1", "b")}, {"type": "image", "media": digests[1], "alt": ""}],
    )
    with JudgeServer(lambda seen: Reply(content=json_verdict("A"))) as server:
        run([judge(server, media=media)], [WorkItem("j1", ("k",), request)])
        seen = server.seen[0]
    assert seen.images == digests
    part = next(p for p in seen.body["messages"][1]["content"] if p["type"] == "image_url")
    assert part["image_url"]["url"].startswith("data:image/png;base64,")
    assert base64.b64decode(part["image_url"]["url"].split(",", 1)[1]) == first_png


def test_media_missing_from_storage_fails_the_call_instead_of_judging_blind():
    request = JudgeRequest(kind="text-to-image", prompt=[], first=[{"type": "image", "media": "c" * 64, "alt": ""}], second=[])
    with JudgeServer(lambda seen: Reply(content=json_verdict("A"))) as server:
        _, calls = run([judge(server, media=MediaStore(missing={"c" * 64: "the stored file cannot be read"}))],
                       [WorkItem("j1", ("k",), request)])
        assert server.count() == 0
    assert "cannot be sent: the stored file cannot be read" in calls[("k",)].error


def test_the_api_key_is_sent_but_never_kept(monkeypatch):
    monkeypatch.setenv("CONCORD_JUDGE_KEY_TEST", "sk-test-SECRET-4242")

    def script(seen):
        return Reply(content=f"{json_verdict('A')} (you sent {seen.authorization})")

    with JudgeServer(script, api_key="sk-test-SECRET-4242") as server:
        _, calls = run([judge(server, api_key_env="CONCORD_JUDGE_KEY_TEST")], [WorkItem("j1", ("k",), FORWARD)])
        assert server.seen[0].authorization == "Bearer sk-test-SECRET-4242"
    call = calls[("k",)]
    assert call.label == "A" and "SECRET" not in call.raw_output and "[redacted]" in call.raw_output


def test_a_wrong_key_echoed_in_an_error_is_redacted(monkeypatch):
    monkeypatch.setenv("CONCORD_JUDGE_KEY_TEST", "sk-wrong-SECRET-1")
    with JudgeServer(lambda seen: Reply(), api_key="sk-right") as server:
        _, calls = run([judge(server, api_key_env="CONCORD_JUDGE_KEY_TEST")], [WorkItem("j1", ("k",), FORWARD)])
    call = calls[("k",)]
    assert "HTTP 401" in call.error and "SECRET" not in call.error + call.raw_output


def test_an_unset_key_variable_fails_every_call_of_that_judge_by_name(monkeypatch):
    monkeypatch.delenv("CONCORD_JUDGE_KEY_MISSING", raising=False)
    with JudgeServer(lambda seen: Reply(content=json_verdict("A"))) as server:
        work = [WorkItem("j1", (i,), FORWARD) for i in range(3)]
        _, calls = run([judge(server, api_key_env="CONCORD_JUDGE_KEY_MISSING")], work)
        assert server.count() == 0
    assert {c.error for c in calls.values()} == {"environment variable CONCORD_JUDGE_KEY_MISSING is not set"}


def test_the_reward_model_backend_scores_both_responses():
    def script(seen):
        assert seen.path == "/score"
        return Reply(scores=(2.0, 0.5) if seen.order == "forward" else (0.5, 2.0))

    with JudgeServer(script) as server:
        backend = registry.build(name="rm", backend="reward-model", media=MediaStore(),
                                 settings={"url": f"{server.url}/score", "model": "rm", "tie_band": 0.1})
        swapped = JudgeRequest(kind=FORWARD.kind, prompt=FORWARD.prompt, first=FORWARD.second, second=FORWARD.first)
        _, calls = run([backend], [WorkItem("rm", ("f",), FORWARD), WorkItem("rm", ("s",), swapped)])
    assert calls[("f",)].label == "A" and calls[("s",)].label == "B"
    assert calls[("f",)].score == pytest.approx(-calls[("s",)].score)


def test_a_python_judge_runs_and_a_crashing_one_reports_its_error():
    good = registry.build(name="py", backend="python", media=MediaStore(),
                          settings={"callable": "tests.curation.judge_callables.prefer_marked_side", "options": {"winner": "b"}})
    bad = registry.build(name="bad", backend="python", media=MediaStore(),
                         settings={"callable": "tests.curation.judge_callables.explode"})
    _, calls = run([good, bad], [WorkItem("py", ("g",), FORWARD), WorkItem("bad", ("b",), FORWARD)])
    assert calls[("g",)].label == "B" and calls[("g",)].confidence == 0.7
    assert "RuntimeError: the local judge crashed" in calls[("b",)].error
