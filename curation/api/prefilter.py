"""Pre-filter runs for curators: start, follow, resume, cancel; a pair's verdicts; restore a pair; the rule."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_serializer, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.catalogue.models import Campaign, Pair
from annotation.jobs.api import JobOutputSerializer
from annotation.jobs.services import job_cancel
from core.api.permissions import IsCurator
from core.api.schema import JOB_NOT_QUEUED
from core.errors import ApplicationError
from core.web.hostile_input import StrictJSONParser
from curation.models import JudgeVerdict
from curation.prefilter.rules import RULES
from curation.selectors.judges import pair_verdicts, prefilter_run_get
from curation.services.prefilter import pair_restore, prefilter_resume, prefilter_rule_for, prefilter_rule_set, prefilter_start


class PrefilterStartApi(APIView):
    """Start a run over the campaign's candidate pairs; answers at once with the job to follow."""

    permission_classes = [IsCurator]

    @extend_schema_serializer(component_name="PrefilterStartInput")
    class InputSerializer(serializers.Serializer):
        judges = serializers.ListField(child=serializers.SlugField(max_length=100), required=False, allow_empty=False)
        threshold = serializers.FloatField(required=False)
        force = serializers.BooleanField(required=False, default=False)

    @extend_schema(request=InputSerializer, responses={202: JobOutputSerializer, 503: JOB_NOT_QUEUED})
    def post(self, request, slug: str):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = prefilter_start(
            campaign=get_object_or_404(Campaign, slug=slug),
            judge_names=data.validated_data.get("judges"),
            threshold=data.validated_data.get("threshold"),
            force=data.validated_data["force"],
            created_by=request.user,
        )
        return Response(JobOutputSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class PrefilterRunDetailApi(APIView):
    permission_classes = [IsCurator]

    @extend_schema(responses=JobOutputSerializer)
    def get(self, request, job_id: int):
        return Response(JobOutputSerializer(prefilter_run_get(job_id=job_id)).data)


class PrefilterRunResumeApi(APIView):
    permission_classes = [IsCurator]

    @extend_schema(request=None, responses={202: JobOutputSerializer, 503: JOB_NOT_QUEUED})
    def post(self, request, job_id: int):
        job = prefilter_resume(job=prefilter_run_get(job_id=job_id))
        return Response(JobOutputSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class PrefilterRunCancelApi(APIView):
    permission_classes = [IsCurator]

    @extend_schema(request=None, responses=JobOutputSerializer)
    def post(self, request, job_id: int):
        job = job_cancel(job_id=prefilter_run_get(job_id=job_id).pk)
        return Response(JobOutputSerializer(job).data)


@extend_schema_serializer(component_name="PrefilterRule")
class RuleSerializer(serializers.Serializer):
    rule = serializers.ChoiceField(choices=RULES)
    threshold = serializers.FloatField()
    min_votes = serializers.IntegerField(required=False, help_text="Only majority-of-valid and score-margin.")


class PrefilterRuleApi(APIView):
    permission_classes = [IsCurator]

    @extend_schema(responses=RuleSerializer)
    def get(self, request, slug: str):
        rule = prefilter_rule_for(campaign=get_object_or_404(Campaign, slug=slug))
        return Response(RuleSerializer(rule.as_config()).data)


class PrefilterRuleSetApi(APIView):
    """Set the campaign's rule: ``majority`` (share of planned votes), ``majority-of-valid`` or ``score-margin``."""

    permission_classes = [IsCurator]
    # A JSON object only: a form's fields arrive as lists, which the rule's checks would name as unknown values.
    parser_classes = [StrictJSONParser]

    # The service validates the raw object itself (unknown fields are named, not dropped), so the request
    # body is described here rather than parsed by a serializer.
    @extend_schema(
        request=inline_serializer("PrefilterRuleInput", {
            "rule": serializers.ChoiceField(choices=RULES, required=False, help_text="Defaults to majority (MMRB2)."),
            "threshold": serializers.FloatField(required=False, help_text="Majority: share in (0.5, 1]; margin: [0, 1)."),
            "min_votes": serializers.IntegerField(
                min_value=1, required=False, help_text="Only majority-of-valid and score-margin."
            ),
        }),
        responses=RuleSerializer,
    )
    def post(self, request, slug: str):
        if not isinstance(request.data, dict):
            raise ApplicationError("expected a JSON object such as {\"rule\": \"majority\", \"threshold\": 0.9}")
        campaign = prefilter_rule_set(campaign=get_object_or_404(Campaign, slug=slug), rule=dict(request.data))
        return Response(RuleSerializer(campaign.prefilter_rule).data)


@extend_schema_serializer(component_name="PairJudgeVerdict")
class VerdictOutputSerializer(serializers.ModelSerializer):
    judge = serializers.CharField(source="judge.name")
    backend = serializers.CharField(source="judge.backend")

    class Meta:
        model = JudgeVerdict
        fields = ["judge", "backend", "order", "verdict", "score", "confidence", "raw_output", "latency_ms",
                  "prompt_tokens", "completion_tokens", "error", "requests", "created_at"]


@extend_schema_serializer(component_name="PairPrefilterStatus")
class PairStatusOutputSerializer(serializers.Serializer):
    pair = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Pair.Status.choices)
    status_reason = serializers.CharField()


@extend_schema_serializer(component_name="PairVerdicts")
class PairVerdictsOutputSerializer(PairStatusOutputSerializer):
    verdicts = VerdictOutputSerializer(many=True)


class PairVerdictsApi(APIView):
    """Every judge's verdicts on one pair, in the pair's own A/B orientation."""

    permission_classes = [IsCurator]

    @extend_schema(responses=PairVerdictsOutputSerializer)
    def get(self, request, pair_id: int):
        pair = get_object_or_404(Pair.objects.only("pk", "status", "status_reason"), pk=pair_id)
        body = {"pair": pair.pk, "status": pair.status, "status_reason": pair.status_reason, "verdicts": pair_verdicts(pair=pair)}
        return Response(PairVerdictsOutputSerializer(body).data)


class PairRestoreApi(APIView):
    """Put a pair the pre-filter dropped back into the annotation queue."""

    permission_classes = [IsCurator]

    @extend_schema(request=None, responses=PairStatusOutputSerializer)
    def post(self, request, pair_id: int):
        pair = pair_restore(pair=get_object_or_404(Pair, pk=pair_id), user=request.user)
        body = {"pair": pair.pk, "status": pair.status, "status_reason": pair.status_reason}
        return Response(PairStatusOutputSerializer(body).data)
