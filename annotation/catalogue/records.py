"""What every importer yields: plain rows, validated and typed, with media still named by path.

Importers are pure: they read records and turn them into these dataclasses (or raise RowError).
The import service resolves media paths, deduplicates and writes.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from annotation.catalogue import content, self_identification

MAX_EXTERNAL_ID = 300
MAX_MODEL_NAME = 200
MAX_SOURCE = 100
MAX_RATER_LABEL = 100
MAX_CRITERION = 2_000
# An imported rating whose file names no stable rater (MMRB2's three ratings per pair, Omni's one)
# gets a label with this prefix, unique to its pair: it is one slot of one pair, never a person.
ANONYMOUS_RATER_PREFIX = "anonymous:"


class RowError(ValueError):
    """One input record that cannot be imported; the message says exactly what is wrong."""


@dataclass(frozen=True)
class SourceInfo:
    """The published dataset a file comes from: its id, title, licence (Hugging Face id), address and BibTeX."""

    name: str
    title: str
    license: str
    url: str = ""
    citation: str = ""
def _blocks(value) -> list[dict]:
    """Content as blocks, whether still blocks or already encoded as JSON text for writing."""
    return json.loads(value) if isinstance(value, str) else value


@dataclass
class PromptRow:
    external_id: str
    source: str
    source_task: str
    metadata: dict
    content: list[dict]
    digest: str = ""

    def content_digest(self) -> str:
        """The digest of the content as it is now; computed once, after media are resolved."""
        if not self.digest:
            self.digest = content.digest(self.content)
        return self.digest


@dataclass
class ResponseRow:
    model_name: str
    content: list[dict]
    digest: str = ""

    def content_digest(self) -> str:
        """The digest of the content as it is now; computed once, after media are resolved."""
        if not self.digest:
            self.digest = content.digest(self.content)
        return self.digest


@dataclass
class AnnotationRow:
    rater_label: str
    values: dict
    rationale: str = ""


@dataclass
class PairRow:
    """One preference pair; ``annotations`` is filled only when ratings are imported."""

    line: int
    external_id: str
    prompt: PromptRow
    response_a: ResponseRow
    response_b: ResponseRow
    criteria: list[str] = field(default_factory=list)
    priority: int = 0
    metadata: dict = field(default_factory=dict)
    annotations: list[AnnotationRow] = field(default_factory=list)
    digests: list[str] | None = field(default=None, repr=False)
    self_identified: list[dict] | None = field(default=None, repr=False)

    def media_digests(self) -> list[str]:
        """The media the pair shows, each once, in reading order; computed once, after media are resolved."""
        if self.digests is None:
            self.digests = _media_of(self.prompt.content, self.response_a.content, self.response_b.content)
        return self.digests

    def self_identification(self) -> list[dict]:
        """Where a response names a model or its maker (``annotation.catalogue.self_identification``); computed once,
        from the content while it is still blocks (the reader does it before encoding them as text)."""
        if self.self_identified is None:
            a, b = self.response_a, self.response_b
            self.self_identified = self_identification.scan_responses(
                a=(a.model_name, _blocks(a.content)), b=(b.model_name, _blocks(b.content)))
        return self.self_identified


@dataclass
class ResponseOnlyRow:
    """One more response to a prompt, paired later by ``build_pairs``."""

    line: int
    prompt: PromptRow
    response: ResponseRow
    digests: list[str] | None = field(default=None, repr=False)

    def media_digests(self) -> list[str]:
        """The media the prompt and the response show, each once; computed once, after media are resolved."""
        if self.digests is None:
            self.digests = _media_of(self.prompt.content, self.response.content)
        return self.digests


def _media_of(*contents: list[dict]) -> list[str]:
    return list(dict.fromkeys(digest for blocks in contents for digest in content.media_digests(blocks)))


PROMPT_KEYS = ("id", "content")


@dataclass(frozen=True)
class ParseOptions:
    """``prompt_key``: ``id`` keys prompts by the file's prompt key (one content per key, a second is
    refused); ``content`` by that key and the prompt's content, so different contents make different prompts.
    """

    with_annotations: bool = False
    prompt_key: str = "id"


def key_by_content(prompt: PromptRow) -> None:
    """Make the prompt's key name its content too; precondition: its media blocks are resolved."""
    prompt.external_id = bounded_id(f"{prompt.external_id}#content-{prompt.content_digest()[:16]}")


def text(obj: dict, key: str, where: str, *, max_length: int, required: bool = True, default: str = "") -> str:
    """``obj[key]`` as a non-empty string of at most ``max_length`` characters."""
    value = obj.get(key)
    if value is None and not required:
        return default
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise RowError(f"{where}{key}: expected a string, got {type_name(value)}")
    if required and not value.strip():
        raise RowError(f"{where}{key}: must not be empty")
    if len(value) > max_length:
        raise RowError(f"{where}{key}: longer than {max_length} characters")
    return value


def obj(value, where: str) -> dict:
    if not isinstance(value, dict):
        raise RowError(f"{where}: expected an object, got {type_name(value)}")
    return value


def type_name(value) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def blocks(value, where: str) -> list[dict]:
    """Validated content blocks; media blocks may name a ``file`` under the media root."""
    try:
        return content.validate(value, allow_files=True, _where=where)
    except content.ContentError as exc:
        raise RowError(str(exc)) from exc


def anonymous_rater_label(*, pair_key: str, slot: int) -> str:
    """The pseudonym of rating slot ``slot`` of one pair: the same on every import, never shared with another pair."""
    return f"{ANONYMOUS_RATER_PREFIX}{hashlib.sha256(pair_key.encode()).hexdigest()[:16]}:{slot}"


def derived_id(prefix: str, *parts) -> str:
    """A stable id for records that carry none, so that importing them again finds them."""
    payload = json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return f"{prefix}-{hashlib.sha256(payload.encode()).hexdigest()[:24]}"


def bounded_id(value: str) -> str:
    """``value`` when it fits an external id, else a stable digest-based id of it."""
    return value if len(value) <= MAX_EXTERNAL_ID else derived_id("id", value)
