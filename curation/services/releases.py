"""Releases: request, build and publish; verify; download links; scoring a judge against a release.

The order of a build is the guarantee: stream rows into staged files, store every file (checksummed),
write ``manifest.json`` last, then mark the release published in one transaction. Until then the
release is not visible (no manifest in storage, status not ``published``); on any error it is marked
``failed`` with the error, and building it again resumes, skipping files already stored intact.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import shutil
import time
import tomllib
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from django.conf import settings
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.db.models import Count, F
from django.urls import reverse
from django.utils import timezone

from annotation.catalogue.models import Campaign, SourceDataset
from annotation.jobs.models import Job
from annotation.jobs.services import (
    JobNotQueued,
    job_create,
    job_dispatch,
    job_fail,
    job_progress,
    job_start,
    job_succeed,
)
from annotation.workqueue.models import Annotation
from core.errors import ApplicationError
from core.text_checks import HostileInput
from core.web.hostile_input import json_loads_checked
from curation.agreement.report import variable_agreement
from curation.agreement.variables import primary_variable
from curation.leaderboard.card import leaderboard_card_section
from curation.models import AgreementReport, HeldoutPair, JudgeEvaluation, Release, ReleaseFile
from curation.releases import archive, builder, card, heldout, licences, pointers, privacy, scoring
from curation.releases.card import changelog_between, changelog_text, parse_version
from curation.releases.rows import criteria_question
from curation.releases.storage import default_storage_kind, file_sha256, release_storage
from curation.selectors.leaderboard import model_leaderboards_per_kind
from curation.selectors.ratings import pair_facts, rating_table
from curation.selectors.releases import release_previous
from curation.services.consensus import ADJUDICATION_POLICY

if TYPE_CHECKING:
    from annotation.accounts.models import User

NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,99}$")
LOCK_CLASS = 7007
UPLOAD_THREADS = 8
MANIFEST = "manifest.json"
RELEASE_BOOTSTRAP = 200
VERIFY_JOB = "release_verify"
PROGRESS_EVERY_S = 0.5
CONTENT_TYPES = {".json": "application/json", ".jsonl": "application/x-ndjson", ".parquet": "application/vnd.apache.parquet",
                 ".md": "text/markdown; charset=utf-8"}


def concord_version() -> str:
    with open(Path(settings.BASE_DIR) / "pyproject.toml", "rb") as handle:
        return tomllib.load(handle)["project"]["version"]


def _frozen_policies(campaigns: list[Campaign]) -> dict[str, dict]:
    """The one consensus policy and parameters each campaign's kept pairs were decided with.

    Only current records count (``builder.current_kept``): a record a curator action has overruled never
    blocks publishing. ApplicationError when a campaign has no kept pair or its records mix policies
    (recompute first).
    Pairs a curator adjudicated count as kept under the campaign's policy (``adjudicated``, when any, says how many).
    """
    used: dict[int, list] = {c.pk: [] for c in campaigns}
    rows = (
        builder.current_records([c.pk for c in campaigns])
        .values("pair__campaign_id", "policy", "params").annotate(n=Count("id")).order_by("pair__campaign_id", "policy")
    )
    adjudicated: dict[int, int] = {c.pk: 0 for c in campaigns}
    for row in rows:
        # A curator's adjudication settles single pairs on top of the campaign's policy; it is not a second policy.
        if row["policy"] == ADJUDICATION_POLICY:
            adjudicated[row["pair__campaign_id"]] += row["n"]
        else:
            used[row["pair__campaign_id"]].append(row)
    policies = {}
    for campaign in campaigns:
        found = used[campaign.pk] or ([{"policy": ADJUDICATION_POLICY, "params": {}, "n": 0}] if adjudicated[campaign.pk] else [])
        if not found:
            stale = builder.left_out([campaign.pk])
            why = (f" that are current ({', '.join(f'{reason} {n}' for reason, n in stale.items())} left out)"
                   if stale else "")
            raise ApplicationError(
                f"campaign {campaign.slug!r} has no kept consensus records{why}; run consensus before publishing",
                code="release_nothing_kept",
            )
        if len(found) > 1:
            described = ", ".join(f"{r['policy']} {json.dumps(r['params'], sort_keys=True)} ({r['n']} pairs)" for r in found)
            raise ApplicationError(
                f"campaign {campaign.slug!r} mixes consensus policies ({described}); recompute consensus with one policy",
                code="release_mixed_policies",
            )
        policies[campaign.slug] = {"policy": found[0]["policy"], "params": found[0]["params"]}
        if adjudicated[campaign.pk]:
            policies[campaign.slug]["adjudicated"] = adjudicated[campaign.pk]
    return policies


def _source_datasets(campaigns: list[Campaign]) -> list[dict]:
    """The datasets the campaigns' pairs were imported from, by name, with their terms."""
    found = SourceDataset.objects.filter(campaigns__in=campaigns).distinct().order_by("name")
    return [{"name": d.name, "title": d.title, "license": d.license, "url": d.url, "citation": d.citation} for d in found]


COLLECTED_IN_CONCORD = "ratings collected in Concord"


def _licence(campaigns: list[Campaign], license: str, force_license: bool) -> tuple[dict, list[dict]]:
    """The licence decision: the sources' terms, and the publisher's own (``CONCORD_RELEASES_LICENSE``) for pairs
    no source was recorded for and for ratings collected in Concord, whichever is most restrictive."""
    sources = _source_datasets(campaigns)
    terms = {s["name"]: s["license"] for s in sources}
    ids = [c.pk for c in campaigns]
    if (Campaign.objects.filter(pk__in=ids, sources__isnull=True).exists()
            or Annotation.objects.filter(pair__campaign__in=ids, source=Annotation.Source.CONCORD).exists()):
        terms[COLLECTED_IN_CONCORD] = settings.CONCORD_RELEASES_LICENSE
    try:
        decision = licences.release_licence(sources=terms, override=license, force=force_license,
                                            default=settings.CONCORD_RELEASES_LICENSE)
    except licences.LicenceTooPermissive as exc:
        # force_license: the input that allows it, which each interface names in its own words (an option, a box)
        raise ApplicationError(str(exc), code="release_license_too_permissive",
                               extra={"field": "force_license"} if exc.forcible else None) from exc
    return {"licence": decision.licence, "required": decision.required, "forced": decision.forced}, sources


@transaction.atomic
def release_request(*, name: str, version: str, campaign_slugs: list[str], license: str = "", force_license: bool = False,
                    created_by: User | None = None, media: str = pointers.EMBEDDED,
                    profile_summary: bool = False, private_split: float | None = None, private_seed: int | None = None,
                    private_rows: str = heldout.UNLABELLED) -> Release:
    """A release ready to build, with its job: new, or a failed or abandoned attempt of the same NAME@VERSION.

    Refuses a published NAME@VERSION (releases are immutable), one being built right now, a retry whose
    campaigns or consensus policy differ from the first attempt's frozen ones, and a ``license`` more
    permissive than a source's without ``force_license`` (the default is the most restrictive source's).
    ``media``: ``embedded``, or ``pointers`` (no media bytes in the release: ``curation.releases.pointers``).
    ``profile_summary``: the card counts the raters' profile answers (``release_profile_summaries``).
    ``private_split`` holds out that share of each task and source (``private_seed``: drawn at random and recorded
    when not given; a retry keeps the first attempt's), its rows shipped unlabelled or omitted (``private_rows``).
    """
    if media not in pointers.MODES:
        raise ApplicationError(f"--media {media!r}: expected {' or '.join(pointers.MODES)}", code="release_bad_media")
    if not NAME.match(name or ""):
        raise ApplicationError(
            f"release name {name!r} must be lowercase letters, digits and hyphens (at most 100)", code="release_bad_name"
        )
    if parse_version(version) is None:
        raise ApplicationError(f"version {version!r} is not semantic (X.Y.Z)", code="release_bad_version")
    slugs = sorted({s.strip() for s in campaign_slugs if s and s.strip()})
    if not slugs:
        raise ApplicationError("name at least one campaign", code="release_no_campaigns")
    campaigns = list(Campaign.objects.filter(slug__in=slugs).order_by("slug"))
    unknown = sorted(set(slugs) - {c.slug for c in campaigns})
    if unknown:
        raise ApplicationError(f"unknown campaign(s): {', '.join(unknown)}", code="release_unknown_campaign", status_code=404)
    policies = _frozen_policies(campaigns)
    licence, sources = _licence(campaigns, license, force_license)
    _refuse_duplicate_pair_ids(campaigns)
    release = Release.objects.select_for_update().filter(name=name, version=version).first()
    params = {"campaigns": slugs, "policies": policies, "license": licence["licence"], "licence": licence,
              "sources": sources, "profile_summary": bool(profile_summary)}
    if media != pointers.EMBEDDED:
        params["media"] = media
    if private_split is not None:
        recorded = (release.params.get("heldout") or {}) if release is not None else {}
        params["heldout"] = _heldout_params(fraction=private_split, rows=private_rows,
                                            seed=private_seed if private_seed is not None else recorded.get("seed"))
    if release is None:
        release = Release.objects.create(
            name=name, version=version, storage=default_storage_kind(), created_by=created_by, params=params)
        release.campaigns.set(campaigns)
    elif release.status == Release.Status.FAILED and release.params.get("open"):
        # Discarded (release_discard): requested afresh, with whatever campaigns and policy; the history stays.
        release.params = {**params, "discarded": release.params.get("discarded", [])}
        release.campaigns.set(campaigns)
        release.status, release.error, release.storage = Release.Status.BUILDING, "", default_storage_kind()
    else:
        if release.status == Release.Status.PUBLISHED:
            raise ApplicationError(
                f"{release} is already published (manifest sha256 {release.manifest_sha256}); releases are immutable, "
                "publish a new version instead",
                code="release_immutable", status_code=409,
            )
        if release.status == Release.Status.BUILDING and _builder_alive(release):
            raise ApplicationError(f"{release} is being built right now", code="release_busy", status_code=409)
        if release.params.get("campaigns") != slugs:
            raise ApplicationError(
                f"{release} was first requested for campaigns {', '.join(release.params.get('campaigns', []))}; "
                f"a retry must name the same campaigns, or discard the failed attempt first ({DISCARD_HINT})",
                code="release_conflict", status_code=409,
            )
        if release.params.get("media", pointers.EMBEDDED) != media:
            raise ApplicationError(
                f"{release} was first requested with media {release.params.get('media', pointers.EMBEDDED)}; a retry "
                f"must ask the same, or discard the failed attempt first ({DISCARD_HINT})",
                code="release_conflict", status_code=409,
            )
        if release.params.get("heldout") != params.get("heldout"):
            raise ApplicationError(
                f"{release} was first requested with held-out split {release.params.get('heldout')}; a retry must ask "
                f"for the same split, or discard the failed attempt first ({DISCARD_HINT})",
                code="release_conflict", status_code=409,
            )
        if release.params.get("policies") != policies:
            raise ApplicationError(
                f"consensus changed since {release} was first requested; publish a new version instead, or discard "
                f"the failed attempt first ({DISCARD_HINT})",
                code="release_conflict", status_code=409,
            )
        release.status = Release.Status.BUILDING
        release.error = ""
        release.params = {**release.params, "profile_summary": bool(profile_summary)}
    release.job = job_create(
        kind="release", campaign=campaigns[0] if len(campaigns) == 1 else None, created_by=created_by,
        params={"release": f"{name}@{version}", "campaigns": slugs},
    )
    release.save()
    return release


DISCARD_HINT = "POST /api/v1/releases/NAME/VERSION/discard/ or manage.py publish_release --discard"


def release_split(*, private_split: float | None, private_seed: int | None = None,
                  private_rows: str = heldout.UNLABELLED) -> dict:
    """A publish request's held-out split as ``release_publish`` takes it: ``{}`` without a share held out. A seed or
    rows without a share is refused (the command, the API and the page ask the same), never dropped silently."""
    if private_split is None:
        if private_seed is not None or private_rows != heldout.UNLABELLED:
            raise ApplicationError("a private seed or held-out rows go with a share held out (the private split)",
                                   code="release_bad_private_split", extra={"field": "private_split"})
        return {}
    _heldout_params(fraction=private_split, rows=private_rows, seed=private_seed)
    return {"private_split": private_split, "private_seed": private_seed, "private_rows": private_rows}


def _heldout_params(*, fraction: float, rows: str, seed: int | None) -> dict:
    """The frozen held-out split of a request; ApplicationError for a fraction outside (0, 1) or unknown rows."""
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 < fraction < 1:
        raise ApplicationError(f"the private split {fraction!r} must be a fraction between 0 and 1 (exclusive), "
                               "e.g. 0.2", code="release_bad_private_split", extra={"field": "private_split"})
    if rows not in heldout.PRIVATE_ROWS:
        raise ApplicationError(f"private rows {rows!r} must be one of {', '.join(heldout.PRIVATE_ROWS)}",
                               code="release_bad_private_split", extra={"field": "private_rows"})
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63):
        raise ApplicationError(f"the private seed {seed!r} must be a non-negative integer",
                               code="release_bad_private_split", extra={"field": "private_seed"})
    return {"fraction": float(fraction), "seed": secrets.randbelow(2**31) if seed is None else seed,
            "private_rows": rows}
DUPLICATES_SHOWN = 5


def _refuse_duplicate_pair_ids(campaigns: list[Campaign]) -> None:
    """Refuse, before anything is built, campaigns whose kept pairs share an id (a release's ids are unique)."""
    if len(campaigns) < 2:
        return  # a campaign's pair ids are unique (a constraint)
    shared = (builder.current_records([c.pk for c in campaigns]).values("pair__external_id")
              .annotate(n=Count("pair__campaign_id", distinct=True)).filter(n__gt=1)
              .order_by("pair__external_id").values_list("pair__external_id", flat=True))
    total = shared.count()
    if not total:
        return
    shown = list(shared[:DUPLICATES_SHOWN])
    where = dict.fromkeys(shown, None)
    found = (builder.current_records([c.pk for c in campaigns]).filter(pair__external_id__in=shown)
             .order_by("pair__external_id", "pair__campaign__slug").values_list("pair__external_id", "pair__campaign__slug"))
    for external_id, slug in found:
        where[external_id] = f"{where[external_id]}, {slug}" if where[external_id] else slug
    listed = "; ".join(f"{external_id!r} in {slugs}" for external_id, slugs in where.items())
    more = f" and {total - len(shown):,} more" if total > len(shown) else ""
    raise ApplicationError(
        f"{total:,} pair id(s) appear in more than one of these campaigns: {listed}{more}; ids must be unique within a "
        "release (release them separately, or exclude one campaign's copies)",
        code="release_duplicate_pair", extra={"duplicates": total, "shown": shown},
    )


@transaction.atomic
def release_discard(*, name: str, version: str) -> Release:
    """Discard a failed (or abandoned) attempt of NAME@VERSION: every file it stored is deleted, and the next request
    of that version may name other campaigns and another policy. The discard stays in ``params["discarded"]`` (when,
    which campaigns, the error, how many files), and nothing of it reaches a release.

    Refuses a published release (immutable) and one whose builder is alive.
    """
    release = Release.objects.select_for_update().filter(name=name, version=version).first()
    if release is None:
        raise ApplicationError(f"no release {name}@{version}", code="release_not_found", status_code=404)
    if release.status == Release.Status.PUBLISHED:
        raise ApplicationError(f"{release} is published; releases are immutable, publish a new version instead",
                               code="release_immutable", status_code=409)
    if release.status == Release.Status.BUILDING and _builder_alive(release):
        raise ApplicationError(f"{release} is being built right now", code="release_busy", status_code=409)
    store = release_storage(release.storage)
    prefix = f"{release.name}/{release.version}"
    keys = list(store.keys(prefix))
    for key in keys:
        store.delete(f"{prefix}/{key}")
    ReleaseFile.objects.filter(release=release).delete()
    history = [*release.params.get("discarded", []), {
        "at": timezone.now().isoformat(), "campaigns": release.params.get("campaigns", []),
        "error": release.error[:500], "files_deleted": len(keys)}]
    release.params = {**release.params, "open": True, "discarded": history}
    release.status = Release.Status.FAILED
    release.error = (f"discarded ({len(keys):,} stored files deleted); publish {release} again with any campaigns")
    release.save(update_fields=["params", "status", "error"])
    return release


@contextmanager
def _build_lock(release_id: int):
    """Hold a PostgreSQL advisory lock while one process builds the release (SQLite has one writer anyway)."""
    if connection.vendor != "postgresql":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [LOCK_CLASS, release_id])
        if not cursor.fetchone()[0]:
            raise ApplicationError(f"release {release_id} is being built by another worker", code="release_busy",
                                   status_code=409)
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [LOCK_CLASS, release_id])


def _builder_alive(release: Release) -> bool:
    """Whether some process holds the build lock of ``release`` (the lock dies with its connection)."""
    if connection.vendor != "postgresql":
        return False
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = %s AND objid = %s AND granted",
            [LOCK_CLASS, release.pk],
        )
        return cursor.fetchone()[0] > 0


def release_build(*, release_id: int) -> Release:
    """Build, store and publish the release; idempotent (a published release is returned unchanged).

    On any failure the release and its job are marked failed with the error and the exception is raised.
    """
    release = Release.objects.get(pk=release_id)
    if release.status == Release.Status.PUBLISHED:
        return release
    with _build_lock(release_id):
        release.refresh_from_db()
        if release.status == Release.Status.PUBLISHED:
            return release
        Release.objects.filter(pk=release_id).update(status=Release.Status.BUILDING, error="", attempts=F("attempts") + 1)
        if release.job_id:
            job_start(job_id=release.job_id)
        staging = Path(settings.CONCORD_RELEASES_ROOT) / ".staging" / f"{release.name}@{release.version}"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        try:
            _build_and_store(release, staging)
        except Exception as exc:
            message = exc.message if isinstance(exc, ApplicationError) else f"{type(exc).__name__}: {exc}"
            Release.objects.filter(pk=release_id).update(status=Release.Status.FAILED, error=message[:10_000])
            if release.job_id:
                job_fail(job_id=release.job_id, error=message)
            raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    release.refresh_from_db()
    if release.job_id:
        job_succeed(job_id=release.job_id, result=release_summary(release))
    return release


def release_summary(release: Release) -> dict:
    """What ``publish_release --json`` prints."""
    return {"release": release.name, "version": release.version, "pairs": release.pairs_count,
            "files": release.files_count, "manifest_sha256": release.manifest_sha256, "location": release.location,
            "left_out": (release.summary or {}).get("counts", {}).get("left_out", {}),
            **({"heldout": release.summary["heldout"]} if (release.summary or {}).get("heldout") else {})}


@dataclass(frozen=True)
class _Item:
    """One file to store: its path in the release, where its bytes are now, and what they must hash to."""

    path: str
    kind: str
    sha256: str
    size: int
    source: Path | None
    storage_name: str = ""
    staged: bool = False


def release_profile_summaries(*, campaigns: list[Campaign], pair_ids: list[int]) -> list[dict]:
    """Per questionnaire the campaigns ask, counts of the answers of the raters whose Concord ratings of the released
    pairs are in the release (``annotation.workqueue.profile.profile_summary``: counts only, no name, no free text)."""
    from annotation.workqueue.selectors import release_profile_answers

    return release_profile_answers(campaign_ids=[c.pk for c in campaigns], pair_ids=pair_ids)


def release_model_leaderboards(*, campaigns: list[Campaign], pair_ids: list[int]) -> dict[str, dict | None]:
    """One model leaderboard per task kind over the human ratings of the pairs the release holds (``pair_ids``:
    current kept consensus, as the builder took them)."""
    return model_leaderboards_per_kind(campaigns=campaigns, pair_ids=pair_ids, bootstrap=RELEASE_BOOTSTRAP)


def _build_and_store(release: Release, staging: Path) -> None:
    campaigns = list(release.campaigns.select_related("rating_schema").order_by("slug"))
    store = release_storage(release.storage)
    prefix = f"{release.name}/{release.version}"
    total = builder.current_records([c.pk for c in campaigns]).count()
    job_id = release.job_id

    def rows_done(done: int) -> None:
        if job_id:
            job_progress(job_id=job_id, done=done, total=total)

    media_mode = release.params.get("media", pointers.EMBEDDED)
    frozen = release.params.get("heldout")
    split = None
    if frozen:
        candidates = [heldout.Candidate(*values) for values in builder.current_records([c.pk for c in campaigns])
                      .values_list("pair_id", "pair__external_id", "pair__campaign__kind", "pair__prompt__source")
                      .iterator(chunk_size=builder.BATCH)]
        split = heldout.Split(private=heldout.draw(candidates, fraction=frozen["fraction"], seed=frozen["seed"]),
                              rows=frozen["private_rows"])
    out = builder.build(campaigns=campaigns, staging=staging, progress=rows_done, media=media_mode, split=split)
    held = (heldout.manifest_entry(fraction=frozen["fraction"], seed=frozen["seed"], rows=frozen["private_rows"],
                                   split=split) if split is not None else None)
    pointer_summary = None
    if media_mode == pointers.POINTERS:
        staged, pointer_summary = pointers.write_pointer_files(staging, out.media.values(), _media_datasets(out))
        out.staged.extend(staged)
    previous = release_previous(release)
    log = changelog_between(str(previous) if previous else None, {}, out.chosen)
    if previous:
        try:
            log = changelog_between(str(previous), _published_choices(previous), out.chosen)
        except (OSError, ValueError, pa.ArrowException) as exc:  # gone or corrupt; a store that is down fails the build
            log.unreadable = f"{type(exc).__name__}: {exc}"[:500]
    (staging / "CHANGELOG.md").write_text(
        changelog_text(name=release.name, version=release.version, log=log, total=out.pairs), encoding="utf-8"
    )
    reports = _latest_agreement_reports(campaigns, out)
    human = out.human_agreement()
    pair_sets = pair_set_agreement(campaigns, set(out.release_ids))
    policies = {slug: [entry] for slug, entry in release.params["policies"].items()}
    raters = {"distinct": len(out.raters), "ratings": out.ratings, "anonymous_slot_ratings": out.anonymous_ratings,
              "per_task": {t: len(r) for t, r in sorted(out.raters_per_task.items())}}
    sources = release.params.get("sources", [])
    source_names = {c.pk: sorted(c.sources.values_list("title", flat=True)) for c in campaigns}
    facts = [
        card.CampaignFacts(
            slug=c.slug, kind=c.kind, rating_schema=str(c.rating_schema), overlap=c.overlap,
            requires_prefilter=c.requires_prefilter, sources=source_names[c.pk],
            concord_ratings=out.origins[c.slug][Annotation.Source.CONCORD],
            concord_raters=len(out.concord_raters[c.slug]),
            imported_ratings=out.origins[c.slug][Annotation.Source.IMPORTED],
            adjudications=out.origins[c.slug][Annotation.Source.ADJUDICATION],
        )
        for c in campaigns
    ]
    campaign_facts = [
        {"slug": c.slug, "name": c.name, "kind": c.kind, "rating_schema": str(c.rating_schema),
         "labels_per_criterion": criteria_question(c.rating_schema.definition) is not None, "overlap": c.overlap,
         "requires_prefilter": c.requires_prefilter, "sources": source_names[c.pk],
         "ratings": {"concord": f.concord_ratings, "imported": f.imported_ratings, "adjudication": f.adjudications}}
        for c, f in zip(campaigns, facts, strict=True)
    ]
    licence = release.params.get("licence") or {"licence": release.params["license"], "required": release.params["license"],
                                                "forced": False}
    version = concord_version()
    models = release_model_leaderboards(campaigns=campaigns, pair_ids=list(out.release_ids))
    (staging / "README.md").write_text(
        card.card_text(name=release.name, version=release.version, licence=licence, tasks=dict(out.per_task),
                       features=out.features, split_bytes=_split_bytes(staging, out.features),
                       prompt_sources=dict(out.per_source),
                       sources=[card.SourceDataset(**s) for s in sources], campaigns=facts, policies=policies,
                       human_agreement=human, agreement_reports=reports, pair_set_agreement=pair_sets,
                       concord_version=version,
                       changelog=log.summary(), media_files=len(out.media), year=timezone.now().year, raters=raters,
                       pointers=pointer_summary,
                       profile_summaries=release_profile_summaries(campaigns=campaigns, pair_ids=list(out.release_ids))
                       if release.params.get("profile_summary") else None)
        + "\n" + leaderboard_card_section(models, scope="the released pairs")
        + ("" if held is None else "\n" + heldout.card_section(held, release=str(release))),
        encoding="utf-8",
    )
    items = []
    for relative, kind in [(p, ReleaseFile.Kind.DATA) for p in out.staged] + [
        ("README.md", ReleaseFile.Kind.CARD), ("CHANGELOG.md", ReleaseFile.Kind.CHANGELOG)
    ]:
        sha256, size = file_sha256(staging / relative)
        items.append(_Item(relative, kind, sha256, size, staging / relative, staged=True))
    if pointer_summary is None:
        items += [_Item(m.path, ReleaseFile.Kind.MEDIA, m.sha256, m.size, None, storage_name=m.storage_name)
                  for m in out.media.values()]
    _store_all(store, prefix, items, staging, job_id)
    manifest = {
        "format": "concord-release/1",
        "name": release.name,
        "version": release.version,
        "concord_version": version,
        "created_at": timezone.now().isoformat(),
        "license": licence["licence"],
        "licence": licence,
        "sources": [{key: s[key] for key in ("name", "title", "license", "url")} for s in sources],
        "campaigns": campaign_facts,
        "policy": release.params["policies"],
        "counts": {"pairs": out.pairs, "per_task": dict(sorted(out.per_task.items())),
                   "per_source": dict(sorted(out.per_source.items())), "media_files": len(out.media),
                   "left_out": out.left_out},
        "raters": raters,
        "agreement": {"human_pairwise": human, "reports": reports, "pair_sets": pair_sets},
        "model_leaderboards": models,
        **({} if held is None else {"heldout": held}),
        "changelog": log.summary(),
        "media": {"mode": media_mode, **({"pointers": pointers.POINTERS_FILE, "rebuild": pointers.SCRIPT,
                                          "not_included": pointer_summary} if pointer_summary else {})},
        "files": [{"path": i.path, "kind": i.kind, "sha256": i.sha256, "size": i.size}
                  for i in sorted(items, key=lambda i: i.path)],
    }
    data = json.dumps(manifest, ensure_ascii=False, indent=1).encode("utf-8")
    leaks = privacy.identity_leaks(data.decode("utf-8"))
    if leaks:
        raise ApplicationError(f"the manifest would name a rater ({leaks[0]!r}); nothing was published",
                               code="release_identity_leak")
    store.put_bytes(f"{prefix}/{MANIFEST}", data, content_type="application/json")
    entries = [archive.Entry(i.path, i.size) for i in items] + [archive.Entry(MANIFEST, len(data))]
    archive_sha256, archive_size = archive.archive_digest(_archive_chunks(store, release, entries))
    summary = {key: manifest[key] for key in ("counts", "raters", "changelog", "media")}
    summary["archive"] = {"name": archive.archive_name(release.name, release.version), "format": archive.FORMAT,
                          "sha256": archive_sha256, "size": archive_size, "manifest_size": len(data)}
    summary["per_task"] = manifest["counts"]["per_task"]
    summary["human_agreement"] = human
    if held is not None:
        summary["heldout"] = held
    with transaction.atomic():
        HeldoutPair.objects.filter(release=release).delete()
        if split is not None:
            HeldoutPair.objects.bulk_create(
                [HeldoutPair(release=release, item_id=item_id, task=task, source=source, chosen=chosen)
                 for item_id, task, source, chosen in split.labels], batch_size=5_000)
        ReleaseFile.objects.filter(release=release).delete()
        ReleaseFile.objects.bulk_create(
            [ReleaseFile(release=release, path=i.path, kind=i.kind, sha256=i.sha256, size=i.size) for i in items],
            batch_size=5_000,
        )
        Release.objects.filter(pk=release.pk).update(
            status=Release.Status.PUBLISHED, manifest_sha256=hashlib.sha256(data).hexdigest(), pairs_count=out.pairs,
            files_count=len(items) + 1, location=store.location(prefix), published_at=timezone.now(), error="",
            summary=summary,
        )


def _media_datasets(out: builder.BuildOutput) -> dict[str, dict]:
    """The title, address and licence of each source dataset a release's media were first imported from."""
    names = {m.source_dataset for m in out.media.values() if m.source_dataset}
    return {d.name: {"title": d.title, "url": d.url, "license": d.license}
            for d in SourceDataset.objects.filter(name__in=names)}


def _split_bytes(staging: Path, tasks) -> dict[str, int]:
    """The bytes of each task's Parquet files, as staged (the card's ``num_bytes``)."""
    return {task: sum(path.stat().st_size for path in (staging / "data" / task).glob("*.parquet")) for task in tasks}


def _archive_chunks(store, release: Release, entries: list[archive.Entry]) -> Iterator[bytes]:
    prefix = f"{release.name}/{release.version}"
    return archive.archive_chunks(root=f"{release.name}-{release.version}", entries=entries,
                                  read_chunks=lambda path: store.read_chunks(f"{prefix}/{path}"))


def _store_all(store, prefix: str, items: list[_Item], staging: Path, job_id: int | None) -> None:
    """Store every item with a few threads; the first failure cancels the rest and is raised."""
    if job_id:
        job_progress(job_id=job_id, done=0, total=len(items))

    def put(item: _Item) -> None:
        key = f"{prefix}/{item.path}"
        content_type = CONTENT_TYPES.get(Path(item.path).suffix, "")
        if item.staged:
            store.put_file(key, item.source, sha256=item.sha256, size=item.size, content_type=content_type, move=True)
            return
        if store.stored(key, sha256=item.sha256, size=item.size):
            return
        with _media_source(item, staging) as (source, temporary):
            store.put_file(key, source, sha256=item.sha256, size=item.size, move=temporary)

    with ThreadPoolExecutor(max_workers=UPLOAD_THREADS) as pool:
        pending = {pool.submit(put, item) for item in items}
        done_count = 0
        while pending:
            finished, pending = wait(pending, timeout=1.0, return_when=FIRST_EXCEPTION)
            for future in finished:
                if future.exception() is not None:
                    for other in pending:
                        other.cancel()
                    raise future.exception()
            done_count += len(finished)
            if job_id and finished:
                job_progress(job_id=job_id, done=done_count)


@contextmanager
def _media_source(item: _Item, staging: Path) -> Iterator[tuple[Path, bool]]:
    """A local path holding the media's bytes: Concord's own file, or a temporary download from remote storage."""
    try:
        yield Path(default_storage.path(item.storage_name)), False
        return
    except NotImplementedError:
        pass
    temporary = staging / "downloads" / item.sha256
    temporary.parent.mkdir(parents=True, exist_ok=True)
    with default_storage.open(item.storage_name, "rb") as source, open(temporary, "wb") as target:
        shutil.copyfileobj(source, target, 1024 * 1024)
    try:
        yield temporary, True
    finally:
        temporary.unlink(missing_ok=True)


# Resamples of the release's own agreement figures (all rated pairs, released pairs) per campaign.
PAIR_SET_BOOTSTRAP = 1000


def pair_set_agreement(campaigns: list[Campaign], released: set[int]) -> dict[str, list[dict]]:
    """Per campaign, the primary question's pairwise agreement (ties excluded) and Krippendorff's alpha over two
    stated pair sets, from the same ratings: every rated pair of the campaign, and the pairs the release holds.

    The card showed pairwise agreement over the released (consensus-kept) pairs beside alpha over the whole
    campaign without saying so (70.81 % against 66.17 % for the whole campaign on a noisy one).
    """
    out: dict[str, list[dict]] = {}
    for campaign in campaigns:
        facts = pair_facts(campaign=campaign)
        table = rating_table(campaign=campaign, facts=facts)
        variable = primary_variable(table.variables)
        if variable is None or len(table.pair) == 0:
            continue
        in_release = np.isin(facts.pair_ids[table.pair], np.fromiter(released, dtype=np.int64, count=len(released)))
        rows = []
        for name, part in (("all rated pairs", table), ("released pairs", table.restrict(in_release))):
            figures = variable_agreement(part, variable, bootstrap=PAIR_SET_BOOTSTRAP, seed=0) if len(part.pair) else {}
            rows.append({
                "pair_set": name, "question": variable.qid,
                "pairs": int(len(np.unique(part.pair))), "ratings": int(len(part.pair)),
                "pairwise_agreement_excluding_ties": figures.get("pairwise_agreement_excluding_ties"),
                "side_rater_pairs": figures.get("side_rater_pairs"),
                "alpha": figures.get("alpha") or {}, "alpha_ci95": figures.get("alpha_ci95") or {},
                "measured": figures.get("measured") or {},
            })
        out[campaign.slug] = rows
    return out


def _latest_agreement_reports(campaigns: list[Campaign], out: builder.BuildOutput) -> dict:
    """Each campaign's latest whole-campaign report, its raters as the release's pseudonyms and its pairs by release id
    (pairs the release does not contain are left out)."""
    reports = {}
    for campaign in campaigns:
        report = AgreementReport.objects.filter(campaign=campaign, slice_key="").order_by("-computed_at").first()
        if report is not None:
            rater = privacy.report_rater(secret=settings.CONCORD_RATER_ID_SECRET, campaign_id=campaign.pk)
            reports[campaign.slug] = {
                "computed_at": report.computed_at.isoformat(),
                "params": privacy.scrub(report.params, rater=rater, release_id=out.release_ids.get),
                "report": privacy.scrub(report.report, rater=rater, release_id=out.release_ids.get),
            }
    return reports


def _read_parquet(store, key: str, columns: list[str]):
    """Only ``columns`` of a stored Parquet file: from disk, or by ranged reads of the object (never a whole shard)."""
    local = store.local_path(key)
    if local is not None:
        return pq.read_table(local, columns=columns)
    with store.open_ranged(key) as handle:
        return pq.read_table(handle, columns=columns)


def _published_choices(release: Release) -> dict[str, str]:
    """``{pair id: chosen}`` of a published release, read back from its own Parquet files."""
    store = release_storage(release.storage)
    chosen = {}
    for path in ReleaseFile.objects.filter(release=release, path__endswith=".parquet").values_list("path", flat=True):
        table = _read_parquet(store, f"{release.name}/{release.version}/{path}", ["id", "chosen"])
        chosen.update(zip(table.column("id").to_pylist(), table.column("chosen").to_pylist(), strict=True))
    return chosen


def release_publish(*, name: str, version: str, campaign_slugs: list[str], license: str = "", force_license: bool = False,
                    created_by: User | None = None, media: str = pointers.EMBEDDED,
                    profile_summary: bool = False, **split: Any) -> Release:
    """Request and build NAME@VERSION in this process (the CLI); a failed attempt of it is retried.

    ``split``: ``private_split``, ``private_seed``, ``private_rows``, as ``release_request`` takes them."""
    release = release_request(name=name, version=version, campaign_slugs=campaign_slugs, license=license,
                              force_license=force_license, created_by=created_by, media=media,
                              profile_summary=profile_summary, **split)
    return release_build(release_id=release.pk)


def release_publish_async(*, name: str, version: str, campaign_slugs: list[str], license: str = "",
                          force_license: bool = False, created_by: User | None = None, media: str = pointers.EMBEDDED,
                          profile_summary: bool = False, **split: Any) -> Release:
    """Request NAME@VERSION and build it on a worker once this transaction commits (``media`` and ``split`` as for
    ``release_publish``)."""
    from curation.tasks import release_build_task

    try:
        with transaction.atomic():
            release = release_request(name=name, version=version, campaign_slugs=campaign_slugs, license=license,
                                      force_license=force_license, created_by=created_by, media=media,
                                      profile_summary=profile_summary, **split)
            job_dispatch(job=release.job, task=release_build_task, args=[release.pk])
    except JobNotQueued as exc:
        Release.objects.filter(name=name, version=version, status=Release.Status.BUILDING).update(
            status=Release.Status.FAILED, error=exc.message)
        raise
    return release


def release_reap_stalled() -> int:
    """Mark failed the releases whose builder died (building, job started, and nobody holds the build lock)."""
    reaped = 0
    for release in Release.objects.filter(status=Release.Status.BUILDING, job__status=Job.Status.RUNNING):
        if _builder_alive(release):
            continue
        message = "the build stopped before finishing (worker lost); publish the same version again to retry"
        if Release.objects.filter(pk=release.pk, status=Release.Status.BUILDING).update(
            status=Release.Status.FAILED, error=message
        ):
            job_fail(job_id=release.job_id, error=message)
            reaped += 1
    return reaped


def release_job_failed(job_id: int, message: str) -> None:
    """The release a failed build job was building is failed too, so the release list does not show it building."""
    Release.objects.filter(job_id=job_id, status=Release.Status.BUILDING).update(status=Release.Status.FAILED,
                                                                               error=message)


def release_verify_start(*, release: Release, created_by: User | None = None) -> Job:
    """A queued job that verifies a published release on a worker (a large release takes minutes)."""
    from curation.tasks import release_verify_task

    if release.status != Release.Status.PUBLISHED:
        raise ApplicationError(f"{release} is {release.status}; only a published release can be verified",
                               code="release_not_published", status_code=409)
    campaigns = list(release.campaigns.all()[:2])
    job = job_create(kind=VERIFY_JOB, campaign=campaigns[0] if len(campaigns) == 1 else None, created_by=created_by,
                     params={"release": str(release), "name": release.name, "version": release.version})
    job_dispatch(job=job, task=release_verify_task, args=[job.pk])
    return job


def release_verify_job_run(*, job_id: int) -> None:
    """Run a queued verify job; its result is ``release_verify``'s. A finished or cancelled job is left as it is."""
    job = job_start(job_id=job_id)
    if job.status != Job.Status.RUNNING:
        return
    try:
        release = Release.objects.get(name=job.params["name"], version=job.params["version"])
        result = release_verify(release=release, progress=lambda done, total: job_progress(job_id=job_id, done=done,
                                                                                             total=total))
    except ApplicationError as exc:
        job_fail(job_id=job_id, error=exc.message)
        return
    except Exception as exc:
        job_fail(job_id=job_id, error=f"{type(exc).__name__}: {exc}")
        raise
    job_succeed(job_id=job_id, result=result)


def release_verify(*, release: Release, progress: Callable[[int, int], None] | None = None) -> dict:
    """Re-read every stored file of a published release and check it against its manifest.

    Returns ``{"ok", "files_checked", "mismatches": [{"path", "problem", ...}], "archive"}`` (problems: ``missing``,
    ``checksum``, ``extra`` for a stored file the manifest does not list, ``archive`` when the one-zip download
    rebuilt from the files no longer has the recorded sha256; ``archive`` says whether and what was checked); the
    manifest itself is checked against the sha256 recorded at publication, and the manifest's file list against
    the database.
    ``progress(files checked, files)`` hears about every half second.
    """
    if release.status != Release.Status.PUBLISHED:
        raise ApplicationError(f"{release} is {release.status}; only a published release can be verified",
                               code="release_not_published", status_code=409)
    store = release_storage(release.storage)
    prefix = f"{release.name}/{release.version}"
    mismatches = []
    try:
        data = store.read_bytes(f"{prefix}/{MANIFEST}")
    except FileNotFoundError:
        return {"ok": False, "files_checked": 1, "mismatches": [{"path": MANIFEST, "problem": "missing"}],
                "archive": {"checked": False, "why": "the manifest is missing"}}
    actual = hashlib.sha256(data).hexdigest()
    if actual != release.manifest_sha256:
        mismatches.append({"path": MANIFEST, "problem": "checksum", "expected_sha256": release.manifest_sha256,
                           "actual_sha256": actual})
    try:
        parsed = json.loads(data)
        listed = {f["path"]: f for f in parsed["files"]}
        media = _verified_media(parsed.get("media") or {"mode": pointers.EMBEDDED}, listed, mismatches)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        mismatches.append({"path": MANIFEST, "problem": f"unreadable: {exc}"})
        return {"ok": False, "files_checked": 1, "mismatches": mismatches,
                "archive": {"checked": False, "why": "the manifest is unreadable"}}
    recorded = dict(ReleaseFile.objects.filter(release=release).values_list("path", "sha256"))
    for path in sorted(set(recorded) ^ set(listed)):
        mismatches.append({"path": path, "problem": "not in manifest" if path in recorded else "not recorded in Concord"})

    def check(entry: dict) -> dict | None:
        digest, size = hashlib.sha256(), 0
        try:
            for chunk in store.read_chunks(f"{prefix}/{entry['path']}"):
                digest.update(chunk)
                size += len(chunk)
        except FileNotFoundError:
            return {"path": entry["path"], "problem": "missing"}
        if digest.hexdigest() != entry["sha256"] or size != entry["size"]:
            return {"path": entry["path"], "problem": "checksum", "expected_sha256": entry["sha256"],
                    "actual_sha256": digest.hexdigest(), "expected_size": entry["size"], "actual_size": size}
        return None

    total, reported = 1 + len(listed), time.monotonic()
    found = []
    with ThreadPoolExecutor(max_workers=UPLOAD_THREADS) as pool:
        for done, mismatch in enumerate(pool.map(check, [listed[p] for p in sorted(listed)]), start=2):
            found.append(mismatch)
            if progress is not None and (done == total or time.monotonic() - reported >= PROGRESS_EVERY_S):
                progress(done, total)
                reported = time.monotonic()
    mismatches += [m for m in found if m is not None]
    extra = sorted(set(store.keys(prefix)) - set(listed) - {MANIFEST})
    mismatches += [{"path": path, "problem": "extra"} for path in extra]
    checked_archive = _archive_verify(store, release, listed, manifest_size=len(data), files_match=not mismatches)
    if checked_archive["checked"] and (checked_archive["actual_sha256"], checked_archive["actual_size"]) != (
            checked_archive["sha256"], checked_archive["size"]):
        mismatches.append({"path": checked_archive["name"], "problem": "archive",
                           "expected_sha256": checked_archive["sha256"], "actual_sha256": checked_archive["actual_sha256"],
                           "expected_size": checked_archive["size"], "actual_size": checked_archive["actual_size"]})
    result = {"ok": not mismatches, "files_checked": total, "mismatches": mismatches, "archive": checked_archive}
    if media["mode"] == pointers.POINTERS:
        result["media"] = media  # a full release's answer stays as it was
    return result


def _verified_media(media: dict, listed: dict, mismatches: list) -> dict:
    """What ``release_verify`` says of the media: embedded (stored with the release), or pointers (not stored:
    ``pointers.json`` and ``rebuild.py`` must then be among the release's files, and no media file)."""
    if media.get("mode") != pointers.POINTERS:
        return {"mode": pointers.EMBEDDED}
    for path in (pointers.POINTERS_FILE, pointers.SCRIPT):
        if path not in listed:
            mismatches.append({"path": path, "problem": "missing from the manifest of a pointer release"})
    stored = sorted(p for p in listed if p.startswith("media/"))
    if stored:
        mismatches.append({"path": stored[0], "problem": f"a pointer release stores media ({len(stored)} files)"})
    not_included = media.get("not_included") or {}
    return {"mode": pointers.POINTERS, "pointers": pointers.POINTERS_FILE, "rebuild": pointers.SCRIPT,
            "media_not_included": not_included.get("files", 0)}


def _archive_verify(store, release: Release, listed: dict, *, manifest_size: int, files_match: bool) -> dict:
    """The one-zip download rebuilt from storage and hashed against the sha256 recorded at publication, so the hash
    the page, the API and ``X-Archive-SHA256`` give is still the archive's: ``checked`` False with ``why`` when it
    cannot be (no hash recorded, or the files themselves differ, which the mismatches already say)."""
    recorded = (release.summary or {}).get("archive") or {}
    name = recorded.get("name") or archive.archive_name(release.name, release.version)
    if not recorded.get("sha256"):
        return {"name": name, "checked": False,
                "why": "no archive sha256 was recorded at publication (the release is older than recorded archives)"}
    out = {"name": name, "sha256": recorded["sha256"], "size": recorded.get("size")}
    if not files_match:
        return {**out, "checked": False, "why": "the release's files differ from the manifest (see mismatches)"}
    entries = [archive.Entry(path, entry["size"]) for path, entry in listed.items()]
    actual_sha256, actual_size = archive.archive_digest(
        _archive_chunks(store, release, [*entries, archive.Entry(MANIFEST, manifest_size)]))
    return {**out, "checked": True, "actual_sha256": actual_sha256, "actual_size": actual_size}


def release_download_links(*, release: Release, include_media: bool = False, expires: int | None = None) -> dict:
    """Presigned (S3) or signed (local) links to a published release's files, manifest first, and a signed Concord link
    to the whole release as one zip (``archive``, with the sha256 and size recorded at publication)."""
    if release.status != Release.Status.PUBLISHED:
        raise ApplicationError(f"{release} is {release.status}; only a published release can be downloaded",
                               code="release_not_published", status_code=409)
    expires = expires or settings.CONCORD_RELEASES_PRESIGN_SECONDS
    store = release_storage(release.storage)
    prefix = f"{release.name}/{release.version}"
    files = ReleaseFile.objects.filter(release=release).order_by("path")
    if not include_media:
        files = files.exclude(kind=ReleaseFile.Kind.MEDIA)
    links = [{"path": MANIFEST, "sha256": release.manifest_sha256, "size": None,
              "url": store.url(f"{prefix}/{MANIFEST}", expires=expires)}]
    links += [{"path": f.path, "sha256": f.sha256, "size": f.size, "url": store.url(f"{prefix}/{f.path}", expires=expires)}
              for f in files]
    recorded = (release.summary or {}).get("archive") or {}
    token = archive.sign_archive(name=release.name, version=release.version, expires=expires)
    whole = {"name": archive.archive_name(release.name, release.version), "sha256": recorded.get("sha256", ""),
             "size": recorded.get("size"), "format": recorded.get("format", archive.FORMAT),
             "url": reverse("release-archive-download", kwargs={"token": token})}
    return {"release": str(release), "expires_in": expires, "archive": whole, "files": links}


@dataclass(frozen=True)
class ReleaseArchive:
    """The release as one zip, to stream: its name, the sha256 and size recorded at publication (empty and None for a
    release published before archives were recorded), and its bytes, read from storage as they are sent."""

    name: str
    sha256: str
    size: int | None
    chunks: Iterator[bytes]


def release_archive(*, release: Release) -> ReleaseArchive:
    """Every file of a published release, manifest included, as one streamed zip under ``NAME-VERSION/``; its bytes
    are those whose sha256 was recorded at publication (``archive``'s fixed layout)."""
    if release.status != Release.Status.PUBLISHED:
        raise ApplicationError(f"{release} is {release.status}; only a published release can be downloaded",
                               code="release_not_published", status_code=409)
    store = release_storage(release.storage)
    recorded = (release.summary or {}).get("archive") or {}
    manifest_size = recorded.get("manifest_size")
    if manifest_size is None:
        try:
            manifest_size = len(store.read_bytes(f"{release.name}/{release.version}/{MANIFEST}"))
        except FileNotFoundError as exc:
            raise ApplicationError(f"{release}: its {MANIFEST} is missing from the release storage, so no archive can "
                                   "be built; run verify_release to see what else is missing",
                                   code="release_files_missing", status_code=409) from exc
    entries = [archive.Entry(path, size) for path, size in release.files.values_list("path", "size")]
    entries.append(archive.Entry(MANIFEST, manifest_size))
    return ReleaseArchive(name=archive.archive_name(release.name, release.version), sha256=recorded.get("sha256", ""),
                          size=recorded.get("size"), chunks=_archive_chunks(store, release, entries))


def release_gold(*, release: Release) -> list[scoring.GoldPair]:
    """Every pair of a published release with its task, source and chosen side, read from the release's own files."""
    store = release_storage(release.storage)
    gold = []
    for path in ReleaseFile.objects.filter(release=release, path__startswith="data/", path__endswith=".parquet").order_by(
        "path"
    ).values_list("path", flat=True):
        table = _read_parquet(store, f"{release.name}/{release.version}/{path}", ["id", "task", "prompt_source", "chosen"])
        gold += [scoring.GoldPair(*values) for values in zip(*(table.column(c).to_pylist() for c in table.column_names),
                                                              strict=True)]
    return gold


def _predictions_data(raw: bytes, what: str):
    """A predictions file's JSON, within the size limit; ApplicationError naming the file otherwise."""
    limit = settings.CONCORD_MAX_PREDICTIONS_BYTES
    if len(raw) > limit:
        raise ApplicationError(f"{what} of {len(raw):,} bytes exceed the limit of {limit:,}",
                               code="predictions_too_large", status_code=413)
    try:
        return json_loads_checked(raw)
    except HostileInput as exc:
        raise ApplicationError(f"{what}: {exc}", code="predictions_not_json") from exc
    except (UnicodeDecodeError, ValueError) as exc:
        raise ApplicationError(f"{what} are not valid JSON: {str(exc)[:200]}", code="predictions_not_json") from exc


def predictions_score(*, gold: Callable[[], list[scoring.GoldPair]], predictions: bytes, format: str,
                      predictions_no_tie: bytes | None = None, file_name: str = "", no_tie_file_name: str = "") -> dict:
    """Every figure of a judge's predictions (JSON bytes) against ``gold()`` (read once the file is parsed), as
    MMRB2's or Omni-RewardBench's script gives them (or, for a reward model's scores, with tie-calibrated
    accuracy: ``scoring.score_scores``); the one scoring path of ``evaluate_judge`` and of held-out
    submissions.

    ``predictions_no_tie`` is Omni-RewardBench's second run (the no-tie prompt on the non-tie pairs): the
    figure without ties is read from it. The scores name the file each figure came from (``files``).
    ApplicationError for an unknown format, oversized or malformed predictions, or predictions that carry no
    prediction (a reference answer is never read as one).
    """
    if format not in JudgeEvaluation.Format.values:
        raise ApplicationError(f"format {format!r} is not one of {', '.join(JudgeEvaluation.Format.values)}",
                               code="predictions_bad_format")
    if predictions_no_tie is not None and format != JudgeEvaluation.Format.OMNIREWARD:
        raise ApplicationError("a no-tie predictions file belongs to the omnireward format only (Omni-RewardBench's "
                               "separate no-tie run); MMRB2 has one predictions file", code="predictions_bad_format")
    data = _predictions_data(predictions, "predictions")
    no_tie = None if predictions_no_tie is None else _predictions_data(predictions_no_tie, "no-tie predictions")
    files = {"predictions": {"name": file_name[:200], "sha256": hashlib.sha256(predictions).hexdigest()}}
    try:
        if format == JudgeEvaluation.Format.MMRB2:
            scores = scoring.score_mmrb2(gold(), scoring.parse_mmrb2(data))
        elif format == JudgeEvaluation.Format.SCORES:
            scores = scoring.score_scores(gold(), scoring.parse_scores(data))
        else:
            labels = scoring.parse_omnireward(data)
            try:
                no_tie_labels = None if no_tie is None else scoring.parse_omnireward(no_tie)
            except scoring.PredictionsError as exc:
                raise scoring.PredictionsError(f"no-tie predictions: {exc}") from exc
            scores = scoring.score_omnireward(gold(), labels, no_tie_labels=no_tie_labels)
            if predictions_no_tie is not None:
                files["predictions_no_tie"] = {"name": no_tie_file_name[:200],
                                               "sha256": hashlib.sha256(predictions_no_tie).hexdigest()}
    except scoring.PredictionsError as exc:
        raise ApplicationError(f"predictions ({format}): {exc}", code="predictions_invalid") from exc
    scores["files"] = files
    return scores


def judge_evaluate(*, release: Release, judge_name: str, predictions: bytes, format: str,
                   predictions_no_tie: bytes | None = None, file_name: str = "", no_tie_file_name: str = "",
                   created_by: User | None = None) -> JudgeEvaluation:
    """Score a judge's predictions against a published release's public labels and keep the scores
    (``predictions_score``); ApplicationError also for an unpublished release or a bad judge name."""
    judge_name = (judge_name or "").strip()
    if not judge_name or len(judge_name) > 200:
        raise ApplicationError("name the judge (1 to 200 characters)", code="judge_bad_name")
    if format not in JudgeEvaluation.Format.values:
        raise ApplicationError(f"format {format!r} is not one of {', '.join(JudgeEvaluation.Format.values)}",
                               code="predictions_bad_format")
    if release.status != Release.Status.PUBLISHED:
        raise ApplicationError(f"{release} is {release.status}; judges are scored against published releases only",
                               code="release_not_published", status_code=409)
    scores = predictions_score(gold=lambda: release_gold(release=release), predictions=predictions, format=format,
                               predictions_no_tie=predictions_no_tie, file_name=file_name,
                               no_tie_file_name=no_tie_file_name)
    return JudgeEvaluation.objects.create(
        release=release, judge_name=judge_name, format=format, scores=scores,
        predictions_sha256=scores["files"]["predictions"]["sha256"], created_by=created_by,
    )
