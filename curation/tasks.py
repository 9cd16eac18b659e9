"""Celery tasks of the curation app: thin wrappers that load by id and call one service."""
