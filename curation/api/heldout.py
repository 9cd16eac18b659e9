"""Held-out endpoints: curators issue team tokens; teams submit predictions on a release's private split, read their
own aggregate scores and publish one to the release's leaderboard.

Submission endpoints authenticate the team by its token (``Authorization: Bearer cst_…``), not by a Concord
account: 401 without one, 403 for a token that is not a team's of the release.
"""

from django.contrib.auth.models import AnonymousUser
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import AllowAny, BasePermission
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.permissions import IsCurator
from core.api.schema import ErrorSerializer
from core.errors import ApplicationError
from core.web.hostile_input import StrictFormParser, StrictJSONParser, StrictMultiPartParser
from curation.api.releases import _predictions_field
from curation.models import JudgeEvaluation
from curation.selectors.heldout import heldout_leaderboard, submission_teams, team_submissions
from curation.selectors.releases import release_get
from curation.services.heldout import (
    WWW_AUTHENTICATE,
    submission_create,
    submission_publish,
    submission_team_authenticate,
    submission_team_issue,
    token_missing,
)

NO_TOKEN = OpenApiResponse(ErrorSerializer, description="No team token (`Authorization: Bearer cst_…`): code "
                                                     "`submission_token_missing`. A token that is not a team's of the "
                                                     "release is refused with 403 `submission_token_invalid`.")
PAST_LIMIT = OpenApiResponse(ErrorSerializer, description="Past the team's scored submissions of the last 24 hours "
                                                          "(`submission_limit`; `extra.next_allowed_at`, Retry-After), "
                                                          "or over the API's rate limit (`rate_limited`).")


def bearer_token(request) -> str | None:
    """The token of an ``Authorization: Bearer …`` header, or None."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


class SubmissionOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    team = serializers.CharField(source="team.name")
    judge = serializers.CharField(source="judge_name")
    format = serializers.CharField()
    status = serializers.CharField()
    file_name = serializers.CharField()
    predictions_sha256 = serializers.CharField()
    scores = serializers.JSONField(help_text="Aggregate figures only: overall and per task, with 95% intervals.")
    error = serializers.CharField()
    published = serializers.BooleanField()
    published_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()


class TeamOutputSerializer(serializers.Serializer):
    team = serializers.CharField(source="name")
    daily_limit = serializers.IntegerField()
    token_issued_at = serializers.DateTimeField()
    created_at = serializers.DateTimeField()
    scored = serializers.IntegerField(required=False)
    last_submission = serializers.DateTimeField(required=False, allow_null=True)


class TeamTokenAuthentication(BaseAuthentication):
    """A team's submission token (``Authorization: Bearer cst_…``) as ``request.auth``, never a Concord account; the
    view checks that it is a team's of its release."""

    def authenticate(self, request):
        token = bearer_token(request)
        return None if token is None else (AnonymousUser(), token)

    def authenticate_header(self, request) -> str:
        return WWW_AUTHENTICATE


class HasTeamToken(BasePermission):
    def has_permission(self, request, view) -> bool:
        if request.auth is None:
            raise token_missing()
        return True


class TeamTokenScheme(OpenApiAuthenticationExtension):
    target_class = TeamTokenAuthentication
    name = "teamToken"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer",
                "description": "A team's submission token, issued by a curator (manage.py submission_token)."}


class TokenAuthenticated(APIView):
    """A view a team reaches with its token alone."""

    authentication_classes = [TeamTokenAuthentication]
    permission_classes = [HasTeamToken]

    def team(self, request, release):
        return submission_team_authenticate(release=release, token=request.auth)


class SubmissionListApi(TokenAuthenticated):
    """POST: score the team's predictions on the release's private split (multipart ``predictions`` file or JSON
    ``predictions`` object; ``predictions_no_tie`` for Omni-RewardBench's no-tie run) → 201 with aggregate scores;
    429 past the team's daily limit. GET: the team's own submissions."""

    parser_classes = [StrictMultiPartParser, StrictFormParser, StrictJSONParser]

    @extend_schema_serializer(component_name="SubmissionInput")
    class InputSerializer(serializers.Serializer):
        format = serializers.ChoiceField(choices=JudgeEvaluation.Format.choices)
        judge = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")

    @extend_schema(responses={200: SubmissionOutputSerializer(many=True), 401: NO_TOKEN})
    def get(self, request, name: str, version: str):
        release = release_get(name=name, version=version, published=True)
        team = self.team(request, release)
        return Response(SubmissionOutputSerializer(team_submissions(team=team)[:100], many=True).data)

    @extend_schema(request=InputSerializer, responses={201: SubmissionOutputSerializer, 401: NO_TOKEN, 429: PAST_LIMIT})
    def post(self, request, name: str, version: str):
        release = release_get(name=name, version=version, published=True)
        team = self.team(request, release)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        predictions, file_name = _predictions_field(request, "predictions")
        if predictions is None:
            raise ApplicationError("send the predictions as a file field or a JSON object", code="predictions_missing")
        no_tie, no_tie_name = _predictions_field(request, "predictions_no_tie")
        submission = submission_create(release=release, team=team, predictions=predictions,
                                       format=data.validated_data["format"], judge_name=data.validated_data["judge"],
                                       file_name=file_name, predictions_no_tie=no_tie, no_tie_file_name=no_tie_name)
        return Response(SubmissionOutputSerializer(submission).data, status=status.HTTP_201_CREATED)


class SubmissionPublishApi(TokenAuthenticated):
    """Put one of the team's scored submissions on the release's leaderboard page (``judge`` renames it there)."""

    @extend_schema_serializer(component_name="SubmissionPublishInput")
    class InputSerializer(serializers.Serializer):
        judge = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")

    @extend_schema(request=InputSerializer, responses={200: SubmissionOutputSerializer, 401: NO_TOKEN})
    def post(self, request, name: str, version: str, submission_id: int):
        release = release_get(name=name, version=version, published=True)
        team = self.team(request, release)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        submission = submission_publish(team=team, submission_id=submission_id, judge_name=data.validated_data["judge"])
        return Response(SubmissionOutputSerializer(submission).data)


class SubmissionTeamListApi(APIView):
    """Curators: GET the release's teams (never a token). POST issues a team's token, shown once in the answer → 201
    (``rotate`` replaces an existing team's token; ``daily_limit``: scored submissions in any 24 hours, default 5;
    for an existing team without ``rotate``, ``daily_limit`` alone changes it → 200 with no token)."""

    permission_classes = [IsCurator]

    @extend_schema_serializer(component_name="SubmissionTeamInput")
    class InputSerializer(serializers.Serializer):
        team = serializers.CharField(max_length=100)
        daily_limit = serializers.IntegerField(required=False, min_value=1, max_value=1000, allow_null=True,
                                               default=None)
        rotate = serializers.BooleanField(default=False)

    @extend_schema(responses=TeamOutputSerializer(many=True))
    def get(self, request, name: str, version: str):
        release = release_get(name=name, version=version)
        return Response(TeamOutputSerializer(submission_teams(release=release), many=True).data)

    @extend_schema(request=InputSerializer, responses={200: OpenApiTypes.OBJECT, 201: OpenApiTypes.OBJECT})
    def post(self, request, name: str, version: str):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        team, token = submission_team_issue(
            release=release_get(name=name, version=version), name=data.validated_data["team"],
            daily_limit=data.validated_data["daily_limit"], rotate=data.validated_data["rotate"],
            created_by=request.user)
        if token is None:
            return Response({**TeamOutputSerializer(team).data, "token": None, "note": "the daily limit changed; the "
                             "token did not"})
        return Response({**TeamOutputSerializer(team).data, "token": token,
                         "note": "the token is shown once; Concord keeps only its sha256"},
                        status=status.HTTP_201_CREATED)


class HeldoutLeaderboardApi(APIView):
    """The results teams published on a published release's private split, best first (aggregate figures only),
    open to anyone as the public page ``/releases/NAME/X.Y.Z/heldout/`` is."""

    throttle_scope = "leaderboard"
    permission_classes = [AllowAny]

    # Open to anyone, so the path is all there is to get wrong: the schema says what a release name and version are.
    @extend_schema(responses=OpenApiTypes.OBJECT, auth=[], parameters=[
        OpenApiParameter("name", location=OpenApiParameter.PATH, pattern=r"^[a-z0-9][a-z0-9-]{0,99}$",
                         description="The release's name."),
        OpenApiParameter("version", location=OpenApiParameter.PATH, pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$",
                         description="Its semantic version X.Y.Z."),
    ])
    def get(self, request, name: str, version: str):
        release = release_get(name=name, version=version, published=True)
        return Response({"release": str(release), "heldout": (release.summary or {}).get("heldout"),
                         "results": heldout_leaderboard(release=release)})
