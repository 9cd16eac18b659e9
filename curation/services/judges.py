"""Judges configured by curators: create, update, delete. Secrets stay in environment variables."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction

from annotation.errors import ApplicationError
from curation.judges import registry
from curation.judges.base import JudgeConfigError, PermanentJudgeError
from curation.judges.python_callable import load_callable
from curation.models import Judge

if TYPE_CHECKING:
    from annotation.models import User

RESERVED_NAMES = {"create"}


def _validated(*, backend: str, settings, user) -> dict:
    try:
        registry.validate(backend, settings)
    except JudgeConfigError as exc:
        raise ApplicationError(str(exc), code="invalid_judge_settings") from exc
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
    """A new judge; ``user`` (when given) must be an admin for the python backend."""
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
    """Change a judge; verdicts already stored keep the settings they were made with."""
    judge = Judge.objects.select_for_update().get(pk=judge.pk)
    new_backend = backend if backend is not None else judge.backend
    new_settings = settings if settings is not None else judge.settings
    if backend is not None or settings is not None:
        _validated(backend=new_backend, settings=new_settings, user=user)
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
