"""Admin registrations of the curation app, one module per area."""

from curation import admin_judges  # noqa: F401
