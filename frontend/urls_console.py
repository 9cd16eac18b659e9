"""Pages of the console area."""

urlpatterns = []
