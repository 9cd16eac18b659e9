"""Responses that name themselves, in English, Chinese and Russian, and ordinary text that must stay as written.

Each ``Case`` is a response's text, the spans of it that the annotator must see as ``[hidden]`` (in reading order;
two names side by side become one ``[hidden]``), and the fragments of the names that must not survive anywhere in
what is shown (matched folded, so a look-alike letter or another case does not count as gone). ``models`` are the
pair's model names, as the campaign's model list gives them. Used by ``test_selfname_corpus.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

MODELS = ("acme-one-7b", "other-bot-2")
CLEARWRITER = ("acme/clearwriter-70b", "other-bot-2")


@dataclass(frozen=True)
class Case:
    text: str
    hidden: tuple[str, ...]
    names: tuple[str, ...]
    models: tuple[str, ...] = MODELS


ENGLISH = [
    Case("As Claude, made by Anthropic, I think the left image is better.", ("Claude", "Anthropic"),
         ("claude", "anthropic")),
    Case("I am GPT-4o, a large language model trained by OpenAI.", ("GPT-4o", "OpenAI"), ("gpt", "openai")),
    Case("I'm Claude 3.5 Sonnet, an AI assistant created by Anthropic.", ("Claude 3.5 Sonnet", "Anthropic"),
         ("claude", "sonnet", "anthropic")),
    Case("Gemini 1.5 Pro here. I was developed by Google.", ("Gemini 1.5 Pro", "Google"), ("gemini", "google")),
    Case("This is Claude. How can I help?", ("Claude",), ("claude",)),
    Case("Hi, Claude here! Happy to help.", ("Claude",), ("claude",)),
    Case("As Gemini, I cannot browse the web.", ("Gemini",), ("gemini",)),
    Case("I am Qwen2.5-VL-72B, developed by Alibaba Cloud.", ("Qwen2.5-VL-72B", "Alibaba Cloud"), ("qwen", "alibaba")),
    Case("I'm Llama 3, an open model made by Meta.", ("Llama 3", "Meta"), ("llama", "meta")),
    Case("I'm ClearWriter 70B, your writing assistant.", ("ClearWriter 70B",), ("clearwriter",), CLEARWRITER),
    Case("I'm ClearWriter. ClearWriter never forgets a comma.", ("ClearWriter", "ClearWriter"), ("clearwriter",),
         CLEARWRITER),
    Case("My name is Grok, and I was built by xAI.", ("Grok", "xAI"), ("grok", "xai")),
    Case("I am DeepSeek-R1, trained by DeepSeek.", ("DeepSeek-R1", "DeepSeek"), ("deepseek",)),
    Case("As an AI developed by Mistral AI, I answer briefly.", ("Mistral AI",), ("mistral",)),
    Case("I'm Claude, an AI assistant made by Anthropic. Claude thinks the right one is better.",
         ("Claude", "Anthropic", "Claude"), ("claude", "anthropic")),
    Case("This is GPT-4o mini speaking.", ("GPT-4o mini",), ("gpt", "4o")),
    Case("I am Claude 3 Opus.", ("Claude 3 Opus",), ("claude", "opus")),
    Case("I'm Gemini 2.0 Flash, Google's model.", ("Gemini 2.0 Flash", "Google"), ("gemini", "google", "flash")),
    Case("I am Kimi, made by Moonshot AI.", ("Kimi", "Moonshot AI"), ("kimi", "moonshot")),
    Case("Hello! I am Llama 3.1 70B Instruct.", ("Llama 3.1 70B Instruct",), ("llama", "70b")),
    Case("I am ChatGPT, based on GPT-4.", ("ChatGPT", "GPT-4"), ("chatgpt", "gpt")),
    Case("Made by Anthropic, I am Claude.", ("Anthropic", "Claude"), ("anthropic", "claude")),
    Case("Claude Sonnet 4 here, ready to help.", ("Claude Sonnet 4",), ("claude", "sonnet")),
    Case("I am Phi-3 mini, trained by Microsoft.", ("Phi-3 mini", "Microsoft"), ("phi", "microsoft")),
]

CHINESE = [
    Case("我是Claude，由Anthropic开发的AI助手。", ("Claude", "Anthropic"), ("claude", "anthropic")),
    Case("我是通义千问，阿里巴巴集团旗下的超大规模语言模型。", ("通义千问", "阿里巴巴"), ("通义", "千问", "阿里")),
    Case("你好！我是文心一言，英文名是ERNIE Bot。", ("文心一言", "ERNIE Bot"), ("文心", "ernie")),
    Case("我是豆包，由字节跳动开发的人工智能。", ("豆包", "字节跳动"), ("豆包", "字节")),
    Case("我是Kimi，由月之暗面科技有限公司开发。", ("Kimi", "月之暗面"), ("kimi", "月之暗面")),
    Case("我是DeepSeek-V3，由深度求索公司开发。", ("DeepSeek-V3", "深度求索"), ("deepseek", "深度求索")),
    Case("我是GPT-4o，由OpenAI训练的大型语言模型。", ("GPT-4o", "OpenAI"), ("gpt", "openai")),
    Case("作为Claude，我认为左边的图片更好。", ("Claude",), ("claude",)),
    Case("我是由Anthropic开发的AI助手Claude。", ("Anthropic", "Claude"), ("anthropic", "claude")),
    Case("您好，我是腾讯混元大模型。", ("腾讯混元大模型",), ("腾讯", "混元")),
    Case("我是智谱清言，由智谱AI开发。", ("智谱清言", "智谱AI"), ("智谱", "清言")),
    Case("我是Gemini，由Google训练的大型语言模型。", ("Gemini", "Google"), ("gemini", "google")),
    Case("这里是Claude，很高兴为你服务。", ("Claude",), ("claude",)),
    Case("我是Qwen2.5-VL-72B，阿里云开发的多模态模型。", ("Qwen2.5-VL-72B", "阿里云"), ("qwen", "阿里")),
    Case("我是元宝，腾讯推出的AI助手。", ("元宝", "腾讯"), ("元宝", "腾讯")),
    Case("我叫ClearWriter 70B。", ("ClearWriter 70B",), ("clearwriter",), CLEARWRITER),
]

RUSSIAN = [
    Case("Я Claude, созданный Anthropic.", ("Claude", "Anthropic"), ("claude", "anthropic")),
    Case("Я — GigaChat от Сбера.", ("GigaChat", "Сбера"), ("gigachat", "сбер")),
    Case("Меня зовут Алиса, я голосовой помощник Яндекса.", ("Алиса", "Яндекса"), ("алис", "яндекс")),
    Case("Я YandexGPT, языковая модель Яндекса.", ("YandexGPT", "Яндекса"), ("yandex", "яндекс")),
    Case("Как Claude, я считаю, что левое изображение лучше.", ("Claude",), ("claude",)),
    Case("Я Клод, ИИ-ассистент компании Anthropic.", ("Клод", "Anthropic"), ("клод", "anthropic")),
    Case("Меня зовут Клод, меня создала компания Антропик.", ("Клод", "Антропик"), ("клод", "антропик")),
    Case("Я — Gemini, большая языковая модель, обученная Google.", ("Gemini", "Google"), ("gemini", "google")),
    Case("Я GPT-4o, разработанный OpenAI.", ("GPT-4o", "OpenAI"), ("gpt", "openai")),
    Case("Это ГигаЧат, нейросетевая модель Сбербанка.", ("ГигаЧат", "Сбербанка"), ("гигачат", "сбер")),
    Case("Я Qwen2.5, модель от Alibaba Cloud.", ("Qwen2.5", "Alibaba Cloud"), ("qwen", "alibaba")),
    Case("Привет! Я DeepSeek-V3, меня разработала компания DeepSeek.", ("DeepSeek-V3", "DeepSeek"), ("deepseek",)),
    Case("Я Llama 3, открытая модель от Meta.", ("Llama 3", "Meta"), ("llama", "meta")),
    Case("Я Джемини от Гугла.", ("Джемини", "Гугла"), ("джемини", "гугл")),
    Case("С вами Claude 3.5 Sonnet, ассистент от Anthropic.", ("Claude 3.5 Sonnet", "Anthropic"),
         ("claude", "sonnet", "anthropic")),
    Case("Я ClearWriter 70B, и ClearWriter всегда рад помочь.", ("ClearWriter 70B", "ClearWriter"), ("clearwriter",),
         CLEARWRITER),
    Case("Я — Клод. Клодом меня назвали в Anthropic.", ("Клод", "Клодом", "Anthropic"), ("клод", "anthropic")),
]

# The same self-identification, its names written to slip past: case, look-alike letters, fullwidth forms,
# invisible characters, other separators (hyphenation and spacing). ``{}`` is where each name goes.
FORMS = [
    ("As {}, made by {}, I think the left one is better.", ("CLAUDE", "ANTHROPIC")),
    ("As {}, made by {}, I think the left one is better.", ("claude", "anthropic")),
    ("As {}, made by {}, I think the left one is better.", ("\u0421l\u0430ud\u0435", "\u0410nthr\u043ep\u0456c")),
    ("As {}, made by {}, I think the left one is better.", ("Ｃｌａｕｄｅ", "Ａｎｔｈｒｏｐｉｃ")),
    ("As {}, made by {}, I think the left one is better.", ("Cla\u200bude", "Anthro\u00adpic")),
    ("I am {}, trained by {}.", ("GPT 4o", "Open\u200bAI")),
    ("I am {}, trained by {}.", ("GPT4o", "OPENAI")),
    ("I am {}, trained by {}.", ("gpt\u20114o", "ＯｐｅｎＡＩ")),
    ("I am {}, made by {}.", ("Claude-3.5-Sonnet", "Anthropic")),
    ("I am {}, made by {}.", ("claude 3.5 sonnet", "anthropic")),
    ("I am {}, made by {}.", ("Claude3.5 Sonnet", "\u0410nthropic")),
    ("I am {}, made by {}.", ("QWEN2.5-VL-72B", "Alibaba Cloud")),
    ("I am {}, made by {}.", ("Qwen 2.5 VL 72B", "Alibaba\u2011Cloud")),
    ("我是{}，由{}开发。", ("Ｃｌａｕｄｅ", "Ａｎｔｈｒｏｐｉｃ")),
    ("我是{}，由{}开发。", ("CLAUDE", "anthropic")),
    ("我是{}，由{}开发。", ("通义千问", "阿里云")),
    ("Я {}, созданный {}.", ("КЛОД", "Anthropic")),
    ("Я {}, созданный {}.", ("клод", "АНТРОПИК")),
    ("Я — {} от {}.", ("GIGACHAT", "СБЕРА")),
    ("Я — {} от {}.", ("Giga\u200bChat", "сбера")),
]

# Ordinary text: nothing hidden, not one character changed.
ORDINARY = [
    "Claudication is pain in the legs caused by poor circulation.",
    "As a Gemini, she is curious and quick-witted.",
    "I am a Gemini, born in June; I'm the llama of the family.",
    "Gemini is the third sign of the zodiac.",
    "Open AI research is a broad field; open, AI-assisted review helps.",
    "Claude Monet painted water lilies at Giverny.",
    "This is Claude Monet's garden, as Claude Debussy heard it.",
    "The llama is a South American camelid; a llama here, two llamas there.",
    "Shakespeare's Sonnet 18 compares the beloved to a summer's day.",
    "Set the random seed 42 before training, then write a haiku.",
    "A meta-analysis of haiku and sonnet forms, with a flux of new poets.",
    "I am going to write a haiku about a llama.",
    "It is a Google search away, said the Microsoft Word manual.",
    "我爱吃豆包和包子。",
    "红豆包子很好吃，星火可以燎原。",
    "双子座是黄道十二宫之一，羊驼生活在南美洲。",
    "我是一名学生，我喜欢画画。",
    "Лама живёт в горах Южной Америки.",
    "Клод Моне написал «Впечатление. Восходящее солнце».",
    "Я видел Алису вчера в парке.",
    "Сбербанк открыл новый офис, а Яндекс.Карты показали дорогу.",
    "Как Клод Моне, он любил свет.",
    "Мета-анализ показал, что я прав.",
    "Я мету пол каждое утро, а Алиса поливает цветы.",
    "Claude, Gemini and Llama are names; a gemini, a llama and a sonnet are words.",
]
