"""The annotation app (Django label ``annotation``): everything up to a stored human judgement.

Rooms, top to bottom (each may import the rooms below it, never above or beside):
``importers/`` → ``workqueue/`` and ``jobs/`` → ``catalogue/`` → ``accounts/``. The app's own modules
(``models``, ``admin``, ``tasks``, ``apps``) and ``management/commands`` compose the rooms.

May import: ``core``. Nothing here imports ``curation``, ``frontend``, ``demo`` or ``config``: what curation adds
to a room (the pre-filter rule's reader, the release's reaper hooks) it registers from its ``ready()``.
"""
