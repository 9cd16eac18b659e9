from django.urls import path
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.jobs import JobOutputSerializer
from annotation.api.permissions import IsCurator
from annotation.importers import FORMATS
from annotation.models import TaskKind
from annotation.schemas import PRESETS
from annotation.services.imports import import_job_create
from config.hostile_input import StrictFormParser, StrictMultiPartParser


class ImportCreateApi(APIView):
    """Upload a file to import (.jsonl, .json, or .zip with the media); it runs as a background job."""

    permission_classes = [IsCurator]
    parser_classes = [StrictMultiPartParser, StrictFormParser]

    @extend_schema_serializer(component_name="ImportUpload")
    class InputSerializer(serializers.Serializer):
        file = serializers.FileField()
        campaign = serializers.SlugField(max_length=100)
        format = serializers.ChoiceField(choices=sorted(FORMATS))
        task = serializers.ChoiceField(choices=TaskKind.values, required=False, allow_blank=True)
        schema = serializers.ChoiceField(choices=PRESETS, required=False, allow_blank=True)
        with_annotations = serializers.BooleanField(default=False)
        strict = serializers.BooleanField(default=False)

    @extend_schema(request={"multipart/form-data": InputSerializer}, responses={202: JobOutputSerializer})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = import_job_create(
            user=request.user,
            upload=data.validated_data["file"],
            campaign_slug=data.validated_data["campaign"],
            fmt=data.validated_data["format"],
            task=data.validated_data.get("task") or None,
            schema=data.validated_data.get("schema") or None,
            with_annotations=data.validated_data["with_annotations"],
            strict=data.validated_data["strict"],
        )
        return Response(JobOutputSerializer(job).data, status=status.HTTP_202_ACCEPTED)


urlpatterns = [path("", ImportCreateApi.as_view(), name="api-import-create")]
