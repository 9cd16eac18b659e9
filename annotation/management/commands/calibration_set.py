"""``manage.py calibration_set --campaign SLUG --add FILE.jsonl | --list | --use SET [--pass-mark X --round-size N
--retry-hours H]``: the pairs a new member rates before the real queue, with their expected answers."""

import json

from django.core.checks import Tags
from django.core.management.base import BaseCommand

from annotation.catalogue.models import Campaign
from annotation.workqueue.services.qualification import (
    calibration_items_add,
    calibration_set_items,
    campaign_qualification_set,
)
from core.cli import emit, refuse
from core.errors import ApplicationError


def read_rows(path: str) -> list[dict]:
    """The JSONL file's rows, each with its line number (``_line``); a line that is not a JSON object is refused."""
    rows = []
    try:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ApplicationError(f"line {number}: not JSON ({exc.msg}).", code="invalid_row") from exc
                if not isinstance(row, dict):
                    raise ApplicationError(f"line {number}: a row is a JSON object.", code="invalid_row")
                rows.append({**row, "_line": number})
    except OSError as exc:
        raise ApplicationError(f"cannot read {path}: {exc.strerror}", code="unreadable_file") from exc
    return rows


class Command(BaseCommand):
    help = ("Add calibration pairs (JSONL: pair, optional campaign, expected, explanation), list them, share another "
            "campaign's set, and set the pass mark, round size and retry wait.")
    requires_system_checks = [Tags.models]

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        action = parser.add_mutually_exclusive_group()
        action.add_argument("--add", metavar="FILE.jsonl", help="Add or update calibration pairs.")
        action.add_argument("--list", action="store_true", dest="list_items", help="List the calibration pairs.")
        action.add_argument("--use", metavar="SET", help="Share an existing calibration set of the same task kind.")
        parser.add_argument("--set", dest="set_slug", help="Name of the set --add makes when the campaign has none.")
        parser.add_argument("--pass-mark", type=float, help="Share of overall preferences to match, e.g. 0.8.")
        parser.add_argument("--round-size", type=int, help="Calibration pairs per round.")
        parser.add_argument("--retry-hours", type=int, help="Hours to wait after a failed round.")
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print one JSON object on stdout.")

    def handle(self, *args, campaign, add, list_items, use, set_slug, pass_mark, round_size, retry_hours, as_json,
               **options):
        try:
            found = Campaign.objects.filter(slug=campaign).first()
            if found is None:
                raise ApplicationError(f"campaign {campaign!r} does not exist", code="campaign_not_found",
                                       status_code=404)
            added = None
            if add:
                added = calibration_items_add(campaign=found, rows=read_rows(add), set_slug=set_slug)
            found = campaign_qualification_set(campaign=found, calibration_set=use, pass_mark=pass_mark,
                                               round_size=round_size, retry_hours=retry_hours)
        except ApplicationError as exc:
            raise refuse(self, exc, as_json=as_json) from exc
        found.refresh_from_db()
        items = calibration_set_items(campaign=found)
        payload = {"campaign": found.slug, "calibration_set": found.calibration_set.slug if found.calibration_set else None,
                   "pass_mark": found.qualification_pass_mark, "round_size": found.qualification_round_size,
                   "retry_hours": found.qualification_retry_hours, "pairs": len(items),
                   **({"added": added.as_dict()} if added else {}), **({"items": items} if list_items else {})}
        lines = [f"{found.slug}: calibration set {payload['calibration_set'] or '(none)'}, {len(items)} pair(s); "
                 f"pass mark {found.qualification_pass_mark:.0%}, {found.qualification_round_size} pairs a round, "
                 f"retry after {found.qualification_retry_hours} h."]
        if added:
            lines.append(f"Added {added.added}, updated {added.updated}; {added.taken_out_of_queue} taken out of the "
                         "real queue.")
        if list_items:
            lines += [f"  {i['campaign']}/{i['pair']}: expected {json.dumps(i['expected'])} — {i['explanation']}"
                      for i in items]
        emit(self, payload, "\n".join(lines), as_json=as_json)
