"""Pages of the imports area."""

urlpatterns = []
