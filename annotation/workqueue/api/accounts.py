"""Deactivating and reactivating an account over the API, as the console's People page does."""

from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.services.accounts import user_reactivate
from annotation.workqueue.services.accounts import account_deactivate
from core.api.permissions import IsCurator


class UserActiveApi(APIView):
    """``{"active": false}`` deactivates an account (no sign-in, its sessions ended, its live leases released at
    once); ``{"active": true}`` lets it sign in again. Curators for annotators, admins for anyone, nobody for their
    own account (403 ``own_account`` / ``admin_only``). Everything the person did is kept."""

    permission_classes = [IsCurator]

    @extend_schema_serializer(component_name="UserActiveInput")
    class InputSerializer(serializers.Serializer):
        active = serializers.BooleanField()

    @extend_schema_serializer(component_name="UserActiveOutput")
    class OutputSerializer(serializers.Serializer):
        username = serializers.CharField()
        active = serializers.BooleanField()
        leases_released = serializers.IntegerField(help_text="Live leases given back by this deactivation (0 on "
                                                             "reactivation).")

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def post(self, request, username: str):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = get_object_or_404(get_user_model(), username=username)
        released = 0
        if data.validated_data["active"]:
            user_reactivate(user=user, actor=request.user)
        else:
            released = account_deactivate(user=user, actor=request.user).leases_released
        return Response(self.OutputSerializer(
            {"username": user.username, "active": user.is_active, "leases_released": released}).data)
