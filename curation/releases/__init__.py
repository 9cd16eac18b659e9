"""Versioned benchmark releases: streaming builder, file writers, storage backends and judge scoring.

Pure parts (``rows``, ``writers``, ``card``, ``scoring``) import no Django model; ``builder`` feeds
them from the ORM and ``storage`` puts the files on local disk or S3-compatible object storage.
"""
