"""API routes of the console area."""

urlpatterns = []
