"""The work queue: leases on pairs (claim, draft, submit, skip, expiry), annotations, revisions and events.

Owns: ``Assignment``, ``Annotation``, ``AnnotationRevision``, ``AssignmentEvent``; the claim and submit services
(the rules) and their store (``store/``: PostgreSQL's hand-written SQL of ``sql/``, or the ORM); the lean door
(``hotpath``); review and correct; the next pair shown ahead; the annotator's display of a pair (blind to models);
the media view (who may see which media); the work-queue API under ``/api/v1/``; the rules of orientation, gold
and playback.

May import: ``core``, ``accounts`` (the signed-in user) and ``catalogue`` (the pairs it hands out).
"""
