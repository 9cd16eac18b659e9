"""Helpers for management commands: a terminal progress bar that keeps --json output clean."""

from __future__ import annotations

import sys

from tqdm import tqdm


def progress_bar(*, total: int | None, desc: str, enabled: bool = True) -> tqdm:
    """A tqdm bar on stderr, shown only on a terminal; stdout stays free for --json."""
    return tqdm(total=total, desc=desc, unit="it", file=sys.stderr, disable=not (enabled and sys.stderr.isatty()),
                dynamic_ncols=True, leave=False)
