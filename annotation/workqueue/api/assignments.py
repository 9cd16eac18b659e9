"""The annotator's work queue over HTTP: claim, display, draft, submit, skip, and my statistics."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.catalogue.models import Campaign
from annotation.workqueue.hotpath import Door, claim_response, submit_input, submit_response
from annotation.workqueue.selectors import annotator_stats, assignment_for_annotator, pair_display
from annotation.workqueue.services.assignments import (
    assignment_renew,
    assignment_save_draft,
    assignment_skip,
    lease_renewable_until,
)
from core.api.permissions import WORK_QUEUE_PERMISSIONS


@extend_schema_serializer(component_name="AssignmentDisplay")
class DisplaySerializer(serializers.Serializer):
    """The blind display data of one assignment (see annotation.workqueue.selectors.pair_display)."""

    assignment = serializers.IntegerField()
    pair_key = serializers.CharField(help_text="An opaque name of the pair for you: the same in the next pair's preview "
                                     "and in the claim that gives you that pair.")
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


class AssignmentClaimApi(Door, APIView):
    """Your current pair in the campaign, or the next one; 204 when nothing is left for you.

    A signed-in session's claim is answered by the work queue's door (``annotation.workqueue.hotpath``), which checks this
    view's ``permission_classes`` itself; anything else goes through DRF. Both call ``hotpath.claim_response``.
    JSON only: the display goes out as ``pair_display`` builds it (DisplaySerializer describes it).
    """

    throttle_scope = "claim"

    renderer_classes = [JSONRenderer]
    content_negotiation_class = JSONOnlyNegotiation
    permission_classes = WORK_QUEUE_PERMISSIONS

    @extend_schema(
        request=None,
        responses={200: DisplaySerializer, 204: OpenApiResponse(description="No pair is left for you.")},
    )
    def post(self, request, slug: str):
        return claim_response(request.user, slug)

    def door(self, request, user, slug: str):
        return claim_response(user, slug)


class AssignmentDetailApi(APIView):
    """The display data of one of your assignments."""

    throttle_scope = "rater-read"

    @extend_schema(responses=DisplaySerializer)
    def get(self, request, assignment_id: int):
        return Response(_display(assignment_id, request.user))


class AssignmentDraftApi(APIView):
    """Save your answers so far (as shown on screen); partial answers are fine."""

    throttle_scope = "rater-write"

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


class AssignmentRenewalApi(APIView):
    """Renew your live lease: it then runs until now + the campaign's lease time, never past ``renewable_until``
    (the claim + 4 × the lease time). 409 ``lease_expired`` once its time ran out; ``{"reclaim": true}`` then asks
    for the pair again (409 ``lease_taken`` when its slot went to someone else)."""

    throttle_scope = "rater-write"

    @extend_schema_serializer(component_name="AssignmentRenewalInput")
    class InputSerializer(serializers.Serializer):
        reclaim = serializers.BooleanField(required=False, default=False)

    @extend_schema_serializer(component_name="AssignmentRenewalOutput")
    class OutputSerializer(serializers.Serializer):
        assignment = serializers.IntegerField(source="pk")
        status = serializers.CharField()
        expires_at = serializers.DateTimeField()
        renewable_until = serializers.DateTimeField()

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def post(self, request, assignment_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        assignment = assignment_for_annotator(assignment_id=assignment_id, annotator=request.user, for_display=False)
        renewed = assignment_renew(assignment=assignment, annotator=request.user, reclaim=data.validated_data["reclaim"])
        return Response(self.OutputSerializer({
            "pk": renewed.pk, "status": renewed.status, "expires_at": renewed.expires_at,
            "renewable_until": lease_renewable_until(renewed),
        }).data)


class AnnotationSubmitApi(Door, APIView):
    """Submit your answers (as shown: left is "A"); the same Idempotency-Key (or a resubmit) returns the same annotation.

    A signed-in session's submission is answered by the work queue's door (``annotation.workqueue.hotpath``), as on claim.
    JSON only, and the output is written by hand from OutputSerializer's three fields.
    """

    throttle_scope = "submit"

    renderer_classes = [JSONRenderer]
    content_negotiation_class = JSONOnlyNegotiation
    permission_classes = WORK_QUEUE_PERMISSIONS

    @extend_schema_serializer(component_name="AnnotationSubmitInput")
    class InputSerializer(serializers.Serializer):
        values = serializers.DictField()
        time_on_item_ms = serializers.IntegerField(required=False, allow_null=True, min_value=0)
        idempotency_key = serializers.CharField(required=False, max_length=64)
        # Checked by the service (annotation.workqueue.playback), so that the session's path and DRF's answer alike.
        media_played = serializers.JSONField(
            required=False, allow_null=True,
            help_text='Share of each medium heard or watched, as shown: an object of "A" (left), "B" (right) or '
                      '"prompt" to a number from 0 to 1. A campaign that requires full playback refuses a submission '
                      "below 0.98 on any with 400 media_not_played.",
        )
        confirm_warnings = serializers.BooleanField(
            required=False, default=False,
            help_text="The rater was shown the soft warnings of POST /api/v1/assignments/<id>/check/ for these answers "
                      "and submits them as they are: the warnings, as the server finds them, are stored on the "
                      "annotation (confirmed_warnings). Nothing is ever refused for a warning.",
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
        return submit_response(
            request.user, assignment_id, data.validated_data["values"], data.validated_data.get("time_on_item_ms"), key,
            media_played=data.validated_data.get("media_played"),
            confirm_warnings=data.validated_data["confirm_warnings"],
        )

    def door(self, request, user, assignment_id: int):
        taken = submit_input(request)
        if taken is None:
            return None
        values, time_on_item_ms, key, media_played, confirm_warnings = taken
        return submit_response(user, assignment_id, values, time_on_item_ms, key, media_played, confirm_warnings)


class AssignmentSkipApi(APIView):
    """Give the pair back, saying why; it goes to someone else and you will not see it again."""

    throttle_scope = "rater-write"

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

    throttle_scope = "rater-read"

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
