"""The shared base every app builds on: the one error type, background jobs, API plumbing, CLI helpers.

Owns: ``ApplicationError`` (``core.errors``), the ``Job`` model and its services (create, dispatch, progress,
reaper's reads), the database cache's table, DRF's exception handler, the curator permission, the OpenAPI
post-processing hook, the ``field__any`` lookup, psycopg's timestamp loader, object-store set-up, the ``serve``
and ``storage_init`` commands, and the terminal helpers of management commands (``core.cli``).

May import: Django, DRF and the libraries only. ``Job`` names a campaign by its label (``annotation.Campaign``),
never by import; nothing here imports another Concord app.
"""
