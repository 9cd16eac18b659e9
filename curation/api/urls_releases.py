"""API routes of the releases area."""

urlpatterns = []
