"""Background jobs of every kind: the ``Job`` model, create, dispatch, progress, cancel, and the reaper.

Owns: ``Job``, its services (``services``), its API (``/api/v1/jobs/``) and the reaper (``reaper``), which sends
again or fails abandoned jobs; a job kind that needs more (curation's releases) registers ``JobKindHooks``.

May import: ``core``, ``accounts`` and ``catalogue`` (a job may belong to a campaign).
"""
