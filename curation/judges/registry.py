"""Backend name → class, settings validation, and what a judge's settings reveal about its secrets."""

from __future__ import annotations

import os

from curation.judges import keys
from curation.judges.base import JudgeBackend, JudgeConfigError, MediaStore
from curation.judges.openai_chat import OpenAIChatJudge
from curation.judges.python_callable import PythonCallableJudge
from curation.judges.reward_model import RewardModelJudge

BACKENDS: dict[str, type[JudgeBackend]] = {
    "openai-chat": OpenAIChatJudge,
    "reward-model": RewardModelJudge,
    "python": PythonCallableJudge,
}


def backend_class(backend: str) -> type[JudgeBackend]:
    try:
        return BACKENDS[backend]
    except KeyError:
        raise JudgeConfigError(f"backend: unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}") from None


def validate(backend: str, settings) -> dict:
    """Normalised settings for ``backend``; JudgeConfigError names the first problem."""
    return backend_class(backend).validate(settings)


def build(*, name: str, backend: str, settings: dict, media: MediaStore) -> JudgeBackend:
    return backend_class(backend)(name=name, settings=settings, media=media)


def secret_status(settings: dict) -> dict[str, dict]:
    """For each ``*_env`` setting: the variable's name, whether it may hold a judge's key (``keys.refusal``; when
    it may not, ``refused`` says why) and, only when it may, whether it is set here; never its value."""
    pattern = keys.configured_pattern()
    status = {}
    for key, value in sorted(settings.items()):
        if key.endswith("_env") and isinstance(value, str):
            refused = keys.refusal(value, pattern)
            status[key] = {"variable": value, "present": not refused and bool(os.environ.get(value)),
                           "allowed": not refused, **({"refused": refused} if refused else {})}
    return status
