"""No identity in a release: agreement reports re-keyed to the release's pseudonyms and pair ids. Pure Python."""

from __future__ import annotations

import re
from collections.abc import Callable

from curation.releases.rows import rater_pseudonym

IDENTITY = re.compile(r"(?<![A-Za-z0-9_])(user|imported):")


def report_rater(*, secret: str, campaign_id: int) -> Callable[[str], str]:
    """Maps an agreement report's rater key (``user:<id>`` or ``imported:<label>``) to the release's pseudonym."""

    def pseudonym(key: str) -> str:
        kind, _, value = key.partition(":")
        if kind == "user" and value.isdigit():
            return rater_pseudonym(secret=secret, annotator_id=int(value), rater_label="", campaign_id=campaign_id)
        if kind == "imported":
            return rater_pseudonym(secret=secret, annotator_id=None, rater_label=value, campaign_id=campaign_id)
        raise ValueError(f"an agreement report names a rater as {kind!r}, which has no release pseudonym")

    return pseudonym


def scrub(value, *, rater: Callable[[str], str], release_id: Callable[[int], str | None]):
    """A copy of ``value`` where every ``rater`` is a pseudonym and every ``pair_id`` the release's own id.

    An object about a pair the release does not contain is left out (its internal id has no public name).
    """
    if isinstance(value, list):
        out = [scrub(item, rater=rater, release_id=release_id) for item in value]
        return [item for item in out if item is not _DROP]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        if key == "rater" and isinstance(item, str):
            out[key] = rater(item)
        elif key == "pair_id":
            public = release_id(item)
            if public is None:
                return _DROP
            out[key] = public
        else:
            item = scrub(item, rater=rater, release_id=release_id)
            if item is not _DROP:
                out[key] = item
    return out


_DROP = object()


def identity_leaks(text: str) -> list[str]:
    """The places in ``text`` that still look like an internal rater key (``user:``/``imported:``)."""
    return [text[max(0, m.start() - 20): m.end() + 20] for m in IDENTITY.finditer(text)]
