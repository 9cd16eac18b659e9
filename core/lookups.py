"""``field__any=values``: membership in a long list of strings or integers, sent as one parameter.

``field__in`` resolves, prepares and binds every value on its own, which for the thousands of ids
an import batch checks costs more client CPU than the query itself. On PostgreSQL ``__any`` sends
the values as one JSON array (encoded in C) and matches them with ``IN (SELECT ...)``, a join the
planner can run on the column's index or as a hash: ``= ANY(array)`` would compare every row
against the whole list whenever the planner chose a sequential scan (as it does on a table still
growing since its last ANALYZE). Other databases get the plain ``IN``. Pass a set (or any iterable): Django resolves
list and tuple values element by element before a lookup sees them.
"""

import json

from django.db.models import Field, ForeignObject, Lookup
from django.db.models.lookups import In

INTEGER_TYPES = {"AutoField", "BigAutoField", "SmallAutoField", "IntegerField", "BigIntegerField", "SmallIntegerField",
                 "PositiveIntegerField", "PositiveBigIntegerField", "PositiveSmallIntegerField"}


class AnyOf(Lookup):
    lookup_name = "any"
    prepare_rhs = False

    def get_prep_lookup(self):
        return list(self.rhs)

    def as_sql(self, compiler, connection):
        if connection.vendor != "postgresql":
            return In(self.lhs, self.rhs).as_sql(compiler, connection)
        lhs, params = self.process_lhs(compiler, connection)
        field = self.lhs.output_field
        field = getattr(field, "target_field", field)  # a foreign key compares as the column it points to
        array = "bigint" if field.get_internal_type() in INTEGER_TYPES else "text"
        values = f"SELECT value::{array} FROM jsonb_array_elements_text(%s::jsonb) AS value"
        return f"{lhs} IN ({values})", (*params, json.dumps(self.rhs))


Field.register_lookup(AnyOf)
ForeignObject.register_lookup(AnyOf)  # foreign keys keep lookups of their own
