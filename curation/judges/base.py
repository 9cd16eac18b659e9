"""What every judge backend shares: settings validation, requests, outcomes, errors, secrets.

No Django here. A backend gets a validated settings dict, a ``MediaStore`` with the bytes of every
file its requests mention, and answers one attempt at a time; retries, limits and timing live in
``curation.judges.runner``.
"""

from __future__ import annotations

import abc
import base64
import math
import os
import re
from dataclasses import dataclass, field

from core.text_checks import HostileInput, check_json_value
from curation.judges import keys, parsing

ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
SECRET_WORDS = ("key", "token", "secret", "password", "passwd", "authorization", "bearer", "credential")
MAX_RAW_CHARS = 100_000
MAX_ERROR_CHARS = 2_000


class JudgeConfigError(ValueError):
    """A judge's settings cannot work; the message names the setting."""


class TransientJudgeError(Exception):
    """Worth retrying: HTTP 429 or 5xx, a timeout, a dropped connection."""

    def __init__(self, message: str, *, retry_after: float | None = None, raw: str = ""):
        super().__init__(message)
        self.retry_after = retry_after
        self.raw = raw


class PermanentJudgeError(Exception):
    """Retrying will not help: a refused request, a malformed reply, a missing secret or file."""

    def __init__(self, message: str, *, raw: str = ""):
        super().__init__(message)
        self.raw = raw


@dataclass(frozen=True)
class Field:
    """One setting: its type, bounds and default."""

    kind: str
    default: object = None
    required: bool = False
    low: float | None = None
    high: float | None = None
    choices: tuple = ()
    help: str = ""


COMMON_FIELDS = {
    "timeout_s": Field("number", 60.0, low=0.01, high=600, help="seconds before one attempt times out"),
    "max_retries": Field("int", 4, low=0, high=10, help="retries on 429, 5xx and timeouts"),
    "backoff_s": Field("number", 1.0, low=0, high=60, help="first retry delay, doubled each time"),
    "max_backoff_s": Field("number", 30.0, low=0, high=600, help="longest wait between attempts"),
    "concurrency": Field("int", 8, low=1, high=1024, help="calls in flight at once, per batch task"),
    "rate_per_s": Field("number?", None, low=0.001, high=100_000, help="most calls started per second, per batch task"),
}


def _check(name: str, spec: Field, value):
    where = f"settings.{name}"
    kind = spec.kind.rstrip("?")
    if value is None and spec.kind.endswith("?"):
        return None
    if kind in ("int", "number"):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise JudgeConfigError(f"{where}: expected a number")
        if kind == "int" and int(value) != value:
            raise JudgeConfigError(f"{where}: expected a whole number")
        if (spec.low is not None and value < spec.low) or (spec.high is not None and value > spec.high):
            raise JudgeConfigError(f"{where}: must be from {spec.low:g} to {spec.high:g}")
        return int(value) if kind == "int" else float(value)
    if kind == "bool":
        if not isinstance(value, bool):
            raise JudgeConfigError(f"{where}: expected true or false")
        return value
    if kind in ("str", "url", "env", "dotted"):
        if not isinstance(value, str) or not value.strip():
            raise JudgeConfigError(f"{where}: expected a non-empty string")
        value = value.strip()
        if len(value) > 2_000:
            raise JudgeConfigError(f"{where}: longer than 2,000 characters")
        if kind == "url" and not re.match(r"^https?://[^\s/]+", value):
            raise JudgeConfigError(f"{where}: expected an http:// or https:// URL")
        if kind == "url":
            from curation.judges import egress  # egress builds on this module's errors

            egress.url_check(value, egress.configured_allow_list(), where=where)
        if kind == "env" and not ENV_NAME.match(value):
            raise JudgeConfigError(f"{where}: expected the NAME of an environment variable, like CONCORD_JUDGE_KEY_OPENAI")
        if kind == "env":
            reason = keys.refusal(value, keys.configured_pattern())
            if reason:
                raise JudgeConfigError(f"{where}: {reason}")
        if kind == "dotted" and not re.match(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$", value):
            raise JudgeConfigError(f"{where}: expected a dotted path such as package.module.function")
        if spec.choices and value not in spec.choices:
            raise JudgeConfigError(f"{where}: must be one of {', '.join(spec.choices)}")
        return value
    if kind == "choices":
        if not isinstance(value, list) or any(v not in spec.choices for v in value):
            raise JudgeConfigError(f"{where}: expected a list drawn from {', '.join(spec.choices)}")
        return list(dict.fromkeys(value))
    if kind == "dict":
        if not isinstance(value, dict):
            raise JudgeConfigError(f"{where}: expected an object")
        return value
    raise JudgeConfigError(f"{where}: unsupported setting type {kind}")


def looks_secret(key: str) -> bool:
    lowered = key.lower()
    return not lowered.endswith("_env") and any(word in lowered for word in SECRET_WORDS)


def validate_settings(fields: dict[str, Field], raw) -> dict:
    """A normalised copy of ``raw`` with defaults filled in; JudgeConfigError names the first problem.

    Literal secrets are refused: a secret lives in an environment variable named by a ``*_env`` key.
    """
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise JudgeConfigError("settings: expected an object")
    try:
        # Settings typed into the admin's JSON field come here without passing the request checks.
        check_json_value(raw, where="settings")
    except HostileInput as exc:
        raise JudgeConfigError(str(exc)) from exc
    allowed = {**COMMON_FIELDS, **fields}
    for key in raw:
        if not isinstance(key, str):
            raise JudgeConfigError("settings: keys must be strings")
        if looks_secret(key):
            raise JudgeConfigError(
                f"settings.{key}: secrets are never stored; put the value in an environment variable "
                f"and name that variable in api_key_env"
            )
        if key not in allowed:
            raise JudgeConfigError(f"settings.{key}: unknown setting; known: {', '.join(sorted(allowed))}")
    out = {}
    for name, spec in allowed.items():
        if name in raw:
            out[name] = _check(name, spec, raw[name])
        elif spec.required:
            raise JudgeConfigError(f"settings.{name}: required ({spec.help or spec.kind})")
        else:
            out[name] = spec.default
    return out


def read_secret(env_name: str | None) -> str | None:
    """The value of the environment variable ``env_name``; PermanentJudgeError when it is unset, or when the rule for
    judge keys (``curation.judges.keys``) refuses it now, so a judge stored before the rule never sends it."""
    if not env_name:
        return None
    reason = keys.refusal(env_name, keys.configured_pattern())
    if reason:
        raise PermanentJudgeError(f"settings.api_key_env: {reason}; the key was not sent")
    value = os.environ.get(env_name, "")
    if not value:
        raise PermanentJudgeError(f"environment variable {env_name} is not set")
    return value


def redact(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    return text


def clean_text(text: str, *, limit: int, secrets: list[str]) -> str:
    """Text safe to store: secrets redacted, NUL characters replaced (PostgreSQL refuses them), capped."""
    text = redact(text or "", secrets).replace("\x00", "\ufffd")
    # A lone surrogate (from a JSON escape such as "\ud800") cannot be stored as UTF-8.
    text = text.encode("utf-8", "replace").decode("utf-8")
    return text if len(text) <= limit else text[:limit] + f"\n[truncated, {len(text):,} characters in all]"


@dataclass
class MediaFile:
    """The bytes of one stored file, with its data URL built once."""

    mime_type: str
    data: bytes
    _data_url: str | None = field(default=None, repr=False)

    @property
    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    @property
    def data_url(self) -> str:
        if self._data_url is None:
            self._data_url = f"data:{self.mime_type};base64,{self.base64}"
        return self._data_url


class MediaStore:
    """Media bytes by sha256 for one batch; a digest that could not be read is an error for its calls."""

    def __init__(self, files: dict[str, MediaFile] | None = None, missing: dict[str, str] | None = None):
        self.files = files or {}
        self.missing = missing or {}

    def get(self, digest: str) -> MediaFile:
        if digest in self.files:
            return self.files[digest]
        reason = self.missing.get(digest, "not loaded")
        raise PermanentJudgeError(f"media {digest[:12]} cannot be sent: {reason}")


@dataclass(frozen=True)
class JudgeRequest:
    """One judgement: the prompt and two responses in the order shown (``first`` is labelled A)."""

    kind: str
    prompt: list[dict]
    first: list[dict]
    second: list[dict]
    criteria: list[str] = field(default_factory=list)


@dataclass
class JudgeCall:
    """What one judgement produced, in the order shown; labels are mapped to canonical by the caller."""

    label: str = parsing.INVALID
    score: float | None = None
    confidence: float | None = None
    raw_output: str = ""
    latency_ms: int | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    error: str = ""
    attempts: int = 1


def usage_tokens(body: dict) -> tuple[int | None, int | None]:
    usage = body.get("usage") if isinstance(body, dict) else None
    if not isinstance(usage, dict):
        return None, None

    def count(key):
        value = usage.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None

    return count("prompt_tokens"), count("completion_tokens")


def retry_after_seconds(header: str | None) -> float | None:
    """``Retry-After`` in seconds when it is a plain number (HTTP dates are ignored)."""
    if not header:
        return None
    try:
        value = float(header.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


class JudgeBackend(abc.ABC):
    """One configured judge. Subclasses set ``FIELDS`` and implement ``attempt``."""

    FIELDS: dict[str, Field] = {}

    def __init__(self, *, name: str, settings: dict, media: MediaStore):
        self.name = name
        self.settings = self.validate(settings)
        self.media = media
        self.secrets: list[str] = []

    @classmethod
    def validate(cls, raw) -> dict:
        """Normalised settings for this backend; JudgeConfigError names the first bad setting."""
        settings = validate_settings(cls.FIELDS, raw)
        cls.check(settings)
        return settings

    @classmethod
    def check(cls, settings: dict) -> None:
        """Rules across settings, beyond each field's own type and bounds; none by default."""
        return None

    async def open(self) -> None:
        """Acquire connections and secrets; PermanentJudgeError fails every call of this judge."""
        return None

    async def close(self) -> None:
        """Release what ``open`` acquired."""
        return None

    @abc.abstractmethod
    async def attempt(self, request: JudgeRequest) -> JudgeCall:
        """One try at a judgement; TransientJudgeError is retried, PermanentJudgeError is not."""
