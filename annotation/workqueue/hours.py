"""Active time from a rater's events, for paying them: plain Python with no Django import.

A rater's events in a campaign (claims, autosaved drafts, submits, skips, corrections, withdrawals; never the lease
expiries the system writes) are read in time order, and each gap between two of them counts as follows:

- both events on the same pair (its claim, its drafts, its submit): the gap counts up to ``idle``: the rater was
  on the pair, though perhaps not for all of a long gap;
- events on two different pairs (a submit, then the next claim): the gap counts in full when it is at most ``idle``,
  else not at all: the rater had stopped.

The time before the first event and after the last counts nothing.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from datetime import datetime, timedelta

IDLE_MINUTES_DEFAULT = 5
IDLE_MINUTES_MAX = 240
HOURS_COLUMNS = ["username", "crowd_id", "active_hours", "active_seconds", "pairs_submitted", "pairs_skipped",
                 "gold_answered", "gold_correct", "gold_score", "first_activity", "last_activity"]


def active_time(events: Iterable[tuple[datetime, int]], *, idle: timedelta) -> timedelta:
    """The active time of one rater's ``events``, (when, assignment id) pairs in any order."""
    if idle <= timedelta(0):
        raise ValueError(f"the idle threshold must be positive, not {idle}")
    total = timedelta(0)
    previous: tuple[datetime, int] | None = None
    for at, assignment in sorted(events):
        if previous is not None:
            gap = at - previous[0]
            if assignment == previous[1]:
                total += min(gap, idle)
            elif gap <= idle:
                total += gap
        previous = (at, assignment)
    return total


def hours_csv(rows: Iterable[dict]) -> str:
    """The hours CSV (``HOURS_COLUMNS``) of ``selectors.campaign_hours`` rows: times in ISO 8601, no score empty."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=HOURS_COLUMNS)
    writer.writeheader()
    for row in rows:
        writer.writerow({**row, "first_activity": row["first_activity"].isoformat() if row["first_activity"] else "",
                         "last_activity": row["last_activity"].isoformat() if row["last_activity"] else "",
                         "gold_score": "" if row["gold_score"] is None else row["gold_score"]})
    return buffer.getvalue()
