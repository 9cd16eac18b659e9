"""``manage.py import_pairs PATH --campaign SLUG --format FORMAT``: import pairs from a file."""

import json
import sys
from pathlib import Path
from typing import NoReturn

from django.core.checks import Tags
from django.core.management.base import BaseCommand, CommandError

from annotation.catalogue.models import TaskKind
from annotation.catalogue.schemas import PRESETS
from annotation.catalogue.services.campaigns import campaign_get_or_create
from annotation.catalogue.services.sources import source_info_from_options
from annotation.importers import FORMATS
from annotation.importers.reader import ReaderFailed
from annotation.importers.services import pairs_import
from core.cli import cli_message, progress_bar
from core.errors import ApplicationError

# Exit statuses: 0 every row is in (succeeded), 2 some rows failed and the rest are in (partial), 1 nothing was
# imported (failed: the command was refused, the file could not be read, every row failed or a --strict file had a
# bad row).
NOTHING_IMPORTED = 1
ROW_FAILED = 2
EXIT_STATUS = {"succeeded": 0, "partial": ROW_FAILED, "failed": NOTHING_IMPORTED}
# What a refusal that names a missing input asks for, in this command's own options.
OPTION_HINTS = {"task": "pass --task KIND and optionally --schema PRESET"}


class Command(BaseCommand):
    help = (
        "Import preference pairs from a concord JSONL file, an MMRB2 release file or Omni-RewardBench rows. "
        "Good rows are imported and bad rows reported; the exit status is 0 when every row is in, 2 when some rows "
        "failed and the rest are in (partial), 1 when nothing was imported (failed); "
        "importing the same file again creates nothing new."
    )
    # The model checks only: the URL checks import every view, and with them the analysis libraries
    # the dashboards use (~200 MB that the import, and the reader child it forks, would carry).
    requires_system_checks = [Tags.models]

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="The file to import (streamed, never loaded whole).")
        parser.add_argument("--campaign", required=True, help="Campaign slug; created when missing and --task is given.")
        parser.add_argument("--format", required=True, choices=sorted(FORMATS), dest="fmt")
        parser.add_argument("--task", choices=TaskKind.values, help="Task kind, to create the campaign.")
        parser.add_argument("--schema", choices=PRESETS, help="Rating schema preset for a new campaign.")
        parser.add_argument("--overlap", type=int,
                            help="Ratings each pair needs, for a new campaign (default 3; 1 for single-label sources).")
        parser.add_argument("--media-root", type=Path,
                            help="Folder that media paths are relative to (default: the file's folder).")
        parser.add_argument("--with-annotations", action="store_true",
                            help="Also store the ratings in the file as imported annotations.")
        parser.add_argument("--strict", action="store_true", help="Import nothing unless every row is good.")
        parser.add_argument(
            "--prompt-key", choices=("id", "content"), default="id",
            help="id (default): a row whose prompt key names a prompt with other content is refused; "
                 "content: prompts are keyed by key and content, so both are kept.",
        )
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print one JSON object on stdout.")
        parser.add_argument("--batch-size", type=int, default=2000, help="Rows per database batch.")
        parser.add_argument("--source-name", default="", help="The dataset the file comes from (short id, e.g. "
                            "hpdv2); mmrb2 and omnireward files know theirs.")
        parser.add_argument("--source-title", default="", help="The source dataset's full title.")
        parser.add_argument("--source-license", default="", help="Its licence (Hugging Face id, e.g. cc-by-4.0; "
                            "'other' when unknown).")
        parser.add_argument("--source-url", default="", help="Where it is published.")
        parser.add_argument("--source-citation", type=Path, help="A file holding its BibTeX citation.")

    def handle(self, *args, path: Path, campaign: str, fmt: str, task, schema, media_root, with_annotations, strict,
               as_json: bool, batch_size: int, prompt_key: str, overlap: int | None = None, **options):
        try:
            if not path.is_file():
                raise ApplicationError(f"{path}: no such file", code="file_not_found")
            citation = options["source_citation"]
            if citation is not None and not citation.is_file():
                raise ApplicationError(f"{citation}: no such file", code="file_not_found")
            source = source_info_from_options(
                name=options["source_name"], title=options["source_title"], license=options["source_license"],
                url=options["source_url"], citation=citation.read_text(encoding="utf-8") if citation else "",
            )
            campaign_obj, created = campaign_get_or_create(slug=campaign, kind=task, preset=schema, overlap=overlap)
            if created and not as_json:
                self.stderr.write(f"Created campaign {campaign_obj.slug} ({campaign_obj.kind}, "
                                  f"{campaign_obj.rating_schema.slug}).")
            size = path.stat().st_size
            bar = progress_bar(total=size, desc=f"import {path.name}")
            bar.unit, bar.unit_scale, bar.unit_divisor = "B", True, 1024
            last = 0

            def report(done: int) -> None:
                nonlocal last
                bar.update(done - last)
                last = done

            with path.open("rb") as stream, bar:
                result = pairs_import(
                    campaign=campaign_obj, stream=stream, fmt=fmt,
                    media_root=(media_root or path.parent), with_annotations=with_annotations, strict=strict,
                    reopen=lambda: path.open("rb"), size=size, progress=report, batch_size=batch_size,
                    prompt_key=prompt_key,
                    source=source,
                )
        except ReaderFailed as exc:  # what was committed stays; importing the file again completes it
            self._refuse(str(exc), as_json=as_json)
        except ApplicationError as exc:
            self._refuse(cli_message(exc, OPTION_HINTS), as_json=as_json)
        summary = result.as_dict(strict=strict)
        if as_json:
            self.stdout.write(json.dumps(summary, ensure_ascii=False))
        else:
            self._summary(result, strict, summary)
        if EXIT_STATUS[summary["status"]]:
            sys.exit(EXIT_STATUS[summary["status"]])

    def _refuse(self, message: str, *, as_json: bool) -> NoReturn:
        """End a run that imported nothing before reading a row (exit status 1): the message, as JSON with --json."""
        if as_json:
            self.stdout.write(json.dumps({"created": 0, "duplicates": 0, "annotations_imported": 0,
                                          "errors": [{"line": 0, "message": message}], "failed_rows": 0, "rows": 0,
                                          "status": "failed", "summary": f"nothing was imported: {message}"},
                                         ensure_ascii=False))
            sys.exit(NOTHING_IMPORTED)
        raise CommandError(message)

    def _summary(self, result, strict: bool, summary: dict) -> None:
        verdict = "nothing imported (--strict)" if strict and result.failed_rows else f"{result.created:,} created"
        self.stdout.write(
            f"{summary['status'].upper()}: {summary['summary']}\n"
            f"{verdict}, {result.duplicates:,} already present, {result.annotations_imported:,} "
            f"annotation{'' if result.annotations_imported == 1 else 's'} imported, "
            f"{result.failed_rows:,} row{'' if result.failed_rows == 1 else 's'} failed."
        )
        for error in result.errors[:50]:
            self.stdout.write(f"  line {error['line']}: {error['message']}")
        if len(result.errors) > 50:
            self.stdout.write(f"  … {result.failed_rows - 50:,} more (use --json for the full list)")

