"""The composition root: settings, URLs, the Celery application and the WSGI entry point; nothing imports it.

May import: every package (it composes them).
"""

from .celery import app as celery_app

__all__ = ("celery_app",)
