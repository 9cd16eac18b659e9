"""One query planned without parallel workers: ``serial_plan()`` (PostgreSQL; elsewhere it does nothing).

A parallel plan pays for starting its workers (several milliseconds on a small machine) before the first row;
for a query that stops after a page of rows found through an index, that start-up is most of its time. The
setting is changed for the current transaction only, inside an atomic block, and put back on the way out (by a
rollback on an error), so the next statement of an enclosing transaction plans as before.
Record: docs/decisions/serial-plan-for-prompt-search.md.
"""

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction


@contextmanager
def serial_plan() -> Iterator[None]:
    """Plan and run the queries inside without parallel workers (``max_parallel_workers_per_gather = 0``)."""
    if connection.vendor != "postgresql":
        yield
        return
    # On an error the rollback (of the transaction, or of the savepoint inside an enclosing one) undoes the setting.
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('max_parallel_workers_per_gather'), "
                       "set_config('max_parallel_workers_per_gather', '0', true)")
        before = cursor.fetchone()[0]
        yield
        cursor.execute("SELECT set_config('max_parallel_workers_per_gather', %s, true)", [before])
