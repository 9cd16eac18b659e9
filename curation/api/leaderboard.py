"""The model leaderboard over the API: Bradley–Terry ratings from human preferences, as JSON or CSV.

A board fitted before is answered at once (200); otherwise the answer is 202 with the ``leaderboard_fit`` job that
fits it in the background (the same job for every request of the same comparisons): poll ``job_url``, then ask
again.
"""

from django.http import HttpResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.jobs.api import JobOutputSerializer
from core.api.permissions import IsCurator
from core.api.schema import JOB_NOT_QUEUED
from curation.selectors.leaderboard import MAX_BOOTSTRAP, leaderboard_campaigns, leaderboard_csv
from curation.services.leaderboard import LeaderboardAnswer, leaderboard_answer

# What a client waiting on a fit job is asked to wait before polling again.
FITTING_RETRY_SECONDS = 2


class LeaderboardQuerySerializer(serializers.Serializer):
    campaign = serializers.ListField(child=serializers.SlugField(max_length=100), required=False, default=list,
                                     help_text="Campaign slugs (repeat the parameter); all campaigns when absent.")
    kind = serializers.CharField(required=False, default="", allow_blank=True, max_length=32)
    source = serializers.CharField(required=False, default="", allow_blank=True, max_length=100)
    bootstrap = serializers.IntegerField(required=False, default=200, min_value=0, max_value=MAX_BOOTSTRAP)
    seed = serializers.IntegerField(required=False, default=0, min_value=0)


@extend_schema_serializer(component_name="LeaderboardFitting")
class LeaderboardFittingSerializer(serializers.Serializer):
    job_id = serializers.IntegerField()
    status = serializers.CharField()
    job_url = serializers.CharField(help_text="Poll for live progress (resamples); ask for the board again when the "
                                              "job has succeeded.")
    job = JobOutputSerializer()


FITTING = OpenApiResponse(
    LeaderboardFittingSerializer,
    description="This board was never fitted: a `leaderboard_fit` job fits it in the background (one job for every "
                "request of the same comparisons). `Location` is the job; `Retry-After` says when to poll.",
)


def leaderboard_from_query(request) -> LeaderboardAnswer:
    """Validate leaderboard query parameters and answer with the board, or the job that fits it."""
    query = request.query_params
    params = LeaderboardQuerySerializer(data={**query.dict(), "campaign": query.getlist("campaign")})
    params.is_valid(raise_exception=True)
    data = params.validated_data
    return leaderboard_answer(campaigns=leaderboard_campaigns(slugs=data["campaign"]), kind=data["kind"],
                              source=data["source"], bootstrap=data["bootstrap"], seed=data["seed"],
                              created_by=request.user)


def fitting_response(job) -> Response:
    url = reverse("api-job-detail", args=[job.pk])
    return Response({"job_id": job.pk, "status": job.status, "job_url": url, "job": JobOutputSerializer(job).data},
                    status=status.HTTP_202_ACCEPTED,
                    headers={"Location": url, "Retry-After": str(FITTING_RETRY_SECONDS)})


class ModelLeaderboardApi(APIView):
    """Which model wins: Bradley–Terry ratings with bootstrap 95% intervals, win rates and comparisons per pair."""

    throttle_scope = "leaderboard"

    permission_classes = [IsCurator]

    @extend_schema(parameters=[LeaderboardQuerySerializer],
                   responses={200: OpenApiTypes.OBJECT, 202: FITTING, 503: JOB_NOT_QUEUED})
    def get(self, request):
        answer = leaderboard_from_query(request)
        if answer.job is not None:
            return fitting_response(answer.job)
        return Response(answer.report)


class ModelLeaderboardCsvApi(APIView):
    """The same leaderboard as CSV: a row per model (rating, interval), then a row per ordered pair of models."""

    throttle_scope = "leaderboard"

    permission_classes = [IsCurator]

    @extend_schema(parameters=[LeaderboardQuerySerializer],
                   responses={(200, "text/csv"): OpenApiTypes.STR, 202: FITTING, 503: JOB_NOT_QUEUED})
    def get(self, request):
        answer = leaderboard_from_query(request)
        if answer.job is not None:
            return fitting_response(answer.job)
        response = HttpResponse(leaderboard_csv(answer.report), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="model-leaderboard.csv"'
        return response
