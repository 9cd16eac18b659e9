"""Rater profiles, hours for payment and crowd entry links over HTTP: a rater reads and answers their campaign's
questionnaire; curators read the answers, each rater's active time and output, and make entry links."""

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.catalogue.models import Campaign
from annotation.workqueue.hours import IDLE_MINUTES_DEFAULT, IDLE_MINUTES_MAX
from annotation.workqueue.profile import answer_matches
from annotation.workqueue.selectors import campaign_hours, campaign_questionnaire, profile_answers
from annotation.workqueue.services.crowd import QUOTA_MAX, URL_MAX, crowd_link_create
from annotation.workqueue.services.profile import profile_answer_save
from core.api.permissions import IsCurator
from core.errors import ApplicationError


def idle_minutes_from(raw: str | None) -> float:
    """The idle threshold a curator asked for (``?idle_minutes=``), or the default; 400 with the accepted range."""
    if raw is None or raw == "":
        return IDLE_MINUTES_DEFAULT
    try:
        minutes = float(raw)
    except ValueError:
        minutes = float("nan")
    if not 0.5 <= minutes <= IDLE_MINUTES_MAX:  # also refuses NaN
        raise ApplicationError(f"idle_minutes is a number of minutes from 0.5 to {IDLE_MINUTES_MAX} "
                               f"(default {IDLE_MINUTES_DEFAULT})", code="invalid_idle_minutes")
    return minutes


def member_campaign(user, slug: str) -> Campaign:
    """``slug``'s campaign when ``user`` is one of its members (404 otherwise, as for a missing one)."""
    return get_object_or_404(Campaign.objects.filter(members=user), slug=slug)


class CampaignProfileApi(APIView):
    """Your answers to the campaign's rater profile: GET the questions and what you answered, PUT your answers
    (``{"answers": {question id: value}}``); the claim refuses with 403 ``profile_required`` until you have."""

    throttle_scope = "rater-write"

    @extend_schema_serializer(component_name="ProfileInput")
    class InputSerializer(serializers.Serializer):
        answers = serializers.DictField()

    @extend_schema_serializer(component_name="Profile")
    class OutputSerializer(serializers.Serializer):
        questionnaire = serializers.CharField(allow_null=True)
        title = serializers.CharField()
        questions = serializers.ListField(child=serializers.JSONField())
        answers = serializers.JSONField(allow_null=True)

    def _body(self, campaign, user) -> dict:
        questionnaire = campaign_questionnaire(campaign=campaign)
        if questionnaire is None:
            return {"questionnaire": None, "title": "", "questions": [], "answers": None}
        answers = profile_answers(questionnaire=questionnaire, users=[user]).get(user.pk)
        return {"questionnaire": questionnaire.slug, "title": questionnaire.title,
                "questions": questionnaire.questions, "answers": answers}

    @extend_schema(responses=OutputSerializer)
    def get(self, request, slug: str):
        campaign = member_campaign(request.user, slug)
        return Response(self.OutputSerializer(self._body(campaign, request.user)).data)

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def put(self, request, slug: str):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        campaign = member_campaign(request.user, slug)
        questionnaire = campaign_questionnaire(campaign=campaign)
        if questionnaire is None:
            raise ApplicationError("This campaign asks no rater profile.", code="no_questionnaire", status_code=404)
        profile_answer_save(user=request.user, questionnaire=questionnaire, raw=data.validated_data["answers"])
        return Response(self.OutputSerializer(self._body(campaign, request.user)).data)


class CampaignProfilesApi(APIView):
    """Curators: every member's answers to the campaign's questionnaire; ``?answer=QUESTION:VALUE`` keeps the raters
    whose answer holds VALUE (a choice or entry, a number at least VALUE, text containing it)."""

    permission_classes = [IsCurator]

    @extend_schema(parameters=[OpenApiParameter("answer", str, description="QUESTION:VALUE")],
                   responses=OpenApiTypes.OBJECT)
    def get(self, request, slug: str):
        campaign = get_object_or_404(Campaign, slug=slug)
        questionnaire = campaign_questionnaire(campaign=campaign)
        if questionnaire is None:
            return Response({"questionnaire": None, "raters": []})
        qid, _, wanted = (request.query_params.get("answer") or "").partition(":")
        members = list(campaign.members.order_by("username").values_list("pk", "username"))
        answers = profile_answers(questionnaire=questionnaire, users=[pk for pk, _ in members])
        raters = [{"username": name, "answered": pk in answers, "answers": answers.get(pk)} for pk, name in members
                  if not qid or answer_matches(answers.get(pk) or {}, qid, wanted)]
        return Response({"questionnaire": questionnaire.slug, "questions": questionnaire.questions, "raters": raters})


class CampaignHoursApi(APIView):
    """Curators: per rater, the active time from their events (gaps over ``idle_minutes`` cut), pairs submitted and
    skipped, and their gold answers, for paying them (crowd raters with their platform id)."""

    permission_classes = [IsCurator]

    @extend_schema_serializer(component_name="HoursQuery")
    class QuerySerializer(serializers.Serializer):
        idle_minutes = serializers.FloatField(
            required=False, min_value=0.5, max_value=IDLE_MINUTES_MAX,
            help_text=f"A gap longer than this is idle (default {IDLE_MINUTES_DEFAULT}).")

    @extend_schema(parameters=[QuerySerializer], responses=OpenApiTypes.OBJECT)
    def get(self, request, slug: str):
        campaign = get_object_or_404(Campaign, slug=slug)
        minutes = idle_minutes_from(request.query_params.get("idle_minutes"))
        return Response({"campaign": campaign.slug, "idle_minutes": minutes,
                         "raters": campaign_hours(campaign=campaign, idle_minutes=minutes)})


class CrowdLinkCreateApi(APIView):
    """Curators: a new crowd entry link into the campaign; its ``url`` takes ``?PROLIFIC_PID=…&STUDY_ID=…&SESSION_ID=…``."""

    permission_classes = [IsCurator]

    @extend_schema_serializer(component_name="CrowdLinkInput")
    class InputSerializer(serializers.Serializer):
        completion_url = serializers.CharField(max_length=URL_MAX)
        quota = serializers.IntegerField(min_value=1, max_value=QUOTA_MAX)
        study_id = serializers.CharField(required=False, allow_blank=True, max_length=64)

    @extend_schema(request=InputSerializer, responses={201: OpenApiTypes.OBJECT})
    def post(self, request, slug: str):
        from django.urls import reverse

        campaign = get_object_or_404(Campaign, slug=slug)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        link = crowd_link_create(campaign=campaign, created_by=request.user, **data.validated_data)
        url = request.build_absolute_uri(reverse("crowd-entry", args=[link.token]))
        return Response({"url": url, "quota": link.quota, "completion_url": link.completion_url,
                         "study_id": link.study_id}, status=201)
