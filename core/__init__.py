"""The shared base every app builds on: the one error type, API plumbing, web hardening, CLI helpers.

Owns: ``ApplicationError`` (``core.errors``), the database cache's table and the Redis-or-database cache
(``core.cache``), the queue names (``core.queues``), DRF's exception handler, the curator permission, the OpenAPI
post-processing hook, the ``field__any`` lookup, psycopg's timestamp loader, rows read off the ORM (``core.rows``),
the serial planner (``core.planner``), the middleware (``core.web``: CSP, hostile input, upload limits,
proxies), text checks, kombu's filesystem transport, object-store set-up, the ``serve`` and ``storage_init``
commands, and the terminal helpers of management commands (``core.cli``).

May import: Django, DRF and the libraries only; nothing here imports another Concord package.
"""
