"""Model instances from one hand-written joined row: the ORM's own per-field conversions, without its SQL compiler.

On the claim → submit path, compiling a select_related query cost more CPU than running it; these
helpers let a selector or service write that one statement by hand and still get ordinary model
instances (fields not read stay deferred and load on access, as with ``only()``).
"""

from __future__ import annotations

from django.db import connection
from django.db.models import Model


def part(alias: str, model: type[Model], names: list[str] | None = None) -> tuple[str, type[Model], list]:
    """One table of the row: its alias in the SQL, its model, and the fields read (by attname; all when None)."""
    fields = [f for f in model._meta.concrete_fields if names is None or f.attname in names]
    if names is not None and len(fields) != len(names):
        unknown = set(names) - {f.attname for f in fields}
        raise ValueError(f"{model.__name__} has no column(s) {sorted(unknown)}")
    return alias, model, fields


def select_list(parts: list[tuple[str, type[Model], list]]) -> str:
    """The SELECT list for ``parts``, in the order ``instances`` reads the row."""
    quote = connection.ops.quote_name
    return ", ".join(f"{alias}.{quote(f.column)}" for alias, _, fields in parts for f in fields)


def instances(row, parts: list[tuple[str, type[Model], list]]) -> dict[str, Model]:
    """The instances of one row, by alias; each value goes through its field's ``from_db_value`` as the ORM does."""
    values = iter(row)
    built = {}
    for alias, model, fields in parts:
        converted = []
        for f in fields:
            value = next(values)
            converted.append(f.from_db_value(value, None, connection) if hasattr(f, "from_db_value") else value)
        built[alias] = model.from_db(connection.alias, [f.attname for f in fields], converted)
    return built
