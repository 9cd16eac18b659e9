"""Pages of the workspace area."""

urlpatterns = []
