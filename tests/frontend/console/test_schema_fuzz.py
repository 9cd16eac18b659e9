"""The OpenAPI schema, fuzzed by schemathesis against the running app as a curator: no input gives a 500, and every
answer is one the schema documents (status code, body, content type); requests that break the schema are refused.

The app runs in pytest-django's live server (a real HTTP server on an ephemeral port) over the test
database; every operation in the schema gets a bounded number of generated requests that fit the schema, half of
them with the path pinned to real objects so the query and body are fuzzed against real data, and as many that
break it (negative mode, never pinned: a real id would make the broken request a valid one). The operations
are driven from one test with Hypothesis directly, because schemathesis' lazy pytest loader does not
work with this pytest version.
"""

import pytest
import schemathesis
from django.core.cache import cache
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    missing_required_header,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from core.models import Job
from tests.curation.console.world import make_world

CURATOR = ("console-fuzz-curator", "pw")
EXAMPLES_PER_OPERATION = 15
# No server error, and the schema tells the truth: every status code documented, every body in its documented shape
# and content type, a required header's absence refused.
CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance, content_type_conformance,
          missing_required_header]
NEGATIVE_CHECKS = [*CHECKS, negative_data_rejection]
RUNS = [(GenerationMode.POSITIVE, False), (GenerationMode.POSITIVE, True), (GenerationMode.NEGATIVE, False)]

pytestmark = pytest.mark.slow


def test_no_generated_request_makes_the_api_fail(live_server, transactional_db):
    cache.clear()
    world = make_world("console-fuzz")
    real = {"slug": world.campaign.slug, "pair_id": world.pairs["split"].pk, "user_id": world.alice.pk,
            "job_id": Job.objects.create(kind="import", campaign=world.campaign).pk}
    schema = schemathesis.openapi.from_url(f"{live_server.url}/api/schema/?format=json", auth=CURATOR, timeout=60)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert any("/console/" in op.path for op in operations), [op.path for op in operations]
    failures = []
    for operation, mode, pinned in [(op, mode, pin) for op in operations for mode, pin in RUNS]:
        strategy = operation.as_strategy(generation_mode=mode)
        if pinned:
            strategy = strategy.map(lambda case: pin_path(case, real))
        checks = NEGATIVE_CHECKS if mode == GenerationMode.NEGATIVE else CHECKS
        try:
            fuzzer(strategy, checks, live_server.url)()
        except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001 - every operation is fuzzed, then all are reported
            failures.append(f"{operation.method.upper()} {operation.path} ({mode.value}, real path: {pinned}): {exc}")
    assert not failures, "\n\n".join(failures)


def fuzzer(strategy, checks, base_url):
    """A Hypothesis test sending every case of ``strategy`` and applying ``checks`` to the answer."""

    @given(case=strategy)
    @settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, suppress_health_check=list(HealthCheck),
              derandomize=True, database=None)
    def fuzz(case):
        response = case.call(base_url=base_url, auth=CURATOR, timeout=30)
        case.validate_response(response, checks=checks)

    return fuzz


def pin_path(case, real: dict):
    """The case with every path parameter we hold a real object for set to that object."""
    if case.path_parameters:
        case.path_parameters = {name: real.get(name, value) for name, value in case.path_parameters.items()}
    return case
