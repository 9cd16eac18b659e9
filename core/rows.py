"""Values, or model instances, from one hand-written joined row, through the ORM's own converters.

The work queue's claim and submit run hand-written statements (``annotation/workqueue/sql/*.sql``) instead of compiled
select_related queries (compiling cost more CPU than running them); these helpers read such a row back as the ORM
would: each column through the converters the ORM's compiler applies to it (on SQLite: aware datetimes, booleans
from 0/1; JSON decoded). ``values`` gives them as plain dictionaries (what the claim's display and the submission's
checks read: no instance); ``instances`` as ordinary model instances through ``from_db`` (Django's public
constructor for a row read), fields not read deferred, loading on access as with ``only()``. A part is built on
first use, never at import.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple, TypeVar

import orjson
from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models import JSONField, Model


class Part(NamedTuple):
    """One table of the row: its alias in the SQL, its model, the fields read, their attnames and the converters
    of a value read (None: taken as it is)."""

    alias: str
    model: type[Model]
    fields: list
    attnames: tuple
    converters: tuple


@functools.cache
def part(alias: str, model: type[Model], names: tuple[str, ...] | None = None) -> Part:
    """One table of the row: its alias in the SQL, its model, and the fields read (by attname; all when None)."""
    fields = [f for f in model._meta.concrete_fields if names is None or f.attname in names]
    if names is not None and len(fields) != len(names):
        unknown = set(names) - {f.attname for f in fields}
        raise ValueError(f"{model.__name__} has no column(s) {sorted(unknown)}")
    attnames = tuple(f.attname for f in fields)
    return Part(alias, model, fields, attnames, tuple(_converter(f) for f in fields))


def select_list(parts: Iterable[Part]) -> str:
    """The SELECT list for ``parts``, in the order ``instances`` reads the row."""
    quote = connection.ops.quote_name
    return ", ".join(f"{p.alias}.{quote(f.column)}" for p in parts for f in p.fields)


def values(row: Sequence[Any], parts: Iterable[Part]) -> dict[str, dict[str, Any]]:
    """The values of one row, by alias and attname, each converted as the ORM converts it."""
    read = {}
    at = 0
    for alias, _, _, attnames, converters in parts:
        columns = row[at : at + len(attnames)]
        at += len(attnames)
        read[alias] = dict(zip(attnames, [value if convert is None else convert(value)
                                          for convert, value in zip(converters, columns, strict=True)], strict=True))
    return read


def instances(row: Sequence[Any], parts: Iterable[Part]) -> dict[str, Model]:
    """The instances of one row, by alias: ``from_db`` with each value converted as the ORM converts it."""
    parts = tuple(parts)
    read = values(row, parts)
    return {p.alias: p.model.from_db(DEFAULT_DB_ALIAS, p.attnames, list(read[p.alias].values())) for p in parts}


M = TypeVar("M", bound=Model)


def loaded(model: type[M], **values: Any) -> M:
    """An instance of a row the caller has just read or written, from the values it has: fields by attname
    (``pair_id=3``) or ``pk``, a foreign key by name with its instance (``pair=pair``, set through its descriptor
    as select_related leaves it). Fields not given are deferred; the instance is not new (``from_db``)."""
    names = _names(model)
    attributes, related = {}, []
    for name, value in values.items():
        try:
            attname, relation = names[name]
        except KeyError:
            raise TypeError(f"{model.__name__} has no field {name!r}") from None
        if relation is None:
            attributes[attname] = value
        else:
            attributes[attname] = None if value is None else getattr(value, relation.target_field.attname)
            related.append((relation.name, value))
    given = [f.attname for f in model._meta.concrete_fields if f.attname in attributes]  # from_db's order
    instance = model.from_db(DEFAULT_DB_ALIAS, given, [attributes[attname] for attname in given])
    for name, value in related:
        setattr(instance, name, value)
    return instance


@functools.cache
def _names(model: type[Model]) -> dict:
    """field name or attname, and ``pk`` -> (attname, the foreign key when named by its relation, else None)."""
    names: dict[str, tuple[str, Any]] = {"pk": (model._meta.pk.attname, None)}
    for f in model._meta.concrete_fields:
        names[f.attname] = (f.attname, None)
        if f.is_relation and (f.many_to_one or f.one_to_one):
            names[f.name] = (f.attname, f)
    return names


def _converter(field):
    """What the ORM's compiler applies to a value of ``field`` read from the database (the backend's converters,
    then the field's; JSON by orjson), as one callable; None where it applies nothing."""
    column = field.get_col(field.model._meta.db_table)
    converters = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
    if not converters:
        return None
    if type(field) is JSONField and field.decoder is None and converters == [field.from_db_value]:
        # JSON text read with orjson (json.loads's answer, faster); Django's own for what orjson refuses (integers
        # beyond 64 bits, text that is no JSON).
        slow = field.from_db_value

        def loads(value):
            if not isinstance(value, str):
                return slow(value, column, connection)
            try:
                return orjson.loads(value)
            except orjson.JSONDecodeError:
                return slow(value, column, connection)

        return loads

    def convert(value):
        for converter in converters:
            value = converter(value, column, connection)
        return value

    return convert
