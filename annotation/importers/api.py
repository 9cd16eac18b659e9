from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.catalogue.models import TaskKind
from annotation.catalogue.records import PROMPT_KEYS
from annotation.catalogue.schemas import PRESETS
from annotation.catalogue.services.sources import source_info_from_options
from annotation.importers import FORMATS
from annotation.importers.selectors import import_job_errors, import_job_get
from annotation.importers.services import import_job_create
from annotation.jobs.api import JobOutputSerializer
from annotation.jobs.models import Job
from core.api.permissions import IsCurator
from core.api.schema import JOB_NOT_QUEUED
from core.web.hostile_input import StrictFormParser, StrictMultiPartParser


@extend_schema_field(OpenApiTypes.BINARY)
class UploadField(serializers.FileField):
    """A file sent as a multipart part; the schema says binary (a FileField alone reads as a URI, its answer side)."""


class ImportCreateApi(APIView):
    """Upload a file to import (.jsonl, .json, or .zip with the media); it runs as a background job."""

    permission_classes = [IsCurator]
    parser_classes = [StrictMultiPartParser, StrictFormParser]

    @extend_schema_serializer(component_name="ImportUpload")
    class InputSerializer(serializers.Serializer):
        file = UploadField()
        campaign = serializers.SlugField(max_length=100)
        format = serializers.ChoiceField(choices=sorted(FORMATS))
        task = serializers.ChoiceField(choices=TaskKind.values, required=False, allow_blank=True)
        schema = serializers.ChoiceField(choices=PRESETS, required=False, allow_blank=True)
        with_annotations = serializers.BooleanField(default=False)
        strict = serializers.BooleanField(default=False)
        prompt_key = serializers.ChoiceField(
            choices=PROMPT_KEYS, default="id",
            help_text="id: a row whose prompt key names a prompt with other content is refused; content: both kept.",
        )
        source_name = serializers.CharField(max_length=100, required=False, allow_blank=True)
        source_title = serializers.CharField(max_length=200, required=False, allow_blank=True)
        source_license = serializers.CharField(max_length=64, required=False, allow_blank=True)
        source_url = serializers.CharField(max_length=500, required=False, allow_blank=True)
        source_citation = serializers.CharField(max_length=20_000, required=False, allow_blank=True)

    @extend_schema(request={"multipart/form-data": InputSerializer},
                   responses={202: JobOutputSerializer, 503: JOB_NOT_QUEUED})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        source = source_info_from_options(
            name=values.get("source_name", ""), title=values.get("source_title", ""),
            license=values.get("source_license", ""), url=values.get("source_url", ""),
            citation=values.get("source_citation", ""),
        )
        job = import_job_create(
            user=request.user,
            upload=data.validated_data["file"],
            campaign_slug=data.validated_data["campaign"],
            fmt=data.validated_data["format"],
            task=data.validated_data.get("task") or None,
            schema=data.validated_data.get("schema") or None,
            with_annotations=data.validated_data["with_annotations"],
            strict=data.validated_data["strict"],
            prompt_key=data.validated_data["prompt_key"],
            source=source,
        )
        return Response(JobOutputSerializer(job).data, status=status.HTTP_202_ACCEPTED)


@extend_schema_serializer(component_name="ImportRowError")
class ImportRowErrorSerializer(serializers.Serializer):
    line = serializers.IntegerField(help_text="Where the row starts in the file (0: the file itself).")
    message = serializers.CharField()


class ImportErrorsApi(APIView):
    """One import's outcome and its row errors, each with its line in the file, a page at a time (offset, limit)."""

    permission_classes = [IsCurator]
    class QuerySerializer(serializers.Serializer):
        offset = serializers.IntegerField(min_value=0, default=0)
        limit = serializers.IntegerField(min_value=1, max_value=1000, default=100)

    @extend_schema_serializer(component_name="ImportErrorsPage")
    class OutputSerializer(serializers.Serializer):
        job = serializers.IntegerField()
        status = serializers.ChoiceField(choices=Job.Status.choices)
        summary = serializers.CharField(allow_blank=True, help_text="\"800 of 1,000 rows imported …\", when it ran.")
        error = serializers.CharField(allow_blank=True, help_text="Why a failed import imported nothing.")
        count = serializers.IntegerField(help_text="Errors stored (at most 1,001: the last then counts the rest).")
        offset = serializers.IntegerField()
        errors = ImportRowErrorSerializer(many=True)

    @extend_schema(parameters=[QuerySerializer], responses=OutputSerializer)
    def get(self, request, job_id: int):
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        offset, limit = query.validated_data["offset"], query.validated_data["limit"]
        job = import_job_get(job_id=job_id)
        errors = import_job_errors(job=job)
        return Response(self.OutputSerializer({
            "job": job.pk, "status": job.status, "summary": (job.result or {}).get("summary", ""), "error": job.error,
            "count": len(errors), "offset": offset, "errors": errors[offset:offset + limit],
        }).data)


urlpatterns = [
    path("", ImportCreateApi.as_view(), name="api-import-create"),
    path("<int:job_id>/errors/", ImportErrorsApi.as_view(), name="api-import-errors"),
]
