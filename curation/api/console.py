"""Curator console API: the funnel, the pair browser, pair detail, curator actions and dashboard figures.

Every endpoint is for curators and admins only (``IsCurator``); annotators get 403.
"""

from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.catalogue.models import Campaign, Pair
from core.api.permissions import IsCurator
from curation.selectors import console as console_selectors
from curation.selectors.dashboards import FIGURES, dashboard_figure
from curation.services import curator_actions


def campaign_or_404(slug: str) -> Campaign:
    return get_object_or_404(Campaign.objects.select_related("rating_schema"), slug=slug)


class CampaignFunnelApi(APIView):
    """Counts for every stage: imported → pre-filtered → annotated → consensus → released."""

    permission_classes = [IsCurator]

    class FunnelOutputSerializer(serializers.Serializer):
        imported = serializers.IntegerField()
        prefilter = serializers.DictField()
        annotation = serializers.DictField()
        consensus = serializers.DictField()
        excluded = serializers.IntegerField()
        adjudication = serializers.IntegerField()
        released = serializers.DictField()
        work = serializers.DictField(help_text="open_leases, and last_24h: claimed, submitted, skipped, expired")

    @extend_schema(responses=FunnelOutputSerializer)
    def get(self, request, slug: str):
        funnel = console_selectors.campaign_funnel(campaign=campaign_or_404(slug))
        return Response(self.FunnelOutputSerializer(funnel).data)


class PairBrowseApi(APIView):
    """One keyset page of a campaign's pairs; follow ``next_cursor`` for the next page (no totals are counted)."""

    permission_classes = [IsCurator]

    class PairFilterSerializer(serializers.Serializer):
        status = serializers.ChoiceField(choices=Pair.Status.choices, required=False)
        source = serializers.CharField(required=False, max_length=100)
        judge_agreement_min = serializers.FloatField(required=False, min_value=0, max_value=1)
        judge_agreement_max = serializers.FloatField(required=False, min_value=0, max_value=1)
        human_agreement_min = serializers.FloatField(required=False, min_value=0, max_value=1)
        human_agreement_max = serializers.FloatField(required=False, min_value=0, max_value=1)
        disputed = serializers.BooleanField(required=False, allow_null=True, default=None)
        gold = serializers.BooleanField(required=False, allow_null=True, default=None)
        sort = serializers.ChoiceField(choices=list(console_selectors.SORTS), required=False, default="id")
        q = serializers.CharField(required=False, allow_blank=True, max_length=console_selectors.MAX_SEARCH,
                                  help_text="Full-text search over the prompts (web-search syntax on PostgreSQL).")
        cursor = serializers.CharField(required=False, max_length=500)
        limit = serializers.IntegerField(required=False, min_value=1, max_value=console_selectors.MAX_PAGE_SIZE,
                                         default=console_selectors.PAGE_SIZE)

    class PairRowSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        external_id = serializers.CharField()
        prompt_text = serializers.CharField(help_text="The prompt's first text block, at most 200 characters.")
        model_a = serializers.CharField()
        model_b = serializers.CharField()
        thumbnail_a = serializers.CharField(allow_null=True, help_text="Media URL of response A's first image or video.")
        thumbnail_b = serializers.CharField(allow_null=True)
        status = serializers.CharField()
        status_reason = serializers.CharField()
        source = serializers.CharField()
        source_task = serializers.CharField()
        priority = serializers.IntegerField()
        annotations_done = serializers.IntegerField()
        required_annotations = serializers.IntegerField()
        is_gold = serializers.BooleanField()
        judge_agreement = serializers.FloatField(allow_null=True)
        human_agreement = serializers.FloatField(allow_null=True)
        consensus = serializers.CharField(allow_null=True)
        chosen = serializers.CharField()
        consensus_reason = serializers.CharField()
        created_at = serializers.DateTimeField()

    class PairPageOutputSerializer(serializers.Serializer):
        results = serializers.ListField(child=serializers.DictField())
        next_cursor = serializers.CharField(allow_null=True)

    @extend_schema(parameters=[PairFilterSerializer], responses=PairPageOutputSerializer)
    def get(self, request, slug: str):
        campaign = campaign_or_404(slug)
        params = self.PairFilterSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        data = dict(params.validated_data)
        cursor, limit = data.pop("cursor", None), data.pop("limit")
        page = console_selectors.pair_browse(
            campaign=campaign, filters=console_selectors.PairFilters(**data), cursor=cursor, limit=limit
        )
        return Response({"results": self.PairRowSerializer(page.rows, many=True).data, "next_cursor": page.next_cursor})


class PairDetailApi(APIView):
    """A pair as curators see it: model names, judge verdicts with raw output, every annotation."""

    permission_classes = [IsCurator]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, pair_id: int):
        detail = console_selectors.pair_detail(pair_id=pair_id)
        pair = detail.pair
        return Response(
            {
                "id": pair.pk,
                "external_id": pair.external_id,
                "campaign": pair.campaign.slug,
                "status": pair.status,
                "status_reason": pair.status_reason,
                "is_gold": pair.is_gold,
                "gold_answer": pair.gold_answer,
                "required_annotations": pair.required_annotations,
                "annotations_done": pair.annotations_done,
                "criteria": pair.criteria,
                "prompt": {"external_id": pair.prompt.external_id, "source": pair.prompt.source,
                           "source_task": pair.prompt.source_task, "content": pair.prompt.content},
                "response_a": {"model_name": pair.response_a.model_name, "content": pair.response_a.content},
                "response_b": {"model_name": pair.response_b.model_name, "content": pair.response_b.content},
                "verdicts": [
                    {"judge": v.judge.name, "order": v.order, "verdict": v.verdict, "score": v.score, "confidence": v.confidence,
                     "raw_output": v.raw_output, "error": v.error, "latency_ms": v.latency_ms}
                    for v in detail.verdicts
                ],
                "verdict_summary": detail.verdict_summary,
                "annotations": [
                    {"id": a["annotation"].pk, "annotator": a["who"], "source": a["annotation"].source,
                     "values": a["annotation"].values, "side": a["side"], "rationale": a["annotation"].rationale,
                     "seconds": a["seconds"], "shown_swapped": a["annotation"].shown_swapped,
                     "created_at": a["annotation"].created_at}
                    for a in detail.annotations
                ],
                "human_summary": detail.human_summary,
                "consensus": (
                    {"decision": detail.consensus.decision, "chosen": detail.consensus.chosen, "reason": detail.consensus.reason,
                     "policy": detail.consensus.policy, "details": detail.consensus.details}
                    if detail.consensus else None
                ),
            }
        )


class PairActionOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    status = serializers.CharField()
    status_reason = serializers.CharField()
    required_annotations = serializers.IntegerField()
    is_gold = serializers.BooleanField()
    gold_answer = serializers.JSONField(allow_null=True)


NOTE = serializers.CharField(required=False, allow_blank=True, default="", max_length=150)


class PairExtendOverlapApi(APIView):
    """Ask for more annotations on a pair (up to the campaign's maximum overlap)."""

    permission_classes = [IsCurator]

    class ExtendOverlapInputSerializer(serializers.Serializer):
        by = serializers.IntegerField(min_value=1, max_value=20, default=1)
        note = NOTE

    @extend_schema(request=ExtendOverlapInputSerializer, responses=PairActionOutputSerializer)
    def post(self, request, pair_id: int):
        data = _valid(self.ExtendOverlapInputSerializer, request)
        pair = curator_actions.pair_extend_overlap(pair_id=pair_id, by=data["by"], note=data["note"], actor=request.user)
        return Response(PairActionOutputSerializer(pair).data)


class PairSendToAdjudicationApi(APIView):
    permission_classes = [IsCurator]

    class AdjudicationInputSerializer(serializers.Serializer):
        note = NOTE

    @extend_schema(request=AdjudicationInputSerializer, responses=PairActionOutputSerializer)
    def post(self, request, pair_id: int):
        data = _valid(self.AdjudicationInputSerializer, request)
        pair = curator_actions.pair_send_to_adjudication(pair_id=pair_id, note=data["note"], actor=request.user)
        return Response(PairActionOutputSerializer(pair).data)


class PairMarkGoldApi(APIView):
    """Make a pair a gold question whose expected answer is ``side``."""

    permission_classes = [IsCurator]

    class MarkGoldInputSerializer(serializers.Serializer):
        side = serializers.ChoiceField(choices=["A", "B"])
        note = NOTE

    @extend_schema(request=MarkGoldInputSerializer, responses=PairActionOutputSerializer)
    def post(self, request, pair_id: int):
        data = _valid(self.MarkGoldInputSerializer, request)
        pair = curator_actions.pair_mark_gold(pair_id=pair_id, side=data["side"], note=data["note"], actor=request.user)
        return Response(PairActionOutputSerializer(pair).data)


class PairUnmarkGoldApi(APIView):
    permission_classes = [IsCurator]

    @extend_schema(request=None, responses=PairActionOutputSerializer)
    def post(self, request, pair_id: int):
        return Response(PairActionOutputSerializer(curator_actions.pair_unmark_gold(pair_id=pair_id, actor=request.user)).data)


class PairExcludeApi(APIView):
    permission_classes = [IsCurator]

    class ExcludeInputSerializer(serializers.Serializer):
        reason = serializers.CharField(max_length=150)

    @extend_schema(request=ExcludeInputSerializer, responses=PairActionOutputSerializer)
    def post(self, request, pair_id: int):
        data = _valid(self.ExcludeInputSerializer, request)
        pair = curator_actions.pair_exclude(pair_id=pair_id, reason=data["reason"], actor=request.user)
        return Response(PairActionOutputSerializer(pair).data)


class PairRestoreApi(APIView):
    """Bring back a pair the pre-filter dropped, or one a curator excluded."""

    permission_classes = [IsCurator]

    class RestoreInputSerializer(serializers.Serializer):
        note = NOTE

    @extend_schema(request=RestoreInputSerializer, responses=PairActionOutputSerializer)
    def post(self, request, pair_id: int):
        data = _valid(self.RestoreInputSerializer, request)
        pair = curator_actions.pair_restore(pair_id=pair_id, note=data["note"], actor=request.user)
        return Response(PairActionOutputSerializer(pair).data)


def _valid(serializer_class, request) -> dict:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


class DashboardFigureApi(APIView):
    """One data-quality figure as rows (the same rows the CSV download holds)."""

    permission_classes = [IsCurator]

    class FigureQuerySerializer(serializers.Serializer):
        campaign = serializers.SlugField(
            required=False, max_length=100, help_text="A campaign slug; all campaigns when left out."
        )

    @extend_schema(
        parameters=[OpenApiParameter("figure", str, OpenApiParameter.PATH, enum=sorted(FIGURES)), FigureQuerySerializer],
        responses=inline_serializer(
            "DashboardFigure",
            {"name": serializers.CharField(), "title": serializers.CharField(),
             "columns": serializers.ListField(child=serializers.CharField()),
             "rows": serializers.ListField(child=serializers.DictField())},
        ),
    )
    def get(self, request, figure: str):
        query = self.FigureQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        slug = query.validated_data.get("campaign", "")
        campaign = campaign_or_404(slug) if slug else None
        result = dashboard_figure(name=figure, campaign=campaign)
        if result is None:
            return Response({"code": "not_found", "message": f"no figure called {figure!r}"}, status=404)
        return Response({"name": result.name, "title": result.title, "columns": list(result.columns), "rows": result.rows})


class AnnotatorRecentWorkApi(APIView):
    """An annotator's latest annotations, with agreement against consensus and gold."""

    permission_classes = [IsCurator]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, user_id: int):
        annotator = get_object_or_404(get_user_model(), pk=user_id)
        return Response(
            {"annotator": annotator.username, "recent": console_selectors.annotator_recent_work(annotator_id=annotator.pk)}
        )
