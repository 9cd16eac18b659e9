"""The model leaderboard over the API: Bradley–Terry ratings from human preferences, as JSON or CSV."""

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.permissions import IsCurator
from curation.selectors.leaderboard import MAX_BOOTSTRAP, leaderboard_campaigns, leaderboard_csv, model_leaderboard


class LeaderboardQuerySerializer(serializers.Serializer):
    campaign = serializers.ListField(child=serializers.SlugField(max_length=100), required=False, default=list,
                                     help_text="Campaign slugs (repeat the parameter); all campaigns when absent.")
    kind = serializers.CharField(required=False, default="", allow_blank=True, max_length=32)
    source = serializers.CharField(required=False, default="", allow_blank=True, max_length=100)
    bootstrap = serializers.IntegerField(required=False, default=200, min_value=0, max_value=MAX_BOOTSTRAP)
    seed = serializers.IntegerField(required=False, default=0, min_value=0)


def leaderboard_from_query(query) -> dict:
    """Validate leaderboard query parameters (a QueryDict) and compute the leaderboard they ask for."""
    params = LeaderboardQuerySerializer(data={**query.dict(), "campaign": query.getlist("campaign")})
    params.is_valid(raise_exception=True)
    data = params.validated_data
    return model_leaderboard(campaigns=leaderboard_campaigns(slugs=data["campaign"]), kind=data["kind"],
                             source=data["source"], bootstrap=data["bootstrap"], seed=data["seed"], bounded=True)


class ModelLeaderboardApi(APIView):
    """Which model wins: Bradley–Terry ratings with bootstrap 95% intervals, win rates and comparisons per pair."""

    throttle_scope = "leaderboard"

    permission_classes = [IsCurator]

    @extend_schema(parameters=[LeaderboardQuerySerializer], responses=OpenApiTypes.OBJECT)
    def get(self, request):
        return Response(leaderboard_from_query(request.query_params))


class ModelLeaderboardCsvApi(APIView):
    """The same leaderboard as CSV: a row per model (rating, interval), then a row per ordered pair of models."""

    throttle_scope = "leaderboard"

    permission_classes = [IsCurator]

    @extend_schema(parameters=[LeaderboardQuerySerializer], responses={(200, "text/csv"): OpenApiTypes.STR})
    def get(self, request):
        response = HttpResponse(leaderboard_csv(leaderboard_from_query(request.query_params)),
                                content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="model-leaderboard.csv"'
        return response
