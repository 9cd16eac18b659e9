from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.generics import get_object_or_404
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.jobs.models import JOB_COMPLETED, Job
from annotation.jobs.services import job_cancel, job_unit
from core.api.permissions import IsCurator


class JobOutputSerializer(serializers.ModelSerializer):
    campaign = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    percent = serializers.SerializerMethodField()
    unit = serializers.SerializerMethodField()

    class Meta:
        model = Job
        fields = ["id", "kind", "campaign", "status", "progress_done", "progress_total", "unit", "percent", "result",
                  "error", "params", "created_at", "started_at", "finished_at"]

    def get_unit(self, job) -> str:
        """What progress_done and progress_total count: bytes, verdicts, steps, pairs, rows or resamples."""
        return job_unit(job.kind)

    def get_percent(self, job) -> float | None:
        if not job.progress_total:
            return 100.0 if job.status in JOB_COMPLETED else None
        return round(100.0 * min(job.progress_done, job.progress_total) / job.progress_total, 1)


class JobDetailApi(APIView):
    """A background job's status and live progress (polled by the pages' progress bars)."""

    permission_classes = [IsCurator]

    @extend_schema(responses=JobOutputSerializer)
    def get(self, request, job_id: int):
        return Response(JobOutputSerializer(get_object_or_404(Job, pk=job_id)).data)


class JobCancelApi(APIView):
    permission_classes = [IsCurator]

    @extend_schema(request=None, responses=JobOutputSerializer)
    def post(self, request, job_id: int):
        get_object_or_404(Job, pk=job_id)
        return Response(JobOutputSerializer(job_cancel(job_id=job_id)).data)
