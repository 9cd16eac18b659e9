"""Pairs: create them in bulk from imported rows, and build them from a prompt's responses."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import DatabaseError, transaction
from django.utils import timezone

from annotation.catalogue import content, self_identification
from annotation.catalogue import records as rows
from annotation.catalogue.models import Campaign, Media, Pair, Prompt, Response
from annotation.catalogue.services import bulk
from annotation.catalogue.services.pair_status import status_in_annotation
from annotation.workqueue.models import Annotation
from core.errors import ApplicationError

STRATEGIES = ("all", "random-k")


@dataclass
class BatchOutcome:
    created: int = 0
    duplicates: int = 0
    annotations: int = 0
    errors: list[tuple[int, str]] = field(default_factory=list)

    def add(self, other: BatchOutcome) -> None:
        self.created += other.created
        self.duplicates += other.duplicates
        self.annotations += other.annotations
        self.errors += other.errors


def initial_status(*, campaign: Campaign, annotations: int) -> str:
    """Where a new pair enters the pipeline: complete when already rated enough, else queued or pre-filtered."""
    if status_in_annotation(done=annotations, required=campaign.overlap) == Pair.Status.COMPLETE:
        return Pair.Status.COMPLETE
    return Pair.Status.PENDING if campaign.requires_prefilter else Pair.Status.QUEUED


def pairs_create_many(
    *, campaign: Campaign, batch: list[rows.PairRow | rows.ResponseOnlyRow], media_ids: dict[str, int],
    checked_new: bool = False,
) -> BatchOutcome:
    """Store a batch of rows whose content is resolved (media blocks carry digests present in ``media_ids``).

    The batch is written in one transaction; when the database refuses it (or anything else fails), each row is
    retried alone so one bad row cannot take good ones down, and no row is ever half-written. Pairs
    already stored count as duplicates; ``checked_new`` says the caller has just looked them up
    and left none in the batch (a concurrent import that stores one first makes the batch fail on
    the unique constraint, and the row-by-row retry looks again).
    """
    try:
        with transaction.atomic():
            return _insert(campaign, batch, media_ids, look_up_existing=not checked_new)
    except DatabaseError as exc:
        if len(batch) == 1:
            return BatchOutcome(errors=[(batch[0].line, f"the database refused the row: {str(exc).strip()[:300]}")])
    except Exception as exc:  # one row's surprise is that row's error: the batch is retried row by row too
        if len(batch) == 1:
            return BatchOutcome(errors=[(batch[0].line, f"the row could not be written ({type(exc).__name__}: {exc})")])
    outcome = BatchOutcome()
    for row in batch:
        outcome.add(pairs_create_many(campaign=campaign, batch=[row], media_ids=media_ids))
    return outcome


def _insert(campaign: Campaign, batch, media_ids: dict[str, int], *, look_up_existing: bool) -> BatchOutcome:
    outcome = BatchOutcome()
    pair_rows = [row for row in batch if isinstance(row, rows.PairRow)]
    response_rows = [row for row in batch if isinstance(row, rows.ResponseOnlyRow)]
    existing = set(
        Pair.objects.filter(campaign=campaign, external_id__any={row.external_id for row in pair_rows}).values_list(
            "external_id", flat=True
        )
    ) if look_up_existing else set()
    fresh, seen = [], set()
    for row in pair_rows:
        if row.external_id in existing or row.external_id in seen:
            outcome.duplicates += 1
        else:
            seen.add(row.external_id)
            fresh.append(row)
    now = timezone.now()
    prompt_ids = _prompts(campaign, [row.prompt for row in [*fresh, *response_rows]], now)
    wanted = [(prompt_ids[row.prompt.external_id], r) for row in fresh for r in (row.response_a, row.response_b)]
    wanted += [(prompt_ids[row.prompt.external_id], row.response) for row in response_rows]
    response_ids, created_keys = _responses(wanted, now)
    for row in response_rows:
        key = _response_key(prompt_ids[row.prompt.external_id], row.response)
        if key in created_keys:
            created_keys.discard(key)
            outcome.created += 1
        else:
            outcome.duplicates += 1
    pair_values, links, annotations = [], [], []
    for row in fresh:
        prompt_id = prompt_ids[row.prompt.external_id]
        done = len(row.annotations)
        pair_values.append((
            campaign.pk, prompt_id, response_ids[_response_key(prompt_id, row.response_a)],
            response_ids[_response_key(prompt_id, row.response_b)], row.external_id, row.criteria, row.metadata,
            initial_status(campaign=campaign, annotations=done), row.priority, campaign.overlap, done, now,
            row.self_identification(),
        ))
    pair_ids = bulk.insert_returning_ids(
        Pair,
        ["campaign_id", "prompt_id", "response_a_id", "response_b_id", "external_id", "criteria", "metadata", "status",
         "priority", "required_annotations", "annotations_done", "created_at", "self_identification"],
        pair_values,
    )
    for pair_id, row in zip(pair_ids, fresh, strict=True):
        links.extend((pair_id, media_ids[digest]) for digest in row.media_digests())
        annotations.extend(
            (pair_id, Annotation.Source.IMPORTED, a.rater_label, a.values, a.rationale, now) for a in row.annotations
        )
    bulk.insert(Pair.media.through, ["pair_id", "media_id"], links)
    bulk.insert_returning_ids(
        Annotation, ["pair_id", "source", "rater_label", "values", "rationale", "created_at"], annotations,
    )
    outcome.created += len(pair_ids)
    outcome.annotations += len(annotations)
    return outcome


def _prompts(campaign: Campaign, prompts: list[rows.PromptRow], now) -> dict[str, int]:
    """Prompt ids by external id; prompts not stored yet are created (the first row naming one wins)."""
    wanted = {}
    for prompt in prompts:
        wanted.setdefault(prompt.external_id, prompt)
    ids = dict(Prompt.objects.filter(campaign=campaign, external_id__any=wanted.keys()).values_list("external_id", "id"))
    new = [p for key, p in wanted.items() if key not in ids]
    new_ids = bulk.insert_returning_ids(
        Prompt,
        ["campaign_id", "external_id", "source", "source_task", "content", "metadata", "created_at"],
        [(campaign.pk, p.external_id, p.source, p.source_task, p.content, p.metadata, now) for p in new],
    )
    ids.update((p.external_id, pk) for p, pk in zip(new, new_ids, strict=True))
    return ids


def _response_key(prompt_id: int, response: rows.ResponseRow) -> tuple[int, str, str]:
    return prompt_id, response.model_name, response.content_digest()


def _responses(wanted: list[tuple[int, rows.ResponseRow]], now) -> tuple[dict[tuple, int], set[tuple]]:
    """Response ids by (prompt, model, content digest), and the keys created now."""
    by_key = {}
    for prompt_id, response in wanted:
        by_key.setdefault(_response_key(prompt_id, response), response)
    # by prompt alone: a prompt has a handful of responses, and a second list on the index's last
    # column would make PostgreSQL probe every combination of the two lists
    ids = {
        (prompt_id, model, digest): pk
        for pk, prompt_id, model, digest in Response.objects.filter(prompt_id__any={key[0] for key in by_key})
        .values_list("id", "prompt_id", "model_name", "content_sha256")
    }
    new = [(key, response) for key, response in by_key.items() if key not in ids]
    new_ids = bulk.insert_returning_ids(
        Response,
        ["prompt_id", "model_name", "content_sha256", "content", "created_at"],
        [(*key, response.content, now) for key, response in new],
    )
    ids.update((key, pk) for (key, _), pk in zip(new, new_ids, strict=True))
    return ids, {key for key, _ in new}


@dataclass
class BuildOutcome:
    created: int = 0
    prompts: int = 0
    same_model: int = 0


def pairs_build(
    *,
    campaign: Campaign,
    strategy: str,
    k: int | None = None,
    same_model_share: float | None = None,
    seed: int = 0,
    batch_size: int = 500,
) -> BuildOutcome:
    """Form pairs from the responses of each prompt of ``campaign``; running it again adds nothing.

    ``all`` pairs every two responses of a prompt; ``random-k`` tops each prompt up to ``k`` pairs,
    drawing a ``same_model_share`` of them from same-model candidates where there are enough.
    Which response is A is drawn at random, so position carries no signal.
    """
    if strategy not in STRATEGIES:
        raise ApplicationError(f"unknown strategy {strategy!r}; expected one of {', '.join(STRATEGIES)}",
                               code="unknown_strategy")
    if strategy == "random-k" and (k is None or k < 1):
        raise ApplicationError("random-k needs --k, a whole number of at least 1", code="invalid_k")
    if same_model_share is not None:
        if strategy != "random-k":
            raise ApplicationError("--same-model-share applies to the random-k strategy", code="invalid_share")
        if not 0.0 <= same_model_share <= 1.0:
            raise ApplicationError("--same-model-share must be between 0 and 1", code="invalid_share")
    rng = random.Random(seed)
    planner = _Planner(strategy=strategy, k=k, share=same_model_share, rng=rng)
    outcome = BuildOutcome()
    prompts = Prompt.objects.filter(campaign=campaign).order_by("id").values_list("id", "external_id", "content")
    for chunk in _chunks(prompts.iterator(chunk_size=batch_size), batch_size):
        _build_chunk(campaign, chunk, planner, outcome)
    return outcome


def _chunks(iterable, size: int):
    iterator = iter(iterable)
    while chunk := list(itertools.islice(iterator, size)):
        yield chunk


@dataclass
class _Planner:
    strategy: str
    k: int | None
    share: float | None
    rng: random.Random
    carry: float = 0.0

    def choose(self, candidates: list[tuple[dict, dict]], existing: int) -> list[tuple[dict, dict]]:
        """The candidate pairs to create for one prompt that already has ``existing`` pairs."""
        if self.strategy == "all":
            return candidates
        need = min(self.k - existing, len(candidates))
        if need <= 0:
            return []
        if self.share is None:
            return self.rng.sample(candidates, need)
        same = [c for c in candidates if c[0]["model_name"] == c[1]["model_name"]]
        cross = [c for c in candidates if c[0]["model_name"] != c[1]["model_name"]]
        # carry the rounding error from prompt to prompt so the campaign-wide share converges on the target
        target = need * self.share + self.carry
        n_same = min(round(target), len(same))
        n_same = max(n_same, need - len(cross))
        self.carry = target - n_same
        return self.rng.sample(same, n_same) + self.rng.sample(cross, need - n_same)


@transaction.atomic
def _build_chunk(campaign: Campaign, chunk: list[tuple[int, str, list]], planner: _Planner, outcome: BuildOutcome) -> None:
    prompt_ids = {pid for pid, _, _ in chunk}
    responses: dict[int, list[dict]] = {pid: [] for pid in prompt_ids}
    for response in Response.objects.filter(prompt_id__any=prompt_ids).order_by("prompt_id", "id").values(
        "id", "prompt_id", "model_name", "content"
    ):
        responses[response["prompt_id"]].append(response)
    taken: dict[int, set[frozenset]] = {pid: set() for pid in prompt_ids}
    for prompt_id, a, b in Pair.objects.filter(campaign=campaign, prompt_id__any=prompt_ids).values_list(
        "prompt_id", "response_a_id", "response_b_id"
    ):
        taken[prompt_id].add(frozenset((a, b)))
    planned = []
    for prompt_id, external_id, prompt_content in chunk:
        candidates = [
            (a, b)
            for a, b in itertools.combinations(responses[prompt_id], 2)
            if frozenset((a["id"], b["id"])) not in taken[prompt_id]
        ]
        chosen = planner.choose(candidates, len(taken[prompt_id]))
        if chosen:
            outcome.prompts += 1
        for a, b in chosen:
            if planner.rng.random() < 0.5:
                a, b = b, a
            planned.append((prompt_id, external_id, prompt_content, a, b))
    if not planned:
        return
    digests = {d for _, _, pc, a, b in planned for c in (pc, a["content"], b["content"]) for d in content.media_digests(c)}
    media_ids = dict(Media.objects.filter(sha256__any=digests).values_list("sha256", "id"))
    pairs = [
        Pair(
            campaign=campaign,
            prompt_id=prompt_id,
            response_a_id=a["id"],
            response_b_id=b["id"],
            external_id=rows.derived_id("built", external_id, sorted((a["id"], b["id"]))),
            required_annotations=campaign.overlap,
            status=initial_status(campaign=campaign, annotations=0),
            self_identification=self_identification.scan_responses(
                a=(a["model_name"], a["content"]), b=(b["model_name"], b["content"])),
        )
        for prompt_id, external_id, _, a, b in planned
    ]
    Pair.objects.bulk_create(pairs)
    Pair.media.through.objects.bulk_create([
        Pair.media.through(pair_id=pair.pk, media_id=media_ids[d])
        for pair, (_, _, pc, a, b) in zip(pairs, planned, strict=True)
        for d in dict.fromkeys(itertools.chain(content.media_digests(pc), content.media_digests(a["content"]),
                                               content.media_digests(b["content"])))
        if d in media_ids
    ])
    outcome.created += len(pairs)
    outcome.same_model += sum(1 for *_, a, b in planned if a["model_name"] == b["model_name"])


SCAN_BATCH = 500


def pairs_self_identification_scan(*, campaign: Campaign, progress: Callable[[int, int], None] | None = None) -> dict:
    """Scan again every pair of ``campaign`` for responses that name a model or its maker (as the import does) and
    store the hits on each pair; for pairs imported before the scan existed, or after the curated list changed.
    Idempotent. Returns the count of pairs scanned, of pairs with hits, and of pairs whose hits changed."""
    ids = list(Pair.objects.filter(campaign=campaign).order_by("pk").values_list("pk", flat=True))
    flagged = changed = 0
    for start in range(0, len(ids), SCAN_BATCH):
        batch = Pair.objects.filter(pk__in=ids[start:start + SCAN_BATCH]).select_related("response_a", "response_b").only(
            "self_identification", "response_a__model_name", "response_a__content", "response_b__model_name",
            "response_b__content")
        updated = []
        for pair in batch:
            a, b = pair.response_a, pair.response_b
            hits = self_identification.scan_responses(a=(a.model_name, a.content), b=(b.model_name, b.content))
            flagged += bool(hits)
            if hits != pair.self_identification:
                pair.self_identification = hits
                updated.append(pair)
        Pair.objects.bulk_update(updated, ["self_identification"])
        changed += len(updated)
        if progress:
            progress(min(start + SCAN_BATCH, len(ids)), len(ids))
    return {"pairs": len(ids), "flagged": flagged, "changed": changed}
