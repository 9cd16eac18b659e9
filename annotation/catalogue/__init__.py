"""The catalogue: what raters judge. Campaigns, rating schemas, source datasets, prompts, responses, pairs, media.

Owns: those models; the shape of an incoming row (``records``); content blocks and rating schemas (plain Python);
media storage, renditions stripped of metadata and byte ranges; which media a campaign plays through
(``playback``); self-identification scanning; campaign, member and account set-up over the API.

May import: ``core`` and ``accounts``. The work queue's models are reached only through the reverse relations
they declare (``campaign.assignments``, ``pair.annotations``); the pre-filter rule's reader is registered by
curation.
"""
