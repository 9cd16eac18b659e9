"""Catalogue endpoints under /api/v1/: campaigns, their set-up (members, accounts, invitations), imports."""

from django.urls import path

from annotation.catalogue.api import campaigns, setup

urlpatterns = [
    path("campaigns/", campaigns.CampaignListApi.as_view(), name="api-campaign-list"),
    path("campaigns/create/", setup.CampaignCreateApi.as_view(), name="api-campaign-create"),
    path("campaigns/<slug:slug>/update/", setup.CampaignUpdateApi.as_view(), name="api-campaign-update"),
    path("campaigns/<slug:slug>/members/", setup.CampaignMembersApi.as_view(), name="api-campaign-members"),
    path("users/create/", setup.UserCreateApi.as_view(), name="api-user-create"),
    path("users/<str:username>/role/", setup.UserRoleApi.as_view(), name="api-user-role"),
    path("users/<str:username>/invite/", setup.UserInviteApi.as_view(), name="api-user-invite"),
    path("invitations/accept/", setup.InvitationAcceptApi.as_view(), name="api-invitation-accept"),
]
