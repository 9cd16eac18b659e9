"""Template tags that turn content blocks and rating schemas into the annotator's page.

Everything here renders server-side: Markdown is sanitised with nh3, code is highlighted with
Pygments, and media are addressed only by the URLs the display data carries (``/media/<sha256>.<ext>``).
"""

from __future__ import annotations

import functools
import json
import threading

import markdown
import nh3
from django import template
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import TextLexer, get_lexer_by_name
from pygments.util import ClassNotFound

from annotation.catalogue.models import TaskKind
from frontend import rating_form

register = template.Library()

# Markdown may format text but never fetch anything: no images, no iframes, no scripts, no styles.
ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i",
    "kbd", "li", "ol", "p", "pre", "s", "span", "strong", "sub", "sup", "table", "tbody", "td", "th", "thead",
    "tr", "ul", "div",
}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "span": {"class"}, "div": {"class"}, "code": {"class"},
                      "th": {"align"}, "td": {"align"}}
MARKDOWN_EXTENSIONS = ["fenced_code", "tables", "sane_lists", "codehilite"]
MARKDOWN_CONFIG = {"codehilite": {"css_class": "highlight", "guess_lang": False}}
FORMATTER = HtmlFormatter(cssclass="highlight")


_local = threading.local()


def _markdown_converter() -> markdown.Markdown:
    """One converter per thread: building one loads every extension, and converters are not thread-safe."""
    converter = getattr(_local, "markdown", None)
    if converter is None:
        converter = _local.markdown = markdown.Markdown(extensions=MARKDOWN_EXTENSIONS, extension_configs=MARKDOWN_CONFIG)
    return converter


@register.filter
def render_markdown(text: str) -> SafeString:
    """Markdown as sanitised HTML: links keep http(s)/mailto only and open nothing in the page itself."""
    return mark_safe(_markdown_html(text or ""))  # nh3 has sanitised it


@functools.lru_cache(maxsize=4096)
def _markdown_html(text: str) -> str:
    html = _markdown_converter().reset().convert(text)
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )


@functools.lru_cache(maxsize=256)
def _lexer(language: str):
    try:
        return get_lexer_by_name((language or "text").strip().lower())
    except ClassNotFound:
        return TextLexer()


# A pair is rendered again on every reload and its traces repeat code: keep recent highlights.
@functools.lru_cache(maxsize=2048)
def _highlighted(code: str, language: str) -> str:
    return pygments_highlight(code, _lexer(language), FORMATTER)


@register.simple_tag
def highlight_code(code: str, language: str = "text") -> SafeString:
    """``code`` highlighted by Pygments (which escapes it) inside ``<div class="highlight">``."""
    return mark_safe(_highlighted(code or "", language or "text"))  # Pygments escapes


COMPACT_ARGUMENTS_CHARS = 72


def tool_arguments(arguments) -> list[dict]:
    """A tool call's arguments as display parts: code arguments highlighted as code, the rest as JSON."""
    if isinstance(arguments, str):
        return [{"label": "", "html": highlight_code(arguments, "text")}]
    parts = []
    rest = arguments
    if isinstance(arguments, dict) and isinstance(arguments.get("code"), str):
        language = arguments.get("language") if isinstance(arguments.get("language"), str) else "python"
        parts.append({"label": "code", "html": highlight_code(arguments["code"], language)})
        rest = {k: v for k, v in arguments.items() if k not in ("code", "language")}
    if rest or not parts:
        # Short arguments on one line ({"timeout": 5}); only a long or nested value takes a line per key.
        text = json.dumps(rest, ensure_ascii=False, sort_keys=True)
        if len(text) > COMPACT_ARGUMENTS_CHARS:
            text = json.dumps(rest, indent=2, ensure_ascii=False, sort_keys=True)
        html = mark_safe(_highlighted(text, "json"))  # Pygments escapes
        parts.append({"label": "arguments" if parts else "", "html": html})
    return parts


def _extension(block: dict) -> str:
    url = block.get("url", "")
    return url.rsplit(".", 1)[-1].lower() if "." in url.rsplit("/", 1)[-1] else ""


# The box an image is drawn in, for the browser's choice among the renditions (``sizes``; prefetch.js asks for the
# same through the page's config). A response image is at most one side pane wide (the page is a grid of the stage,
# two panes, and a 430 px rating panel, in a main column of at most 1600 px); a prompt image at most 40vw (unfolded).
# At 1440 or 1280 px wide, one device pixel per CSS pixel, that is the 640 px rendition: a quarter of the 1280 one's
# pixels to decode. Zooming in asks for a larger one (media.js).
IMAGE_SIZES = {
    "prompt": "(min-width: 900px) 40vw, 100vw",
    "response": "(min-width: 1600px) 560px, max(160px, calc(50vw - 240px))",
}


@register.simple_tag
def content_blocks(blocks, zoom: bool = False, compare: str = "", caption: str = "", choose: bool = False) -> SafeString:
    """Render an ordered list of display blocks; reasoning steps are numbered in reading order.

    Precondition: media blocks carry ``url`` (display data from ``pair_display``). ``zoom`` puts
    images in synchronised zoom frames; ``compare`` (an input image's URL) overlays that input on
    each image for comparison; ``caption`` numbers images ("Input 1", "Input 2", …); ``choose`` gives each
    image a button that makes it the input compared with the outputs (captioned images are the prompt's, sized as
    such: ``IMAGE_SIZES``).
    """
    parts = []
    step = 0
    images = 0
    for block in blocks or []:
        kind = block.get("type")
        context = {"block": block, "zoom": zoom, "compare": compare, "caption": caption, "choose": choose,
                   "sizes": IMAGE_SIZES["prompt" if caption else "response"]}
        if kind == "reasoning":
            step += 1
            context["step"] = step
        elif kind == "image":
            images += 1
            context["index"] = images
        elif kind == "tool_call":
            context["arguments"] = tool_arguments(block.get("arguments", {}))
        elif kind in ("video", "audio", "model3d"):
            context["extension"] = _extension(block)
        if kind not in ("text", "code", "tool_call", "reasoning", "final_answer", "image", "video", "audio", "model3d"):
            continue
        template = "missing" if kind in ("image", "video", "audio", "model3d") and not block.get("url") else kind
        parts.append(render_to_string(f"frontend/workspace/blocks/{template}.html", context))
    return mark_safe("".join(parts))  # each part is an autoescaped template


@register.simple_tag
def input_images(blocks) -> list[dict]:
    """The prompt's images in order: the inputs an edited output is compared with."""
    return [block for block in blocks or [] if block.get("type") == "image" and block.get("url")]


# What each task kind's page offers: zoom frames, comparison with the inputs, synchronised scrolling
# (None: not offered, else whether it starts on) and numbered reasoning steps.
KIND_FEATURES = {
    "text-to-image": {"zoom": True, "compare": False, "sync_scroll": None},
    "image-editing": {"zoom": True, "compare": True, "sync_scroll": None},
    "interleaved": {"zoom": False, "compare": False, "sync_scroll": True},
    "reasoning": {"zoom": False, "compare": False, "sync_scroll": False},
    "text-to-3d": {"zoom": True, "compare": False, "sync_scroll": None},
    "text-to-video": {"zoom": False, "compare": False, "sync_scroll": None},
    "text-to-audio": {"zoom": False, "compare": False, "sync_scroll": None},
}
DEFAULT_FEATURES = {"zoom": False, "compare": False, "sync_scroll": False}


@register.simple_tag
def kind_features(kind: str) -> dict:
    """The viewing aids of task ``kind``'s page (text answers get optional synchronised scrolling)."""
    return KIND_FEATURES.get(kind, DEFAULT_FEATURES)


@register.simple_tag
def rating_fields(schema, criteria=None, draft=None) -> list[dict]:
    """The rating form's questions, ready to render (see ``frontend.rating_form``)."""
    return rating_form.build(schema, criteria=criteria or [], draft=draft or {})


@register.simple_tag
def pair_sides(display: dict) -> list[tuple[str, list]]:
    """The two responses as shown: the left one is labelled A, the right one B."""
    return [("A", display.get("left") or []), ("B", display.get("right") or [])]


@register.filter
def kind_label(kind: str) -> str:
    """A task kind's name for people ("Text to image")."""
    return dict(TaskKind.choices).get(kind, kind)


@register.filter
def duration_ms(ms) -> str:
    """Milliseconds as a short duration ("48 s", "3 min 05 s"); a dash when unknown."""
    if ms is None:
        return "–"
    seconds = round(ms / 1000)
    return f"{seconds} s" if seconds < 60 else f"{seconds // 60} min {seconds % 60:02d} s"
