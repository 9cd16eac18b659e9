"""The OpenAPI schema, fuzzed by schemathesis against the running app as a curator: no input gives a 500, and every
answer is one the schema documents (status code, body, content type); requests that break the schema are refused.

The app runs in pytest-django's live server (a real HTTP server on an ephemeral port) over the test
database; every operation in the schema gets a bounded number of generated requests that fit the schema, half of
them with the path pinned to real objects so the query and body are fuzzed against real data, and as many that
break it (negative mode, never pinned: a real id would make the broken request a valid one). The operations
are driven from one test with Hypothesis directly, because schemathesis' lazy pytest loader does not
work with this pytest version.

A second test runs schemathesis' stateful machine: sequences of calls chained through the links schemathesis
infers from the schema (a campaign's slug from the campaign list into its pairs, a job id from a job start into
its progress, ...), with the stateful checks (a deleted object stays gone, a created one can be read) on top of
the ones above, and ``positive_data_acceptance`` (a request that fits the schema is not refused with 400) on every
operation whose validity the schema can state; ``BEYOND_THE_SCHEMA`` names the others and why.
"""

import pytest
import schemathesis
from django.core.cache import cache
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ensure_resource_availability,
    missing_required_header,
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
    use_after_free,
)

from annotation.jobs.models import Job
from tests.curation.console.world import make_world

CURATOR = ("console-fuzz-curator", "pw")
EXAMPLES_PER_OPERATION = 15
# Stateful scenarios of up to 6 linked calls each (about 45 s here).
STATEFUL_SCENARIOS = 60
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


# Operations whose valid requests depend on more than their own schema, so a schema-valid request may rightly be
# refused with 400: the check that such a request is accepted is not applied to them.
BEYOND_THE_SCHEMA = {
    "POST /api/v1/imports/": "the upload's content and its format's rules",
    "POST /api/v1/judges/create/": "each backend's own settings (a python judge needs a callable, an HTTP one a URL)",
    "POST /api/v1/judges/{name}/update/": "each backend's own settings",
    "POST /api/v1/campaigns/create/": "the kind and preset names, the schema definition and the status order",
    "POST /api/v1/campaigns/{slug}/update/": "the schema definition, the status order and the campaign's state",
    "POST /api/v1/campaigns/{slug}/agreement/jobs/": "the quality parameters' names",
    "POST /api/v1/campaigns/{slug}/consensus/jobs/": "the parameters are the chosen policy's own (majority: k, strict_winner)",
    "POST /api/v1/prefilter/campaigns/{slug}/rule/set/": "the threshold's range depends on the rule",
    "POST /api/v1/prefilter/campaigns/{slug}/start/": "the threshold's range depends on the campaign's rule",
    "GET /api/v1/console/campaigns/{slug}/pairs/": "the cursor is an opaque token from an earlier page",
    "POST /api/v1/assignments/{assignment_id}/check/": "the answers must fit the campaign's rating schema",
    "POST /api/v1/assignments/{assignment_id}/correction/": "the answers must fit the campaign's rating schema",
    "PUT /api/v1/assignments/{assignment_id}/draft/": "the answers must fit the campaign's rating schema",
    "POST /api/v1/assignments/{assignment_id}/submit/": "the answers must fit the campaign's rating schema",
    "POST /api/v1/invitations/accept/": "the password rules and the two passwords agreeing",
    "POST /api/v1/releases/": "the campaigns' state (consensus, licences) and the version order",
    "POST /api/v1/releases/{name}/{version}/evaluations/": "the predictions file's content",
    "POST /api/v1/assignments/{assignment_id}/report/": "a note is required when the reason is “other”",
    "POST /api/v1/reports/{report_id}/answer/": "an answer is required unless the pair is excluded or marked fixed",
    "PUT /api/v1/campaigns/{slug}/profile/": "the answers must fit the campaign's questionnaire",
    "POST /api/v1/campaigns/{slug}/crowd-links/": "the completion URL must be an absolute http(s) address",
}
STATEFUL_CHECKS = [*CHECKS, use_after_free, ensure_resource_availability]


def positive_data_accepted_where_the_schema_says_it_all(ctx, response, case):
    """``positive_data_acceptance``, except on the operations of ``BEYOND_THE_SCHEMA``."""
    if f"{case.operation.method.upper()} {case.operation.path}" in BEYOND_THE_SCHEMA:
        return None
    return positive_data_acceptance(ctx, response, case)


def test_no_sequence_of_linked_calls_makes_the_api_fail_or_break_its_schema(live_server, transactional_db):
    cache.clear()
    make_world("console-fuzz")
    schema = schemathesis.openapi.from_url(f"{live_server.url}/api/schema/?format=json", auth=CURATOR, timeout=60)
    # The API refuses NUL and lone surrogates in any text with 400 (core.web.hostile_input) and unknown fields: the
    # generator is told so, as the negative run above checks that refusal.
    schema.config.generation.update(allow_x00=False, codec="utf-8", allow_extra_parameters=False)
    labels = {f"{op.method.upper()} {op.path}" for op in (result.ok() for result in schema.get_all_operations())}
    assert set(BEYOND_THE_SCHEMA) <= labels, set(BEYOND_THE_SCHEMA) - labels
    base_url = live_server.url

    class Workflow(schema.as_state_machine()):
        def get_call_kwargs(self, case):
            return {"base_url": base_url, "auth": CURATOR, "timeout": 30}

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            case.validate_response(response, checks=[*STATEFUL_CHECKS, positive_data_accepted_where_the_schema_says_it_all],
                                   transport_kwargs=kwargs or None, recorder=self.recorder)

    Workflow.run(settings=settings(max_examples=STATEFUL_SCENARIOS, stateful_step_count=6, deadline=None,
                                   phases=[Phase.generate], suppress_health_check=list(HealthCheck), database=None,
                                   derandomize=True))

