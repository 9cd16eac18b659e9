"""Judges for curators: list, read, create, update, delete. Secrets are shown by variable name only."""

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.permissions import IsCurator
from curation.judges import registry
from curation.judges.base import looks_secret
from curation.models import Judge, JudgeVerdict
from curation.selectors.judges import judge_get, judges_list
from curation.services.judges import judge_create, judge_delete, judge_test, judge_update


@extend_schema_serializer(component_name="JudgeOutput")
class JudgeOutputSerializer(serializers.ModelSerializer):
    settings = serializers.SerializerMethodField()
    secrets = serializers.SerializerMethodField()

    class Meta:
        model = Judge
        fields = ["name", "backend", "enabled", "settings", "secrets", "created_at"]

    def get_settings(self, judge) -> dict:
        # Validation refuses literal secrets; anything secret-looking that got in some other way stays hidden.
        return {k: ("[hidden]" if looks_secret(k) else v) for k, v in (judge.settings or {}).items()}

    def get_secrets(self, judge) -> dict:
        return registry.secret_status(judge.settings or {})


class JudgeListApi(APIView):
    permission_classes = [IsCurator]

    @extend_schema(operation_id="v1_judges_list", responses=JudgeOutputSerializer(many=True))
    def get(self, request):
        return Response(JudgeOutputSerializer(judges_list(), many=True).data)


class JudgeDetailApi(APIView):
    permission_classes = [IsCurator]

    @extend_schema(operation_id="v1_judges_retrieve", responses=JudgeOutputSerializer)
    def get(self, request, name: str):
        return Response(JudgeOutputSerializer(judge_get(name=name)).data)


class JudgeCreateApi(APIView):
    """Configure a judge; settings name environment variables for secrets (``api_key_env``)."""

    permission_classes = [IsCurator]

    @extend_schema_serializer(component_name="JudgeCreateInput")
    class InputSerializer(serializers.Serializer):
        name = serializers.SlugField(max_length=100)
        backend = serializers.ChoiceField(choices=Judge.Backend.choices)
        settings = serializers.DictField(required=False, default=dict)
        enabled = serializers.BooleanField(required=False, default=True)

    @extend_schema(request=InputSerializer, responses={201: JudgeOutputSerializer})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        judge = judge_create(user=request.user, **data.validated_data)
        return Response(JudgeOutputSerializer(judge).data, status=status.HTTP_201_CREATED)


class JudgeUpdateApi(APIView):
    permission_classes = [IsCurator]

    @extend_schema_serializer(component_name="JudgeUpdateInput")
    class InputSerializer(serializers.Serializer):
        backend = serializers.ChoiceField(choices=Judge.Backend.choices, required=False)
        settings = serializers.DictField(required=False)
        enabled = serializers.BooleanField(required=False)

    @extend_schema(request=InputSerializer, responses=JudgeOutputSerializer)
    def post(self, request, name: str):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        judge = judge_update(judge=judge_get(name=name), user=request.user, **data.validated_data)
        return Response(JudgeOutputSerializer(judge).data)


class JudgeDeleteApi(APIView):
    permission_classes = [IsCurator]

    @extend_schema(request=None, responses={204: OpenApiResponse(description="The judge is gone.")})
    def post(self, request, name: str):
        judge_delete(judge=judge_get(name=name))
        return Response(status=status.HTTP_204_NO_CONTENT)


class JudgeTestApi(APIView):
    """Call a judge once on one pair: its raw answer and parsed verdict. Nothing is stored."""

    permission_classes = [IsCurator]

    @extend_schema_serializer(component_name="JudgeTestInput")
    class InputSerializer(serializers.Serializer):
        pair = serializers.IntegerField(min_value=1)
        order = serializers.ChoiceField(choices=JudgeVerdict.Order.choices, default=JudgeVerdict.Order.FORWARD)

    @extend_schema_serializer(component_name="JudgeTestOutput")
    class OutputSerializer(serializers.Serializer):
        judge = serializers.CharField()
        pair_id = serializers.IntegerField()
        order = serializers.CharField()
        shown_label = serializers.CharField()
        verdict = serializers.CharField()
        score = serializers.FloatField(allow_null=True)
        confidence = serializers.FloatField(allow_null=True)
        raw_output = serializers.CharField(allow_blank=True)
        error = serializers.CharField(allow_blank=True)
        latency_ms = serializers.IntegerField(allow_null=True)
        attempts = serializers.IntegerField()

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def post(self, request, name: str):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        trial = judge_test(judge=judge_get(name=name), pair_id=data.validated_data["pair"],
                           order=data.validated_data["order"])
        return Response(self.OutputSerializer(trial.as_dict()).data)
