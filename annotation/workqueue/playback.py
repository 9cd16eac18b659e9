"""Pure rules of the fraction heard or watched, without Django: checking what the page sent, turning it to the
canonical A/B orientation, and whether a campaign that requires full playback may take it."""

from __future__ import annotations

from annotation.catalogue.playback import sides_played
from core.errors import ApplicationError

# A player may stop a few hundredths short of the end (the last frame, rounding of ``played`` ranges): 98 %
# counts as heard or watched to the end.
FULL_PLAYBACK_TOLERANCE = 0.98

SIDES = ("A", "B", "prompt")


def media_played_canonical(media_played, *, swapped: bool) -> dict | None:
    """The shares played, as shown on screen (left = "A"), in the canonical orientation; None when none was sent.

    Raises ApplicationError ``invalid_media_played`` unless it is an object of "A", "B" or "prompt" to a number
    from 0 to 1.
    """
    if media_played is None or media_played == {}:
        return None
    if not isinstance(media_played, dict):
        raise ApplicationError(
            'media_played is an object of "A", "B" or "prompt" to the share played, from 0 to 1.',
            code="invalid_media_played",
        )
    unknown = sorted(str(side) for side in media_played if side not in SIDES)
    if unknown:
        raise ApplicationError(
            f'Unknown side(s) in media_played: {", ".join(unknown[:3])}; the sides are "A", "B" and "prompt".',
            code="invalid_media_played",
        )
    bad = sorted(
        side for side, share in media_played.items()
        if isinstance(share, bool) or not isinstance(share, int | float) or not 0 <= share <= 1
    )
    if bad:
        raise ApplicationError(
            f"The share played must be a number from 0 to 1 (side {', '.join(bad)}).", code="invalid_media_played"
        )
    flip = {"A": "B", "B": "A", "prompt": "prompt"} if swapped else {side: side for side in SIDES}
    return {flip[side]: round(float(share), 3) for side, share in sorted(media_played.items())}


def played_label(canonical: dict | None) -> str:
    """What a curator reads of an annotation's shares played, e.g. "A 100 %, B 80 %"; empty when none was recorded."""
    if not canonical:
        return ""
    return ", ".join(f"{side} {round(float(share) * 100)} %" for side, share in sorted(canonical.items()))


def playback_shortfall(canonical: dict | None, *, kind: str) -> list[str]:
    """The sides (canonical) whose media a campaign of ``kind`` requiring full playback finds played too little."""
    played = canonical or {}
    return [side for side in sides_played(kind) if played.get(side, 0) < FULL_PLAYBACK_TOLERANCE]


def refuse_short_playback(canonical: dict | None, *, kind: str, swapped: bool) -> None:
    """Raises ``media_not_played`` (400) naming the sides as the rater sees them when any is short."""
    short = playback_shortfall(canonical, kind=kind)
    if not short:
        return
    flip = {"A": "B", "B": "A", "prompt": "prompt"} if swapped else {side: side for side in SIDES}
    shown = sorted(flip[side] for side in short)
    named = " and ".join("the prompt's media" if side == "prompt" else f"response {side}" for side in shown)
    raise ApplicationError(
        f"This campaign asks you to play each recording to the end before submitting: play {named} to the end "
        f"(at least {FULL_PLAYBACK_TOLERANCE:.0%}).",
        code="media_not_played", extra={"sides": shown},
    )
