"""Training exports of a release over the API: start one (a job), list the finished ones, download one as a zip."""

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.jobs.api import JobOutputSerializer
from core.api.permissions import IsCurator
from core.api.schema import JOB_NOT_QUEUED
from curation.releases.archive import streaming_response
from curation.releases.training import FORMATS, TIES
from curation.selectors.releases import release_get
from curation.services.training_exports import training_export_archive, training_export_start, training_exports


class ExportInputSerializer(serializers.Serializer):
    format = serializers.ChoiceField(choices=FORMATS)
    ties = serializers.ChoiceField(choices=TIES, default="drop",
                                   help_text="drop: tie pairs left out; margin: left out too, with a margin column")
    min_agreement = serializers.FloatField(required=False, allow_null=True, default=None, min_value=0, max_value=1)


class ExportOutputSerializer(serializers.Serializer):
    folder = serializers.CharField()
    format = serializers.CharField()
    ties = serializers.CharField()
    min_agreement = serializers.FloatField(allow_null=True)
    columns = serializers.ListField(child=serializers.CharField())
    pairs = serializers.IntegerField()
    per_task = serializers.DictField(child=serializers.IntegerField())
    left_out = serializers.DictField(child=serializers.IntegerField())
    files = serializers.IntegerField()
    download = serializers.CharField()


class TrainingExportListApi(APIView):
    """``GET``: the release's finished training exports; ``POST``: start one → 202 with its job (an export asked for
    before is reused, not written again)."""

    permission_classes = [IsCurator]

    @extend_schema(responses=ExportOutputSerializer(many=True))
    def get(self, request, name: str, version: str):
        release = release_get(name=name, version=version, published=True)
        rows = [{**row, "download": request.build_absolute_uri(
            reverse("api-release-training-archive", args=[name, version, row["folder"]]))}
            for row in training_exports(release=release)]
        return Response(ExportOutputSerializer(rows, many=True).data)

    @extend_schema(request=ExportInputSerializer, responses={202: JobOutputSerializer, 503: JOB_NOT_QUEUED})
    def post(self, request, name: str, version: str):
        release = release_get(name=name, version=version, published=True)
        data = ExportInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = training_export_start(release=release, created_by=request.user, **data.validated_data)
        job.refresh_from_db()
        return Response(JobOutputSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class TrainingExportArchiveApi(APIView):
    """One finished training export as a zip (every file under ``NAME-VERSION-FOLDER/``), streamed."""

    permission_classes = [IsCurator]

    @extend_schema(responses={(200, "application/zip"): OpenApiTypes.BINARY})
    def get(self, request, name: str, version: str, folder: str):
        whole = training_export_archive(release=release_get(name=name, version=version, published=True), folder=folder)
        return streaming_response(name=whole.name, sha256="", size=None, chunks=whole.chunks)
