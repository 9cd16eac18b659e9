"""Qualification over HTTP: a rater's calibration round (the next pair, an answer and its feedback) and, for
curators, the calibration set, the report, releasing a failed round and lifting a pause. Apart from the claim and
submit, which only read the gate (``annotation.workqueue.services.qualification.rater_admission``)."""

from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.catalogue.models import Campaign
from annotation.workqueue.services import qualification as services
from core.api.permissions import IsCurator


def _member_campaign(user, slug: str) -> Campaign:
    return get_object_or_404(Campaign.objects.select_related("rating_schema"), slug=slug, members=user)


ROUND_STATE = inline_serializer("QualificationState", {
    "admission": serializers.DictField(help_text="admitted, code (admitted, qualification_required, "
                                                 "paused_recalibrate), message, can_start_round, retry_after"),
    "round": serializers.DictField(allow_null=True, help_text="answered of, verdict; once over the score and study"),
    "display": serializers.DictField(allow_null=True, help_text="The next calibration pair, as a pair's display, "
                                                                "with calibration: round, item, position, of"),
})


class QualificationStateApi(APIView):
    """Your admission to the campaign's queue and your calibration round (GET); POST starts a round when you may."""

    throttle_scope = "rater-read"

    @extend_schema(responses=ROUND_STATE)
    def get(self, request, slug: str):
        campaign = _member_campaign(request.user, slug)
        return Response(services.qualification_state(user=request.user, campaign=campaign, start=False))

    @extend_schema(request=None, responses=ROUND_STATE)
    def post(self, request, slug: str):
        campaign = _member_campaign(request.user, slug)
        return Response(services.qualification_state(user=request.user, campaign=campaign, start=True))


class CalibrationAnswerApi(APIView):
    """Answer one pair of your calibration round (as shown: left is "A"): the expected answer, its explanation and the
    differences come back, and the round's result after its last pair. Never an annotation: it counts nowhere."""

    throttle_scope = "rater-write"

    class CalibrationAnswerInputSerializer(serializers.Serializer):
        item = serializers.IntegerField()
        values = serializers.DictField()
        time_on_item_ms = serializers.IntegerField(required=False, allow_null=True, min_value=0)

    @extend_schema(request=CalibrationAnswerInputSerializer, responses=OpenApiTypes.OBJECT)
    def post(self, request, round_id: int):
        data = self.CalibrationAnswerInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(services.calibration_answer_submit(
            user=request.user, round_id=round_id, item_id=data.validated_data["item"],
            values=data.validated_data["values"], time_on_item_ms=data.validated_data.get("time_on_item_ms")))


class CalibrationSetApi(APIView):
    """The campaign's calibration set and qualification settings (GET); add pairs with their expected answers
    (POST ``items``); share another set or change the settings (PATCH). Curators only."""

    permission_classes = [IsCurator]

    class AddSerializer(serializers.Serializer):
        items = serializers.ListField(child=serializers.DictField(), help_text="pair, campaign (optional), "
                                      "expected, explanation: as the lines of manage.py calibration_set --add")
        calibration_set = serializers.SlugField(required=False, help_text="Name of the set made when there is none.")

    class SettingsSerializer(serializers.Serializer):
        calibration_set = serializers.SlugField(required=False)
        pass_mark = serializers.FloatField(required=False)
        round_size = serializers.IntegerField(required=False)
        retry_hours = serializers.IntegerField(required=False)

    def _out(self, campaign: Campaign) -> dict:
        campaign.refresh_from_db()
        return {"campaign": campaign.slug,
                "calibration_set": campaign.calibration_set.slug if campaign.calibration_set else None,
                "pass_mark": campaign.qualification_pass_mark, "round_size": campaign.qualification_round_size,
                "retry_hours": campaign.qualification_retry_hours,
                "items": services.calibration_set_items(campaign=campaign)}

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, slug: str):
        return Response(self._out(get_object_or_404(Campaign, slug=slug)))

    @extend_schema(request=AddSerializer, responses={201: OpenApiTypes.OBJECT})
    def post(self, request, slug: str):
        campaign = get_object_or_404(Campaign, slug=slug)
        data = self.AddSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        added = services.calibration_items_add(campaign=campaign, rows=data.validated_data["items"],
                                               set_slug=data.validated_data.get("calibration_set"))
        return Response({**added.as_dict(), **self._out(campaign)}, status=201)

    @extend_schema(request=SettingsSerializer, responses=OpenApiTypes.OBJECT)
    def patch(self, request, slug: str):
        campaign = get_object_or_404(Campaign, slug=slug)
        data = self.SettingsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.campaign_qualification_set(campaign=campaign, **data.validated_data)
        return Response(self._out(campaign))


class QualificationReportApi(APIView):
    """Per member: qualification for the campaign's kind, gold score and any open pause. Curators only."""

    permission_classes = [IsCurator]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, slug: str):
        return Response(services.qualification_report(campaign=get_object_or_404(Campaign, slug=slug)))


class RaterPauseLiftApi(APIView):
    """Let a paused rater back to the campaign's queue. Curators only."""

    permission_classes = [IsCurator]

    class RaterPauseLiftInputSerializer(serializers.Serializer):
        reason = serializers.CharField(required=False, allow_blank=True, max_length=200)

    @extend_schema(request=RaterPauseLiftInputSerializer, responses=OpenApiTypes.OBJECT)
    def post(self, request, slug: str, username: str):
        campaign = get_object_or_404(Campaign, slug=slug)
        get_object_or_404(get_user_model(), username=username)
        data = self.RaterPauseLiftInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        pause = services.rater_pause_lift(campaign=campaign, username=username, curator=request.user,
                                          reason=data.validated_data.get("reason", ""))
        return Response({"campaign": campaign.slug, "username": username, "lifted_at": pause.lifted_at,
                         "lift_reason": pause.lift_reason})


class QualificationRoundReleaseApi(APIView):
    """Let a rater who did not pass a round try again now, without waiting. Curators only."""

    permission_classes = [IsCurator]

    @extend_schema(request=None, responses=OpenApiTypes.OBJECT)
    def post(self, request, round_id: int):
        round_ = services.qualification_round_release(round_id=round_id, curator=request.user)
        return Response({"round": round_.pk, "released_at": round_.released_at})
