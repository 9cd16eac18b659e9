"""Run many judgements concurrently: per-judge concurrency and rate limits, retries with backoff.

No Django here. ``JudgeRunner.run`` blocks the calling thread while the process's judge event loop
(one daemon thread, kept between runs so judges' connections stay warm from batch to batch) makes
the calls; finished calls come back to the calling thread in small batches through ``deliver``, so
the caller owns every database write and can stop the run between batches.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from curation.judges.base import (
    MAX_ERROR_CHARS,
    MAX_RAW_CHARS,
    JudgeBackend,
    JudgeCall,
    JudgeRequest,
    PermanentJudgeError,
    TransientJudgeError,
    clean_text,
)

_DONE = object()


@dataclass(frozen=True)
class WorkItem:
    """One judgement to make; ``key`` is the caller's, returned with the result."""

    judge: str
    key: tuple
    request: JudgeRequest


class RateLimiter:
    """Evenly spaced starts: at most ``rate`` per second (no limit when ``rate`` is None)."""

    def __init__(self, rate: float | None):
        self.interval = 1.0 / rate if rate else 0.0
        self.next_slot = 0.0

    async def acquire(self) -> None:
        if not self.interval:
            return
        now = asyncio.get_running_loop().time()
        slot = max(now, self.next_slot)
        self.next_slot = slot + self.interval
        if slot > now:
            await asyncio.sleep(slot - now)


def backoff_delay(attempt: int, *, base: float, cap: float, retry_after: float | None) -> float:
    """Seconds before retry ``attempt`` (0-based): the server's Retry-After, else jittered doubling."""
    if retry_after is not None:
        return min(retry_after, cap)
    return min(cap, base * (2**attempt) * random.uniform(0.5, 1.0))


_loop_lock = threading.Lock()
_loop_state: dict = {}


def judge_loop() -> asyncio.AbstractEventLoop:
    """This process's judge event loop, started on first use (again in a forked child)."""
    with _loop_lock:
        loop, thread, pid = _loop_state.get("loop"), _loop_state.get("thread"), _loop_state.get("pid")
        if loop is None or pid != os.getpid() or not thread.is_alive():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="judge-loop", daemon=True)
            thread.start()
            _loop_state.update(loop=loop, thread=thread, pid=os.getpid())
        return loop


class JudgeRunner:
    """Makes the calls in ``work`` with the given backends (name → backend, not yet opened)."""

    def __init__(self, backends: dict[str, JudgeBackend]):
        self.backends = backends
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: list[asyncio.Task] = []
        self._stopping = False

    def run(
        self,
        work: Iterable[WorkItem],
        *,
        deliver: Callable[[list[tuple[WorkItem, JudgeCall]]], None],
        should_stop: Callable[[], bool] = lambda: False,
        poll_s: float = 0.5,
    ) -> bool:
        """Make every call; False when ``should_stop`` said so first (unfinished calls are dropped)."""
        work = list(work)
        if not work:
            return True
        results: queue.Queue = queue.Queue()
        self._loop = judge_loop()
        future = asyncio.run_coroutine_threadsafe(self._guarded(work, results), self._loop)
        stopped = False
        last_check = time.monotonic()
        try:
            while True:
                try:
                    first = results.get(timeout=poll_s)
                except queue.Empty:
                    first = None
                batch, finished = self._drain(first, results)
                if batch:
                    deliver(batch)
                if finished is not None:
                    if isinstance(finished, BaseException):
                        raise finished
                    break
                if not stopped and time.monotonic() - last_check >= poll_s:
                    last_check = time.monotonic()
                    if should_stop():
                        stopped = True
                        self._cancel()
        except BaseException:
            self._cancel()
            with contextlib.suppress(Exception):
                future.result(timeout=30)
            raise
        future.result()
        return not stopped

    @staticmethod
    def _drain(first, results: queue.Queue):
        batch, finished = [], None
        item = first
        while item is not None:
            if item is _DONE or isinstance(item, BaseException):
                finished = item
                break
            batch.append(item)
            try:
                item = results.get_nowait()
            except queue.Empty:
                item = None
        return batch, finished

    def _cancel(self) -> None:
        self._stopping = True

        def cancel_all():
            for task in self._tasks:
                task.cancel()

        self._loop.call_soon_threadsafe(cancel_all)

    async def _guarded(self, work: list[WorkItem], results: queue.Queue) -> None:
        try:
            await self._main(work, results)
        except BaseException as exc:  # handed to the calling thread, which re-raises it
            results.put(exc)
        else:
            results.put(_DONE)

    async def _main(self, work: list[WorkItem], results: queue.Queue) -> None:
        open_errors: dict[str, str] = {}
        used = {item.judge for item in work}
        for name in sorted(used):
            try:
                await self.backends[name].open()
            except PermanentJudgeError as exc:
                open_errors[name] = str(exc)
        gates = {
            name: (asyncio.Semaphore(self.backends[name].settings["concurrency"]),
                   RateLimiter(self.backends[name].settings["rate_per_s"]))
            for name in used
        }
        self._tasks = [] if self._stopping else [
            asyncio.create_task(self._one(item, gates[item.judge], open_errors.get(item.judge), results))
            for item in work
        ]
        try:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        finally:
            for name in sorted(used):
                await self.backends[name].close()

    async def _one(self, item: WorkItem, gate, open_error: str | None, results: queue.Queue) -> None:
        backend = self.backends[item.judge]
        if open_error is not None:
            results.put((item, self._failed(backend, open_error, attempts=0, latency_ms=None, raw="")))
            return
        semaphore, limiter = gate
        settings = backend.settings
        attempt = 0
        while True:
            await limiter.acquire()
            async with semaphore:
                started = time.perf_counter()
                try:
                    call = await backend.attempt(item.request)
                except TransientJudgeError as exc:
                    failure, latency_ms = exc, int((time.perf_counter() - started) * 1000)
                except PermanentJudgeError as exc:
                    latency_ms = int((time.perf_counter() - started) * 1000)
                    results.put((item, self._failed(backend, str(exc), attempts=attempt + 1, latency_ms=latency_ms, raw=exc.raw)))
                    return
                except Exception as exc:  # a faulty backend fails its own calls, never the other judges'
                    latency_ms = int((time.perf_counter() - started) * 1000)
                    message = f"{type(exc).__name__}: {exc}"
                    results.put((item, self._failed(backend, message, attempts=attempt + 1, latency_ms=latency_ms, raw="")))
                    return
                else:
                    call.attempts = attempt + 1
                    call.raw_output = clean_text(call.raw_output, limit=MAX_RAW_CHARS, secrets=backend.secrets)
                    results.put((item, call))
                    return
            if attempt >= settings["max_retries"]:
                message = f"{failure} (gave up after {attempt + 1} attempts)"
                results.put((item, self._failed(backend, message, attempts=attempt + 1, latency_ms=latency_ms, raw=failure.raw)))
                return
            await asyncio.sleep(
                backoff_delay(attempt, base=settings["backoff_s"], cap=settings["max_backoff_s"], retry_after=failure.retry_after)
            )
            attempt += 1

    @staticmethod
    def _failed(backend: JudgeBackend, message: str, *, attempts: int, latency_ms: int | None, raw: str) -> JudgeCall:
        return JudgeCall(
            error=clean_text(message, limit=MAX_ERROR_CHARS, secrets=backend.secrets) or "unknown error",
            raw_output=clean_text(raw, limit=MAX_RAW_CHARS, secrets=backend.secrets),
            attempts=attempts,
            latency_ms=latency_ms,
        )
