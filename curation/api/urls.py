"""Curator endpoints; each sub-domain adds its own module of routes here."""

urlpatterns = []
