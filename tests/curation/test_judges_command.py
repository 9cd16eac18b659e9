"""`manage.py judges list|add|enable|disable|test`: configure judges and try one on a pair from the command line."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from curation.models import Judge, JudgeVerdict
from tests.curation.judge_server import JudgeServer, votes_script
from tests.curation.prefilter_support import campaign, marked_pair

pytestmark = pytest.mark.django_db


def run(*args) -> dict:
    out = io.StringIO()
    call_command("judges", *args, "--json", stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue())


def refused(*args) -> tuple[str, dict]:
    out = io.StringIO()
    with pytest.raises(CommandError) as caught:
        call_command("judges", *args, "--json", stdout=out, stderr=io.StringIO())
    return str(caught.value), json.loads(out.getvalue())["error"]


def test_judges_add_list_disable_enable():
    added = run("add", "sanity", "--backend", "python", "--settings",
                '{"callable": "curation.judges.heuristics.text_sanity"}', "--disabled")
    assert added["enabled"] is False and added["settings"]["callable"] == "curation.judges.heuristics.text_sanity"
    assert run("enable", "sanity")["enabled"] is True
    listed = run("list")["judges"]
    assert [(j["name"], j["backend"], j["enabled"]) for j in listed] == [("sanity", "python", True)]
    assert run("disable", "sanity")["enabled"] is False


@pytest.mark.parametrize(("args", "code", "message"), [
    (["add", "x", "--backend", "oracle"], "invalid_judge_settings", "unknown backend 'oracle'"),
    (["add", "x", "--backend", "python", "--settings", "{not json"], "invalid_judge_settings", "--settings is not JSON"),
    (["add", "x", "--backend", "openai-chat", "--settings", '{"base_url": "http://h/v1", "model": "m", "api_key": "sk-1"}'],
     "invalid_judge_settings", "settings.api_key: secrets are never stored"),
    (["add", "x", "--backend", "python", "--settings", '{"callable": "no.such.module.judge"}'],
     "invalid_judge_settings", "cannot import no.such.module"),
    (["enable", "ghost"], "judge_not_found", "no judge named 'ghost'"),
    (["test", "ghost", "--pair", "1"], "judge_not_found", "no judge named 'ghost'"),
])
def test_judges_refuses_bad_input_and_configures_nothing(args, code, message):
    text, error = refused(*args)
    assert message in text and error["code"] == code
    assert not Judge.objects.exists()


def test_judges_add_refuses_a_taken_name():
    run("add", "sanity", "--backend", "python", "--settings", '{"callable": "curation.judges.heuristics.text_sanity"}')
    text, error = refused("add", "sanity", "--backend", "python", "--settings",
                          '{"callable": "curation.judges.heuristics.image_sanity"}')
    assert text == "a judge named 'sanity' already exists" and error["code"] == "judge_exists"
    assert Judge.objects.get().settings["callable"] == "curation.judges.heuristics.text_sanity"


def test_judges_test_calls_an_http_judge_once_and_shows_raw_and_parsed_without_storing():
    """The judge prefers B; asked with the responses swapped it writes "A" (B was shown first), parsed back to B."""
    target = marked_pair(campaign(), "p1")
    with JudgeServer(votes_script({"vlm": {("p1", "forward"): "B", ("p1", "swapped"): "B"}})) as server:
        run("add", "vlm", "--backend", "openai-chat", "--settings",
            json.dumps({"base_url": f"{server.url}/v1", "model": "vlm", "max_retries": 0}))
        forward = run("test", "vlm", "--pair", str(target.pk))
        swapped = run("test", "vlm", "--pair", str(target.pk), "--order", "swapped")
        assert server.count(model="vlm") == 2
    assert (forward["shown_label"], forward["verdict"], forward["error"]) == ("B", "B", "")
    assert (swapped["shown_label"], swapped["verdict"]) == ("A", "B")
    assert '"better_response": "A"' in swapped["raw_output"] and swapped["score"] < 0
    assert not JudgeVerdict.objects.exists()
    target.refresh_from_db()
    assert target.status == "pending"


def test_judges_test_reports_an_unreachable_judge_as_an_error_and_an_unknown_pair_as_refused():
    target = marked_pair(campaign(), "p2")
    run("add", "down", "--backend", "openai-chat", "--settings",
        json.dumps({"base_url": "http://127.0.0.1:9/v1", "model": "m", "max_retries": 0, "timeout_s": 2}))
    trial = run("test", "down", "--pair", str(target.pk))
    assert trial["verdict"] == "invalid" and trial["error"]
    text, error = refused("test", "down", "--pair", "999999")
    assert text == "no pair with id 999999" and error["code"] == "pair_not_found"
    text, error = refused("test", "down", "--pair", str(target.pk), "--order", "sideways")
    assert text == "order must be one of forward, swapped"


def test_judges_update_replaces_settings_and_refuses_bad_ones():
    run("add", "sanity", "--backend", "python", "--settings", '{"callable": "curation.judges.heuristics.text_sanity"}')
    out = run("update", "sanity", "--settings", '{"callable": "curation.judges.heuristics.image_sanity"}')
    assert out["settings"]["callable"] == "curation.judges.heuristics.image_sanity"
    text, error = refused("update", "sanity", "--settings", '{"callable": "nope"}')
    assert "expected a dotted path" in text and error["code"] == "invalid_judge_settings"
    assert Judge.objects.get().settings["callable"] == "curation.judges.heuristics.image_sanity"
