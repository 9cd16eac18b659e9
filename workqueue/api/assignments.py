"""The annotator's work queue over HTTP: claim, display, draft, submit, skip, and my statistics."""

import orjson
from django.db import connection
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.authentication import CSRFCheck
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.sessions import Companion, SessionStore, request_user
from catalogue.models import Campaign
from config.hostile_input import check_json_depth
from config.text_checks import HostileInput, check_json_value, json_may_hold_hostile_text
from core import rows
from core.api.exceptions import application_error_body
from core.errors import ApplicationError
from workqueue.models import Assignment
from workqueue.selectors import annotator_stats, assignment_for_annotator, pair_display
from workqueue.services.assignments import (
    annotation_submit,
    assignment_claim_by_slug,
    assignment_save_draft,
    assignment_skip,
    membership_companion,
    submission_companion,
)


@extend_schema_serializer(component_name="AssignmentDisplay")
class DisplaySerializer(serializers.Serializer):
    """The blind display data of one assignment (see workqueue.selectors.pair_display)."""

    assignment = serializers.IntegerField()
    campaign = serializers.CharField()
    kind = serializers.CharField()
    instructions = serializers.CharField()
    prompt = serializers.ListField(child=serializers.JSONField())
    left = serializers.ListField(child=serializers.JSONField())
    right = serializers.ListField(child=serializers.JSONField())
    criteria = serializers.ListField(child=serializers.JSONField())
    schema = serializers.JSONField()
    draft = serializers.JSONField()
    status = serializers.CharField()
    expires_at = serializers.DateTimeField()


def _display(assignment_id: int, user) -> dict:
    return DisplaySerializer(pair_display(assignment=assignment_for_annotator(assignment_id=assignment_id, annotator=user))).data


class JSONOnlyNegotiation(DefaultContentNegotiation):
    """JSON whatever the Accept header says: the default parses that header on every request to choose among
    one renderer."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


def json_response(data, status_code: int = 200) -> HttpResponse:
    """``data`` as DRF's JSONRenderer writes it (compact, UTF-8, UTC datetimes ending in Z), by orjson; the renderer
    itself for what orjson refuses (integers beyond 64 bits in imported content)."""
    try:
        body = orjson.dumps(data, option=orjson.OPT_UTC_Z)
    except TypeError:
        body = JSONRenderer().render(data)
    return HttpResponse(body, status=status_code, content_type="application/json")


class SessionFastPath:
    """The work queue's loop (claim → submit) for a signed-in browser or client: session cookie, CSRF token, a
    well-formed request. Such a request is answered by ``post_session`` straight from Django's request, without
    DRF's dispatch (its Request wrapper, a second session authentication and CSRF pass, permissions, negotiation,
    the input serializer): a third of the CPU of a cycle. Everything else (HTTP Basic, no session, a CSRF
    failure, a body ``post_session`` does not take, returning None) goes through DRF's dispatch unchanged, which
    gives the same answers and every error shape. Responses and ApplicationErrors are written as DRF writes them;
    a test holds the two paths equal.

    A view using it defines ``post_session(request, user, read, **url_kwargs)``: the response, or None for DRF's
    dispatch. On PostgreSQL it may also define ``session_companion(**url_kwargs)``: the first read its service makes
    (an ``accounts.sessions.Companion``), which then comes in the session's statement, one round trip less;
    ``read`` is its answer, or None where it was not read that way (the service then reads it itself).
    """

    _csrf = CSRFCheck(lambda request: None)

    def session_companion(self, **url_kwargs) -> Companion | None:
        return None

    def dispatch(self, request, *args, **kwargs):
        if request.method == "POST" and "HTTP_AUTHORIZATION" not in request.META:
            session = getattr(request, "session", None)
            if not isinstance(session, SessionStore):
                session = None
            elif connection.vendor == "postgresql":
                session.companion = self.session_companion(**kwargs)
            user = request_user(request)
            if user.is_authenticated and user.is_active and self._csrf_accepts(request):
                read = session.companion_result(user) if session is not None else None
                try:
                    response = self.post_session(request, user, read, **kwargs)
                except ApplicationError as error:
                    response = json_response(application_error_body(error), error.status_code)
                if response is not None:
                    response["Allow"] = ", ".join(self.allowed_methods)
                    return response
        return super().dispatch(request, *args, **kwargs)

    def _csrf_accepts(self, request) -> bool:
        # The same check as DRF's SessionAuthentication.enforce_csrf; the middleware has already read the cookie.
        if "CSRF_COOKIE" not in request.META:
            self._csrf.process_request(request)
        return self._csrf.process_view(request, None, (), {}) is None


class AssignmentClaimApi(SessionFastPath, APIView):
    """Your current pair in the campaign, or the next one; 204 when nothing is left for you.

    The work queue's loop runs claim → submit: JSON only, and the display goes out as ``pair_display``
    builds it (plain JSON values; DisplaySerializer describes it, and a test holds the two equal).
    Instantiating the serializer deep-copied its sixteen fields on every claim.
    """

    renderer_classes = [JSONRenderer]
    content_negotiation_class = JSONOnlyNegotiation

    @extend_schema(
        request=None,
        responses={200: DisplaySerializer, 204: OpenApiResponse(description="No pair is left for you.")},
    )
    def post(self, request, slug: str):
        return self._claim(request.user, slug)

    def session_companion(self, slug: str) -> Companion:
        self._read_at = timezone.now()
        return membership_companion(slug=slug, now=self._read_at)

    def post_session(self, request, user, read, slug: str):
        return self._claim(user, slug, read=read, now=self._read_at if read is not None else None)

    @staticmethod
    def _claim(user, slug: str, read: tuple | None = None, now=None) -> HttpResponse:
        assignment = assignment_claim_by_slug(slug=slug, annotator=user, read=read, now=now)
        if assignment is None:
            no_content = HttpResponse(status=status.HTTP_204_NO_CONTENT)
            del no_content["Content-Type"]  # an empty answer has no type, as DRF writes it
            return no_content
        return json_response(pair_display(assignment=assignment))


class AssignmentDetailApi(APIView):
    """The display data of one of your assignments."""

    @extend_schema(responses=DisplaySerializer)
    def get(self, request, assignment_id: int):
        return Response(_display(assignment_id, request.user))


class AssignmentDraftApi(APIView):
    """Save your answers so far (as shown on screen); partial answers are fine."""

    @extend_schema_serializer(component_name="AssignmentDraftInput")
    class InputSerializer(serializers.Serializer):
        values = serializers.DictField()

    @extend_schema_serializer(component_name="AssignmentDraftOutput")
    class OutputSerializer(serializers.Serializer):
        assignment = serializers.IntegerField(source="pk")
        status = serializers.CharField()
        draft_saved_at = serializers.DateTimeField()
        expires_at = serializers.DateTimeField()

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def put(self, request, assignment_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        assignment = assignment_for_annotator(assignment_id=assignment_id, annotator=request.user, for_display=False)
        saved = assignment_save_draft(assignment=assignment, annotator=request.user, values=data.validated_data["values"])
        return Response(self.OutputSerializer(saved).data)


class AnnotationSubmitApi(SessionFastPath, APIView):
    """Submit your answers (as shown: left is "A"); the same Idempotency-Key (or a resubmit) returns the same annotation.

    JSON only, and the output is written by hand from OutputSerializer's three fields, as on claim.
    """

    renderer_classes = [JSONRenderer]
    content_negotiation_class = JSONOnlyNegotiation

    @extend_schema_serializer(component_name="AnnotationSubmitInput")
    class InputSerializer(serializers.Serializer):
        values = serializers.DictField()
        time_on_item_ms = serializers.IntegerField(required=False, allow_null=True, min_value=0)
        idempotency_key = serializers.CharField(required=False, max_length=64)
        # Checked by the service (workqueue.playback), so that the session's path and DRF's answer alike.
        media_played = serializers.JSONField(
            required=False, allow_null=True,
            help_text='Share of each medium heard or watched, as shown: an object of "A" (left), "B" (right) or '
                      '"prompt" to a number from 0 to 1. A campaign that requires full playback refuses a submission '
                      "below 0.98 on any with 400 media_not_played.",
        )

    @extend_schema_serializer(component_name="AnnotationSubmitOutput")
    class OutputSerializer(serializers.Serializer):
        annotation = serializers.IntegerField(source="pk")
        assignment = serializers.IntegerField(source="assignment_id")
        submitted_at = serializers.DateTimeField(source="created_at")

    @extend_schema(
        request=InputSerializer,
        responses=OutputSerializer,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key", {"type": "string", "minLength": 1, "maxLength": 64, "pattern": r"\S"}, OpenApiParameter.HEADER,
                required=True,
                description="Client-chosen key, 1 to 64 characters; a body field idempotency_key may stand in for it. "
                            "Without either the submission is refused (400).",
            )
        ],
    )
    def post(self, request, assignment_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        key = request.headers.get("Idempotency-Key") or data.validated_data.get("idempotency_key", "")
        return self._submit(
            request.user, assignment_id, data.validated_data["values"], data.validated_data.get("time_on_item_ms"), key,
            media_played=data.validated_data.get("media_played"),
        )

    @staticmethod
    def _submit(user, assignment_id: int, values: dict, time_on_item_ms: int | None, key: str,
                read: tuple | None = None, media_played: dict | None = None) -> HttpResponse:
        # No read here: the service reads the row by id (or takes it read with the session) and answers 404
        # unless it is this annotator's.
        annotation = annotation_submit(
            assignment=rows.loaded(Assignment, pk=assignment_id),
            annotator=user,
            values=values,
            time_on_item_ms=time_on_item_ms,
            idempotency_key=key,
            read=read,
            media_played=media_played,
        )
        return json_response(
            {"annotation": annotation.pk, "assignment": annotation.assignment_id, "submitted_at": annotation.created_at}
        )

    def session_companion(self, assignment_id: int) -> Companion:
        return submission_companion(assignment_id=assignment_id)

    def post_session(self, request, user, read, assignment_id: int):
        """Only a body InputSerializer would take as it is (JSON; ``values`` an object; ``time_on_item_ms`` a
        non-negative int or null; a key of 1–64 characters without surrounding blanks); anything else goes to
        DRF, which validates and answers its 400s."""
        if request.content_type != "application/json":
            return None
        try:
            check_json_depth(request.body)
            data = orjson.loads(request.body)
            if json_may_hold_hostile_text(request.body):
                check_json_value(data)
        except (orjson.JSONDecodeError, HostileInput):
            return None
        if not isinstance(data, dict) or type(data.get("values")) is not dict:
            return None
        time_on_item_ms = data.get("time_on_item_ms")
        if time_on_item_ms is not None and not (type(time_on_item_ms) is int and time_on_item_ms >= 0):
            return None
        body_key = data.get("idempotency_key", "")
        if "idempotency_key" in data and not (type(body_key) is str and 0 < len(body_key) <= 64 and body_key == body_key.strip()):
            return None
        # The header as request.headers reads it, without building that mapping of every header (its only use).
        key = request.META.get("HTTP_IDEMPOTENCY_KEY") or body_key
        return self._submit(user, assignment_id, data["values"], time_on_item_ms, key, read, data.get("media_played"))


class AssignmentSkipApi(APIView):
    """Give the pair back, saying why; it goes to someone else and you will not see it again."""

    @extend_schema_serializer(component_name="AssignmentSkipInput")
    class InputSerializer(serializers.Serializer):
        reason = serializers.CharField(max_length=500)

    @extend_schema_serializer(component_name="AssignmentSkipOutput")
    class OutputSerializer(serializers.Serializer):
        assignment = serializers.IntegerField(source="pk")
        status = serializers.CharField()
        skip_reason = serializers.CharField()

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def post(self, request, assignment_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        assignment = assignment_for_annotator(assignment_id=assignment_id, annotator=request.user, for_display=False)
        skipped = assignment_skip(assignment=assignment, annotator=request.user, reason=data.validated_data["reason"])
        return Response(self.OutputSerializer(skipped).data)


class MyStatsApi(APIView):
    """What you did today and overall, and your progress per campaign (``?campaign=slug`` for one)."""

    @extend_schema_serializer(component_name="MyStatsOutput")
    class OutputSerializer(serializers.Serializer):
        @extend_schema_serializer(component_name="MyStatsPeriod")
        class PeriodSerializer(serializers.Serializer):
            submitted = serializers.IntegerField()
            skipped = serializers.IntegerField()
            median_time_on_item_ms = serializers.FloatField(allow_null=True)

        @extend_schema_serializer(component_name="MyStatsCampaignProgress")
        class CampaignProgressSerializer(serializers.Serializer):
            slug = serializers.CharField()
            name = serializers.CharField()
            kind = serializers.CharField()
            status = serializers.CharField()
            submitted = serializers.IntegerField()
            submitted_today = serializers.IntegerField()
            skipped = serializers.IntegerField()
            has_open_assignment = serializers.BooleanField()
            pairs_total = serializers.IntegerField()
            pairs_complete = serializers.IntegerField()

        today = PeriodSerializer()
        overall = PeriodSerializer()
        campaigns = CampaignProgressSerializer(many=True)

    @extend_schema(
        parameters=[OpenApiParameter("campaign", str, OpenApiParameter.QUERY, required=False)],
        responses=OutputSerializer,
    )
    def get(self, request):
        campaign = None
        if request.query_params.get("campaign"):
            campaign = get_object_or_404(Campaign, slug=request.query_params["campaign"], members=request.user)
        return Response(self.OutputSerializer(annotator_stats(annotator=request.user, campaign=campaign)).data)
