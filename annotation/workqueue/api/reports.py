"""A rater reports the pair they are rating as broken: ``POST /api/v1/assignments/<id>/report/``."""

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.workqueue.models import PairReport
from annotation.workqueue.selectors import assignment_for_annotator
from annotation.workqueue.services.reports import REPORT_NOTE_MAX, pair_report_submit


class AssignmentReportApi(APIView):
    """Report the pair as broken, with a reason and a note: the curator gets it, the pair is given back as a skip
    does, and the next claim brings the next pair. 201 with the report; 200 with the same report for a repeat; 409
    ``already_reported`` for a different second report."""

    throttle_scope = "rater-write"

    @extend_schema_serializer(component_name="PairReportInput")
    class InputSerializer(serializers.Serializer):
        # Checked by the service, whose refusal names the known reasons and the note's limit.
        reason = serializers.JSONField(help_text=f"One of: {', '.join(PairReport.Reason.values)}.")
        note = serializers.JSONField(required=False, default="",
                                     help_text=f"What is wrong, at most {REPORT_NOTE_MAX} characters; "
                                               "required for “other”.")

    @extend_schema_serializer(component_name="PairReportOutput")
    class OutputSerializer(serializers.Serializer):
        report = serializers.IntegerField(source="pk")
        assignment = serializers.IntegerField(source="assignment_id")
        reason = serializers.CharField()
        note = serializers.CharField()
        status = serializers.CharField()
        created_at = serializers.DateTimeField()

    @extend_schema(request=InputSerializer,
                   responses={201: OutputSerializer, 200: OpenApiResponse(OutputSerializer, description="A repeat.")})
    def post(self, request, assignment_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        assignment = assignment_for_annotator(assignment_id=assignment_id, annotator=request.user, for_display=False)
        report, created = pair_report_submit(assignment=assignment, annotator=request.user,
                                             reason=data.validated_data["reason"], note=data.validated_data["note"])
        return Response(self.OutputSerializer(report).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)
