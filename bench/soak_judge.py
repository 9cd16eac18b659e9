"""The soak's judge: a local Python callable that answers after a pause, so a pre-filter run spans worker kills."""

import asyncio


async def slow_judge(request, *, media, options):
    """Prefers the first response shown, after ``options["seconds"]`` (1 by default)."""
    await asyncio.sleep(float(options.get("seconds", 1.0)))
    return {"verdict": "A", "confidence": 0.6, "raw": "soak judge"}
