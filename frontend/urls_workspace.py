"""Pages of the workspace area: the annotator's campaigns, queues, the annotation page and their record."""

from django.urls import path

from frontend.views import workspace

urlpatterns = [
    path("work/", workspace.CampaignListView.as_view(), name="workspace-campaigns"),
    path("work/me/", workspace.MyWorkView.as_view(), name="workspace-me"),
    path("work/campaigns/<slug:slug>/", workspace.QueueView.as_view(), name="workspace-queue"),
    path("work/campaigns/<slug:slug>/next/", workspace.NextPairView.as_view(), name="workspace-next"),
    path("work/assignments/<int:assignment_id>/", workspace.AnnotateView.as_view(), name="workspace-annotate"),
    path("work/assignments/<int:assignment_id>/review/", workspace.ReviewView.as_view(), name="workspace-review"),
    path("work/assignments/<int:assignment_id>/thread/", workspace.ThreadPostView.as_view(), name="workspace-thread"),
]
