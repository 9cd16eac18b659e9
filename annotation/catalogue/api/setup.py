"""Setting up campaigns, members and accounts over the API: the console's setup pages and commands, as endpoints."""

from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.models import Role
from annotation.accounts.services.accounts import (
    account_role_check,
    invitation_accept,
    invitation_reissue,
    user_create,
    user_invite,
    user_set_role,
)
from annotation.catalogue.models import Campaign
from annotation.catalogue.selectors import campaign_overlap_change
from annotation.catalogue.services.campaigns import campaign_create, campaign_members_change, campaign_update
from core.api.permissions import IsCurator
from core.errors import ApplicationError


@extend_schema_serializer(component_name="CampaignSetupOutput")
class CampaignOutputSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    kind = serializers.CharField()
    status = serializers.CharField()
    schema = serializers.SerializerMethodField()
    schema_definition = serializers.JSONField(source="rating_schema.definition")
    overlap = serializers.IntegerField()
    gold_rate = serializers.FloatField()
    lease_minutes = serializers.IntegerField()
    lease_max_minutes = serializers.IntegerField(allow_null=True)
    requires_prefilter = serializers.BooleanField()
    requires_full_playback = serializers.BooleanField()
    prefilter_rule = serializers.JSONField()
    instructions = serializers.CharField()
    members = serializers.SerializerMethodField()

    def get_schema(self, campaign) -> str:
        return str(campaign.rating_schema)

    def get_members(self, campaign) -> list[str]:
        return sorted(campaign.members.values_list("username", flat=True))


class _CampaignSettings(serializers.Serializer):
    name = serializers.CharField(required=False, allow_blank=True, max_length=200)
    preset = serializers.CharField(required=False, allow_blank=True)
    schema_definition = serializers.JSONField(required=False)
    overlap = serializers.IntegerField(required=False)
    gold_rate = serializers.FloatField(required=False)
    lease_minutes = serializers.IntegerField(required=False)
    lease_max_minutes = serializers.IntegerField(
        required=False, allow_null=True,
        help_text="How long a lease may last in all from its claim, however often an active tab renews it (minutes, "
        "from lease_minutes up); null: 4 × lease_minutes.",
    )
    requires_prefilter = serializers.BooleanField(required=False)
    requires_full_playback = serializers.BooleanField(
        required=False, help_text="Refuse a submission until each recording was played to the end (98 %); audio and video kinds."
    )
    prefilter_rule = serializers.JSONField(required=False)
    instructions = serializers.CharField(required=False, allow_blank=True)
    status = serializers.CharField(required=False)


class CampaignCreateApi(APIView):
    """Create a campaign; the same checks as `manage.py create_campaign` (nothing is written when one fails)."""

    permission_classes = [IsCurator]

    @extend_schema_serializer(component_name="CampaignCreateInput")
    class InputSerializer(_CampaignSettings):
        slug = serializers.CharField(max_length=100)
        kind = serializers.CharField()

    @extend_schema(request=InputSerializer, responses={201: CampaignOutputSerializer})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = {k: v for k, v in data.validated_data.items() if v is not None}
        values["preset"] = values.get("preset") or None
        campaign = campaign_create(**values)
        return Response(CampaignOutputSerializer(campaign).data, status=status.HTTP_201_CREATED)


class CampaignUpdateApi(APIView):
    """Change a campaign's settings. A new overlap is for pairs imported from now on, unless ``apply_to_existing``;
    ``overlap_change`` says how many existing pairs it changed, or would have changed (``applied`` false)."""

    permission_classes = [IsCurator]

    @extend_schema_serializer(component_name="CampaignUpdateInput")
    class InputSerializer(_CampaignSettings):
        apply_to_existing = serializers.BooleanField(
            required=False, default=False,
            help_text="A new overlap applies to the pairs already imported too (not to those a curator adjudicates).")

    @extend_schema_serializer(component_name="CampaignUpdateOutput")
    class OutputSerializer(CampaignOutputSerializer):
        class OverlapChangeSerializer(serializers.Serializer):
            before = serializers.IntegerField()
            after = serializers.IntegerField()
            pairs = serializers.IntegerField(help_text="Existing pairs whose required count the new overlap changes.")
            requeued = serializers.IntegerField(help_text="Of those, complete pairs that go back to the queue.")
            completed = serializers.IntegerField(help_text="Of those, queued pairs that become complete.")
            applied = serializers.BooleanField()

        overlap_change = OverlapChangeSerializer(allow_null=True)

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def post(self, request, slug: str):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        values["preset"] = values.get("preset") or None
        campaign = get_object_or_404(Campaign, slug=slug)
        before, change = campaign.overlap, None
        if values.get("overlap", before) != before or values["apply_to_existing"]:
            after = values.get("overlap", before)
            change = {**campaign_overlap_change(campaign=campaign, overlap=after), "before": before, "after": after,
                      "applied": values["apply_to_existing"]}
        campaign = campaign_update(campaign=campaign, **values)
        return Response({**CampaignOutputSerializer(campaign).data, "overlap_change": change})


class CampaignMembersApi(APIView):
    """Add and remove members by username; an unknown username changes nothing (404 naming it)."""

    permission_classes = [IsCurator]

    @extend_schema_serializer(component_name="CampaignMembersInput")
    class InputSerializer(serializers.Serializer):
        add = serializers.ListField(child=serializers.CharField(), required=False, default=list)
        remove = serializers.ListField(child=serializers.CharField(), required=False, default=list)

    @extend_schema_serializer(component_name="CampaignMembersOutput")
    class OutputSerializer(serializers.Serializer):
        added = serializers.ListField(child=serializers.CharField())
        removed = serializers.ListField(child=serializers.CharField())
        members = serializers.ListField(child=serializers.CharField())

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def post(self, request, slug: str):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        change = campaign_members_change(campaign=get_object_or_404(Campaign, slug=slug), **data.validated_data)
        return Response(change.as_dict())


class UserCreateApi(APIView):
    """Create an account: with a password, or (without one) with a single-use invitation link returned once.

    Curators create annotators; admins any role.
    """

    permission_classes = [IsCurator]

    @extend_schema_serializer(component_name="UserCreateInput")
    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        role = serializers.CharField(default=Role.ANNOTATOR)
        email = serializers.CharField(required=False, allow_blank=True, default="")
        password = serializers.CharField(required=False, write_only=True, trim_whitespace=False)
        expires_hours = serializers.IntegerField(required=False, default=72)

    @extend_schema_serializer(component_name="UserCreateOutput")
    class OutputSerializer(serializers.Serializer):
        username = serializers.CharField()
        role = serializers.CharField()
        email = serializers.CharField()
        password_set = serializers.BooleanField()
        invitation_url = serializers.CharField(required=False)
        invitation_expires_at = serializers.DateTimeField(required=False)

    @extend_schema(request=InputSerializer, responses={201: OutputSerializer})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        account_role_check(actor=request.user, role=values["role"])
        out = {"role": values["role"], "email": values["email"]}
        if values.get("password"):
            user = user_create(username=values["username"], password=values["password"], role=values["role"],
                               email=values["email"])
            out.update(password_set=True)
        else:
            user, issued = user_invite(username=values["username"], role=values["role"], email=values["email"],
                                       created_by=request.user, hours=values["expires_hours"])
            out.update(password_set=False,
                       invitation_url=request.build_absolute_uri(reverse("invitation-accept", args=[issued.token])),
                       invitation_expires_at=issued.invitation.expires_at)
        return Response(self.OutputSerializer({**out, "username": user.username}).data, status=status.HTTP_201_CREATED)


class UserRoleApi(APIView):
    """Change an account's role (admins only)."""

    permission_classes = [IsCurator]

    @extend_schema_serializer(component_name="UserRoleInput")
    class InputSerializer(serializers.Serializer):
        role = serializers.CharField()

    @extend_schema(request=InputSerializer, responses={200: None})
    def post(self, request, username: str):
        if not request.user.is_admin_role:
            raise ApplicationError("only admins change roles", code="admin_only", status_code=403)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = user_set_role(user=get_object_or_404(get_user_model(), username=username), role=data.validated_data["role"])
        return Response({"username": user.username, "role": user.role})


class UserInviteApi(APIView):
    """A new single-use link for an existing account, returned once; earlier links stop working. Curators renew the
    links of annotators who never set a password; a link for an account in use is for admins only (403
    ``account_in_use`` for curators), and recorded."""

    permission_classes = [IsCurator]

    @extend_schema_serializer(component_name="UserInviteOutput")
    class OutputSerializer(serializers.Serializer):
        username = serializers.CharField()
        invitation_url = serializers.CharField()
        invitation_expires_at = serializers.DateTimeField()

    @extend_schema(request=None, responses=OutputSerializer)
    def post(self, request, username: str):
        user = get_object_or_404(get_user_model(), username=username)
        issued = invitation_reissue(user=user, actor=request.user)
        return Response(self.OutputSerializer({
            "username": user.username, "invitation_expires_at": issued.invitation.expires_at,
            "invitation_url": request.build_absolute_uri(reverse("invitation-accept", args=[issued.token])),
        }).data)


class InvitationAcceptApi(APIView):
    """Set an invited account's password with the link's token; the token then stops working."""

    permission_classes = [AllowAny]
    authentication_classes = []

    @extend_schema_serializer(component_name="InvitationAcceptInput")
    class InputSerializer(serializers.Serializer):
        token = serializers.CharField(max_length=200)
        password = serializers.CharField(trim_whitespace=False)
        password_again = serializers.CharField(trim_whitespace=False)

    @extend_schema(request=InputSerializer, responses={200: None})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = invitation_accept(**data.validated_data)
        return Response({"username": user.username})
