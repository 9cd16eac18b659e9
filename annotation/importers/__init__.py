"""Importers of real dataset formats, one module per format; each turns records into rows; and the import job.

A format module has ``records(reader)`` (stream the file, one Record at a time) and
``parse(value, line=, options=)`` (one record as a PairRow or ResponseOnlyRow, or RowError). ``services`` runs
an import job (a forked ``reader`` parses and checks, ``pairs`` writes pairs with their imported ratings in
batches), ``api`` takes uploads under ``/api/v1/imports/``.

May import: ``core``, ``accounts``, ``catalogue``, ``workqueue`` (imported ratings are annotations) and ``jobs``.
"""

from annotation.importers import concord, mmrb2, omnireward

FORMATS = {"concord": concord, "mmrb2": mmrb2, "omnireward": omnireward}
