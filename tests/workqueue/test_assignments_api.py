"""The work queue over HTTP: the same operations as the services, with clean errors and a bounded query count."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from annotation.catalogue.models import Pair
from annotation.workqueue.models import Annotation, Assignment
from tests.factories import UserFactory
from tests.workqueue.assignment_helpers import AB_TIE_ANSWER, ab_tie_campaign

pytestmark = pytest.mark.django_db

# On PostgreSQL: the one-statement claim, which reads the campaign with the membership, the entry gate (the profile,
# a crowd entry), the admission check, the open lease and any lease due, and also reads the display (in a savepoint
# here, the test being a transaction; alone when serving). Elsewhere (the portable store) the campaign, the membership
# with the entry gate, the admission check (calibration and pauses), the transaction and four ORM statements for the
# claim, the display.
CLAIM_QUERY_BOUND = 3 if connection.vendor == "postgresql" else 11


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_claim_returns_blind_display_data_and_resumes_the_same_pair():
    campaign, (rater, *_), pairs = ab_tie_campaign(pairs=2)
    api = client_for(rater)
    first = api.post(f"/api/v1/campaigns/{campaign.slug}/claim/")
    assert first.status_code == 200
    body = first.json()
    assert body["campaign"] == campaign.slug
    assert body["schema"]["questions"][0]["id"] == "preference"
    assert "model" not in json.dumps(body["left"] + body["right"])
    again = api.post(f"/api/v1/campaigns/{campaign.slug}/claim/")
    assert again.json()["assignment"] == body["assignment"]
    assert api.get(f"/api/v1/assignments/{body['assignment']}/").json() == body


def test_claim_and_submit_send_exactly_what_their_documented_serializers_describe():
    """The two hot endpoints write their payloads without instantiating a serializer; the schema's serializers
    must still render the very same JSON from the same data."""
    from rest_framework.renderers import JSONRenderer

    from annotation.workqueue.api.assignments import AnnotationSubmitApi, DisplaySerializer
    from annotation.workqueue.selectors import assignment_for_annotator, pair_display

    campaign, (rater, *_), _ = ab_tie_campaign(pairs=1)
    api = client_for(rater)
    claimed = api.post(f"/api/v1/campaigns/{campaign.slug}/claim/", HTTP_ACCEPT="text/html")
    assert claimed["Content-Type"] == "application/json"
    display = pair_display(assignment=assignment_for_annotator(assignment_id=claimed.json()["assignment"], annotator=rater))
    assert claimed.json() == json.loads(JSONRenderer().render(DisplaySerializer(display).data))
    assert set(claimed.json()) == set(DisplaySerializer().fields)
    submitted = api.post(f"/api/v1/assignments/{claimed.json()['assignment']}/submit/", {"values": AB_TIE_ANSWER},
                         format="json", HTTP_IDEMPOTENCY_KEY="doc")
    documented = AnnotationSubmitApi.OutputSerializer(Annotation.objects.get())
    assert submitted.json() == json.loads(JSONRenderer().render(documented.data))


def test_the_claim_runs_a_bounded_number_of_queries_whatever_the_pool():
    campaign, raters, _ = ab_tie_campaign(pairs=3, members=3)
    api = client_for(raters[0])
    with CaptureQueriesContext(connection) as small:
        assert api.post(f"/api/v1/campaigns/{campaign.slug}/claim/").status_code == 200
    ab_tie_campaign(pairs=30)
    api = client_for(raters[1])
    with CaptureQueriesContext(connection) as larger:
        assert api.post(f"/api/v1/campaigns/{campaign.slug}/claim/").status_code == 200
    assert len(small) <= CLAIM_QUERY_BOUND, [q["sql"] for q in small.captured_queries]
    assert len(larger) == len(small)


def test_claim_says_204_when_nothing_is_left_and_403_to_outsiders():
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=1, overlap=1)
    api = client_for(rater)
    assignment_id = api.post(f"/api/v1/campaigns/{campaign.slug}/claim/").json()["assignment"]
    api.post(f"/api/v1/assignments/{assignment_id}/submit/", {"values": AB_TIE_ANSWER}, format="json",
             HTTP_IDEMPOTENCY_KEY="k1")
    assert api.post(f"/api/v1/campaigns/{campaign.slug}/claim/").status_code == 204
    outsider = client_for(UserFactory()).post(f"/api/v1/campaigns/{campaign.slug}/claim/")
    assert (outsider.status_code, outsider.json()["code"]) == (403, "not_a_member")
    assert client_for(rater).post("/api/v1/campaigns/no-such-campaign/claim/").status_code == 404


def test_submit_twice_with_the_same_key_returns_one_annotation():
    campaign, (rater, *_), (pair,) = ab_tie_campaign(pairs=1)
    api = client_for(rater)
    assignment_id = api.post(f"/api/v1/campaigns/{campaign.slug}/claim/").json()["assignment"]
    url = f"/api/v1/assignments/{assignment_id}/submit/"
    payload = {"values": AB_TIE_ANSWER, "time_on_item_ms": 4200}
    first = api.post(url, payload, format="json", HTTP_IDEMPOTENCY_KEY="abc")
    second = api.post(url, payload, format="json", HTTP_IDEMPOTENCY_KEY="abc")
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json()
    assert first.json()["assignment"] == assignment_id
    annotation = Annotation.objects.get()
    assert (annotation.time_on_item_ms, annotation.idempotency_key) == (4200, f"{Annotation.objects.get().assignment_id}:abc")
    assert Pair.objects.get(pk=pair.pk).annotations_done == 1


def test_submit_takes_the_key_from_the_body_and_requires_one():
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=1)
    api = client_for(rater)
    assignment_id = api.post(f"/api/v1/campaigns/{campaign.slug}/claim/").json()["assignment"]
    url = f"/api/v1/assignments/{assignment_id}/submit/"
    missing = api.post(url, {"values": AB_TIE_ANSWER}, format="json")
    assert (missing.status_code, missing.json()["code"]) == (400, "idempotency_key_required")
    assert api.post(url, {"values": AB_TIE_ANSWER, "idempotency_key": "body-key"}, format="json").status_code == 200
    assert Annotation.objects.get().idempotency_key == f"{Annotation.objects.get().assignment_id}:body-key"


def test_invalid_answers_come_back_per_field():
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=1)
    api = client_for(rater)
    assignment_id = api.post(f"/api/v1/campaigns/{campaign.slug}/claim/").json()["assignment"]
    response = api.post(f"/api/v1/assignments/{assignment_id}/submit/", {"values": {"preference": "left"}},
                        format="json", HTTP_IDEMPOTENCY_KEY="k")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_answers"
    assert "preference" in body["extra"]["fields"]
    not_an_object = api.post(f"/api/v1/assignments/{assignment_id}/submit/", {"values": [1, 2]}, format="json",
                             HTTP_IDEMPOTENCY_KEY="k")
    assert not_an_object.status_code == 400
    assert Annotation.objects.count() == 0


def test_draft_skip_and_stats_over_http():
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=2, overlap=1)
    api = client_for(rater)
    assignment_id = api.post(f"/api/v1/campaigns/{campaign.slug}/claim/").json()["assignment"]
    draft = api.put(f"/api/v1/assignments/{assignment_id}/draft/", {"values": {"rationale": "so far"}}, format="json")
    assert draft.status_code == 200
    assert api.get(f"/api/v1/assignments/{assignment_id}/").json()["draft"] == {"rationale": "so far"}
    no_reason = api.post(f"/api/v1/assignments/{assignment_id}/skip/", {}, format="json")
    assert no_reason.status_code == 400
    skipped = api.post(f"/api/v1/assignments/{assignment_id}/skip/", {"reason": "blank image"}, format="json")
    assert skipped.json() == {"assignment": assignment_id, "status": "skipped", "skip_reason": "blank image"}
    stats = api.get("/api/v1/me/stats/", {"campaign": campaign.slug}).json()
    assert stats["overall"]["skipped"] == 1
    assert stats["campaigns"][0]["slug"] == campaign.slug
    assert api.get("/api/v1/me/stats/", {"campaign": "not-mine"}).status_code == 404


def test_another_annotators_assignment_is_not_found():
    campaign, (owner, intruder, _), _ = ab_tie_campaign(pairs=1)
    assignment_id = client_for(owner).post(f"/api/v1/campaigns/{campaign.slug}/claim/").json()["assignment"]
    api = client_for(intruder)
    assert api.get(f"/api/v1/assignments/{assignment_id}/").status_code == 404
    assert api.post(f"/api/v1/assignments/{assignment_id}/skip/", {"reason": "x"}, format="json").status_code == 404
    assert api.post(f"/api/v1/assignments/{assignment_id}/submit/", {"values": AB_TIE_ANSWER}, format="json",
                    HTTP_IDEMPOTENCY_KEY="k").status_code == 404
    assert Assignment.objects.get(pk=assignment_id).status == "active"


def test_anonymous_callers_are_refused():
    campaign, _, _ = ab_tie_campaign(pairs=1)
    assert APIClient().post(f"/api/v1/campaigns/{campaign.slug}/claim/").status_code in (401, 403)
    assert APIClient().get("/api/v1/me/stats/").status_code in (401, 403)


def test_the_openapi_schema_describes_every_assignment_operation_without_warnings():
    from drf_spectacular.drainage import GENERATOR_STATS
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.validation import validate_schema

    GENERATOR_STATS.reset()
    schema = SchemaGenerator().get_schema(request=None, public=True)
    validate_schema(schema)
    paths = schema["paths"]
    for path, method in [
        ("/api/v1/campaigns/{slug}/claim/", "post"),
        ("/api/v1/assignments/{assignment_id}/", "get"),
        ("/api/v1/assignments/{assignment_id}/draft/", "put"),
        ("/api/v1/assignments/{assignment_id}/submit/", "post"),
        ("/api/v1/assignments/{assignment_id}/skip/", "post"),
        ("/api/v1/me/stats/", "get"),
    ]:
        assert method in paths[path], path
    assert "204" in paths["/api/v1/campaigns/{slug}/claim/"]["post"]["responses"]
    assert schema["components"]["schemas"]["AssignmentDisplay"]["properties"]["left"]["type"] == "array"
    emitted = [*GENERATOR_STATS._warn_cache, *GENERATOR_STATS._error_cache]
    assert not [message for message in emitted if "assignments.py" in message]


# A browser's (or the load client's) way in: the session cookie and the CSRF token, which claim and submit
# answer without DRF's dispatch (annotation.workqueue.hotpath). Everything below holds the two
# paths to the same answers.
CSRF_TOKEN = "c" * 32


def session_client_for(user):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    client.cookies["csrftoken"] = CSRF_TOKEN
    return client


def session_post(client, url, payload=None, **headers):
    body = {} if payload is None else {"data": json.dumps(payload), "content_type": "application/json"}
    return client.post(url, **body, HTTP_X_CSRFTOKEN=CSRF_TOKEN, **headers)


@pytest.fixture
def drf_dispatches(monkeypatch):
    """Counts the requests that went through DRF's dispatch (its ``initial``: authentication, permissions)."""
    from rest_framework.views import APIView

    calls = []
    initial = APIView.initial

    def counted(self, request, *args, **kwargs):
        calls.append(type(self).__name__)
        return initial(self, request, *args, **kwargs)

    monkeypatch.setattr(APIView, "initial", counted)
    return calls


def test_a_session_claims_and_submits_without_drf_and_gets_what_drf_answers(drf_dispatches):
    from rest_framework.renderers import JSONRenderer

    from annotation.workqueue.api.assignments import AnnotationSubmitApi

    campaign, (rater, *_), _ = ab_tie_campaign(pairs=2)
    browser = session_client_for(rater)
    claimed = session_post(browser, f"/api/v1/campaigns/{campaign.slug}/claim/")
    assert (claimed.status_code, claimed["Content-Type"], claimed["Allow"]) == (200, "application/json", "POST, OPTIONS")
    assignment_id = claimed.json()["assignment"]
    submitted = session_post(browser, f"/api/v1/assignments/{assignment_id}/submit/",
                             {"values": AB_TIE_ANSWER, "time_on_item_ms": 900}, HTTP_IDEMPOTENCY_KEY="s1")
    assert submitted.status_code == 200
    assert drf_dispatches == []
    documented = AnnotationSubmitApi.OutputSerializer(Annotation.objects.get())
    assert submitted.json() == json.loads(JSONRenderer().render(documented.data))
    assert submitted.json()["submitted_at"].endswith("Z")
    # The same display through DRF (the detail endpoint) and through DRF's claim (HTTP-Basic-like force_authenticate).
    assert client_for(rater).get(f"/api/v1/assignments/{assignment_id}/").json()["schema"] == claimed.json()["schema"]
    drf_claim = client_for(rater).post(f"/api/v1/campaigns/{campaign.slug}/claim/").json()
    assert drf_dispatches == ["AssignmentDetailApi", "AssignmentClaimApi"]
    assert set(drf_claim) == set(claimed.json())
    assert drf_claim["expires_at"].endswith("Z") and claimed.json()["expires_at"].endswith("Z")
    again = session_post(browser, f"/api/v1/assignments/{assignment_id}/submit/",
                         {"values": AB_TIE_ANSWER, "time_on_item_ms": 900}, HTTP_IDEMPOTENCY_KEY="s1")
    assert again.json() == submitted.json()
    assert Annotation.objects.count() == 1


def test_session_errors_are_drfs_errors(drf_dispatches):
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=1)
    browser = session_client_for(rater)
    outsider = session_post(session_client_for(UserFactory()), f"/api/v1/campaigns/{campaign.slug}/claim/")
    assert (outsider.status_code, outsider.json()) == (
        403, {"code": "not_a_member", "message": "You are not a member of this campaign."}
    )
    assignment_id = session_post(browser, f"/api/v1/campaigns/{campaign.slug}/claim/").json()["assignment"]
    url = f"/api/v1/assignments/{assignment_id}/submit/"
    invalid = session_post(browser, url, {"values": {"preference": "left"}}, HTTP_IDEMPOTENCY_KEY="k")
    through_drf = client_for(rater).post(url, {"values": {"preference": "left"}}, format="json", HTTP_IDEMPOTENCY_KEY="k")
    assert (invalid.status_code, invalid.json()) == (through_drf.status_code, through_drf.json())
    assert invalid.json()["code"] == "invalid_answers"
    assert drf_dispatches == ["AnnotationSubmitApi"]  # only the comparison went through DRF
    assert Annotation.objects.count() == 0


@pytest.mark.parametrize(
    ("payload", "headers", "status", "code"),
    [
        ({"values": [1, 2]}, {"HTTP_IDEMPOTENCY_KEY": "k"}, 400, "invalid"),
        ({"values": AB_TIE_ANSWER, "time_on_item_ms": -1}, {"HTTP_IDEMPOTENCY_KEY": "k"}, 400, "invalid"),
        ({"values": AB_TIE_ANSWER, "time_on_item_ms": True}, {"HTTP_IDEMPOTENCY_KEY": "k"}, 400, "invalid"),
        ({"values": AB_TIE_ANSWER, "idempotency_key": ""}, {}, 400, "invalid"),
        ({"values": AB_TIE_ANSWER, "idempotency_key": "k" * 65}, {}, 400, "invalid"),
        # DRF's fields take these as they are: a numeric string and a key with blanks around it (trimmed).
        ({"values": AB_TIE_ANSWER, "time_on_item_ms": "1200"}, {"HTTP_IDEMPOTENCY_KEY": "k"}, 200, None),
        ({"values": AB_TIE_ANSWER, "idempotency_key": " padded "}, {}, 200, None),
        ("not json", {"HTTP_IDEMPOTENCY_KEY": "k"}, 400, "parse_error"),
    ],
)
def test_a_body_the_fast_path_does_not_take_goes_to_drf(drf_dispatches, payload, headers, status, code):
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=1)
    browser = session_client_for(rater)
    assignment_id = session_post(browser, f"/api/v1/campaigns/{campaign.slug}/claim/").json()["assignment"]
    url = f"/api/v1/assignments/{assignment_id}/submit/"
    if isinstance(payload, str):
        response = browser.post(url, payload, content_type="application/json", HTTP_X_CSRFTOKEN=CSRF_TOKEN, **headers)
    else:
        response = session_post(browser, url, payload, **headers)
    assert response.status_code == status, response.content
    assert drf_dispatches == ["AnnotationSubmitApi"]
    if code is None:
        annotation = Annotation.objects.get()
        assert annotation.idempotency_key in (f"{assignment_id}:k", f"{assignment_id}:padded")
    else:
        assert response.json()["code"] == code
        assert Annotation.objects.count() == 0


def test_a_session_without_the_csrf_token_is_refused_by_drf(drf_dispatches):
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=1)
    browser = session_client_for(rater)
    refused = browser.post(f"/api/v1/campaigns/{campaign.slug}/claim/")
    assert refused.status_code == 403
    assert "CSRF" in refused.json()["message"]
    assert drf_dispatches == ["AssignmentClaimApi"]
    assert Assignment.objects.count() == 0


# On PostgreSQL a signed-in claim or submit reads the session with its user in one statement; the claim is then one
# statement (the membership read, the entry gate, the admission check and the claim), the submit a read and its one
# write.
@pytest.mark.django_db(transaction=True)
def test_a_session_claim_is_two_statements_and_a_submit_three(postgres_only, drf_dispatches):
    campaign, (rater, *_), (pair, _) = ab_tie_campaign(pairs=2)
    browser = session_client_for(rater)
    with CaptureQueriesContext(connection) as claim:
        claimed = session_post(browser, f"/api/v1/campaigns/{campaign.slug}/claim/")
    assert claimed.status_code == 200
    assert len(claim) == 2, [q["sql"][:80] for q in claim.captured_queries]
    assert "annotation_usersession" in claim[0]["sql"]
    assert all(table in claim[1]["sql"] for table in ("annotation_campaign_members", "annotation_campaignquestionnaire",
                                                       "annotation_crowdentry", "INSERT INTO annotation_assignment"))
    assignment_id = claimed.json()["assignment"]
    with CaptureQueriesContext(connection) as submit:
        submitted = session_post(browser, f"/api/v1/assignments/{assignment_id}/submit/", {"values": AB_TIE_ANSWER},
                                 HTTP_IDEMPOTENCY_KEY="two")
    assert submitted.status_code == 200
    assert len(submit) == 3, [q["sql"][:80] for q in submit.captured_queries]
    assert "annotation_usersession" in submit[0]["sql"] and "annotation_ratingschema" in submit[1]["sql"]
    assert drf_dispatches == []
    assert Annotation.objects.get().assignment_id == assignment_id
    pair.refresh_from_db()
    assert (pair.active_claims, pair.annotations_done) == (0, 1)
    # A resubmit, another's assignment, none.
    again = session_post(browser, f"/api/v1/assignments/{assignment_id}/submit/", {"values": AB_TIE_ANSWER},
                         HTTP_IDEMPOTENCY_KEY="two")
    assert again.json() == submitted.json()
    outsider = session_client_for(UserFactory())
    for url in (f"/api/v1/assignments/{assignment_id}/submit/", "/api/v1/assignments/999999/submit/"):
        refused = session_post(outsider, url, {"values": AB_TIE_ANSWER}, HTTP_IDEMPOTENCY_KEY="x")
        assert (refused.status_code, refused.json()["code"]) == (404, "not_found")
    assert session_post(outsider, f"/api/v1/campaigns/{campaign.slug}/claim/").json()["code"] == "not_a_member"
    assert session_post(browser, "/api/v1/campaigns/no-such-campaign/claim/").status_code == 404
    assert Annotation.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_read_with_the_session_serves_only_the_sessions_own_user(postgres_only):
    """The session row's user column is only a shortcut (Django takes the user from the session's data): where
    the two differ, what was read with the column's user must not answer for the session's."""
    from annotation.accounts.models import UserSession

    campaign, (member, *_), _ = ab_tie_campaign(pairs=2)
    assignment_id = session_post(session_client_for(member), f"/api/v1/campaigns/{campaign.slug}/claim/").json()["assignment"]
    stranger = UserFactory()
    browser = session_client_for(stranger)
    UserSession.objects.filter(session_key=browser.session.session_key).update(user=member)
    claimed = session_post(browser, f"/api/v1/campaigns/{campaign.slug}/claim/")
    assert (claimed.status_code, claimed.json()["code"]) == (403, "not_a_member")
    submitted = session_post(browser, f"/api/v1/assignments/{assignment_id}/submit/", {"values": AB_TIE_ANSWER},
                             HTTP_IDEMPOTENCY_KEY="x")
    assert (submitted.status_code, submitted.json()["code"]) == (404, "not_found")
    assert Annotation.objects.count() == 0
    assert Assignment.objects.get().annotator_id == member.pk


@pytest.fixture
def deny_all():
    """A permission that refuses everyone, added to the work queue's shared permission list (the claim and submit
    views' permission_classes); the calls it saw, by the request's type."""
    from rest_framework.permissions import BasePermission

    from core.api import permissions

    seen = []

    class DenyAll(BasePermission):
        message = "Nobody today."

        def has_permission(self, request, view):
            seen.append(type(request).__name__)
            return False

    permissions.WORK_QUEUE_PERMISSIONS.append(DenyAll)
    try:
        yield seen
    finally:
        permissions.WORK_QUEUE_PERMISSIONS.remove(DenyAll)


def test_the_door_enforces_a_permission_added_to_the_api_views(deny_all, drf_dispatches):
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=1)
    browser = session_client_for(rater)
    refused = session_post(browser, f"/api/v1/campaigns/{campaign.slug}/claim/")
    assert (refused.status_code, refused.json()["message"]) == (403, "Nobody today.")
    assert deny_all[0] == "WSGIRequest"  # the door asked it, on Django's request, before DRF (which refused)
    assert drf_dispatches == ["AssignmentClaimApi"]
    assert Assignment.objects.count() == 0
    submitted = session_post(browser, "/api/v1/assignments/1/submit/", {"values": AB_TIE_ANSWER}, HTTP_IDEMPOTENCY_KEY="k")
    assert submitted.status_code == 403
    assert Annotation.objects.count() == 0


def test_the_door_and_the_views_share_one_permission_list():
    from annotation.workqueue.api.assignments import AnnotationSubmitApi, AssignmentClaimApi
    from core.api.permissions import WORK_QUEUE_PERMISSIONS

    assert AssignmentClaimApi.permission_classes is WORK_QUEUE_PERMISSIONS is AnnotationSubmitApi.permission_classes


def test_http_basic_scripts_go_through_drf(drf_dispatches):
    import base64

    campaign, (rater, *_), _ = ab_tie_campaign(pairs=1)
    rater.set_password("pw")
    rater.save()
    basic = "Basic " + base64.b64encode(f"{rater.username}:pw".encode()).decode()
    claimed = APIClient().post(f"/api/v1/campaigns/{campaign.slug}/claim/", HTTP_AUTHORIZATION=basic)
    assert claimed.status_code == 200
    assert drf_dispatches == ["AssignmentClaimApi"]


def test_json_response_falls_back_to_drfs_renderer_for_integers_beyond_64_bits():
    from annotation.workqueue.hotpath import json_response

    assert json.loads(json_response({"n": 2**70}).content) == {"n": 2**70}
    assert json_response({"n": 1}).content == b'{"n":1}'


@pytest.mark.parametrize("door", ["session", "drf"])
def test_a_member_removed_from_the_campaign_loses_their_open_lease(door):
    """Read, draft, skip and submit all answer 404 (as for a lease that is not theirs) once the rater is no longer a
    member, through the work queue's own door and through DRF alike; nothing is stored. Added back, the lease is
    theirs again."""
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=1)
    browser = session_client_for(rater)
    lease = session_post(browser, f"/api/v1/campaigns/{campaign.slug}/claim/").json()["assignment"]
    campaign.members.remove(rater)
    base = f"/api/v1/assignments/{lease}/"
    answers = {"values": AB_TIE_ANSWER, "time_on_item_ms": 900}
    if door == "session":
        responses = [
            browser.get(base),
            browser.put(base + "draft/", json.dumps({"values": answers["values"]}), content_type="application/json",
                        HTTP_X_CSRFTOKEN=CSRF_TOKEN),
            session_post(browser, base + "submit/", answers, HTTP_IDEMPOTENCY_KEY="gone-1"),
            session_post(browser, base + "skip/", {"reason": "gone"}),
        ]
    else:
        api = client_for(rater)
        responses = [api.get(base), api.put(base + "draft/", {"values": answers["values"]}, format="json"),
                     api.post(base + "submit/", answers, format="json", HTTP_IDEMPOTENCY_KEY="gone-1"),
                     api.post(base + "skip/", {"reason": "gone"}, format="json")]
    assert [(r.status_code, r.json()["code"]) for r in responses] == [(404, "not_found")] * 4
    assignment = Assignment.objects.get(pk=lease)
    assert (assignment.status, assignment.draft) == (Assignment.Status.ACTIVE, {})
    assert not Annotation.objects.exists()
    campaign.members.add(rater)
    assert client_for(rater).post(base + "submit/", answers, format="json", HTTP_IDEMPOTENCY_KEY="back-1").status_code == 200


def test_a_submit_short_of_full_playback_is_refused_with_400_naming_the_side_by_both_paths(drf_dispatches):
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=1, requires_full_playback=True)
    campaign.kind = "text-to-audio"
    campaign.save(update_fields=["kind"])
    browser = session_client_for(rater)
    claimed = session_post(browser, f"/api/v1/campaigns/{campaign.slug}/claim/").json()
    url = f"/api/v1/assignments/{claimed['assignment']}/submit/"
    swapped = Assignment.objects.get().swapped
    short = {"A": 1.0, "B": 0.5}
    payload = {"values": AB_TIE_ANSWER, "media_played": short}
    refused = session_post(browser, url, payload, HTTP_IDEMPOTENCY_KEY="k")
    through_drf = client_for(rater).post(url, payload, format="json", HTTP_IDEMPOTENCY_KEY="k")
    assert (refused.status_code, refused.json()) == (through_drf.status_code, through_drf.json())
    assert refused.status_code == 400
    assert refused.json()["code"] == "media_not_played"
    assert "play response B to the end" in refused.json()["message"]  # as shown, whichever response it is
    assert not Annotation.objects.exists()
    played = session_post(browser, url, {"values": AB_TIE_ANSWER, "media_played": {"A": 1.0, "B": 0.99}},
                          HTTP_IDEMPOTENCY_KEY="k")
    assert played.status_code == 200
    assert Annotation.objects.get().media_played == ({"A": 0.99, "B": 1.0} if swapped else {"A": 1.0, "B": 0.99})
