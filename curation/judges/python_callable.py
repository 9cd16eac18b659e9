"""Judge backend for a local Python callable named by its dotted path.

The callable is ``judge(request, *, media, options)``: ``request`` is a ``JudgeRequest`` (``first``
is shown as A), ``media`` a ``MediaStore`` with the files' bytes, ``options`` the judge's
``options`` setting. It may be a coroutine function. It returns ``"A"``, ``"B"`` or ``"tie"``, or
``{"verdict": ..., "score": -1..1, "confidence": 0..1, "raw": str}``. It must not use the database.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import math
import time

from curation.judges import parsing
from curation.judges.base import Field, JudgeBackend, JudgeCall, JudgeRequest, PermanentJudgeError, TransientJudgeError


def load_callable(path: str):
    """The object at ``path`` (``package.module.name``), or PermanentJudgeError saying why not."""
    module_name, _, attribute = path.rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # any import-time failure of the named module is the judge's problem
        raise PermanentJudgeError(f"cannot import {module_name}: {type(exc).__name__}: {exc}") from exc
    target = getattr(module, attribute, None)
    if not callable(target):
        raise PermanentJudgeError(f"{path} is not a callable")
    return target


def _bounded(value, low: float, high: float) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value) if low <= value <= high else None


def interpret(result) -> JudgeCall:
    """A callable's return value as a judge call (labels in the order shown)."""
    if isinstance(result, str):
        result = {"verdict": result}
    if not isinstance(result, dict):
        return JudgeCall(label=parsing.INVALID, raw_output=repr(result)[:2000])
    verdict = str(result.get("verdict", "")).strip()
    label = {"a": parsing.A, "b": parsing.B, "tie": parsing.TIE, parsing.ABSTAIN: parsing.ABSTAIN}.get(
        verdict.lower(), parsing.INVALID)
    raw = result.get("raw")
    if not isinstance(raw, str):
        raw = json.dumps(result, default=str, sort_keys=True)
    score = _bounded(result.get("score"), -1.0, 1.0)
    if score is None and label in parsing.VALID_LABELS:
        score = {parsing.A: 1.0, parsing.B: -1.0, parsing.TIE: 0.0}[label]
    return JudgeCall(label=label, score=score, confidence=_bounded(result.get("confidence"), 0.0, 1.0), raw_output=raw)


class PythonCallableJudge(JudgeBackend):
    FIELDS = {
        "callable": Field("dotted", required=True, help="package.module.function"),
        "options": Field("dict", {}, help="passed to the callable as options"),
    }

    async def open(self) -> None:
        self.function = load_callable(self.settings["callable"])

    async def attempt(self, request: JudgeRequest) -> JudgeCall:
        started = time.perf_counter()
        kwargs = {"media": self.media, "options": self.settings["options"]}
        try:
            if inspect.iscoroutinefunction(self.function):
                result = await asyncio.wait_for(self.function(request, **kwargs), self.settings["timeout_s"])
            else:
                result = await asyncio.wait_for(
                    asyncio.to_thread(self.function, request, **kwargs), self.settings["timeout_s"]
                )
        except TimeoutError as exc:
            raise TransientJudgeError(f"{self.settings['callable']} timed out") from exc
        except Exception as exc:  # the callable's own failure is recorded as this call's error
            raise PermanentJudgeError(f"{self.settings['callable']} raised {type(exc).__name__}: {exc}") from exc
        call = interpret(result)
        call.latency_ms = int((time.perf_counter() - started) * 1000)
        return call
