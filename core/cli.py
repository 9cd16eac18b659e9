"""Helpers for management commands: a terminal progress bar that keeps --json output clean, and --json or text."""

from __future__ import annotations

import contextlib
import json
import sys

from tqdm import tqdm


def progress_bar(*, total: int | None, desc: str, enabled: bool = True) -> tqdm:
    """A tqdm bar on stderr, shown only on a terminal; stdout stays free for --json."""
    return tqdm(total=total, desc=desc, unit="it", file=sys.stderr, disable=not (enabled and sys.stderr.isatty()),
                dynamic_ncols=True, leave=False)


def refuse(command, exc, *, as_json: bool):
    """End a command on an ApplicationError: exit status 1, the message on stderr (and as JSON on stdout with --json)."""
    from django.core.management.base import CommandError

    if as_json:
        command.stdout.write(json.dumps({"error": {"code": exc.code, "message": exc.message}}))
    return CommandError(exc.message)


def cli_message(exc, hints: dict[str, str]) -> str:
    """An ApplicationError's message with, when it names the input it needs (``extra["field"]``), the command's own
    words for that input (``hints``: field → "pass --task KIND"); a page names its form field's label instead."""
    field = exc.extra.get("field")
    return f"{exc.message} ({hints[field]})" if field in hints else exc.message


def emit(command, payload: dict, text: str, *, as_json: bool) -> None:
    """One JSON object on stdout with --json, else the human summary."""
    command.stdout.write(json.dumps(payload, ensure_ascii=False, default=str) if as_json else text)
@contextlib.contextmanager
def progress_reporter(*, desc: str):
    """A ``progress(done, total)`` callback for a service, drawing ``progress_bar`` as it is called."""
    with progress_bar(total=None, desc=desc) as bar:
        def report(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        yield report

