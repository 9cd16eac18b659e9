"""Which media a campaign of each kind plays through, when the campaign requires full playback."""

# Which media a campaign of each kind plays: both responses, or the prompt.
RESPONSE_MEDIA_KINDS = frozenset({"text-to-audio", "text-to-video"})
PROMPT_MEDIA_KINDS = frozenset({"audio-to-text", "video-to-text"})
PLAYED_KINDS = RESPONSE_MEDIA_KINDS | PROMPT_MEDIA_KINDS


def sides_played(kind: str) -> tuple[str, ...]:
    """The media a rater of a campaign of ``kind`` must play through when the campaign requires it."""
    if kind in RESPONSE_MEDIA_KINDS:
        return ("A", "B")
    if kind in PROMPT_MEDIA_KINDS:
        return ("prompt",)
    return ()
