"""Numbers JSON cannot hold as finite floats (1e999, NaN, Infinity) are refused with a 400 naming the place, on every
work-queue endpoint that takes answers, before anything is stored."""

import pytest
from django.test import Client

from annotation.catalogue import schemas
from annotation.workqueue.models import Annotation, Assignment
from annotation.workqueue.services.assignments import assignment_claim
from tests.workqueue.assignment_helpers import ab_tie_campaign, submit

pytestmark = pytest.mark.django_db

GENERATION = schemas.preset("mmrb2-generation", "text-to-image")
ENDPOINTS = {"draft": "put", "submit": "post", "correction": "post", "check": "post"}
# The literal as the client writes it, and where the refusal says it is.
BODIES = {
    "1e999": ('{"values": {"overall": 1e999}}', "values.overall"),
    "-1e999": ('{"values": {"overall": -1e999}}', "values.overall"),
    "NaN": ('{"values": {"overall": NaN}}', "values.overall"),
    "Infinity": ('{"values": {"overall": Infinity}}', "values.overall"),
    "-Infinity": ('{"values": {"overall": -Infinity}}', "values.overall"),
    "nested": ('{"values": {"overall": 6, "image_quality": {"A": 2, "B": [1, {"x": 1e400}]}}}',
               "values.image_quality.B[1].x"),
    "a long mantissa": ('{"values": {"overall": ' + "9" * 400 + ".5}}", "values.overall"),
}


def _assignment(endpoint: str) -> tuple[Assignment, object]:
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=1, overlap=1)
    campaign.rating_schema.definition = GENERATION
    campaign.rating_schema.save()
    assignment = assignment_claim(campaign=campaign, annotator=rater)
    if endpoint == "correction":
        submit(assignment, {"overall": 6, "text_faithfulness": {"A": 3, "B": 1}, "image_quality": {"A": 3, "B": 1},
                            "rationale": "because", "prompt_valid": True})
    return assignment, rater


@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
@pytest.mark.parametrize("name", list(BODIES))
def test_a_non_finite_number_in_the_answers_is_a_400_naming_its_place(endpoint, name):
    assignment, rater = _assignment(endpoint)
    before = Assignment.objects.values("status", "draft").get(pk=assignment.pk)
    annotations = list(Annotation.objects.values_list("pk", "values"))
    client = Client(raise_request_exception=False)
    client.force_login(rater)  # a session: submit goes through the work queue's own door first
    body, where = BODIES[name]
    response = getattr(client, ENDPOINTS[endpoint])(f"/api/v1/assignments/{assignment.pk}/{endpoint}/", data=body,
                                                    content_type="application/json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert response.status_code == 400, response.content[:300]
    assert response.json()["code"] == "parse_error"
    assert response.json()["message"].startswith(f"{where} is not a finite number")
    assert Assignment.objects.values("status", "draft").get(pk=assignment.pk) == before
    assert list(Annotation.objects.values_list("pk", "values")) == annotations
