"""Model instances from one hand-written joined row: the ORM's own per-field conversions, without its SQL compiler.

On the claim → submit path, compiling a select_related query cost more CPU than running it; these
helpers let a selector or service write that one statement by hand and still get ordinary model
instances (fields not read stay deferred and load on access, as with ``only()``).

``instances`` builds them as ``Model.from_db`` does, less its generic work: the ``Model.__init__`` loop over
every concrete field (DEFERRED placeholders, a ``setattr`` through each field's descriptor) and its two
signals, which no receiver listens to here. A new instance's ``__dict__`` gets the values read and its
``_state`` is loaded from the database, which is all that loop leaves behind for these models (a test holds
the two equal). A model that needs more (a receiver of ``pre_init`` or ``post_init``, its own ``__init__``
or ``from_db``, a field whose descriptor does work on assignment) goes through ``from_db`` unchanged.
``loaded`` does the same for an instance the caller has just read or written, from the values it holds.
A claim → submit cycle builds 16 instances: with ``Model.__init__`` they took about a sixth of its Python CPU
(``docs/decisions/model-instances-without-init.md``).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import orjson
from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models import JSONField, Model, signals
from django.db.models.base import ModelState
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query_utils import DeferredAttribute


class Part(NamedTuple):
    """One table of the row: its alias in the SQL, its model, the fields read with their attnames and converters
    of a value read (None: taken as it is), and whether ``instances`` may build it directly (else ``from_db``)."""

    alias: str
    model: type[Model]
    fields: list
    attnames: tuple
    converters: tuple
    direct: bool


def part(alias: str, model: type[Model], names: list[str] | None = None) -> Part:
    """One table of the row: its alias in the SQL, its model, and the fields read (by attname; all when None)."""
    fields = [f for f in model._meta.concrete_fields if names is None or f.attname in names]
    if names is not None and len(fields) != len(names):
        unknown = set(names) - {f.attname for f in fields}
        raise ValueError(f"{model.__name__} has no column(s) {sorted(unknown)}")
    attnames = tuple(f.attname for f in fields)
    return Part(alias, model, fields, attnames, tuple(_converter(f) for f in fields), _direct(model, fields))


def select_list(parts: list[Part]) -> str:
    """The SELECT list for ``parts``, in the order ``instances`` reads the row."""
    quote = connection.ops.quote_name
    return ", ".join(f"{p.alias}.{quote(f.column)}" for p in parts for f in p.fields)


def instances(row, parts: list[Part]) -> dict[str, Model]:
    """The instances of one row, by alias; each value goes through the converters the ORM applies."""
    heard = _init_heard()
    built = {}
    at = 0
    for alias, model, _, attnames, converters, direct in parts:
        values = row[at : at + len(attnames)]
        at += len(attnames)
        if heard or not direct:
            converted = [
                value if convert is None else convert(value) for convert, value in zip(converters, values, strict=True)
            ]
            built[alias] = model.from_db(DEFAULT_DB_ALIAS, attnames, converted)
            continue
        built[alias] = instance = _bare(model)
        attributes = instance.__dict__
        for attname, convert, value in zip(attnames, converters, values, strict=True):
            attributes[attname] = value if convert is None else convert(value)
    return built


def loaded(model: type[Model], **values) -> Model:
    """An instance of a row the caller has just read or written, from the values it has: fields by attname
    (``pair_id=3``) or ``pk``, a foreign key by name with its instance (``pair=pair``: its id, and the instance
    cached as select_related leaves it; a one-to-one's reverse side cached too, as Django's descriptor does).
    Fields not given are deferred (they load on access, as with ``only()``); the instance is not new.

    What ``Model(**values)`` then ``_state.adding = False`` would build for those fields, without
    ``__init__``'s loop over every field (a default computed for each one not given), where ``instances``
    takes its direct path; otherwise through ``from_db`` and the descriptors.
    """
    names, direct = _names(model)
    attributes, related = {}, []
    for name, value in values.items():
        try:
            attname, relation = names[name]
        except KeyError:
            raise TypeError(f"{model.__name__} has no field {name!r}") from None
        if relation is None:
            attributes[attname] = value
            continue
        if value is not None and not isinstance(value, relation.remote_field.model._meta.concrete_model):
            raise ValueError(f"{model.__name__}.{name} must be a {relation.remote_field.model.__name__} instance")
        attributes[attname] = None if value is None else getattr(value, relation.target_field.attname)
        related.append((relation, value))
    if _init_heard() or not direct:
        given = [f.attname for f in model._meta.concrete_fields if f.attname in attributes]  # from_db's order
        instance = model.from_db(DEFAULT_DB_ALIAS, given, [attributes[attname] for attname in given])
        for relation, value in related:
            setattr(instance, relation.name, value)
        return instance
    instance = _bare(model)
    instance.__dict__.update(attributes)
    for relation, value in related:
        relation.set_cached_value(instance, value)
        if value is not None and not relation.remote_field.multiple:
            relation.remote_field.set_cached_value(value, instance)
    return instance


def _init_heard() -> bool:
    """Whether any receiver listens to ``pre_init`` or ``post_init`` (then every instance goes through Django)."""
    return bool(signals.pre_init.receivers or signals.post_init.receivers)


def _bare(model: type[Model]) -> Model:
    """An instance of ``model`` loaded from the database (the default alias), its fields not set yet."""
    instance = model.__new__(model)
    state = ModelState()
    state.adding, state.db = False, DEFAULT_DB_ALIAS  # connection.alias, without the connection proxy's lookup
    instance._state = state
    return instance


@functools.cache
def _names(model: type[Model]) -> tuple[dict, bool]:
    """(field name or attname, and ``pk`` -> (attname, the foreign key when named by its relation, else None);
    whether ``loaded`` may build the model directly)."""
    fields = model._meta.concrete_fields
    inherits = any(f.one_to_one and f.remote_field.parent_link for f in fields)
    names = {"pk": (model._meta.pk.attname, None)}
    for f in fields:
        names[f.attname] = (f.attname, None)
        if f.is_relation and (f.many_to_one or f.one_to_one):
            names[f.name] = (f.attname, f)
    return names, not inherits and _direct(model, fields)


def _direct(model: type[Model], fields: list) -> bool:
    """Whether setting ``fields`` in a new instance's ``__dict__`` leaves what ``from_db`` would: the model's own
    ``__init__`` and ``from_db`` are Django's, and no field's descriptor works on assignment (a foreign key's id
    descriptor only forgets a cached related object, and a new instance has none)."""
    if model.__init__ is not Model.__init__ or model.from_db.__func__ is not Model.from_db.__func__:
        return False
    for f in fields:
        descriptor = model.__dict__.get(f.attname) or getattr(model, f.attname, None)
        if hasattr(descriptor, "__set__") and type(descriptor) not in (DeferredAttribute, ForeignKeyDeferredAttribute):
            return False
    return True


def _converter(field):
    """What the ORM's compiler applies to a value of ``field`` read from the database (the backend's converters,
    then the field's: on SQLite, datetimes made aware and booleans from 0/1), as one callable; None where it
    applies nothing. A JSONField with Django's own decoder and no backend converter reads JSON text with
    orjson (its fallback, for what orjson refuses: integers beyond 64 bits, text that is no JSON)."""
    column = field.get_col(field.model._meta.db_table)
    converters = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
    if not converters:
        return None
    if type(field) is JSONField and field.decoder is None and converters == [field.from_db_value]:
        slow = field.from_db_value

        def loads(value):
            if not isinstance(value, str):
                return slow(value, column, connection)
            try:
                return orjson.loads(value)
            except orjson.JSONDecodeError:
                return slow(value, column, connection)

        return loads
    if len(converters) == 1:
        (only,) = converters
        return lambda value: only(value, column, connection)

    def convert(value):
        for converter in converters:
            value = converter(value, column, connection)
        return value

    return convert
