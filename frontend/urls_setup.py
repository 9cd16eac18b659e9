"""Pages where curators set up campaigns, members and judges, and admins manage accounts (no /admin/ needed)."""

from django.urls import path

from frontend.views import setup

urlpatterns = [
    path("console/campaigns/new/", setup.CampaignCreateView.as_view(), name="console-campaign-new"),
    path("console/campaigns/<slug:slug>/settings/", setup.CampaignSettingsView.as_view(), name="console-campaign-settings"),
    path("console/campaigns/<slug:slug>/members/", setup.CampaignMembersView.as_view(), name="console-campaign-members"),
    path("console/preview/form/", setup.SchemaPreviewView.as_view(), name="console-preview-form"),
    path("console/preview/markdown/", setup.MarkdownPreviewView.as_view(), name="console-preview-markdown"),
    path("console/people/", setup.PeopleView.as_view(), name="console-people"),
    path("console/people/<int:user_id>/<slug:action>/", setup.PersonActionView.as_view(), name="console-person-action"),
    path("console/judges/", setup.JudgesView.as_view(), name="console-judges"),
    path("console/judges/<slug:name>/<slug:action>/", setup.JudgeActionView.as_view(), name="console-judge-action"),
]
