"""Pages of the releases area."""

urlpatterns = []
