"""A local judge endpoint for tests and benchmarks: real HTTP/1.1 on 127.0.0.1, asyncio + h11.

It speaks the OpenAI chat-completions wire format (``POST /v1/chat/completions``, content parts
with ``image_url`` data URLs) and the reward-model format of ``curation.judges.reward_model``
(``POST /score``). What it answers comes from a *script*: a function of the request it saw (the
model name, the pair marker ``PAIR[...]`` found in the prompt, the order in which ``RESP[...-a]``
and ``RESP[...-b]`` appear, the attempt number) returning a ``Reply``: a message, a status such
as 429 or 500, a delay, or a garbage body. Every request is recorded for assertions.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
import threading
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

import h11

PAIR_MARKER = re.compile(r"PAIR\[([\w-]+)\]")
RESPONSE_MARKER = re.compile(r"RESP\[([\w-]+)-([ab])\]")


def pair_text(marker: str) -> str:
    return f"PAIR[{marker}]"


def response_text(marker: str, side: str) -> str:
    return f"RESP[{marker}-{side.lower()}]"


@dataclass
class Seen:
    """One request as the server saw it."""

    path: str
    model: str
    marker: str | None
    order: str | None
    attempt: int
    authorization: str
    images: list[str] = field(default_factory=list)
    body: dict = field(default_factory=dict)


@dataclass
class Reply:
    """What to answer: a chat message (``content``), reward ``scores``, or a raw ``body``."""

    content: str | None = None
    scores: tuple[float, float] | None = None
    status: int = 200
    body: bytes | None = None
    delay: float = 0.0
    headers: dict = field(default_factory=dict)
    usage: dict = field(default_factory=lambda: {"prompt_tokens": 120, "completion_tokens": 20})


def json_verdict(label: str, *, score: int | None = None, confidence: float = 0.9) -> str:
    """An MMRB2-style answer for ``label`` as shown (A = first), fenced with a little chatter."""
    if score is None:
        score = {"A": 6, "B": 1}.get(label, 4)
    payload = {"score": score, "better_response": label, "confidence": confidence}
    return f"Both are reasonable.\n```json\n{json.dumps(payload)}\n```\nThat is my judgement."


def shown(canonical: str, order: str | None) -> str:
    """The label the judge must write, as shown, to mean ``canonical`` in the pair's own orientation."""
    if order == "swapped" and canonical in ("A", "B"):
        return "B" if canonical == "A" else "A"
    return canonical


def _texts(parts) -> str:
    if isinstance(parts, str):
        return parts
    if not isinstance(parts, list):
        return ""
    return "\n".join(p.get("text", "") for p in parts if isinstance(p, dict) and p.get("type") == "text")


def _images(parts) -> list[str]:
    digests = []
    for part in parts if isinstance(parts, list) else []:
        if isinstance(part, dict) and part.get("type") == "image_url":
            url = part.get("image_url", {}).get("url", "")
            header, _, data = url.partition(",")
            if header.startswith("data:") and header.endswith(";base64"):
                digests.append(hashlib.sha256(base64.b64decode(data)).hexdigest())
    return digests


def _order(text: str) -> tuple[str | None, str | None]:
    found = RESPONSE_MARKER.findall(text)
    marker = PAIR_MARKER.search(text)
    if len(found) < 2:
        return (marker.group(1) if marker else None), None
    return (marker.group(1) if marker else None), ("forward" if found[0][1] == "a" else "swapped")


class JudgeServer:
    """Start with ``with JudgeServer(script) as server:``; ``server.url`` is ``http://127.0.0.1:PORT``."""

    def __init__(self, script: Callable[[Seen], Reply], *, api_key: str | None = None, parse: bool = True):
        """``parse=False`` (benchmarks) skips decoding request bodies: the script sees only the path."""
        self.script = script
        self.api_key = api_key
        self.parse = parse
        self.seen: list[Seen] = []
        self.in_flight: Counter = Counter()
        self.max_in_flight: Counter = Counter()
        self._attempts: Counter = Counter()
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="judge-server", daemon=True)
        self._server: asyncio.AbstractServer | None = None
        self._handlers: set[asyncio.Task] = set()
        self.port = 0

    # --- lifecycle ---

    def __enter__(self) -> JudgeServer:
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._start(), self._loop)
        future.result(timeout=10)
        return self

    def __exit__(self, *exc) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    async def _start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0, backlog=2048, limit=2**20)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _stop(self) -> None:
        self._server.close()
        for task in list(self._handlers):
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # --- what was seen ---

    def count(self, *, model: str | None = None, marker: str | None = None) -> int:
        with self._lock:
            return sum(1 for s in self.seen if (model is None or s.model == model) and (marker is None or s.marker == marker))

    def reset(self) -> None:
        with self._lock:
            self.seen.clear()

    # --- HTTP ---

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        self._handlers.add(task)
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=2**20)
        try:
            while True:
                request, body = await self._read_request(conn, reader)
                if request is None:
                    break
                status, headers, payload = await self._respond(request, body)
                headers = [*headers, ("content-length", str(len(payload))), ("content-type", "application/json")]
                writer.write(conn.send(h11.Response(status_code=status, headers=headers)))
                writer.write(conn.send(h11.Data(data=payload)))
                writer.write(conn.send(h11.EndOfMessage()))
                await writer.drain()
                if conn.our_state is h11.MUST_CLOSE or conn.their_state is h11.MUST_CLOSE:
                    break
                conn.start_next_cycle()
        except (ConnectionError, h11.RemoteProtocolError, h11.LocalProtocolError, asyncio.CancelledError):
            pass
        finally:
            self._handlers.discard(task)
            writer.close()

    async def _read_request(self, conn: h11.Connection, reader: asyncio.StreamReader):
        request, chunks = None, []
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                data = await reader.read(2**16)
                conn.receive_data(data)
                if not data and request is None:
                    return None, b""
                continue
            if isinstance(event, h11.ConnectionClosed):
                return None, b""
            if isinstance(event, h11.Request):
                request = event
            elif isinstance(event, h11.Data):
                chunks.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                return request, b"".join(chunks)

    async def _respond(self, request: h11.Request, body: bytes) -> tuple[int, list, bytes]:
        path = request.target.decode()
        headers = {k.decode().lower(): v.decode() for k, v in request.headers}
        authorization = headers.get("authorization", "")
        if not self.parse:
            seen = Seen(path=path, model="", marker=None, order=None, attempt=0, authorization=authorization)
            with self._lock:
                self.seen.append(seen)
            return await self._answer(seen, self.script(seen))
        try:
            data = json.loads(body or b"{}")
        except ValueError:
            return 400, [], b'{"error": "bad json"}'
        if self.api_key is not None and authorization != f"Bearer {self.api_key}":
            # Echo the header, as careless proxies do, so tests can check that secrets are redacted.
            return 401, [], json.dumps({"error": f"unauthorized: got {authorization!r}"}).encode()
        seen = self._seen(path, data, authorization)
        return await self._answer(seen, self.script(seen))

    async def _answer(self, seen: Seen, reply: Reply) -> tuple[int, list, bytes]:
        path = seen.path
        with self._lock:
            self.in_flight[seen.model] += 1
            self.max_in_flight[seen.model] = max(self.max_in_flight[seen.model], self.in_flight[seen.model])
        try:
            if reply.delay:
                await asyncio.sleep(reply.delay)
        finally:
            with self._lock:
                self.in_flight[seen.model] -= 1
        extra = [(k, v) for k, v in reply.headers.items()]
        if reply.body is not None:
            return reply.status, extra, reply.body
        if reply.status != 200:
            return reply.status, extra, json.dumps({"error": {"message": "scripted failure", "code": reply.status}}).encode()
        if path.endswith("/chat/completions"):
            payload = {
                "id": f"chatcmpl-{len(self.seen)}",
                "object": "chat.completion",
                "model": seen.model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.content}, "finish_reason": "stop"}],
                "usage": reply.usage,
            }
        else:
            payload = {"scores": list(reply.scores or (0.0, 0.0)), "usage": reply.usage}
        return 200, extra, json.dumps(payload).encode()

    def _seen(self, path: str, data: dict, authorization: str) -> Seen:
        model = str(data.get("model", ""))
        if path.endswith("/chat/completions"):
            parts = []
            for message in data.get("messages", []):
                content = message.get("content")
                parts.extend(content if isinstance(content, list) else [{"type": "text", "text": content or ""}])
            text, images = _texts(parts), _images(parts)
        else:
            responses = data.get("responses") or [[], []]
            prompt = data.get("prompt", [])
            text = "\n".join([_texts(prompt), *(_texts(r) for r in responses)])
            images = _images(prompt) + [d for r in responses for d in _images(r)]
        marker, order = _order(text)
        with self._lock:
            key = (path, model, marker, order)
            self._attempts[key] += 1
            seen = Seen(path=path, model=model, marker=marker, order=order, attempt=self._attempts[key],
                        authorization=authorization, images=images, body=data)
            self.seen.append(seen)
        return seen


def asks_for_brackets(seen: Seen) -> bool:
    """Whether the request used the Omni prompt, which asks for [[A]] / [[B]] / [[C]]."""
    return any("[[C]]" in (m.get("content") if isinstance(m.get("content"), str) else _texts(m.get("content")))
               for m in seen.body.get("messages", []))


def votes_script(votes: dict[str, dict[tuple[str, str], str]], *, default: str = "A") -> Callable[[Seen], Reply]:
    """A script from canonical votes: ``votes[model][(marker, order)]`` is "A", "B", "tie", "garbage"
    (an unparseable answer) or "fail" (HTTP 400, which is not retried).

    The answer follows the prompt's style: MMRB2 JSON, or an Omni bracket verdict.
    """
    table = defaultdict(dict, votes)

    def script(seen: Seen) -> Reply:
        vote = table[seen.model].get((seen.marker, seen.order), default)
        if vote == "garbage":
            return Reply(content="I cannot decide. Both [[A]] and [[B]] have merits.")
        if vote == "fail":
            return Reply(status=400)
        label = shown(vote, seen.order)
        if asks_for_brackets(seen):
            bracket = {"A": "A", "B": "B", "tie": "C"}[label]
            return Reply(content=f"Weighing the criteria... [[{bracket}]]")
        return Reply(content=json_verdict(label))

    return script
