"""Celery tasks of the annotation app: thin wrappers that load by id and call one service."""
