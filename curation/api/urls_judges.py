"""API routes of the judges area."""

urlpatterns = []
