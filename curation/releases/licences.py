"""Which licence a release carries: the most restrictive of its sources', unless a curator overrides it.

Licences are Hugging Face's ids (SPDX-like, lowercase). They are ranked from the most permissive to the most
restrictive; a licence Concord does not know ranks as the most restrictive (``other``), so nothing unknown is
ever relicensed to something more permissive by accident. Pure Python.
"""

from __future__ import annotations

from dataclasses import dataclass

# Each step adds a condition (attribution, share-alike, non-commercial, no derivatives) to the one before.
RANK = {
    "cc0-1.0": 0, "unlicense": 0, "pddl": 0,
    "mit": 1, "apache-2.0": 1, "bsd-3-clause": 1, "cc-by-4.0": 1, "odc-by": 1, "cc-by-3.0": 1,
    "cc-by-sa-4.0": 2, "cc-by-sa-3.0": 2, "odbl": 2,
    "cc-by-nc-4.0": 3, "cc-by-nc-3.0": 3,
    "cc-by-nc-sa-4.0": 4, "cc-by-nc-sa-3.0": 4,
    "cc-by-nc-nd-4.0": 5, "cc-by-nc-nd-3.0": 5,
}
UNKNOWN = "other"
UNKNOWN_RANK = max(RANK.values()) + 1


def rank(licence: str) -> int:
    return RANK.get((licence or "").strip().lower(), UNKNOWN_RANK)


def normalise(licence: str) -> str:
    """The lowercase id; an empty or unranked licence becomes ``other``."""
    value = (licence or "").strip().lower()
    return value if value in RANK else UNKNOWN


@dataclass(frozen=True)
class Decision:
    licence: str
    required: str
    forced: bool


class LicenceTooPermissive(ValueError):
    """An override more permissive than a source's licence, without force (``forcible``: forcing would take it), or
    not a licence id at all; the message names the source."""

    def __init__(self, message: str, *, forcible: bool = False):
        super().__init__(message)
        self.forcible = forcible


def release_licence(*, sources: dict[str, str], override: str, force: bool, default: str) -> Decision:
    """The licence of a release built from ``sources`` (``{source name: licence}``).

    Without sources (everything collected in Concord) the publisher's ``default`` applies. An ``override``
    as restrictive as every source is taken; a more permissive one needs ``force``.
    """
    if sources:
        strictest = max(sources, key=lambda name: (rank(sources[name]), name))
        required = normalise(sources[strictest])
    else:
        strictest, required = None, normalise(default) if default else UNKNOWN
    if not override:
        return Decision(required, required, False)
    chosen = normalise(override)
    if chosen != override.strip().lower():
        raise LicenceTooPermissive(f"licence {override!r} is not a known licence id; use one of "
                                   f"{', '.join(sorted(RANK))} or 'other'")
    if strictest is not None and rank(chosen) < rank(required):
        if not force:
            raise LicenceTooPermissive(
                f"licence {chosen} is more permissive than {required}, the licence of source {strictest!r}; "
                "a release keeps its sources' terms",
                forcible=True,
            )
        return Decision(chosen, required, True)
    return Decision(chosen, required, False)
