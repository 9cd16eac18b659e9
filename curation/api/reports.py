"""The curator's queue of raters' reports on pairs, and the answer to one (curators and admins only: ``IsCurator``)."""

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.workqueue.models import PairReport
from core.api.permissions import IsCurator
from curation.api.console import campaign_or_404
from curation.selectors.reports import REPORTS_PAGE, pair_report_row, pair_reports_list
from curation.services.reports import REPORT_ACTIONS, REPORT_ANSWER_MAX, pair_report_answer


@extend_schema_serializer(component_name="PairReportRow")
class ReportRowSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    campaign = serializers.CharField()
    pair = serializers.IntegerField()
    pair_external_id = serializers.CharField()
    pair_status = serializers.CharField()
    prompt = serializers.CharField(help_text="The prompt's first text, at most 200 characters.")
    reporter = serializers.CharField(help_text="The rater's pseudonymous id in this campaign (never the username).")
    reason = serializers.ChoiceField(choices=PairReport.Reason.choices)
    note = serializers.CharField()
    status = serializers.ChoiceField(choices=PairReport.Status.choices)
    answer = serializers.CharField()
    action = serializers.ChoiceField(choices=PairReport.Action.choices)
    created_at = serializers.DateTimeField()
    answered_at = serializers.DateTimeField(allow_null=True)


class PairReportListApi(APIView):
    """Raters' reports, oldest first: open ones unless ``status`` says otherwise (``all`` for every status), of one
    campaign with ``campaign``; at most 200."""

    permission_classes = [IsCurator]

    class FilterSerializer(serializers.Serializer):
        campaign = serializers.SlugField(required=False, max_length=100)
        status = serializers.ChoiceField(choices=[*PairReport.Status.values, "all"], required=False,
                                         default=PairReport.Status.OPEN)

        def to_internal_value(self, data):
            # A parameter given empty (``?campaign=``) is refused, not read as left out, as DRF reads a form's blank.
            blank = {name: ["This field may not be blank."] for name in self.fields if data.get(name, None) == ""}
            if blank:
                raise serializers.ValidationError(blank)
            return super().to_internal_value(data)

    @extend_schema(parameters=[FilterSerializer], responses=ReportRowSerializer(many=True))
    def get(self, request):
        query = self.FilterSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        slug = query.validated_data.get("campaign")
        wanted = query.validated_data["status"]
        rows = pair_reports_list(campaign=campaign_or_404(slug) if slug else None,
                                 status=None if wanted == "all" else wanted, limit=REPORTS_PAGE)
        return Response(ReportRowSerializer(rows, many=True).data)


class PairReportAnswerApi(APIView):
    """Answer a report (the rater sees it in My work); ``action`` ``exclude`` excludes the pair as the console's
    exclude does, ``fixed`` marks it put right; either closes the report."""

    permission_classes = [IsCurator]

    class ReportAnswerInputSerializer(serializers.Serializer):
        # Checked by the service, whose refusals name the limit and the known actions.
        answer = serializers.JSONField(required=False, default="",
                                       help_text=f"At most {REPORT_ANSWER_MAX} characters; required without an action.")
        action = serializers.JSONField(required=False, default="none", help_text=f"One of: {', '.join(REPORT_ACTIONS)}.")

    @extend_schema(request=ReportAnswerInputSerializer, responses=ReportRowSerializer)
    def post(self, request, report_id: int):
        data = self.ReportAnswerInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        report = pair_report_answer(report_id=report_id, answer=data.validated_data["answer"],
                                    action=data.validated_data["action"], actor=request.user)
        return Response(ReportRowSerializer(pair_report_row(report_id=report.pk)).data)
