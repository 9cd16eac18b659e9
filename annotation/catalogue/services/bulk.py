"""Fast inserts for large imports: COPY with pre-allocated ids on PostgreSQL, bulk_create elsewhere.

The ORM's bulk_create spends most of its time preparing each value; COPY streams rows to the
server as they are. Ids come from the table's own sequence first, so callers can link rows
(pairs to responses, media links to pairs) without reading anything back. Fields a caller does
not give get their model default, as bulk_create would, so a field added later needs no change here.
"""

from __future__ import annotations

import datetime
import functools
import json
from collections.abc import Sequence

import orjson
from django.db import connection, models
from django.utils import timezone
from psycopg import sql

USE_COPY = True


class Json(str):
    """JSON text encoded ahead (by the import's reader, on its own core): written to a JSON column as it is."""

    __slots__ = ()

    @classmethod
    def of(cls, value) -> Json:
        return cls(_json(value))


def insert_returning_ids(model: type[models.Model], columns: Sequence[str], rows: Sequence[tuple]) -> list[int]:
    """Insert ``rows`` (values in ``columns`` order, attribute names such as ``prompt_id``); their new ids in order.

    Precondition: every value is already valid for its column (the caller validated it); no model
    ``save()`` logic or signal runs. Runs inside the caller's transaction.
    """
    if not rows:
        return []
    if not _copy_available():
        objects = [model(**dict(zip(columns, _decoded(row), strict=True))) for row in rows]
        model.objects.bulk_create(objects)
        return [obj.pk for obj in objects]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
            [model._meta.db_table, len(rows)],
        )
        ids = [row[0] for row in cursor.fetchall()]
        _copy(cursor, model, ["id", *columns], ((pk, *row) for pk, row in zip(ids, rows, strict=True)))
    return ids


def insert(model: type[models.Model], columns: Sequence[str], rows: Sequence[tuple]) -> None:
    """Insert ``rows`` whose ids the database assigns (link tables); nothing is returned."""
    if not rows:
        return
    if not _copy_available():
        model.objects.bulk_create([model(**dict(zip(columns, _decoded(row), strict=True))) for row in rows])
        return
    with connection.cursor() as cursor:
        _copy(cursor, model, list(columns), rows)


def insert_ignoring_conflicts(model: type[models.Model], columns: Sequence[str], rows: Sequence[tuple]) -> None:
    """Insert ``rows`` and skip those a unique constraint already holds (another import stored them first).

    On PostgreSQL the rows travel as one JSON parameter (``jsonb_populate_recordset``), which
    costs the client a fraction of ``bulk_create``'s per-value preparation.
    """
    if not rows:
        return
    if not _copy_available():
        model.objects.bulk_create([model(**dict(zip(columns, _decoded(row), strict=True))) for row in rows],
                                  ignore_conflicts=True)
        return
    fields = {f.attname: f for f in model._meta.concrete_fields}
    defaults = _defaults(fields, columns)
    names = [*columns, *defaults]
    tail = tuple(defaults.values())
    records = [dict(zip(names, (*row, *tail), strict=True)) for row in rows]
    table = sql.Identifier(model._meta.db_table)
    listed = sql.SQL(", ").join(sql.Identifier(fields[n].column) for n in names)
    statement = sql.SQL(
        "INSERT INTO {table} ({columns}) SELECT {columns} FROM jsonb_populate_recordset(NULL::{table}, %s::jsonb) "
        "ON CONFLICT DO NOTHING"
    ).format(table=table, columns=listed)
    with connection.cursor() as cursor:
        cursor.execute(statement.as_string(cursor.cursor), [_json(records)])


def _defaults(fields: dict, columns: Sequence[str]) -> dict:
    """The value each field not in ``columns`` gets, as bulk_create would give it (timestamps: now)."""
    now = timezone.now()
    return {
        name: now if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False) else field.get_default()
        for name, field in fields.items()
        if name not in columns and not field.primary_key
    }


def _copy_available() -> bool:
    return USE_COPY and connection.vendor == "postgresql"


def _copy(cursor, model: type[models.Model], columns: list[str], rows) -> None:
    fields = {f.attname: f for f in model._meta.concrete_fields}
    defaults = _defaults(fields, columns)
    names = [*columns, *defaults]
    formats = [_formatter(fields[name]) for name in columns]
    # the defaults are the same on every row: formatted once
    tail = "".join("\t" + _formatter(fields[name])(value) for name, value in defaults.items())
    statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
        sql.Identifier(model._meta.db_table), sql.SQL(", ").join(sql.Identifier(fields[n].column) for n in names)
    )
    with connection.wrap_database_errors, cursor.cursor.copy(statement) as copy:
        lines = []
        for row in rows:
            lines.append("\t".join([fmt(value) for fmt, value in zip(formats, row, strict=True)]) + tail)
            if len(lines) == COPY_CHUNK_ROWS:
                copy.write("\n".join(lines) + "\n")
                lines = []
        if lines:
            copy.write("\n".join(lines) + "\n")


# COPY's text format, written here: psycopg's per-row writer cost the import more than the rows' own checks
COPY_CHUNK_ROWS = 1000


def _formatter(field: models.Field):
    return _json_field if isinstance(field, models.JSONField) else _text_field


def _text_field(value) -> str:
    kind = type(value)
    if kind is int:
        return str(value)
    if kind is str:
        return _escaped(value)
    if value is None:
        return "\\N"
    if kind is bool:
        return "t" if value else "f"
    if isinstance(value, datetime.datetime):
        return _timestamp(value)
    return _escaped(str(value))


@functools.lru_cache(maxsize=8)
def _timestamp(value: datetime.datetime) -> str:
    """A batch stamps every row with the same time: formatted once."""
    return value.isoformat()


def _json_field(value) -> str:
    if value is None:
        return "\\N"
    return _escaped(value if isinstance(value, Json) else _json(value))


def _escaped(text: str) -> str:
    """``text`` as one field of COPY's text format: backslash, tab, newline and carriage return escaped."""
    if "\\" in text or "\t" in text or "\n" in text or "\r" in text:
        return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
    return text


def _json(value) -> str:
    """``value`` as JSON text; orjson for speed, the standard library for what orjson refuses (integers over 64 bits)."""
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _decoded(row: tuple) -> tuple:
    """``row`` with text encoded ahead turned back into values, for the ORM's own inserts."""
    return tuple(json.loads(value) if isinstance(value, Json) else value for value in row)
