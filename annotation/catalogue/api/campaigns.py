from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.catalogue.selectors import campaigns_for_user


class CampaignListApi(APIView):
    """The campaigns the caller may work on (curators see all)."""

    throttle_scope = "rater-read"

    class OutputSerializer(serializers.Serializer):
        slug = serializers.CharField()
        name = serializers.CharField()
        kind = serializers.CharField()
        status = serializers.CharField()
        overlap = serializers.IntegerField()
        instructions = serializers.CharField()

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request):
        campaigns = campaigns_for_user(user=request.user)
        return Response(self.OutputSerializer(campaigns, many=True).data)
