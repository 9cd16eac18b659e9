"""Responses that name themselves: "As an AI model developed by …", "I am Qwen", "GPT-4o here".

At import each pair's responses are scanned for (1) the pair's own model names, in the spellings a text uses
for them (any case, any separator, without the organisation prefix or the date and size suffixes), and
(2) a curated list of model families and makers. Every hit is kept on the pair for the curators (side, what
was found, why, the words around it) and masked as "[hidden]" in the annotators' view; the stored content,
and so any release, keeps the text as it was.

Names that are also ordinary words (Gemini, Llama, Claude, Flux, Meta, Google, …) count only where the text
speaks of a model: after "I am", "developed by", "as an AI …" and the like, or followed by "AI", "model",
"assistant". Names are matched as a reader sees them, in the text folded by ``annotation.catalogue.masking``
(zero-width characters, fullwidth and look-alike letters, markup, entities and dash variants do not hide a name);
a hit keeps the words as written. Plain Python, no Django.
"""

from __future__ import annotations

import functools
import re
from dataclasses import asdict, dataclass

from annotation.catalogue import content, masking

# Unambiguous: each of these names a model, a model family or its maker wherever it appears.
FAMILIES = (
    "OpenAI", "ChatGPT", "GPT-3", "GPT-3.5", "GPT-4", "GPT-4o", "GPT-4.1", "GPT-5", "GPT Image", "DALL-E", "DALL·E",
    "Anthropic", "Google DeepMind", "DeepMind", "PaLM", "Gemma", "Meta AI", "LLaMA-2", "Llama 2", "Llama 3",
    "Llama-3", "Qwen", "Tongyi", "Alibaba Cloud", "DeepSeek", "Mistral AI", "Mixtral", "xAI", "Midjourney",
    "Stable Diffusion", "Stability AI", "SDXL", "Black Forest Labs", "FLUX.1", "Ideogram", "Kling", "Kuaishou",
    "Runway ML", "RunwayML", "Pika Labs", "Hunyuan", "Tencent", "Doubao", "Seedream", "Seedance", "ByteDance",
    "Zhipu", "ChatGLM", "CogView", "CogVideo", "Moonshot AI", "Baichuan", "InternLM", "InternVL", "ERNIE Bot",
    "Baidu", "Janus-Pro", "Emu3", "OmniGen", "Cohere", "MiniMax", "Hailuo", "LLaVA", "Vicuna", "Bing Chat",
    "Microsoft Copilot", "Amazon Nova", "Amazon Titan", "Sonnet 3.5", "Claude 3", "Claude-3",
)
# Ordinary words too: a hit only where the text speaks of a model (see _SPEAKS_OF_A_MODEL).
AMBIGUOUS = (
    "Gemini", "Bard", "Imagen", "Veo", "Llama", "Claude", "Grok", "Kimi", "Flux", "Sora", "Runway", "Pika",
    "Mistral", "Meta", "Google", "Microsoft", "Amazon", "Nova", "Titan", "Phi", "Yi", "Ernie", "Copilot", "Bagel",
    "Sonnet", "Opus", "Haiku", "Wan", "Seed",
)
# "I am", "developed by", "as an AI", "a model called": then only filler words ("a large language model trained by")
# before the name.
_LEAD = (r"(?:I\s+am|I'm|I\s+was|this\s+is|as\s+an?\s+AI|as\s+an?\s+(?:large\s+)?language\s+model|"
         r"(?:developed|created|trained|made|built|powered|generated|released)\s+by|"
         r"(?:model|assistant|chatbot|LLM)\s+(?:called|named|from|by))")
_FILLER = r"(?:\s+(?:an?|the|AI|large|language|model|assistant|chatbot|LLM|developed|created|trained|by|from|called|named|at|,))*"
_BEFORE = re.compile(rf"\b{_LEAD}{_FILLER}[\s,]*$", re.IGNORECASE)
# After the name: "Claude AI", "Llama 3", and "Claude, made by Anthropic" (a name whose maker follows it).
_AFTER = re.compile(r"^[\s-]*(?:AI\b|model\b|assistant\b|LLM\b|chatbot\b|language\s+model\b|\d{1,2}(?:\.\d)?\b)"
                    r"|^\s*,?\s*(?:(?:an?\s+)?(?:AI|model|assistant)\s+)?"
                    r"(?:made|developed|created|trained|built|released)\s+by\b",
                    re.IGNORECASE)
_SUFFIX = re.compile(r"^(?:\d{4,8}|\d{2}|v?\d+(?:\.\d+)*|\d+(?:\.\d+)?[bmk]|instruct|chat|preview|latest|hf|it|exp|base)$",
                     re.IGNORECASE)
_TOKENS = re.compile(r"[\s_\-./:]+")
CONTEXT_CHARS = 40
MAX_HITS = 50


@dataclass(frozen=True)
class Hit:
    side: str
    term: str
    reason: str
    context: str

    def as_dict(self) -> dict:
        return asdict(self)


def _bounded(pattern: str) -> re.Pattern:
    return re.compile(rf"(?<![\w]){pattern}(?![\w])", re.IGNORECASE)


def _flexible(tokens: list[str]) -> str:
    """The tokens of a name, folded, with any separator (or none) between them."""
    return r"[\s\-./]?".join(re.escape(t) for t in tokens)


def name_variants(model_name: str) -> list[list[str]]:
    """The spellings of ``model_name`` a text may use, as token lists: the whole name, without its organisation
    prefix, without trailing date, size and tuning suffixes. A shortened variant must keep two tokens, or one with
    a digit and four characters, so that "model-x" never becomes a hunt for "model"."""
    name = model_name.strip()
    if not name:
        return []
    bare = name.rsplit("/", 1)[-1]
    found = []
    for candidate in (name, bare):
        tokens = [t for t in _TOKENS.split(candidate) if t]
        whole = True
        while tokens:
            if len(tokens) >= 2 or (len(tokens[0]) >= 4 and any(c.isdigit() for c in tokens[0])) or (
                whole and len(tokens[0]) >= 3
            ):
                if tokens not in found:
                    found.append(list(tokens))
            if not _SUFFIX.match(tokens[-1]):
                break
            tokens, whole = tokens[:-1], False
    return found


@dataclass(frozen=True)
class _Term:
    pattern: re.Pattern
    reason: str
    ambiguous: bool
    anchor: str  # the first word of the term, lowercased: a text without it is not searched for the term


_WORD = re.compile(r"\w+")


def _term(tokens: list[str], reason: str, *, ambiguous: bool = False) -> _Term | None:
    folded = [f for f in (masking.fold(t) for t in tokens) if f]
    anchor = _WORD.search(folded[0]) if folded else None
    if anchor is None:
        return None
    return _Term(_bounded(_flexible(folded)), reason, ambiguous, anchor.group(0))


@functools.cache
def _lists() -> tuple[_Term, ...]:
    """FAMILIES and AMBIGUOUS, compiled once."""
    terms = (*(_term(_TOKENS.split(f), "a model family or maker") for f in FAMILIES),
             *(_term([w], "a model family or maker, named as a model", ambiguous=True) for w in AMBIGUOUS))
    return tuple(t for t in terms if t)


@functools.lru_cache(maxsize=256)
def _terms(model_names: tuple[str, ...]) -> list[_Term]:
    """The terms searched in a pair whose models are ``model_names``; an import has few distinct pairs of names."""
    terms = []
    for model_name in dict.fromkeys(n for n in model_names if n):
        terms += [_term(tokens, f"the pair's model name {model_name}") for tokens in name_variants(model_name)]
    return [*(t for t in terms if t), *_lists()]


def scan(*, sides: dict[str, str], model_names: list[str]) -> list[Hit]:
    """Every self-identification in the text of each side (``{"A": text, "B": text}``), in reading order; where
    two terms overlap the longer one is kept. At most MAX_HITS."""
    terms = _terms(tuple(model_names))
    hits: list[Hit] = []
    for side, text in sides.items():
        candidates = []
        for view in masking.views(text):
            folded = view.text
            words = set(_WORD.findall(folded))
            for order, term in enumerate(terms):
                if term.anchor not in words:
                    continue
                for match in term.pattern.finditer(folded):
                    fs, fe = match.span()
                    if term.ambiguous and not (_BEFORE.search(folded[max(0, fs - 120):fs]) or _AFTER.match(folded[fe:fe + 30])):
                        continue
                    candidates.append((*view.original(fs, fe), order, term))
        taken: list[tuple[int, int, Hit]] = []
        for start, end, _, term in sorted(candidates, key=lambda c: (c[0] - c[1], c[2], c[0])):
            if not any(start < e and s < end for s, e, _ in taken):
                taken.append((start, end, Hit(side, text[start:end], term.reason, _context(text, start, end))))
        hits += [hit for _, _, hit in sorted(taken, key=lambda t: t[0])]
    return hits[:MAX_HITS]


def scan_responses(*, a: tuple[str, list[dict]], b: tuple[str, list[dict]]) -> list[dict]:
    """``scan`` over the text of two responses, each given as (model name, content blocks), as stored on a pair."""
    sides = {"A": content.plain_text(a[1]), "B": content.plain_text(b[1])}
    return [hit.as_dict() for hit in scan(sides=sides, model_names=[a[0], b[0]])]


def _context(text: str, start: int, end: int) -> str:
    lead = "…" if start > CONTEXT_CHARS else ""
    tail = "…" if end + CONTEXT_CHARS < len(text) else ""
    words = f"{lead}{text[max(0, start - CONTEXT_CHARS):start]}[{text[start:end]}]{text[end:end + CONTEXT_CHARS]}{tail}"
    return " ".join(words.split())


def masked_terms(hits: list[dict]) -> list[str]:
    """The words to hide from annotators for a pair's stored hits, longest first."""
    return sorted({hit["term"] for hit in hits if hit.get("term")}, key=len, reverse=True)
