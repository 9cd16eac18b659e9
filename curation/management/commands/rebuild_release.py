"""rebuild_release FOLDER --media-root DIR [--json]: fill a downloaded pointer release's media from your own copy.

The same as running the release's own ``rebuild.py`` (``curation/releases/rebuild.py``): every file is found under DIR
and checked against its sha256 before anything is written; a missing or altered file is refused with its name and
both hashes, and the folder is left as it was. Then the folder loads in ``datasets`` as a full release does.
"""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from curation.releases.rebuild import RebuildError, rebuild


class Command(BaseCommand):
    help = "Fill a pointer release's media (pointers.json) from your own copy under --media-root, checking each sha256."

    def add_arguments(self, parser):
        parser.add_argument("folder", help="The downloaded (unzipped) release folder.")
        parser.add_argument("--media-root", required=True, help="The folder holding your copy of the source media.")
        parser.add_argument("--json", action="store_true", help="Print the result as JSON on stdout.")

    def handle(self, *args, **options):
        folder = Path(options["folder"])
        if not folder.is_dir():
            raise CommandError(f"{folder}: not a folder")
        try:
            result = rebuild(folder, options["media_root"], log=None if options["json"] else self.stdout.write)
        except RebuildError as exc:
            raise CommandError(f"rebuild refused: {exc}") from exc
        except OSError as exc:
            raise CommandError(f"rebuild failed: {exc}; the release folder was left as it was") from exc
        if options["json"]:
            self.stdout.write(json.dumps(result))
