"""The annotation app's commands (``manage.py import_pairs``, ``create_campaign``, ``create_user``, …).

May import: every room of the annotation app, and ``core``.
"""
