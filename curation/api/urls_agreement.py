"""API routes of the agreement area."""

urlpatterns = []
