"""Curator endpoints for agreement reports, consensus runs and the adjudication queue."""

from django.urls import reverse
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.generics import get_object_or_404
from rest_framework.pagination import CursorPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.catalogue.models import Campaign
from core.api.permissions import IsCurator
from core.api.schema import JOB_NOT_QUEUED
from core.errors import ApplicationError
from curation.consensus import get_policy, policy_names
from curation.selectors.agreement import (
    adjudication_queue,
    agreement_report_history,
    agreement_report_latest,
    agreement_slice_keys,
)
from curation.services.agreement import MAX_RESAMPLES, agreement_job_create
from curation.services.consensus import ON_DISPUTE, consensus_job_create, pair_adjudicate

SLICE = OpenApiParameter("slice", str, description="Slice key, e.g. source=oneigbench or week=2026-W48; '' for all.")


def _campaign(slug: str) -> Campaign:
    return get_object_or_404(Campaign.objects.select_related("rating_schema"), slug=slug)


class JobStartedSerializer(serializers.Serializer):
    job_id = serializers.IntegerField()
    status = serializers.CharField()
    job_url = serializers.CharField(help_text="Poll for live progress; a page shows it with data-job-progress.")


def _started(job) -> Response:
    return Response({"job_id": job.pk, "status": job.status, "job_url": reverse("api-job-detail", args=[job.pk])},
                    status=status.HTTP_202_ACCEPTED)


HISTORY_LIMIT = {"type": "integer", "minimum": 1, "maximum": 1000, "default": 100}


class AgreementJobStartApi(APIView):
    """Queue an agreement job for a campaign; the response carries the job id for the live progress bar."""

    permission_classes = [IsCurator]

    @extend_schema_serializer(component_name="AgreementJobInput")
    class InputSerializer(serializers.Serializer):
        bootstrap = serializers.IntegerField(min_value=0, max_value=MAX_RESAMPLES, default=1000)
        seed = serializers.IntegerField(min_value=0, max_value=2**32 - 1, default=0)
        quality = serializers.DictField(child=serializers.FloatField(min_value=0), required=False)

    @extend_schema(request=InputSerializer, responses={202: JobStartedSerializer, 503: JOB_NOT_QUEUED})
    def post(self, request, slug: str):
        campaign = _campaign(slug)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = agreement_job_create(campaign=campaign, created_by=request.user, **data.validated_data)
        return _started(job)


class ReportSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    slice_key = serializers.CharField()
    computed_at = serializers.DateTimeField()
    params = serializers.JSONField()
    job_id = serializers.IntegerField(allow_null=True)
    report = serializers.JSONField()


class AgreementReportLatestApi(APIView):
    """The latest stored report of a campaign (or of one slice), and the slices that have reports."""

    permission_classes = [IsCurator]

    @extend_schema(parameters=[SLICE], responses=inline_serializer(
        "AgreementLatest", {"report": ReportSerializer(), "slices": serializers.ListField(child=serializers.CharField())}))
    def get(self, request, slug: str):
        campaign = _campaign(slug)
        report = agreement_report_latest(campaign=campaign, slice_key=request.query_params.get("slice", ""))
        if report is None:
            raise ApplicationError("no agreement report yet; start an agreement job first", code="no_report",
                                   status_code=404)
        return Response({"report": ReportSerializer(report).data, "slices": agreement_slice_keys(campaign=campaign)})


class AgreementReportHistoryApi(APIView):
    """Headline figures of past reports, oldest first, for trend plots."""

    permission_classes = [IsCurator]

    @extend_schema_serializer(component_name="AgreementTrendPoint")
    class PointSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        computed_at = serializers.DateTimeField()
        params = serializers.JSONField()
        items = serializers.IntegerField(allow_null=True)
        annotations = serializers.IntegerField(allow_null=True)
        alpha = serializers.JSONField()
        alpha_ci95 = serializers.JSONField()
        pairwise_agreement_excluding_ties = serializers.FloatField(allow_null=True)
        percent_agreement = serializers.FloatField(allow_null=True)
        fleiss_kappa = serializers.FloatField(allow_null=True)
        measured = serializers.JSONField(
            allow_null=True, help_text="Per figure, the variable and level of measurement it was computed on.")

    @extend_schema(parameters=[SLICE, OpenApiParameter("limit", HISTORY_LIMIT, description="At most this many points.")],
                   responses=PointSerializer(many=True))
    def get(self, request, slug: str):
        campaign = _campaign(slug)
        try:
            limit = int(request.query_params.get("limit", 100))
        except ValueError:
            raise ApplicationError("limit must be a whole number", code="invalid_limit") from None
        if not 1 <= limit <= 1000:
            raise ApplicationError("limit must be from 1 to 1000", code="invalid_limit")
        points = agreement_report_history(campaign=campaign, slice_key=request.query_params.get("slice", ""), limit=limit)
        return Response(self.PointSerializer(points, many=True).data)


class ConsensusPolicyListApi(APIView):
    """Every consensus policy with its parameters and their defaults."""

    permission_classes = [IsCurator]

    @extend_schema(responses=inline_serializer("ConsensusPolicy", {
        "name": serializers.CharField(), "description": serializers.CharField(), "defaults": serializers.JSONField(),
    }, many=True))
    def get(self, request):
        policies = [get_policy(name) for name in policy_names()]
        return Response([{"name": p.name, "description": p.description, "defaults": p.defaults} for p in policies])


class ConsensusJobStartApi(APIView):
    """Queue a consensus run for a campaign with its own policy or a named one."""

    permission_classes = [IsCurator]

    @extend_schema_serializer(component_name="ConsensusJobInput")
    class InputSerializer(serializers.Serializer):
        policy = serializers.ChoiceField(choices=policy_names(), required=False)
        params = serializers.DictField(required=False)
        on_dispute = serializers.ChoiceField(choices=ON_DISPUTE, required=False)

    @extend_schema(request=InputSerializer, responses={202: JobStartedSerializer, 503: JOB_NOT_QUEUED})
    def post(self, request, slug: str):
        campaign = _campaign(slug)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = consensus_job_create(campaign=campaign, created_by=request.user, **data.validated_data)
        return _started(job)


class ConsensusRecordSerializer(serializers.Serializer):
    policy = serializers.CharField()
    decision = serializers.CharField()
    chosen = serializers.CharField()
    reason = serializers.CharField()
    details = serializers.JSONField()
    decided_at = serializers.DateTimeField()


class AdjudicationQueueApi(APIView):
    """Pairs awaiting a curator's decision, with the dispute and every rating (curators only)."""

    permission_classes = [IsCurator]

    class Pagination(CursorPagination):
        ordering = "id"
        page_size = 25

    @extend_schema_serializer(component_name="AdjudicationQueueItem")
    class OutputSerializer(serializers.Serializer):
        @extend_schema_serializer(component_name="AdjudicationRating")
        class RatingSerializer(serializers.Serializer):
            rater = serializers.SerializerMethodField()
            values = serializers.JSONField()
            rationale = serializers.CharField()
            shown_swapped = serializers.BooleanField(allow_null=True)
            time_on_item_ms = serializers.IntegerField(allow_null=True)
            created_at = serializers.DateTimeField()

            def get_rater(self, annotation) -> str:
                return annotation.annotator.get_username() if annotation.annotator_id else annotation.rater_label

        id = serializers.IntegerField()
        external_id = serializers.CharField()
        source = serializers.CharField(source="prompt.source")
        required_annotations = serializers.IntegerField()
        consensus = serializers.SerializerMethodField()
        ratings = RatingSerializer(many=True)

        @extend_schema_field(ConsensusRecordSerializer(allow_null=True))
        def get_consensus(self, pair):
            record = getattr(pair, "consensus", None)
            return None if record is None else ConsensusRecordSerializer(record).data

    @extend_schema(
        # A page of the queue (cursor pagination), as the view answers it.
        responses=inline_serializer(name="AdjudicationQueuePage", fields={
            "next": serializers.URLField(allow_null=True, help_text="The next page, or null on the last."),
            "previous": serializers.URLField(allow_null=True, help_text="The previous page, or null on the first."),
            "results": OutputSerializer(many=True),
        }),
        parameters=[OpenApiParameter("cursor", str, OpenApiParameter.QUERY, required=False,
                                     description="The page to read, as given by next or previous.")],
    )
    def get(self, request, slug: str):
        campaign = _campaign(slug)
        paginator = self.Pagination()
        page = paginator.paginate_queryset(adjudication_queue(campaign=campaign), request, view=self)
        return paginator.get_paginated_response(self.OutputSerializer(page, many=True).data)


class PairAdjudicateApi(APIView):
    """A curator's final decision on a disputed pair: keep it with A or B (or tie, where the schema offers one), or
    drop it (chosen null), with a note."""

    permission_classes = [IsCurator]

    @extend_schema_serializer(component_name="AdjudicationDecisionInput")
    class InputSerializer(serializers.Serializer):
        chosen = serializers.ChoiceField(choices=["A", "B", "tie"], allow_null=True)
        note = serializers.CharField(max_length=5000)

    @extend_schema(request=InputSerializer, responses=ConsensusRecordSerializer)
    def post(self, request, pair_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        record = pair_adjudicate(pair_id=pair_id, curator=request.user, **data.validated_data)
        return Response(ConsensusRecordSerializer(record).data)
