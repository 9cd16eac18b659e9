"""Local Python judges for the tests: plain functions named by dotted path in a judge's settings."""


def prefer_marked_side(request, *, media, options):
    """Prefers the response whose text contains ``options["winner"]`` (a RESP marker side: "a" or "b")."""
    winner = f"-{options.get('winner', 'a')}]"
    first = " ".join(b.get("text", "") for b in request.first)
    return {"verdict": "A" if winner in first else "B", "confidence": 0.7, "raw": f"python judge saw {first[:40]}"}


def explode(request, *, media, options):
    raise RuntimeError("the local judge crashed")
