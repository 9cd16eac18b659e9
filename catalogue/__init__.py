"""The catalogue: what raters judge. Campaigns, rating schemas, source datasets, prompts, responses, pairs, media.

Owns: those models; importers of real dataset formats (``catalogue/importers``, one module per format) and the
import job; content blocks and rating schemas (plain Python); media storage, renditions stripped of metadata and
the media view; self-identification scanning; campaign, member and account set-up over the API; and the
commands ``import_pairs``, ``build_pairs``, ``create_campaign``, ``edit_campaign``, ``campaign_members``,
``prepare_renditions``, ``scan_self_identification``.

May import: ``core`` and ``accounts``; and, in two services (campaigns, pairs), the work queue's models and playback rules
(imported ratings are annotations; a campaign's settings check its work and its media) and curation's pure
pre-filter rules (a campaign's rule is checked when it is set). Never ``frontend`` or ``demo``.
"""
