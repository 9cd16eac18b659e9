"""Judges configured by curators: create, update, delete, try on one pair. Secrets stay in environment variables."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from django.db import transaction

from annotation.catalogue.content import MEDIA_TYPES
from annotation.catalogue.models import Pair
from core.errors import ApplicationError
from curation.judges import parsing, registry
from curation.judges.base import JudgeCall, JudgeConfigError, MediaStore, PermanentJudgeError
from curation.judges.python_callable import load_callable
from curation.judges.runner import JudgeRunner, WorkItem
from curation.models import Judge, JudgeVerdict

if TYPE_CHECKING:
    from annotation.accounts.models import User

RESERVED_NAMES = {"create"}


def _key_destination(settings) -> tuple[str | None, str | None]:
    """The variable whose value a judge sends as its key, and the URL it sends it to."""
    settings = settings if isinstance(settings, dict) else {}

    def text(key):
        value = settings.get(key)
        return (value.strip() or None) if isinstance(value, str) else value

    return text("api_key_env"), text("base_url") or text("url")


def judge_key_change_check(*, user: User | None, previous: dict | None, settings: dict) -> None:
    """ApplicationError (403) when ``user`` is not an admin and ``settings`` name a key variable other than
    ``previous`` did, or send the same key to another URL; ``user`` None is an operator at the command line."""
    if user is None or user.is_admin_role:
        return
    variable, url = _key_destination(settings)
    old_variable, old_url = _key_destination(previous)
    if variable != old_variable:
        raise ApplicationError(
            "only admins set or change api_key_env, the environment variable whose value a judge sends as its key",
            code="judge_key_admin_only",
            status_code=403,
        )
    if variable and url != old_url:
        raise ApplicationError(
            f"only admins change where a judge with a key connects: the value of {variable} goes with every request",
            code="judge_key_admin_only",
            status_code=403,
        )


def _validated(*, backend: str, settings, user, previous: dict | None = None) -> dict:
    try:
        registry.validate(backend, settings)
    except JudgeConfigError as exc:
        raise ApplicationError(str(exc), code="invalid_judge_settings") from exc
    judge_key_change_check(user=user, previous=previous, settings=settings)
    if backend == Judge.Backend.PYTHON:
        if user is not None and not user.is_admin_role:
            raise ApplicationError(
                "only admins may configure a python judge (it runs code on the workers)",
                code="python_judge_admin_only",
                status_code=403,
            )
        try:
            load_callable(settings["callable"])
        except PermanentJudgeError as exc:
            raise ApplicationError(str(exc), code="invalid_judge_settings") from exc
    return settings


def judge_create(*, name: str, backend: str, settings: dict | None = None, enabled: bool = True,
                 user: User | None = None) -> Judge:
    """A new judge; ``user`` (when given) must be an admin for the python backend or a key variable."""
    settings = settings or {}
    if name in RESERVED_NAMES:
        raise ApplicationError(f"{name!r} is reserved; choose another judge name", code="judge_name_reserved")
    _validated(backend=backend, settings=settings, user=user)
    if Judge.objects.filter(name=name).exists():
        raise ApplicationError(f"a judge named {name!r} already exists", code="judge_exists", status_code=409)
    return Judge.objects.create(name=name, backend=backend, settings=settings, enabled=enabled)


@transaction.atomic
def judge_update(*, judge: Judge, user: User | None = None, backend: str | None = None, settings: dict | None = None,
                 enabled: bool | None = None) -> Judge:
    """Change a judge; verdicts already stored keep the settings they were made with. Only an admin ``user`` may
    change its key variable, or the URL a judge with one connects to."""
    judge = Judge.objects.select_for_update().get(pk=judge.pk)
    new_backend = backend if backend is not None else judge.backend
    new_settings = settings if settings is not None else judge.settings
    if backend is not None or settings is not None:
        _validated(backend=new_backend, settings=new_settings, user=user, previous=judge.settings)
    elif judge.backend == Judge.Backend.PYTHON and user is not None and not user.is_admin_role:
        raise ApplicationError("only admins may change a python judge", code="python_judge_admin_only", status_code=403)
    judge.backend, judge.settings = new_backend, new_settings
    if enabled is not None:
        judge.enabled = enabled
    judge.save(update_fields=["backend", "settings", "enabled"])
    return judge


@transaction.atomic
def judge_delete(*, judge: Judge) -> None:
    """Delete a judge that has no verdicts; one with verdicts is disabled instead, so no vote is lost."""
    judge = Judge.objects.select_for_update().get(pk=judge.pk)
    count = judge.verdicts.count()
    if count:
        raise ApplicationError(
            f"judge {judge.name!r} has {count} stored verdicts; disable it (enabled=false) to keep them",
            code="judge_has_verdicts",
            status_code=409,
        )
    judge.delete()


@dataclass(frozen=True)
class JudgeTrial:
    """One judge call on one pair, made to try a judge out; nothing of it is stored."""

    judge: str
    pair_id: int
    order: str
    shown_label: str
    verdict: str
    score: float | None
    confidence: float | None
    raw_output: str
    error: str
    latency_ms: int | None
    attempts: int

    def as_dict(self) -> dict:
        return asdict(self)


def judge_test(*, judge: Judge, pair_id: int, order: str = JudgeVerdict.Order.FORWARD) -> JudgeTrial:
    """Call ``judge`` once on pair ``pair_id`` as the pre-filter would (retries included) and return its raw
    answer with the parsed verdict, in the order shown and in the pair's own A/B. Disabled judges may be tried."""
    from curation.services.prefilter import judge_request, pair_media_store

    if order not in JudgeVerdict.Order.values:
        raise ApplicationError(f"order must be one of {', '.join(JudgeVerdict.Order.values)}", code="invalid_order")
    pair = Pair.objects.select_related("campaign", "prompt", "response_a", "response_b").filter(pk=pair_id).first()
    if pair is None:
        raise ApplicationError(f"no pair with id {pair_id}", code="pair_not_found", status_code=404)
    media = MediaStore()
    try:
        backend = registry.build(name=judge.name, backend=judge.backend, settings=judge.settings, media=media)
    except JudgeConfigError as exc:
        raise ApplicationError(f"judge settings cannot work: {exc}", code="invalid_judge_settings") from exc
    loaded = pair_media_store([pair], set(backend.settings.get("modalities", MEDIA_TYPES)))
    media.files.update(loaded.files)
    media.missing.update(loaded.missing)
    item = WorkItem(judge=judge.name, key=(pair.pk, order), request=judge_request(pair, order))
    calls: list[JudgeCall] = []
    JudgeRunner({judge.name: backend}).run([item], deliver=lambda done: calls.extend(call for _item, call in done))
    call = calls[0]
    swapped = order == JudgeVerdict.Order.SWAPPED
    shown = call.label if not call.error else parsing.INVALID
    return JudgeTrial(
        judge=judge.name, pair_id=pair.pk, order=order, shown_label=shown,
        verdict=parsing.to_canonical(shown, swapped=swapped),
        score=None if call.error else parsing.score_to_canonical(call.score, swapped=swapped),
        confidence=call.confidence, raw_output=call.raw_output, error=call.error, latency_ms=call.latency_ms,
        attempts=call.attempts,
    )
