"""Responses that name themselves: "As Claude, made by Anthropic, I…", "I am Qwen", "GPT-4o here", "我是通义千问",
"Я — GigaChat от Сбера".

At import each pair's responses are scanned for (1) the pair's own model names, in the spellings a text uses
for them (any case, any separator, without the organisation prefix or the date and size suffixes), and
(2) a curated list of model families and makers, in Latin, Chinese and Cyrillic letters. A version or tier after a
name is part of the hit ("Claude 3.5 Sonnet", "Qwen2.5-VL-72B"). Every hit is kept on the pair for the curators
(side, what was found, why, the words around it) and masked as "[hidden]" in the annotators' view; the stored
content, and so any release, keeps the text as it was.

Names that are also ordinary words (Gemini, Llama, Claude, Flux, Meta, Google, 豆包, Клод, Сбер, …) count only
where the text speaks of a model: after "I am", "developed by", "as an AI …", 我是, 由, Я, меня зовут,
созданный and the like (not after an article: "I am a Gemini"); after "As", "This is", 作为, Как where the name
ends a clause; followed by "AI", "model", ", made by", "here." (opening a sentence), 模型, "，由", ", созданный";
or with a version. Once a name counts somewhere in the pair it counts everywhere in it, and an ambiguous maker
right beside a hit counts too ("GigaChat от Сбера"). Names are matched as a reader sees them, in the text folded
by ``annotation.catalogue.masking`` (zero-width characters, fullwidth and look-alike letters, markup, entities and
dash variants do not hide a name; Cyrillic names are found declined; Chinese text needs no spaces around a name);
a hit keeps the words as written. Plain Python, no Django.
"""

from __future__ import annotations

import functools
import re
from dataclasses import asdict, dataclass

from annotation.catalogue import content, masking

# Unambiguous: each of these names a model, a model family or its maker wherever it appears (in Latin, Chinese or
# Cyrillic letters).
FAMILIES = (
    "OpenAI", "ChatGPT", "GPT-3", "GPT-3.5", "GPT-4", "GPT-4o", "GPT-4.1", "GPT-5", "GPT Image", "DALL-E", "DALL·E",
    "Anthropic", "Google DeepMind", "DeepMind", "PaLM", "Gemma", "Meta AI", "LLaMA-2", "Llama 2", "Llama 3",
    "Llama-3", "Qwen", "Tongyi", "Alibaba Cloud", "Alibaba", "DeepSeek", "Mistral AI", "Mixtral", "xAI", "Midjourney",
    "Stable Diffusion", "Stability AI", "SDXL", "Black Forest Labs", "FLUX.1", "Ideogram", "Kling", "Kuaishou",
    "Runway ML", "RunwayML", "Pika Labs", "Hunyuan", "Tencent", "Doubao", "Seedream", "Seedance", "ByteDance",
    "Zhipu", "ChatGLM", "CogView", "CogVideo", "Moonshot AI", "Baichuan", "InternLM", "InternVL", "ERNIE Bot",
    "Baidu", "Janus-Pro", "Emu3", "OmniGen", "Cohere", "MiniMax", "Hailuo", "LLaVA", "Vicuna", "Bing Chat",
    "Microsoft Copilot", "Amazon Nova", "Amazon Titan", "Sonnet 3.5", "Claude 3", "Claude-3", "GigaChat",
    "YandexGPT", "SberAI", "Sber AI",
    # Chinese
    "通义千问", "通义万相", "通义", "文心一言", "文心大模型", "智谱清言", "智谱", "腾讯混元", "混元大模型", "字节跳动",
    "月之暗面", "深度求索", "阿里巴巴", "阿里云", "百度", "腾讯", "讯飞星火", "科大讯飞", "讯飞", "零一万物",
    "阶跃星辰", "商汤", "可灵", "即梦", "智谱AI", "OpenAI公司",
    # Russian
    "ГигаЧат", "ЯндексGPT", "ЯндексГПТ", "Яндекс GPT", "ЧатГПТ", "Чат GPT", "Антропик", "ОпенЭйАй", "Опен Эй Ай",
    "Джемини", "Гемини", "ДипСик", "Дипсик", "Квен", "Мидджорни", "Алибаба", "Сбер AI", "СберИИ",
)
# Ordinary words too: a hit only where the text speaks of a model (see _speaks_of_a_model).
AMBIGUOUS = (
    "Gemini", "Bard", "Imagen", "Veo", "Llama", "Claude", "Grok", "Kimi", "Flux", "Sora", "Runway", "Pika",
    "Mistral", "Meta", "Google", "Microsoft", "Amazon", "Nova", "Titan", "Phi", "Yi", "Ernie", "Copilot", "Bagel",
    "Sonnet", "Opus", "Haiku", "Wan", "Seed",
    # Chinese
    "豆包", "元宝", "千问", "星火", "混元", "海螺", "谷歌", "微软", "亚马逊", "百川", "快手", "文心", "克劳德", "双子座",
    "羊驼",
    # Russian (found declined: "Сбера", "Клодом")
    "Клод", "Лама", "Грок", "Мистраль", "Гугл", "Яндекс", "Сбер", "Сбербанк", "Алиса", "Мета", "Кими", "Копилот",
    "Майкрософт",
)
# Ambiguous names that a number after them does not make a model's ("Sonnet 18", "seed 42", "Wan 2 goals").
_NUMBER_IS_NOT_ENOUGH = {"sonnet", "opus", "haiku", "seed", "wan", "nova", "titan", "yi"}
# A shortened model name of one word, without a digit, is searched only where the text speaks of a model, and never
# when it is one of these.
_GENERIC = {"model", "models", "chat", "base", "large", "small", "medium", "vision", "image", "video", "audio",
            "text", "writer", "agent", "instruct", "preview", "latest", "turbo", "ultra", "mini", "nano", "alpha",
            "beta", "gamma", "delta", "omega", "open", "assistant", "expert", "local", "final", "test", "demo"}


def _fr(pattern: str) -> str:
    """A regular expression written in plain letters, as it reads in the folded text: each non-ASCII
    character folded (``masking``), ASCII kept (regex syntax, lowercase letters)."""
    return "".join(c if c.isascii() else re.escape(masking.fold_character(c)) for c in pattern)


# Where a name after them is one a model calls itself: "I am", "developed by", "as an AI …", "我是", "由", "меня
# зовут", "созданный"; then only filler words ("a large language model trained by") before the name.
_LEAD_EN = (r"\b(?:i\s+am|i'm|i\s+was|my\s+name\s+is|call\s+me|as\s+an?\s+ai|as\s+an?\s+(?:large\s+)?language\s+model|"
            r"(?:developed|created|trained|made|built|powered|generated|released|designed|produced)\s+by|"
            r"(?:model|assistant|chatbot|llm)\s+(?:called|named|from|by))")
_FILLER_EN = (r"(?:\s+(?:an?|the|ai|large|language|model|assistant|chatbot|llm|developed|created|trained|by|from|called|"
              r"named|at|team|company|,))*")
_LEAD_RU = _fr(r"\b(?:я|меня\s+зовут|мое\s+имя|моё\s+имя|я\s+называюсь|называюсь|"
               r"(?:созданн|разработанн|обученн|сделанн|построенн|выпущенн|натренированн)\w*|"
               r"(?:создан|разработан|обучен|сделан)[аоы]?|"
               r"(?:модел|ассистент|помощник|нейросет|чат-?бот)\w*(?:\s+(?:от|компании))?)")
_FILLER_RU = _fr(r"(?:\s+|-|,|:|\b(?:являюсь|это|ии|искусственн\w*|интеллект\w*|языков\w*|модел\w*|нейросет\w*|"
                 r"ассистент\w*|помощник\w*|чат-?бот\w*|больш\w*|компани\w*|команд\w*|от|специалист\w*)\b)*")
_LEAD_ZH = _fr(r"(?:我是|我叫|我的名字是|我名叫|我名为|本人是|我就是|名为|叫做|名叫|由|来自|私は|わたしは|僕は|"
               r"(?:开发|训练|打造|研发|创建|推出|制作|构建|设计|研制|提供)的)")
_FILLER_ZH = _fr(r"(?:一个|一款|一种|一名|的|大型|超大规模|大|语言|模型|人工智能|ai|智能|助手|助理|聊天机器人|公司|团队|"
                 r"集团|旗下|科技|有限|,|:|\s)*")
_BEFORE = re.compile(rf"(?:{_LEAD_EN}{_FILLER_EN}|{_LEAD_RU}{_FILLER_RU}|{_LEAD_ZH}{_FILLER_ZH})[\s,:-]*$")
# Weaker: "As Claude, …", "This is Gemini.", "Как Claude, я…", "作为Claude，我…": only where the name ends a clause.
_WEAK_BEFORE = re.compile(_fr(r"(?:\b(?:as|this\s+is|here\s+is|it\s+is|it's|как|это|здесь|в\s+качестве)|作为|这里是|这是)"
                              r"[\s:-]*$"))
_CLAUSE_END = re.compile(_fr(r"^\s*(?:[,.;:!?)]|$|。|、|\s-\s)"))
# After the name: "Claude AI", "Claude, made by Anthropic", "Claude, созданный …", "Claude，由…开发", "GPT-4o模型".
_AFTER = re.compile(_fr(
    r"^[\s-]*(?:ai|model|assistant|llm|chatbot|language\s+model)\b"
    r"|^\s*,?\s*(?:(?:an?\s+)?(?:ai|model|assistant)\s+)?(?:made|developed|created|trained|built|released)\s+by\b"
    r"|^\s*,?\s*-?\s*(?:созданн|разработанн|обученн|сделанн|построенн|выпущенн|натренированн)"
    r"|^[\s-]*(?:ии\b|модел|нейросет|ассистент|чат-?бот)"
    r"|^\s*(?:模型|大模型|助手|人工智能|智能助手|在此|在这里)"
    r"|^\s*,?\s*(?:是|我)?由"
    r"|^\s*(?:です|と申します|と言います)"))
# An article right before the name makes it a noun ("I am a Gemini", "made by a Titan of industry").
_ARTICLE = re.compile(r"\b(?:an?|the)\s+$")
# "Claude here.", "Gemini speaking", "Клод здесь": a name that opens a sentence (not "a llama here").
_HERE = re.compile(_fr(r"^\s+(?:here|speaking|здесь|на\s+связи)\s*(?:[.,!:;)]|$)"))
_OPENS = re.compile(_fr(r"(?:^|[.!?:;\n]|\b(?:hi|hello|hey|привет|здравствуйте)\b,?)\s*$"))
# Between a name already found and an ambiguous one next to it: "GigaChat от Сбера", "Gemini by Google" (after),
# "Google's Gemini", "Meta Llama 3", "谷歌的Gemini" (before).
_JOINS_AFTER = re.compile(_fr(r"^\s*,?\s*(?:(?:from|by|of|от|компании|компанией|由|来自)\s*)?$"))
_JOINS_BEFORE = re.compile(_fr(r"^(?:\s|'s|的)*$"))
# A version or a tier after a name is part of it: "Claude 3.5 Sonnet", "Gemini 1.5 Pro", "Qwen2.5-VL-72B",
# "GPT-4o mini", "DeepSeek-R1", "ClearWriter 70B", "GigaChat Pro", "文心一言4.0".
_TIERS = ("pro|ultra|flash|nano|mini|turbo|large|medium|small|opus|sonnet|haiku|max|plus|instruct|chat|vl|coder|"
          "vision|lite|omni|preview|exp|experimental|thinking|reasoner")
_VERSION = (rf"(?:[\s\-.]?(?:\d+(?:\.\d+)*[a-z]?|[a-z]\d+(?:\.\d+)*|\d+(?:\.\d+)?[bmk])(?![^\W{masking.UNSPACED}])"
            rf"|[\s\-](?:{_TIERS})\b)")
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


def name_variants(model_name: str) -> list[list[str]]:
    """The spellings of ``model_name`` a text may use, as token lists: the whole name, without its organisation
    prefix, without trailing date, size and tuning suffixes. A shortened variant must keep two tokens, or one with
    a digit and four characters, so that "model-x" never becomes a hunt for "model"."""
    return _variants(model_name)[0]


def _variants(model_name: str) -> tuple[list[list[str]], list[str]]:
    """``name_variants``, and the one-word short names (≥ 5 letters, not a generic word: "ClearWriter" of
    "clearwriter-70b") that count only where the text speaks of a model."""
    name = model_name.strip()
    if not name:
        return [], []
    bare = name.rsplit("/", 1)[-1]
    found, short = [], []
    for candidate in (name, bare):
        tokens = [t for t in _TOKENS.split(candidate) if t]
        whole = True
        while tokens:
            if len(tokens) >= 2 or (len(tokens[0]) >= 4 and any(c.isdigit() for c in tokens[0])) or (
                whole and len(tokens[0]) >= 3
            ):
                if tokens not in found:
                    found.append(list(tokens))
            elif len(tokens[0]) >= 5 and tokens[0].isalpha() and tokens[0].lower() not in _GENERIC:
                if tokens[0] not in short:
                    short.append(tokens[0])
            if not _SUFFIX.match(tokens[-1]):
                break
            tokens, whole = tokens[:-1], False
    return found, short


@dataclass(frozen=True, eq=False)
class _Term:
    name: masking.Name  # how the term is found (its anchor first)
    reason: str
    ambiguous: bool
    key: str  # the term as listed, folded: the same name found twice is one name
    spaced: bool  # whether it starts with a letter of a script written with spaces (not Chinese, say)


def _term(written: str, reason: str, *, ambiguous: bool = False) -> _Term | None:
    """``written`` as a term: matched whole (``masking.name_pattern``), followed by any version or tier."""
    name = masking.name_pattern(written, extension=_VERSION)
    if name is None:
        return None
    return _Term(name, reason, ambiguous, "".join(masking.fold(written).split()),
                 masking.UNSPACED_CHARACTER.match(name.anchor) is None)


@functools.cache
def _lists() -> tuple[_Term, ...]:
    """FAMILIES and AMBIGUOUS, compiled once."""
    terms = (*(_term(f, "a model family or maker") for f in FAMILIES),
             *(_term(w, "a model family or maker, named as a model", ambiguous=True) for w in AMBIGUOUS))
    return tuple(t for t in terms if t)


@functools.lru_cache(maxsize=256)
def _terms(model_names: tuple[str, ...]) -> list[_Term]:
    """The terms searched in a pair whose models are ``model_names``; an import has few distinct pairs of names."""
    terms = []
    for model_name in dict.fromkeys(n for n in model_names if n):
        variants, short = _variants(model_name)
        terms += [_term(" ".join(tokens), f"the pair's model name {model_name}") for tokens in variants]
        terms += [_term(word, f"the pair's model name {model_name}, named as a model", ambiguous=True) for word in short]
    return [*(t for t in terms if t), *_lists()]


@dataclass
class _Candidate:
    side: str
    start: int  # in the text as written
    end: int
    order: int
    term: _Term
    text: str  # the folded view it was found in
    at: int  # in that view
    to: int
    found: bool


def _speaks_of_a_model(text: str, at: int, to: int, extension: str, term: _Term) -> bool:
    """Whether the ambiguous name at ``at``..``to`` of the folded ``text`` is one a model goes by."""
    before, after = text[max(0, at - 120):at], text[to:to + 40]
    if _AFTER.match(after) or (_HERE.match(after) and _OPENS.search(before)):
        return True
    if _BEFORE.search(before) and not _ARTICLE.search(before):
        return True
    if extension and (re.search(rf"(?:{_TIERS})\b", extension) or (
            any(c.isdigit() for c in extension) and term.key not in _NUMBER_IS_NOT_ENOUGH)):
        return True
    return bool(_WEAK_BEFORE.search(before) and _CLAUSE_END.match(after))


def _joined(candidate: _Candidate, found: list[_Candidate]) -> bool:
    """Whether an ambiguous name stands right beside a name found in the same text ("GigaChat от Сбера")."""
    for other in found:
        if other.text is not candidate.text or other.side != candidate.side:
            continue
        if other.to <= candidate.at and candidate.at - other.to <= 24 and _JOINS_AFTER.match(
                candidate.text[other.to:candidate.at]):
            return True
        if candidate.to <= other.at and other.at - candidate.to <= 6 and _JOINS_BEFORE.match(
                candidate.text[candidate.to:other.at]):
            return True
    return False


def scan(*, sides: dict[str, str], model_names: list[str]) -> list[Hit]:
    """Every self-identification in the text of each side (``{"A": text, "B": text}``), in reading order; where
    two terms overlap the longer one is kept. An ambiguous name found as a model's once is found everywhere in the
    pair, and one right beside a name found ("GigaChat от Сбера") too. At most MAX_HITS."""
    terms = _terms(tuple(model_names))
    candidates: list[_Candidate] = []
    for side, text in sides.items():
        for view in masking.views(text):
            folded = view.text
            # A term of Latin or Cyrillic letters starts a run of them: its anchor's first three letters start one.
            starts = masking.word_starts(folded)
            unspaced = not folded.isascii() and masking.UNSPACED_CHARACTER.search(folded) is not None
            for order, term in enumerate(terms):
                anchor = term.name.anchor
                if not (anchor[:3] in starts if term.spaced else unspaced and anchor in folded):
                    continue
                for match in term.name.finditer(folded):
                    at, to = match.span()
                    found = not term.ambiguous or _speaks_of_a_model(folded, at, to, match.group("extension") or "", term)
                    candidates.append(_Candidate(side, *view.original(at, to), order, term, folded, at, to, found))
    while True:
        found = [c for c in candidates if c.found]
        named = {c.term.key for c in found if c.term.ambiguous}
        more = [c for c in candidates if not c.found and (c.term.key in named or _joined(c, found))]
        if not more:
            break
        for candidate in more:
            candidate.found = True
    hits: list[Hit] = []
    for side, text in sides.items():
        taken: list[tuple[int, int, Hit]] = []
        mine = [c for c in candidates if c.found and c.side == side]
        for c in sorted(mine, key=lambda c: (c.start - c.end, c.order, c.start)):
            if not any(c.start < e and s < c.end for s, e, _ in taken):
                taken.append((c.start, c.end, Hit(side, text[c.start:c.end], c.term.reason,
                                                  _context(text, c.start, c.end))))
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
