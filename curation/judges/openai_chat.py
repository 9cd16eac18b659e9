"""Judge backend for any OpenAI-compatible chat-completions endpoint (vLLM, SGLang, OpenAI, Gemini).

The prompt and both responses go in order as content parts, images as base64 data URLs. The
answer is parsed as MMRB2-style JSON or as an Omni-style ``[[A]]``/``[[B]]``/``[[C]]`` verdict.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import ssl
import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass

import httpcore
import httpx

from curation.judges import egress, parsing, prompts
from curation.judges.base import (
    Field,
    JudgeBackend,
    JudgeCall,
    JudgeConfigError,
    JudgeRequest,
    PermanentJudgeError,
    TransientJudgeError,
    looks_secret,
    read_secret,
    retry_after_seconds,
    usage_tokens,
)

RESERVED_BODY_KEYS = ("model", "messages", "stream", "n")
AUDIO_FORMATS = {"audio/wav": "wav", "audio/mpeg": "mp3"}


# A reply is read up to this size; a judge answering more is broken or hostile.
MAX_REPLY_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class Reply:
    status_code: int
    headers: httpx.Headers
    text: str


def http_failure(reply: Reply, what: str) -> Exception:
    """The error for an unsuccessful reply: 429 and 5xx are transient, any other 4xx (or a redirect) is not."""
    text = reply.text
    if reply.status_code == 429 or reply.status_code >= 500:
        return TransientJudgeError(
            f"{what} answered HTTP {reply.status_code}",
            retry_after=retry_after_seconds(reply.headers.get("retry-after")),
            raw=text,
        )
    if reply.status_code < 400:
        location = reply.headers.get("location", "")[:300]
        return PermanentJudgeError(f"{what} answered HTTP {reply.status_code} (a redirect to {location!r}); "
                                   "judges follow no redirects: set the final URL", raw=text)
    return PermanentJudgeError(f"{what} answered HTTP {reply.status_code}: {text[:300]}", raw=text)


async def post_json(client: ClientPool, url: httpx.URL, body: dict, *, what: str) -> tuple[dict, str, int]:
    """POST ``body``; the decoded reply, its text and the latency in ms, or a judge error."""
    started = time.perf_counter()
    try:
        reply = await client.post(url, json=body)
    except httpx.TimeoutException as exc:
        raise TransientJudgeError(f"{what} timed out ({type(exc).__name__})") from exc
    except httpx.TransportError as exc:
        raise TransientJudgeError(f"{what} could not be reached ({type(exc).__name__}: {exc})") from exc
    except httpx.InvalidURL as exc:
        raise PermanentJudgeError(f"{what} has a URL judges cannot connect to: {exc}") from exc
    latency_ms = int((time.perf_counter() - started) * 1000)
    if reply.status_code >= 300:
        raise http_failure(reply, what)
    try:
        payload = json.loads(reply.text)
    except ValueError as exc:
        raise PermanentJudgeError(f"{what} answered with a body that is not JSON", raw=reply.text) from exc
    if not isinstance(payload, dict):
        raise PermanentJudgeError(f"{what} answered with JSON that is not an object", raw=reply.text)
    return payload, reply.text, latency_ms


@functools.cache
def ssl_context() -> ssl.SSLContext:
    """One verifying TLS context per process: building one reads the CA bundle, which costs ~0.1 s."""
    return httpx.create_ssl_context()


def guarded_transport(allowed: tuple[str, ...]) -> httpx.AsyncHTTPTransport:
    """One connection whose every address is checked by ``egress`` after resolution.

    httpx takes no network backend, so the transport's httpcore pool (``_pool``, the one attribute httpx's
    transport sends through) is replaced by one that has it; tests/curation/test_judges_egress.py fails if
    a later httpx stops sending through it."""
    transport = httpx.AsyncHTTPTransport(verify=ssl_context(), trust_env=False)
    transport._pool = httpcore.AsyncConnectionPool(
        ssl_context=ssl_context(), max_connections=1, max_keepalive_connections=1,
        network_backend=egress.GuardedNetworkBackend(allowed),
    )
    return transport


MAX_CACHED_POOLS = 64
_pools: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


async def client_pool(*, judge: str, url: httpx.URL, settings: dict, secret: str | None) -> ClientPool:
    """The judge's connection slots on the running loop, kept between runs so connections stay warm.

    Keyed by everything that shapes a connection, the secret included (by digest), so a changed key
    or limit gets fresh connections; the least recently used pools beyond MAX_CACHED_POOLS are closed.
    """
    pools: OrderedDict = _pools.setdefault(asyncio.get_running_loop(), OrderedDict())
    digest = hashlib.sha256((secret or "").encode()).hexdigest()
    allowed = egress.configured_allow_list()
    key = (judge, str(url), settings["timeout_s"], settings["concurrency"], digest, allowed)
    pool = pools.get(key)
    if pool is None:
        pool = pools[key] = ClientPool(settings, secret, allowed)
        while len(pools) > MAX_CACHED_POOLS:
            _, evicted = pools.popitem(last=False)
            await evicted.aclose()
    pools.move_to_end(key)
    return pool


class ClientPool:
    """One httpx client per connection slot of a judge; each request takes a free slot.

    httpcore scans every connection of its pool on each request, so one pool of N connections costs
    O(N) per call; slots of one connection each keep the cost flat at high concurrency (measured in
    docs/decisions/judge-http-clients.md). Free slots are reused last-in first-out, so a light load keeps few
    connections warm.
    """

    def __init__(self, settings: dict, secret: str | None, allowed: tuple[str, ...]):
        headers = {"Authorization": f"Bearer {secret}"} if secret else {}
        self.clients = [
            httpx.AsyncClient(
                timeout=httpx.Timeout(settings["timeout_s"]),
                headers=headers,
                transport=guarded_transport(allowed),
                follow_redirects=False,
                # A proxy from the environment would connect on the judge's behalf, past the address check.
                trust_env=False,
            )
            for _ in range(settings["concurrency"])
        ]
        self.busy = [0] * len(self.clients)
        self.free = list(reversed(range(len(self.clients))))

    async def post(self, url: httpx.URL, *, json: dict) -> Reply:
        """POST on a free slot; the reply's body is read up to MAX_REPLY_BYTES (PermanentJudgeError beyond)."""
        slot = self.free.pop() if self.free else min(range(len(self.clients)), key=self.busy.__getitem__)
        self.busy[slot] += 1
        try:
            async with self.clients[slot].stream("POST", url, json=json) as response:
                body = bytearray()
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > MAX_REPLY_BYTES:
                        raise PermanentJudgeError(f"the judge answered more than {MAX_REPLY_BYTES:,} bytes")
                encoding = response.charset_encoding or "utf-8"
                return Reply(response.status_code, response.headers, body.decode(encoding, errors="replace"))
        finally:
            self.busy[slot] -= 1
            if self.busy[slot] == 0:
                self.free.append(slot)

    async def aclose(self) -> None:
        for client in self.clients:
            await client.aclose()


def media_part_builder(backend: JudgeBackend, modalities: list[str], image_detail: str | None = None):
    """A function turning a media block into a chat content part (None: not sent to this judge)."""

    def media_part(block: dict) -> dict | None:
        kind = block["type"]
        if kind not in modalities or not block.get("media"):
            return None
        media = backend.media.get(block["media"])
        if kind == "image":
            image_url = {"url": media.data_url}
            if image_detail:
                image_url["detail"] = image_detail
            return {"type": "image_url", "image_url": image_url}
        if kind == "video":
            return {"type": "video_url", "video_url": {"url": media.data_url}}
        audio_format = AUDIO_FORMATS.get(media.mime_type)
        if kind == "audio" and audio_format:
            return {"type": "input_audio", "input_audio": {"data": media.base64, "format": audio_format}}
        return None

    return media_part


def message_text(payload: dict) -> str:
    """``choices[0].message.content`` as text (a list of text parts is joined)."""
    try:
        content = payload["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise PermanentJudgeError("the reply has no choices[0].message.content") from exc
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if content is None:
        return ""
    if not isinstance(content, str):
        raise PermanentJudgeError("choices[0].message.content is neither text nor a list of text parts")
    return content


class OpenAIChatJudge(JudgeBackend):
    FIELDS = {
        "base_url": Field("url", required=True, help="the API root, e.g. http://vllm:8000/v1"),
        "model": Field("str", required=True, help="the served model name"),
        "api_key_env": Field("env?", None, help="name of the environment variable holding the API key"),
        "temperature": Field("number", 0.0, low=0, high=2),
        "max_tokens": Field("int", 1024, low=1, high=200_000),
        "prompt_style": Field("str", prompts.AUTO, choices=prompts.STYLES),
        "modalities": Field("choices", ["image"], choices=("image", "video", "audio")),
        "image_detail": Field("str?", None, choices=("low", "high", "auto")),
        "extra_body": Field("dict", {}, help="extra request fields, e.g. chat_template_kwargs for vLLM"),
    }

    @classmethod
    def check(cls, settings: dict) -> None:
        for key in settings["extra_body"]:
            if key in RESERVED_BODY_KEYS or looks_secret(str(key)):
                raise JudgeConfigError(f"settings.extra_body.{key}: not allowed here")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        base = self.settings["base_url"].rstrip("/")
        # Parsed once: httpx parses a string URL again on every request.
        self.url = egress.judge_url(base if base.endswith("/chat/completions") else base + "/chat/completions",
                                    where="settings.base_url")
        self.client: ClientPool | None = None
        self.media_part = media_part_builder(self, self.settings["modalities"], self.settings["image_detail"])

    async def open(self) -> None:
        secret = read_secret(self.settings["api_key_env"])
        self.secrets = [secret] if secret else []
        self.client = await client_pool(judge=self.name, url=self.url, settings=self.settings, secret=secret)

    def body(self, request: JudgeRequest, style: str) -> dict:
        messages = prompts.build_messages(
            style=style,
            kind=request.kind,
            prompt=request.prompt,
            first=request.first,
            second=request.second,
            criteria=request.criteria,
            media_part=self.media_part,
        )
        return {
            **self.settings["extra_body"],
            "model": self.settings["model"],
            "messages": messages,
            "temperature": self.settings["temperature"],
            "max_tokens": self.settings["max_tokens"],
        }

    async def attempt(self, request: JudgeRequest) -> JudgeCall:
        style = prompts.style_for(configured=self.settings["prompt_style"], criteria=request.criteria)
        payload, raw, latency_ms = await post_json(self.client, self.url, self.body(request, style), what="the endpoint")
        try:
            text = message_text(payload)
        except PermanentJudgeError as exc:
            raise PermanentJudgeError(str(exc), raw=raw) from exc
        parsed = parsing.parse_bracket_verdict(text) if style == prompts.OMNI else parsing.parse_scored_json(text)
        prompt_tokens, completion_tokens = usage_tokens(payload)
        return JudgeCall(
            label=parsed.label,
            score=parsed.score,
            confidence=parsed.confidence,
            raw_output=text,
            latency_ms=latency_ms,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
        )
