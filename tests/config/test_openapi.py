"""The OpenAPI schema tells the truth: required headers, the shape a paginated list really has, every error code."""

import pytest
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema
from rest_framework.test import APIClient

from tests.curation.console.world import make_world

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema():
    generated = SchemaGenerator().get_schema(request=None, public=True)
    validate_schema(generated)
    return generated


def test_submit_documents_the_idempotency_key_header_as_required(schema):
    parameters = schema["paths"]["/api/v1/assignments/{assignment_id}/submit/"]["post"]["parameters"]
    header = next(p for p in parameters if p["in"] == "header" and p["name"] == "Idempotency-Key")
    assert header["required"] is True
    assert header["schema"] == {"type": "string", "minLength": 1, "maxLength": 64, "pattern": "\\S"}


def test_the_adjudication_queue_is_documented_as_the_page_it_answers(schema):
    operation = schema["paths"]["/api/v1/campaigns/{slug}/adjudication/"]["get"]
    page = schema["components"]["schemas"]["AdjudicationQueuePage"]
    assert operation["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/AdjudicationQueuePage"}
    assert set(page["properties"]) == {"next", "previous", "results"}
    assert page["properties"]["results"]["items"] == {"$ref": "#/components/schemas/AdjudicationQueueItem"}
    assert any(p["name"] == "cursor" for p in operation["parameters"])
    world = make_world("openapi")
    client = APIClient()
    client.force_authenticate(world.curator)
    answered = client.get(f"/api/v1/campaigns/{world.campaign.slug}/adjudication/").json()
    assert set(answered) == {"next", "previous", "results"} and isinstance(answered["results"], list)


def test_every_operation_documents_its_error_codes_in_the_one_error_shape(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            codes = set(operation["responses"])
            assert {"400", "403", "404", "429", "503"} <= codes, (method, path)
            assert "database_unavailable" in operation["responses"]["503"]["description"], (method, path)
            if "requestBody" in operation:
                assert {"413", "415"} <= codes, (method, path)
            if method != "get":
                assert "409" in codes, (method, path)
    assert schema["components"]["schemas"]["Error"]["required"] == ["code", "message"]


def test_an_api_url_no_route_matches_answers_in_the_error_shape():
    client = APIClient()
    client.force_authenticate(make_world("openapi-404").curator)
    response = client.get("/api/v1/assignments/not-a-number/")
    assert (response.status_code, response["Content-Type"]) == (404, "application/json")
    assert response.json() == {"code": "not_found", "message": "No such resource."}


JOB_STARTS = [
    ("post", "/api/v1/imports/"),
    ("post", "/api/v1/campaigns/{slug}/agreement/jobs/"),
    ("post", "/api/v1/campaigns/{slug}/consensus/jobs/"),
    ("post", "/api/v1/prefilter/campaigns/{slug}/start/"),
    ("post", "/api/v1/prefilter/runs/{job_id}/resume/"),
    ("post", "/api/v1/releases/"),
    ("post", "/api/v1/releases/{name}/{version}/verify/"),
    ("post", "/api/v1/releases/{name}/{version}/training-exports/"),
    # A board never fitted is fitted by a job the read starts.
    ("get", "/api/v1/leaderboard/models/"),
    ("get", "/api/v1/leaderboard/models/csv/"),
]


def test_every_operation_that_starts_a_job_documents_the_503_of_a_broker_that_did_not_take_it(schema):
    for method, path in JOB_STARTS:
        answer = schema["paths"][path][method]["responses"]["503"]
        assert answer["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}, path
        assert "broker_unavailable" in answer["description"], path
    documented = {(method, path) for path, item in schema["paths"].items() for method, operation in item.items()
                  if "broker_unavailable" in operation["responses"]["503"]["description"]}
    assert documented == set(JOB_STARTS)
