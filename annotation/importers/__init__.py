"""Importers of real dataset formats, one module per format; each turns records into rows.

A format module has ``records(reader)`` (stream the file, one Record at a time) and
``parse(value, line=, options=)`` (one record as a PairRow or ResponseOnlyRow, or RowError).
"""

from annotation.importers import concord, mmrb2, omnireward

FORMATS = {"concord": concord, "mmrb2": mmrb2, "omnireward": omnireward}
