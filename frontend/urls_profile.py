"""Pages of the rater profile, the crowd entry link, and the console's profile, crowd-link and hours page."""

from django.urls import path

from frontend.views import profile

urlpatterns = [
    path("work/campaigns/<slug:slug>/profile/", profile.ProfileView.as_view(), name="workspace-profile"),
    path("crowd/<str:token>/", profile.CrowdEntryView.as_view(), name="crowd-entry"),
    path("console/campaigns/<slug:slug>/profile/", profile.CampaignProfileSetupView.as_view(),
         name="console-campaign-profile"),
    path("console/campaigns/<slug:slug>/hours.csv", profile.CampaignHoursCsvView.as_view(), name="console-campaign-hours"),
]
