"""Release endpoints for curators: list, publish (a job with live progress), verify, download links,
predictions upload and the leaderboard."""

import json

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.jobs.api import JobOutputSerializer
from core.api.permissions import IsCurator
from core.api.schema import JOB_NOT_QUEUED
from core.errors import ApplicationError
from core.web.hostile_input import StrictFormParser, StrictJSONParser, StrictMultiPartParser
from curation.models import JudgeEvaluation
from curation.releases.archive import streaming_response
from curation.releases.heldout import PRIVATE_ROWS, UNLABELLED
from curation.releases.pointers import EMBEDDED
from curation.releases.pointers import MODES as MEDIA_MODES
from curation.selectors.releases import release_get, release_leaderboard, release_list
from curation.services.releases import (
    judge_evaluate,
    release_archive,
    release_discard,
    release_download_links,
    release_publish_async,
    release_split,
    release_verify_start,
)


class ReleaseOutputSerializer(serializers.Serializer):
    name = serializers.CharField()
    version = serializers.CharField()
    status = serializers.CharField()
    storage = serializers.CharField()
    campaigns = serializers.SerializerMethodField()
    pairs = serializers.IntegerField(source="pairs_count")
    files = serializers.IntegerField(source="files_count")
    manifest_sha256 = serializers.CharField()
    archive = serializers.SerializerMethodField(
        help_text="The whole release as one zip: name, sha256 and size recorded at publication (not in the manifest, "
                  "which the archive contains); null before publication.")
    location = serializers.CharField()
    error = serializers.CharField()
    attempts = serializers.IntegerField()
    job = serializers.IntegerField(source="job_id", allow_null=True)
    created_at = serializers.DateTimeField()
    published_at = serializers.DateTimeField(allow_null=True)
    page = serializers.SerializerMethodField(help_text="The release's page in the console (downloads, leaderboard).")

    def get_campaigns(self, release) -> list[str]:
        return [c.slug for c in release.campaigns.all()]

    def get_archive(self, release) -> dict | None:
        recorded = (release.summary or {}).get("archive")
        if not recorded:
            return None
        return {key: recorded.get(key) for key in ("name", "sha256", "size", "format")} | {
            "url": reverse("api-release-archive", kwargs={"name": release.name, "version": release.version})}

    def get_page(self, release) -> str:
        return reverse("release-leaderboard", kwargs={"name": release.name, "version": release.version})


class ReleaseListApi(APIView):
    """GET: every release. POST: publish NAME@VERSION from campaigns (or retry a failed one) → 202 with a job id."""

    permission_classes = [IsCurator]

    @extend_schema_serializer(component_name="ReleasePublishInput")
    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=100)
        version = serializers.CharField(max_length=32)
        campaigns = serializers.ListField(child=serializers.SlugField(max_length=100), min_length=1, max_length=100)
        license = serializers.CharField(max_length=64, required=False, allow_blank=True, default="")
        force_license = serializers.BooleanField(default=False)
        profile_summary = serializers.BooleanField(default=False, help_text="Count the raters' profile answers in "
                                                   "the card (counts only, never names or free text).")
        private_split = serializers.FloatField(required=False, allow_null=True, default=None, min_value=0, max_value=1,
                                               help_text="Hold out this share of each task and source (0 < x < 1).")
        private_seed = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=0)
        private_rows = serializers.ChoiceField(choices=PRIVATE_ROWS, default=UNLABELLED)
        media = serializers.ChoiceField(
            choices=MEDIA_MODES, default=EMBEDDED,
            help_text="embedded: the media files are in the release. pointers: no media bytes; pointers.json names "
                      "each file's source and sha256, and rebuild.py fills them from the user's own copy (as "
                      "publish_release --media pointers).")

    @extend_schema(responses=ReleaseOutputSerializer(many=True))
    def get(self, request):
        return Response(ReleaseOutputSerializer(release_list(), many=True).data)

    @extend_schema(request=InputSerializer, responses={202: OpenApiTypes.OBJECT, 503: JOB_NOT_QUEUED})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        split = release_split(**{key: data.validated_data[key] for key in ("private_split", "private_seed",
                                                                             "private_rows")})
        release = release_publish_async(
            name=data.validated_data["name"], version=data.validated_data["version"],
            campaign_slugs=data.validated_data["campaigns"], license=data.validated_data["license"],
            force_license=data.validated_data["force_license"], media=data.validated_data["media"],
            profile_summary=data.validated_data["profile_summary"],
            created_by=request.user, **split,
        )
        release.refresh_from_db()
        return Response({"release": ReleaseOutputSerializer(release).data, "job": release.job_id},
                        status=status.HTTP_202_ACCEPTED)


class ReleaseDetailApi(APIView):
    permission_classes = [IsCurator]

    @extend_schema(responses=ReleaseOutputSerializer)
    def get(self, request, name: str, version: str):
        return Response(ReleaseOutputSerializer(release_get(name=name, version=version)).data)


class ReleaseDiscardApi(APIView):
    """Discard a failed attempt of NAME@VERSION (its stored files are deleted), so the version can be requested again
    with other campaigns or another policy. 409 for a published release or one being built."""

    permission_classes = [IsCurator]

    @extend_schema(request=None, responses=ReleaseOutputSerializer)
    def post(self, request, name: str, version: str):
        return Response(ReleaseOutputSerializer(release_discard(name=name, version=version)).data)


class ReleaseVerifyApi(APIView):
    """Start re-reading every stored file of the release against its manifest → 202 with the job to follow; the
    finished job's result holds ``ok``, ``files_checked`` and ``mismatches``."""

    permission_classes = [IsCurator]

    @extend_schema(request=None, responses={202: JobOutputSerializer, 503: JOB_NOT_QUEUED})
    def post(self, request, name: str, version: str):
        job = release_verify_start(release=release_get(name=name, version=version, published=True),
                                   created_by=request.user)
        job.refresh_from_db()
        return Response(JobOutputSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class ReleaseDownloadApi(APIView):
    """Presigned (S3) or signed (local) links to the release's files; ``?media=1`` includes media files. ``archive``
    is a signed Concord link to the whole release as one zip (streamed by Concord from either storage)."""

    permission_classes = [IsCurator]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, name: str, version: str):
        release = release_get(name=name, version=version, published=True)
        include_media = request.query_params.get("media") in ("1", "true", "yes")
        links = release_download_links(release=release, include_media=include_media)
        for link in [*links["files"], links["archive"]]:
            if link["url"].startswith("/"):
                link["url"] = request.build_absolute_uri(link["url"])
        return Response(links)


class ReleaseArchiveApi(APIView):
    """The whole release as one zip (every file at its path under ``NAME-VERSION/``), streamed; its sha256 is the
    release's ``archive.sha256`` (also sent as ``X-Archive-SHA256`` and ``Repr-Digest``)."""

    permission_classes = [IsCurator]

    @extend_schema(responses={(200, "application/zip"): OpenApiTypes.BINARY})
    def get(self, request, name: str, version: str):
        whole = release_archive(release=release_get(name=name, version=version, published=True))
        return streaming_response(name=whole.name, sha256=whole.sha256, size=whole.size, chunks=whole.chunks)


def _predictions_field(request, field: str) -> tuple[bytes | None, str]:
    """A predictions field sent as a file (its bytes and name) or as a JSON object or list (its JSON, no name)."""
    upload = request.FILES.get(field)
    if upload is not None:
        return upload.read(), upload.name
    if isinstance(request.data.get(field), (dict, list)):
        return json.dumps(request.data[field]).encode(), ""
    return None, ""


class ReleaseEvaluationApi(APIView):
    """Upload a judge's predictions (multipart ``predictions`` file, or JSON ``predictions`` object) → its scores.

    For Omni-RewardBench's two-run protocol, ``predictions_no_tie`` (file or JSON object) is the no-tie run."""

    permission_classes = [IsCurator]
    parser_classes = [StrictMultiPartParser, StrictFormParser, StrictJSONParser]

    @extend_schema_serializer(component_name="JudgeEvaluationInput")
    class InputSerializer(serializers.Serializer):
        judge = serializers.CharField(max_length=200)
        format = serializers.ChoiceField(choices=JudgeEvaluation.Format.choices)

    @extend_schema(request=InputSerializer, responses={201: OpenApiTypes.OBJECT})
    def post(self, request, name: str, version: str):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        release = release_get(name=name, version=version, published=True)
        predictions, file_name = _predictions_field(request, "predictions")
        if predictions is None:
            raise ApplicationError("send the predictions as a file field or a JSON object", code="predictions_missing")
        no_tie, no_tie_name = _predictions_field(request, "predictions_no_tie")
        evaluation = judge_evaluate(release=release, judge_name=data.validated_data["judge"], predictions=predictions,
                                    format=data.validated_data["format"], file_name=file_name,
                                    predictions_no_tie=no_tie, no_tie_file_name=no_tie_name, created_by=request.user)
        return Response({"judge": evaluation.judge_name, "format": evaluation.format, "scores": evaluation.scores},
                        status=status.HTTP_201_CREATED)


class ReleaseLeaderboardApi(APIView):
    """Every judge's latest scores on the release, best first, beside the humans' agreement per task."""

    throttle_scope = "leaderboard"

    permission_classes = [IsCurator]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, name: str, version: str):
        return Response(release_leaderboard(release=release_get(name=name, version=version)))
