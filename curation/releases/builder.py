"""Stream the kept consensus records of a release's campaigns into staged files, in bounded memory.

A pair is one row; a pair of a criteria question is one row per kept criterion (``rows.criterion_items``).

A release takes a pair only when its current state and its consensus record agree: the record is
kept and current (no curator action since), the pair is complete, and it has the annotations the
record was decided on. The others are counted, by reason, in ``left_out``.

The ORM feeds plain data to ``rows`` and ``writers``; nothing is held per pair except its ids (internal
and release, to re-key agreement reports), its chosen side (for the changelog), two small counts (for the
agreement interval) and the media digests it references; embedded media pass through a bounded cache.
"""

from __future__ import annotations

import hashlib
from array import array
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.core.files.storage import default_storage
from django.db.models import Count, F, Q

from annotation.catalogue import content, schemas
from annotation.catalogue.models import Campaign, Media, Pair
from annotation.catalogue.records import ANONYMOUS_RATER_PREFIX
from annotation.workqueue.models import Annotation
from core.errors import ApplicationError
from curation.models import ConsensusRecord
from curation.releases import pointers, rebuild, rows
from curation.releases.omni_export import OmniWriter
from curation.releases.writers import MediaUnreadable, RowUntyped, SplitWriter, config_shape

BATCH = 2_000
MEDIA_CACHE_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class MediaRef:
    """A media file the release contains: where it goes and where Concord's storage holds it."""

    path: str
    sha256: str
    size: int
    storage_name: str
    mime_type: str
    source_dataset: str = ""  # where it was first imported from, as imported (a pointer release names these)
    source_path: str = ""


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
    anonymous_ratings: int = 0
    agreement: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    left_out: dict[str, int] = field(default_factory=dict)
    measured: dict[str, set] = field(default_factory=lambda: defaultdict(set))
    pair_agreement: dict[str, tuple[array, array]] = field(
        default_factory=lambda: defaultdict(lambda: (array("l"), array("l"))))
    origins: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    concord_raters: dict[str, set] = field(default_factory=lambda: defaultdict(set))
    release_ids: dict[int, str] = field(default_factory=dict)
    features: dict[str, object] = field(default_factory=dict)  # per task (config): its ``datasets`` features

    @property
    def pairs(self) -> int:
        return sum(self.per_task.values())

    def human_agreement(self) -> dict:
        """Per task: agreeing rater pairs over rater pairs, with a 95% bootstrap interval resampling pairs."""
        out = {}
        for task, (agree, total) in sorted(self.agreement.items()):
            agreeing, pairs = self.pair_agreement[task]
            out[task] = {"agreement": (agree / total) if total else None, "agreeing_pairs": agree, "rater_pairs": total,
                         "interval": rows.ratio_interval(agreeing, pairs),
                         "measured": "; ".join(sorted(self.measured[task]))}
        return out


PAIR_FIELDS = (
    "pair_id", "chosen", "pair__external_id", "pair__campaign_id", "pair__criteria", "pair__prompt__source",
    "pair__prompt__source_task", "pair__prompt__metadata", "pair__prompt__content", "pair__response_a__model_name",
    "pair__response_a__content", "pair__response_b__model_name", "pair__response_b__content", "criteria",
)


@dataclass(frozen=True)
class KeptPair:
    """One kept pair as streamed: plain values, no model instances (a release may hold millions)."""

    pair_id: int
    chosen: str
    external_id: str
    campaign_id: int
    criteria: list
    source: str
    source_task: str
    metadata: dict
    prompt_content: list
    model_a: str
    content_a: list
    model_b: str
    content_b: list
    decided_criteria: list

    def contents(self):
        return (self.prompt_content, self.content_a, self.content_b)


def current_kept(prefix: str = "") -> Q:
    """Kept consensus records that still describe their pair (``prefix`` reaches the record from another model)."""
    def q(**lookups) -> Q:
        return Q(**{prefix + key: value for key, value in lookups.items()})

    return (q(decision=ConsensusRecord.Decision.KEPT, stale_reason="", pair__status=Pair.Status.COMPLETE)
            & (q(basis_annotations__isnull=True) | q(basis_annotations=F(prefix + "pair__annotations_done"))))


def current_records(campaign_ids: list[int]):
    """The kept, current consensus records of the campaigns."""
    return ConsensusRecord.objects.filter(current_kept(), pair__campaign_id__in=campaign_ids)


def left_out(campaign_ids: list[int]) -> dict[str, int]:
    """Kept records a release leaves out, counted by why: the curator action since, the pair's status now,
    or new annotations since the decision."""
    stale = (
        ConsensusRecord.objects.filter(pair__campaign_id__in=campaign_ids, decision=ConsensusRecord.Decision.KEPT)
        .exclude(current_kept())
        .values("stale_reason", "pair__status", "basis_annotations", "pair__annotations_done")
        .annotate(n=Count("id")).order_by()
    )
    counts: Counter = Counter()
    for row in stale:
        if row["stale_reason"]:
            counts[row["stale_reason"]] += row["n"]
        elif row["pair__status"] != Pair.Status.COMPLETE:
            counts[f"pair_{row['pair__status']}"] += row["n"]
        else:
            counts["annotated_since_consensus"] += row["n"]
    return dict(sorted(counts.items()))


def kept_pairs(campaign_ids: list[int]):
    """Kept, current pairs of the campaigns with their prompt and responses, by pair id, as plain tuples."""
    return current_records(campaign_ids).order_by("pair_id").values_list(*PAIR_FIELDS).iterator(chunk_size=BATCH)


def kept_ratings(campaign_ids: list[int]):
    """Every rating of those pairs, by pair id then rating id, as plain tuples."""
    return (
        Annotation.objects.filter(current_kept("pair__consensus__"), pair__campaign_id__in=campaign_ids)
        .order_by("pair_id", "id").values_list("pair_id", "annotator_id", "rater_label", "source", "values", "media_played")
        .iterator(chunk_size=BATCH * 3)
    )


def grouped_ratings(stream):
    """``(pair_id, [ratings])`` groups of a stream sorted by pair id."""
    current, group = None, []
    for row in stream:
        if row[0] != current:
            if group:
                yield current, group
            current, group = row[0], []
        group.append(row)
    if group:
        yield current, group


def build(*, campaigns: list[Campaign], staging: Path, progress: Callable[[int], None],
          media: str = pointers.EMBEDDED) -> BuildOutput:
    """Write every split into ``staging``; ApplicationError for a duplicate pair id or unstored media.

    ``media``: ``embedded`` (images and audio in the Parquet files), or ``pointers`` (placeholders there instead, and
    no media bytes read: see ``pointers``).

    Precondition: ``staging`` is an empty folder on local disk; the campaigns' rating schemas are loaded.
    """
    as_pointers = pointers.check_mode(media) == pointers.POINTERS
    by_id = {c.pk: c for c in campaigns}
    definitions: dict[str, list[dict]] = defaultdict(list)
    for campaign in campaigns:
        definitions[campaign.kind].append(campaign.rating_schema.definition)
    shapes = {kind: config_shape(found) for kind, found in definitions.items()}
    secret = settings.CONCORD_RATER_ID_SECRET
    out = BuildOutput(left_out=left_out(list(by_id)))
    writers: dict[str, SplitWriter] = {}
    omni = OmniWriter(staging)
    media_names: dict[str, str] = {}
    origin: dict[str, str] = {}
    pseudonyms: dict[tuple, str] = {}
    ratings_by_pair = grouped_ratings(kept_ratings(list(by_id)))
    pending_ratings = next(ratings_by_pair, None)
    batch: list[KeptPair] = []

    def pseudonym(annotator_id, rater_label, campaign_id) -> str:
        key = (annotator_id, "" if annotator_id is not None else rater_label, None if annotator_id is not None else campaign_id)
        if key not in pseudonyms:
            pseudonyms[key] = rows.rater_pseudonym(secret=secret, annotator_id=annotator_id, rater_label=rater_label,
                                                   campaign_id=campaign_id)
        return pseudonyms[key]

    reader = MediaReader()

    def pointer_sizes(digest: str) -> int:
        return out.media[digest].size

    def media_bytes(digest: str) -> bytes:
        if as_pointers:
            return rebuild.placeholder(digest)
        return reader.read(out.media[digest])

    def flush() -> None:
        nonlocal pending_ratings
        _resolve_media(batch, media_names, out)
        for pair in batch:
            campaign = by_id[pair.campaign_id]
            definition = campaign.rating_schema.definition
            if pair.external_id in origin:
                raise ApplicationError(
                    f"pair id {pair.external_id!r} appears in campaigns {origin[pair.external_id]!r} and {campaign.slug!r}; "
                    "ids must be unique within a release",
                    code="release_duplicate_pair",
                )
            found = []
            if pending_ratings is not None and pending_ratings[0] == pair.pair_id:
                found = pending_ratings[1]
                pending_ratings = next(ratings_by_pair, None)
            ratings = [rows.Rating(rater=pseudonym(annotator_id, label, campaign.pk), source=source, values=values,
                                   media_played=played)
                       for _, annotator_id, label, source, values, played in found]
            if rows.criteria_question(definition) is not None:
                items = rows.criterion_items(pair_id=pair.external_id, criteria=pair.criteria or [],
                                             decided=pair.decided_criteria or [], chosen=pair.chosen)
            else:
                items = [(pair.external_id, pair.criteria or [], pair.chosen)]
            writer = writers.get(campaign.kind)
            if writer is None:
                writer = writers[campaign.kind] = SplitWriter(staging, campaign.kind, media_name=media_names.__getitem__,
                                                              media_bytes=media_bytes, shape=shapes[campaign.kind],
                                                              pointer_sizes=pointer_sizes if as_pointers else None)
                out.features[campaign.kind] = writer.features
            for item_id, criteria, chosen in items:
                source = rows.PairSource(
                    pair_id=item_id, task=campaign.kind, campaign=campaign.slug, prompt_source=pair.source,
                    prompt_source_task=pair.source_task, prompt_metadata=pair.metadata,
                    prompt_content=pair.prompt_content, model_a=pair.model_a, content_a=pair.content_a,
                    model_b=pair.model_b, content_b=pair.content_b, chosen=chosen, criteria=criteria, ratings=ratings,
                    definition=definition,
                )
                row, mmrb2, agreement = rows.build_row(source, media_names.__getitem__)
                try:
                    writer.add(row, mmrb2 if chosen in ("A", "B") else None)
                except MediaUnreadable as exc:
                    raise ApplicationError(f"pair {pair.external_id!r}: {exc}", code="release_media_unreadable") from exc
                except RowUntyped as exc:
                    raise ApplicationError(f"pair {pair.external_id!r}: {exc}", code="release_row_untyped") from exc
                omni.add(kind=campaign.kind, pair_id=item_id, prompt=pair.prompt_content, model_a=pair.model_a,
                         content_a=pair.content_a, model_b=pair.model_b, content_b=pair.content_b,
                         criteria=criteria, chosen=chosen, media_path=lambda d: out.media[d].path)
                out.chosen[item_id] = chosen
                out.per_task[campaign.kind] += 1
                out.per_source[pair.source] += 1
                counts = out.agreement[campaign.kind]
                counts[0] += agreement.agreeing_pairs
                counts[1] += agreement.rater_pairs
                if agreement.rater_pairs:
                    agreeing, pairs = out.pair_agreement[campaign.kind]
                    agreeing.append(agreement.agreeing_pairs)
                    pairs.append(agreement.rater_pairs)
            origin[pair.external_id] = campaign.slug
            out.ratings += len(ratings)
            out.measured[campaign.kind].add(measured_side(definition))
            for (_, annotator_id, label, *_), r in zip(found, ratings, strict=True):
                if annotator_id is None and label.startswith(ANONYMOUS_RATER_PREFIX):
                    out.anonymous_ratings += 1  # one rating of one pair, never counted as a rater
                    continue
                out.raters.add(r.rater)
                out.raters_per_task[campaign.kind].add(r.rater)
            out.release_ids[pair.pair_id] = pair.external_id
            origins = out.origins[campaign.slug]
            for r in ratings:
                origins[r.source] += 1
                if r.source == Annotation.Source.CONCORD:
                    out.concord_raters[campaign.slug].add(r.rater)
        progress(out.pairs)
        batch.clear()

    try:
        for values in kept_pairs(list(by_id)):
            batch.append(KeptPair(*values))
            if len(batch) >= BATCH:
                flush()
        flush()
    except BaseException:
        for writer in writers.values():
            writer.abort()
        omni.abort()
        raise
    for task in sorted(writers):
        out.staged.extend(writers[task].close())
    out.staged.extend(omni.close())
    return out


def measured_side(definition: dict) -> str:
    """What the release's human agreement measures for a schema: the side each rating prefers (on each
    criterion, for a criteria question)."""
    question = schemas.preference_question(definition)
    criteria = rows.criteria_question(definition)
    if question is not None:
        return f"{question['id']}: nominal on A/B (ties excluded)"
    if criteria is not None:
        return f"{criteria['id']} per criterion: nominal on A/B (ties excluded)"
    per_response = [q["id"] for q in definition.get("questions", []) if q.get("scope") == "response"]
    rated = f" ({', '.join(per_response)} rates each response on its own)" if per_response else ""
    return f"not measured: the schema asks no A/B preference{rated}"


def _resolve_media(batch: list[KeptPair], names: dict[str, str], out: BuildOutput) -> None:
    """Look up, in one query, the media of this batch not seen before; refuse media Concord does not hold."""
    wanted = {}
    for pair in batch:
        for blocks in pair.contents():
            for digest in content.media_digests(blocks):
                if digest not in names:
                    wanted.setdefault(digest, pair.external_id)
    if not wanted:
        return
    found = Media.objects.filter(sha256__in=list(wanted)).values_list("sha256", "file", "size", "mime_type",
                                                                    "source_dataset", "source_path")
    for digest, storage_name, size, mime_type, source_dataset, source_path in found:
        extension = Path(storage_name).suffix.lstrip(".") or "bin"
        names[digest] = rows.media_file_name(digest, extension)
        path = f"media/{names[digest]}"
        out.media[digest] = MediaRef(path=path, sha256=digest, size=size, storage_name=storage_name, mime_type=mime_type,
                                     source_dataset=source_dataset, source_path=source_path)
    missing = [d for d in wanted if d not in names]
    if missing:
        raise ApplicationError(
            f"pair {wanted[missing[0]]!r} references media {missing[0]} that is not stored in Concord "
            f"({len(missing)} missing in this batch)",
            code="release_media_missing",
        )


class MediaReader:
    """Media bytes to embed: each file checked against its sha256 on its first read, then kept in a cache of at
    most ``limit`` bytes (least recently used out first), as a release embeds an image once per pair using it."""

    def __init__(self, limit: int = MEDIA_CACHE_BYTES):
        self.limit = limit
        self.cache: OrderedDict[str, bytes] = OrderedDict()
        self.size = 0
        self.checked: set[str] = set()

    def read(self, ref: MediaRef) -> bytes:
        data = self.cache.get(ref.sha256)
        if data is not None:
            self.cache.move_to_end(ref.sha256)
            return data
        data = read_media(ref, check=ref.sha256 not in self.checked)
        self.checked.add(ref.sha256)
        if len(data) <= self.limit // 16:
            self.cache[ref.sha256] = data
            self.size += len(data)
            while self.size > self.limit:
                self.size -= len(self.cache.popitem(last=False)[1])
        return data


def read_media(ref: MediaRef, *, check: bool) -> bytes:
    """The bytes of a stored media file (``check``: against its content address); MediaUnreadable when they cannot be had."""
    try:
        try:
            local = default_storage.path(ref.storage_name)
        except NotImplementedError:
            local = None
        with open(local, "rb") if local is not None else default_storage.open(ref.storage_name, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise MediaUnreadable(f"media {ref.sha256} cannot be read from the media store ({exc.strerror or exc})") from exc
    if len(data) != ref.size or (check and hashlib.sha256(data).hexdigest() != ref.sha256):
        raise MediaUnreadable(f"media {ref.sha256} in the media store no longer matches its sha256 ({len(data)} bytes read)")
    return data
