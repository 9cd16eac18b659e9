"""Stream the kept consensus records of a release's campaigns into staged files, in bounded memory.

The ORM feeds plain data to ``rows`` and ``writers``; nothing is held per pair except its id, its
chosen side (for the changelog) and the set of media digests it references.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db.models import Prefetch

from annotation import content
from annotation.errors import ApplicationError
from annotation.models import Annotation, Campaign, Media
from curation.models import ConsensusRecord
from curation.releases import rows
from curation.releases.writers import SplitWriter

BATCH = 2_000


@dataclass(frozen=True)
class MediaRef:
    """A media file the release contains: where it goes and where Concord's storage holds it."""

    path: str
    sha256: str
    size: int
    storage_name: str
    mime_type: str


@dataclass
class BuildOutput:
    staged: list[str] = field(default_factory=list)
    media: dict[str, MediaRef] = field(default_factory=dict)
    chosen: dict[str, str] = field(default_factory=dict)
    per_task: Counter = field(default_factory=Counter)
    per_source: Counter = field(default_factory=Counter)
    raters_per_task: dict[str, set] = field(default_factory=lambda: defaultdict(set))
    raters: set = field(default_factory=set)
    ratings: int = 0
    agreement: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))

    @property
    def pairs(self) -> int:
        return sum(self.per_task.values())

    def human_agreement(self) -> dict:
        return {
            task: {"agreement": (agree / total) if total else None, "agreeing_pairs": agree, "rater_pairs": total}
            for task, (agree, total) in sorted(self.agreement.items())
        }


def kept_records(campaign_ids: list[int]):
    """Kept consensus records of the campaigns, with their pair, prompt, responses and ratings, by pair id."""
    ratings = Annotation.objects.only("id", "pair_id", "annotator_id", "rater_label", "source", "values").order_by("id")
    return (
        ConsensusRecord.objects.filter(pair__campaign_id__in=campaign_ids, decision=ConsensusRecord.Decision.KEPT)
        .select_related("pair", "pair__prompt", "pair__response_a", "pair__response_b")
        .prefetch_related(Prefetch("pair__annotations", queryset=ratings))
        .order_by("pair_id")
    )


def build(*, campaigns: list[Campaign], staging: Path, progress: Callable[[int], None]) -> BuildOutput:
    """Write every split into ``staging``; ApplicationError for a duplicate pair id or unstored media.

    Precondition: ``staging`` is an empty folder on local disk.
    """
    by_id = {c.pk: c for c in campaigns}
    secret = settings.CONCORD_RATER_ID_SECRET
    out = BuildOutput()
    writers: dict[str, SplitWriter] = {}
    media_names: dict[str, str] = {}
    origin: dict[str, str] = {}
    batch: list[ConsensusRecord] = []

    def flush() -> None:
        _resolve_media(batch, media_names, out)
        for record in batch:
            pair = record.pair
            campaign = by_id[pair.campaign_id]
            if pair.external_id in out.chosen:
                raise ApplicationError(
                    f"pair id {pair.external_id!r} appears in campaigns {origin[pair.external_id]!r} and {campaign.slug!r}; "
                    "ids must be unique within a release",
                    code="release_duplicate_pair",
                )
            ratings = [
                rows.Rating(
                    rater=rows.rater_pseudonym(secret=secret, annotator_id=a.annotator_id, rater_label=a.rater_label,
                                               campaign_id=campaign.pk),
                    source=a.source,
                    values=a.values,
                )
                for a in pair.annotations.all()
            ]
            source = rows.PairSource(
                pair_id=pair.external_id, task=campaign.kind, campaign=campaign.slug,
                prompt_source=pair.prompt.source, prompt_source_task=pair.prompt.source_task,
                prompt_metadata=pair.prompt.metadata, prompt_content=pair.prompt.content,
                model_a=pair.response_a.model_name, content_a=pair.response_a.content,
                model_b=pair.response_b.model_name, content_b=pair.response_b.content,
                chosen=record.chosen, criteria=pair.criteria or [], ratings=ratings,
                definition=campaign.rating_schema.definition,
            )
            row, mmrb2, agreement = rows.build_row(source, media_names.__getitem__)
            writer = writers.get(campaign.kind)
            if writer is None:
                writer = writers[campaign.kind] = SplitWriter(staging, campaign.kind)
            writer.add(row, mmrb2)
            out.chosen[pair.external_id] = record.chosen
            origin[pair.external_id] = campaign.slug
            out.per_task[campaign.kind] += 1
            out.per_source[pair.prompt.source] += 1
            out.ratings += len(ratings)
            for r in ratings:
                out.raters.add(r.rater)
                out.raters_per_task[campaign.kind].add(r.rater)
            counts = out.agreement[campaign.kind]
            counts[0] += agreement.agreeing_pairs
            counts[1] += agreement.rater_pairs
        progress(out.pairs)
        batch.clear()

    try:
        for record in kept_records(list(by_id)).iterator(chunk_size=BATCH):
            batch.append(record)
            if len(batch) >= BATCH:
                flush()
        flush()
    except BaseException:
        for writer in writers.values():
            writer.abort()
        raise
    for task in sorted(writers):
        out.staged.extend(writers[task].close())
    return out


def _resolve_media(batch: list[ConsensusRecord], names: dict[str, str], out: BuildOutput) -> None:
    """Look up, in one query, the media of this batch not seen before; refuse media Concord does not hold."""
    wanted = {}
    for record in batch:
        pair = record.pair
        for blocks in (pair.prompt.content, pair.response_a.content, pair.response_b.content):
            for digest in content.media_digests(blocks):
                if digest not in names:
                    wanted.setdefault(digest, pair.external_id)
    if not wanted:
        return
    found = Media.objects.filter(sha256__in=list(wanted)).values_list("sha256", "file", "size", "mime_type")
    for digest, storage_name, size, mime_type in found:
        extension = Path(storage_name).suffix.lstrip(".") or "bin"
        names[digest] = rows.media_file_name(digest, extension)
        path = f"media/{names[digest]}"
        out.media[digest] = MediaRef(path=path, sha256=digest, size=size, storage_name=storage_name, mime_type=mime_type)
    missing = [d for d in wanted if d not in names]
    if missing:
        raise ApplicationError(
            f"pair {wanted[missing[0]]!r} references media {missing[0]} that is not stored in Concord "
            f"({len(missing)} missing in this batch)",
            code="release_media_missing",
        )
