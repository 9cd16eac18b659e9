"""Timestamps read from PostgreSQL through psycopg's C loader (core.db_adapters) are what Django's loader gives."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.db.backends.postgresql.psycopg_any import BaseTzLoader
from psycopg.pq import Format

from annotation.workqueue.models import Assignment
from core import db_adapters
from tests.workqueue.assignment_helpers import ab_tie_campaign

SAMPLES = [
    "2026-11-30 15:37:20.123456+00",
    "2026-01-01 00:00:00+00",
    "1999-12-31 23:59:59.999999+00",
    "0001-01-01 00:00:00+00",
    "9999-12-31 23:59:59.999999+00",
    "2026-03-29 01:30:00.5+00",
]


def test_the_c_loader_is_built_into_this_psycopg():
    # psycopg-binary is pinned in requirements.txt; without its C extension the swap is skipped, not broken.
    assert db_adapters.has_c_loader()


@pytest.mark.django_db(transaction=True)
def test_connections_read_timestamps_with_psycopgs_c_loader(postgres_only):
    connection.ensure_connection()
    loader = connection.connection.adapters.get_loader(db_adapters.TIMESTAMPTZ_OID, Format.TEXT)
    assert loader is db_adapters.UTCTimestamptzLoader
    with connection.cursor() as cursor:
        # Django's cursor factory keeps it: it registers its own per cursor only when the time zones differ.
        assert cursor.cursor.adapters.get_loader(db_adapters.TIMESTAMPTZ_OID, Format.TEXT) is db_adapters.UTCTimestamptzLoader


@pytest.mark.django_db(transaction=True)
def test_timestamps_read_are_the_values_djangos_loader_gives(postgres_only):
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(["%s::timestamptz"] * len(SAMPLES)), SAMPLES)
        read = cursor.fetchone()

    class DjangosLoader(BaseTzLoader):
        timezone = UTC

    expected = tuple(DjangosLoader(db_adapters.TIMESTAMPTZ_OID, connection.connection).load(s.encode()) for s in SAMPLES)
    assert read == expected
    assert all(value.tzinfo is UTC for value in read)
    assert read[0] == datetime(2026, 11, 30, 15, 37, 20, 123456, tzinfo=UTC)


@pytest.mark.django_db(transaction=True)
def test_model_datetimes_round_trip(postgres_only):
    campaign, (rater, *_), (pair, *_) = ab_tie_campaign(pairs=1)
    claimed = datetime(2026, 11, 30, 15, 37, 20, 654321, tzinfo=UTC)
    made = Assignment.objects.create(pair=pair, campaign=campaign, annotator=rater, swapped=False, claimed_at=claimed,
                                     expires_at=claimed + timedelta(minutes=30))
    loaded = Assignment.objects.get(pk=made.pk)
    assert (loaded.claimed_at, loaded.expires_at) == (claimed, claimed + timedelta(minutes=30))
    assert loaded.claimed_at.tzinfo is UTC
