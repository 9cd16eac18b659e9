"""The catalogue's part of management commands: a campaign named on the command line."""

from django.core.management.base import CommandError

from annotation.catalogue.models import Campaign


def campaign_named(slug: str) -> Campaign:
    """The campaign ``slug`` for a command, or a CommandError saying it does not exist."""
    found = Campaign.objects.filter(slug=slug).first()
    if found is None:
        raise CommandError(f"campaign {slug!r} does not exist")
    return found
