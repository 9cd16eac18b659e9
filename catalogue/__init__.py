"""The catalogue: what raters judge. Campaigns, rating schemas, source datasets, prompts, responses, pairs, media.

Owns: those models; importers of real dataset formats (``catalogue/importers``, one module per format) and the
import job; content blocks and rating schemas (plain Python); media storage, renditions stripped of metadata and
the media view; self-identification scanning; campaign, member and account set-up over the API; and the
commands ``import_pairs``, ``build_pairs``, ``create_campaign``, ``edit_campaign``, ``campaign_members``,
``prepare_renditions``, ``scan_self_identification``.

May import: ``core`` and ``accounts``; never ``workqueue``, ``curation`` or ``frontend`` (they build on it).
"""
