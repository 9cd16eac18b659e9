"""The judges API for curators: CRUD with secrets never shown, runs, verdicts of a pair, restore, rule."""

import json

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from annotation.accounts.models import Role
from annotation.catalogue.models import Pair
from annotation.jobs.models import Job
from curation.models import Judge, JudgeVerdict
from curation.services.judges import judge_create
from tests.curation import prefilter_support as support
from tests.curation.judge_server import JudgeServer, Reply, votes_script
from tests.factories import CuratorFactory, UserFactory

pytestmark = pytest.mark.django_db

SECRET = "sk-live-TOPSECRET-98765"


@pytest.fixture
def curator_client():
    client = APIClient()
    client.force_authenticate(CuratorFactory())
    return client


def test_annotators_cannot_see_judges():
    client = APIClient()
    client.force_authenticate(UserFactory())
    assert client.get("/api/v1/judges/").status_code == 403


def test_an_admin_creates_a_judge_whose_secret_is_named_never_stored(monkeypatch):
    monkeypatch.setenv("CONCORD_JUDGE_KEY_OPENAI", SECRET)
    admin_client = APIClient()
    admin_client.force_authenticate(UserFactory(role=Role.ADMIN))
    response = admin_client.post("/api/v1/judges/create/", {
        "name": "gpt", "backend": "openai-chat",
        "settings": {"base_url": "https://api.openai.com/v1", "model": "gpt-4.1", "api_key_env": "CONCORD_JUDGE_KEY_OPENAI"},
    }, format="json")
    assert response.status_code == 201
    assert response.json()["secrets"] == {"api_key_env": {"variable": "CONCORD_JUDGE_KEY_OPENAI", "present": True,
                                                          "allowed": True}}
    assert SECRET not in response.content.decode()
    assert SECRET not in json.dumps(Judge.objects.get(name="gpt").settings)


def test_a_literal_secret_is_refused_with_the_setting_named(curator_client):
    response = curator_client.post("/api/v1/judges/create/", {
        "name": "gpt", "backend": "openai-chat",
        "settings": {"base_url": "https://api.openai.com/v1", "model": "gpt-4.1", "api_key": SECRET},
    }, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_judge_settings" and "settings.api_key" in body["message"] and "api_key_env" in body["message"]
    assert SECRET not in response.content.decode() and not Judge.objects.exists()


@pytest.mark.parametrize(
    ("payload", "status", "code"),
    [
        ({"name": "x", "backend": "telepathy", "settings": {}}, 400, "invalid"),
        ({"name": "x y", "backend": "openai-chat", "settings": {}}, 400, "invalid"),
        ({"name": "x", "backend": "openai-chat", "settings": {"model": "m"}}, 400, "invalid_judge_settings"),
        ({"name": "x", "backend": "python", "settings": {"callable": "os.system"}}, 403, "python_judge_admin_only"),
        ({"name": "create", "backend": "openai-chat", "settings": {}}, 400, "judge_name_reserved"),
    ],
)
def test_bad_judges_are_refused_precisely(curator_client, payload, status, code):
    response = curator_client.post("/api/v1/judges/create/", payload, format="json")
    assert (response.status_code, response.json()["code"]) == (status, code)
    assert not Judge.objects.exists()


def test_an_admin_may_configure_a_python_judge_but_not_an_unimportable_one():
    client = APIClient()
    client.force_authenticate(UserFactory(username="root", role=Role.ADMIN))
    ok = client.post("/api/v1/judges/create/", {"name": "local", "backend": "python", "settings": {
        "callable": "tests.curation.judge_callables.prefer_marked_side"}}, format="json")
    bad = client.post("/api/v1/judges/create/", {"name": "ghost", "backend": "python", "settings": {
        "callable": "tests.curation.no_such_module.judge"}}, format="json")
    assert ok.status_code == 201
    assert bad.status_code == 400 and "cannot import tests.curation.no_such_module" in bad.json()["message"]


def test_a_duplicate_name_conflicts(curator_client):
    judge_create(name="gpt", backend="openai-chat", settings={"base_url": "http://x/v1", "model": "m"})
    response = curator_client.post("/api/v1/judges/create/", {"name": "gpt", "backend": "openai-chat", "settings": {
        "base_url": "http://x/v1", "model": "m"}}, format="json")
    assert (response.status_code, response.json()["code"]) == (409, "judge_exists")


def test_the_judge_list_takes_one_query(curator_client):
    for i in range(5):
        judge_create(name=f"j{i}", backend="openai-chat", settings={"base_url": "http://x/v1", "model": "m"})
    with CaptureQueriesContext(connection) as queries:
        response = curator_client.get("/api/v1/judges/")
    assert response.status_code == 200 and len(response.json()) == 5
    assert len(queries) == 1


def test_update_disables_a_judge_and_validates_new_settings(curator_client):
    judge_create(name="gpt", backend="openai-chat", settings={"base_url": "http://x/v1", "model": "m"})
    off = curator_client.post("/api/v1/judges/gpt/update/", {"enabled": False}, format="json")
    bad = curator_client.post("/api/v1/judges/gpt/update/", {"settings": {"model": "m"}}, format="json")
    assert off.status_code == 200 and off.json()["enabled"] is False
    assert bad.status_code == 400 and "base_url" in bad.json()["message"]
    assert Judge.objects.get(name="gpt").settings["base_url"] == "http://x/v1"


def test_a_judge_with_verdicts_cannot_be_deleted_one_without_can(curator_client):
    campaign = support.campaign()
    pair = support.marked_pair(campaign, "p")
    used = judge_create(name="used", backend="openai-chat", settings={"base_url": "http://x/v1", "model": "m"})
    judge_create(name="spare", backend="openai-chat", settings={"base_url": "http://x/v1", "model": "m"})
    JudgeVerdict.objects.create(pair=pair, judge=used, order="forward", verdict="A")
    refused = curator_client.post("/api/v1/judges/used/delete/")
    assert (refused.status_code, refused.json()["code"]) == (409, "judge_has_verdicts")
    assert curator_client.post("/api/v1/judges/spare/delete/").status_code == 204
    assert list(Judge.objects.values_list("name", flat=True)) == ["used"]


def test_a_run_started_over_the_api_reports_verdicts_and_never_shows_the_secret(
    curator_client, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setenv("CONCORD_JUDGE_KEY_T", SECRET)

    def script(seen):
        reply = votes_script({"j2": {("hard", "swapped"): "B"}})(seen)
        return Reply(content=f"{reply.content}\n(auth was {seen.authorization})")

    with JudgeServer(script, api_key=SECRET) as server:
        campaign = support.campaign()
        easy, hard = support.marked_pair(campaign, "easy"), support.marked_pair(campaign, "hard")
        support.chat_judges(server, ["j1", "j2"], api_key_env="CONCORD_JUDGE_KEY_T")
        with django_capture_on_commit_callbacks(execute=True):
            started = curator_client.post(f"/api/v1/prefilter/campaigns/{campaign.slug}/start/", {}, format="json")
        assert started.status_code == 202
        assert server.count() == 8 and all(s.authorization == f"Bearer {SECRET}" for s in server.seen)
    run = curator_client.get(f"/api/v1/prefilter/runs/{started.json()['id']}/")
    body = run.json()
    assert body["status"] == "succeeded" and body["percent"] == 100.0
    assert body["result"]["dropped_easy"] == 1 and body["result"]["kept"] == 1
    assert Pair.objects.get(pk=easy.pk).status == "dropped_easy" and Pair.objects.get(pk=hard.pk).status == "queued"
    verdicts = curator_client.get(f"/api/v1/prefilter/pairs/{hard.pk}/verdicts/")
    rows = verdicts.json()["verdicts"]
    assert [(r["judge"], r["order"], r["verdict"]) for r in rows] == [
        ("j1", "forward", "A"), ("j1", "swapped", "A"), ("j2", "forward", "A"), ("j2", "swapped", "B")]
    assert "[redacted]" in rows[0]["raw_output"]
    outputs = [run.content, verdicts.content, curator_client.get("/api/v1/judges/").content,
               curator_client.get(f"/api/v1/jobs/{body['id']}/").content]
    stored = [*JudgeVerdict.objects.values_list("raw_output", "error"), *Job.objects.values_list("result", "error", "params")]
    assert SECRET not in b"".join(outputs).decode() and SECRET not in json.dumps(stored, default=str)


def test_the_pair_verdicts_list_takes_a_fixed_number_of_queries(curator_client):
    campaign = support.campaign()
    pair = support.marked_pair(campaign, "p")
    for i in range(4):
        judge = judge_create(name=f"j{i}", backend="openai-chat", settings={"base_url": "http://x/v1", "model": "m"})
        for order in ("forward", "swapped"):
            JudgeVerdict.objects.create(pair=pair, judge=judge, order=order, verdict="A")
    with CaptureQueriesContext(connection) as queries:
        response = curator_client.get(f"/api/v1/prefilter/pairs/{pair.pk}/verdicts/")
    assert len(response.json()["verdicts"]) == 8 and len(queries) == 2


def test_restore_over_the_api_and_a_second_restore_conflicts(curator_client):
    campaign = support.campaign()
    pair = support.marked_pair(campaign, "p", status=Pair.Status.DROPPED_EASY, status_reason="prefilter: easy — A 18/18")
    first = curator_client.post(f"/api/v1/prefilter/pairs/{pair.pk}/restore/")
    second = curator_client.post(f"/api/v1/prefilter/pairs/{pair.pk}/restore/")
    assert first.status_code == 200 and first.json()["status"] == "queued"
    assert (second.status_code, second.json()["code"]) == (409, "pair_not_dropped")


def test_the_campaign_rule_is_read_set_and_validated(curator_client):
    campaign = support.campaign()
    url = f"/api/v1/prefilter/campaigns/{campaign.slug}/rule/"
    assert curator_client.get(url).json() == {"rule": "majority", "threshold": 0.9}
    changed = curator_client.post(url + "set/", {"rule": "score-margin", "threshold": 0.6}, format="json")
    refused = curator_client.post(url + "set/", {"rule": "majority", "threshold": 0.2}, format="json")
    assert changed.json() == {"rule": "score-margin", "threshold": 0.6, "min_votes": 2}
    assert refused.status_code == 400 and refused.json()["code"] == "invalid_prefilter_rule"
    campaign.refresh_from_db()
    assert campaign.prefilter_rule["rule"] == "score-margin"


def test_starting_a_run_without_enabled_judges_is_refused(curator_client):
    campaign = support.campaign()
    response = curator_client.post(f"/api/v1/prefilter/campaigns/{campaign.slug}/start/", {}, format="json")
    assert (response.status_code, response.json()["code"]) == (400, "no_judges")
    assert not Job.objects.exists()


def test_a_finished_run_cannot_be_resumed_and_a_cancelled_one_can_be_cancelled_once(curator_client):
    campaign = support.campaign()
    done = Job.objects.create(kind="prefilter", campaign=campaign, status=Job.Status.SUCCEEDED)
    queued = Job.objects.create(kind="prefilter", campaign=campaign, status=Job.Status.QUEUED)
    other = Job.objects.create(kind="import", campaign=campaign)
    assert curator_client.post(f"/api/v1/prefilter/runs/{done.pk}/resume/").json()["code"] == "run_finished"
    assert curator_client.post(f"/api/v1/prefilter/runs/{queued.pk}/cancel/").json()["status"] == "cancelled"
    assert curator_client.get(f"/api/v1/prefilter/runs/{other.pk}/").status_code == 404


def test_the_admin_lists_judges_with_their_secret_variables_and_validates_settings(client, monkeypatch):
    monkeypatch.setenv("CONCORD_JUDGE_KEY_ADMIN_TEST", SECRET)
    admin = UserFactory(username="boss", role=Role.ADMIN, is_staff=True, is_superuser=True)
    client.force_login(admin)
    judge_create(name="gpt", backend="openai-chat",
                 settings={"base_url": "http://x/v1", "model": "m", "api_key_env": "CONCORD_JUDGE_KEY_ADMIN_TEST"})
    listing = client.get("/admin/curation/judge/")
    assert listing.status_code == 200 and "CONCORD_JUDGE_KEY_ADMIN_TEST (set)" in listing.content.decode()
    assert SECRET not in listing.content.decode()
    refused = client.post("/admin/curation/judge/add/", {
        "name": "leaky", "backend": "openai-chat", "enabled": "on",
        "settings": json.dumps({"base_url": "http://x/v1", "model": "m", "api_key": SECRET})})
    assert refused.status_code == 200 and "secrets are never stored" in refused.content.decode()
    assert not Judge.objects.filter(name="leaky").exists()
    assert client.get("/admin/curation/judgeverdict/").status_code == 200


def test_only_superusers_configure_python_judges_in_the_admin(client):
    staff = UserFactory(username="staffer", role=Role.CURATOR, is_staff=True)
    staff.user_permissions.add(*Permission.objects.filter(codename__in=["add_judge", "view_judge"]))
    client.force_login(staff)
    response = client.post("/admin/curation/judge/add/", {
        "name": "local", "backend": "python", "enabled": "on",
        "settings": json.dumps({"callable": "tests.curation.judge_callables.prefer_marked_side"})})
    assert response.status_code == 200 and "only superusers may configure a python judge" in response.content.decode()
    assert not Judge.objects.exists()


def test_a_rule_that_is_not_an_object_is_refused(curator_client):
    campaign = support.campaign()
    response = curator_client.post(f"/api/v1/prefilter/campaigns/{campaign.slug}/rule/set/", [0.9], format="json")
    assert response.status_code == 400 and "expected a JSON object" in response.json()["message"]


def test_a_run_with_an_impossible_threshold_is_refused_before_any_job_exists(curator_client):
    campaign = support.campaign()
    judge_create(name="gpt", backend="openai-chat", settings={"base_url": "http://x/v1", "model": "m"})
    response = curator_client.post(f"/api/v1/prefilter/campaigns/{campaign.slug}/start/", {"threshold": 1.5}, format="json")
    assert (response.status_code, response.json()["code"]) == (400, "invalid_prefilter_rule")
    assert not Job.objects.exists()


def test_starting_with_a_disabled_judge_names_it(curator_client):
    campaign = support.campaign()
    judge_create(name="gpt", backend="openai-chat", settings={"base_url": "http://x/v1", "model": "m"}, enabled=False)
    response = curator_client.post(f"/api/v1/prefilter/campaigns/{campaign.slug}/start/", {"judges": ["gpt"]}, format="json")
    assert response.status_code == 400 and "disabled judge(s): gpt" in response.json()["message"]


def test_the_openapi_schema_describes_every_judges_and_prefilter_operation_without_warnings():
    """Each view declares its real input and output serializers: distinct operation ids, named components."""
    from drf_spectacular.drainage import GENERATOR_STATS
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.validation import validate_schema

    GENERATOR_STATS.reset()
    schema = SchemaGenerator().get_schema(request=None, public=True)
    validate_schema(schema)
    paths, components = schema["paths"], schema["components"]["schemas"]
    ref = "#/components/schemas/"

    def body(path, method, code="200"):
        return paths[path][method]["responses"][code]["content"]["application/json"]["schema"]

    assert paths["/api/v1/judges/"]["get"]["operationId"] == "v1_judges_list"
    assert paths["/api/v1/judges/{name}/"]["get"]["operationId"] == "v1_judges_retrieve"
    assert body("/api/v1/judges/", "get") == {"type": "array", "items": {"$ref": ref + "JudgeOutput"}}
    assert body("/api/v1/judges/create/", "post", "201") == {"$ref": ref + "JudgeOutput"}
    create_input = paths["/api/v1/judges/create/"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert create_input == {"$ref": ref + "JudgeCreateInput"}
    assert set(components["JudgeCreateInput"]["required"]) == {"name", "backend"}
    assert "required" not in components["JudgeUpdateInput"], "every field of an update is optional"
    assert {code for code in paths["/api/v1/judges/{name}/delete/"]["post"]["responses"] if code < "300"} == {"204"}
    assert body("/api/v1/prefilter/campaigns/{slug}/start/", "post", "202") == {"$ref": ref + "JobOutput"}
    for path in ("/api/v1/prefilter/runs/{job_id}/resume/", "/api/v1/prefilter/runs/{job_id}/cancel/",
                 "/api/v1/prefilter/pairs/{pair_id}/restore/"):
        assert "requestBody" not in paths[path]["post"], path
    assert components["PrefilterRule"]["properties"]["rule"]["$ref"] == ref + "RuleEnum"
    assert set(components["PrefilterRuleInput"]["properties"]) == {"rule", "threshold", "min_votes"}
    assert "required" not in components["PrefilterRuleInput"], "a missing field takes the rule's default"
    verdicts = components["PairVerdicts"]["properties"]
    assert verdicts["verdicts"] == {"type": "array", "items": {"$ref": ref + "PairJudgeVerdict"}}
    assert verdicts["status"]["$ref"] == ref + "PairStatusEnum"
    assert body("/api/v1/prefilter/pairs/{pair_id}/restore/", "post") == {"$ref": ref + "PairPrefilterStatus"}
    emitted = [*GENERATOR_STATS._warn_cache, *GENERATOR_STATS._error_cache]
    assert not [message for message in emitted if "judges.py" in message or "prefilter.py" in message]
