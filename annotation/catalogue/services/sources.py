"""Where imported pairs come from: each source dataset is recorded once, with its licence and citation."""

from __future__ import annotations

import re

from annotation.catalogue.models import Campaign, SourceDataset
from annotation.catalogue.records import SourceInfo
from core.errors import ApplicationError

NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,99}$")
LICENCE = re.compile(r"^[a-z0-9][a-z0-9.+-]{0,63}$")


def source_info_from_options(*, name: str, title: str = "", license: str = "", url: str = "",
                             citation: str = "") -> SourceInfo | None:
    """A SourceInfo from a form or the command line, or None when no source is named; ApplicationError when malformed."""
    name, license = (name or "").strip(), (license or "").strip().lower()
    if not name:
        if license or citation or url or title:
            raise ApplicationError("name the source dataset (source name) to record its licence and citation",
                                   code="source_unnamed")
        return None
    if not NAME.match(name):
        raise ApplicationError(f"source name {name!r} must be lowercase letters, digits and hyphens (at most 100)",
                               code="source_bad_name")
    if not license:
        raise ApplicationError(f"give the licence of source {name!r} (a Hugging Face licence id such as cc-by-4.0, "
                               "or 'other' when it is unknown)", code="source_no_license")
    if not LICENCE.match(license):
        raise ApplicationError(f"licence {license!r} is not a licence id such as cc-by-4.0", code="source_bad_license")
    return SourceInfo(name=name, title=(title or name).strip()[:200], license=license, url=(url or "").strip()[:500],
                      citation=(citation or "").strip())


def source_dataset_link(*, campaign: Campaign, source: SourceInfo) -> SourceDataset:
    """Record ``source`` (once per name) and link it to ``campaign``.

    ApplicationError when the name is already recorded under another licence: a source's terms are not
    changed by importing it again.
    """
    dataset, created = SourceDataset.objects.get_or_create(
        name=source.name,
        defaults={"title": source.title, "license": source.license, "url": source.url, "citation": source.citation},
    )
    if not created and dataset.license != source.license:
        raise ApplicationError(
            f"source {source.name!r} is recorded under licence {dataset.license}; this import names {source.license}",
            code="source_conflict", status_code=409,
        )
    if not created and source.citation and not dataset.citation:
        SourceDataset.objects.filter(pk=dataset.pk).update(citation=source.citation)
    campaign.sources.add(dataset)
    return dataset
