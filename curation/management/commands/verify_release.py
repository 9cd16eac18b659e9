"""verify_release NAME@X.Y.Z [--json]: re-read every stored file and check it against the manifest."""

import json

from django.core.management.base import BaseCommand, CommandError

from core.cli import progress_bar
from core.errors import ApplicationError
from curation.selectors.releases import release_get, release_parse_ref
from curation.services.releases import release_verify


class Command(BaseCommand):
    help = "Check every stored file of a published release against its manifest; exit status 1 on a mismatch."

    def add_arguments(self, parser):
        parser.add_argument("ref", help="NAME@X.Y.Z")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **options):
        bar = progress_bar(total=None, desc="verify")

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.n = done
            bar.refresh()

        try:
            name, version = release_parse_ref(options["ref"])
            result = release_verify(release=release_get(name=name, version=version, published=True), progress=progress)
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        finally:
            bar.close()
        if options["json"]:
            self.stdout.write(json.dumps(result))
        else:
            self.stdout.write(f"{options['ref']}: {result['files_checked']} files checked, "
                              f"{len(result['mismatches'])} mismatch(es)")
            for mismatch in result["mismatches"]:
                self.stdout.write(f"  {mismatch['path']}: {mismatch['problem']}")
            media = result.get("media") or {}
            if media.get("mode") == "pointers":
                self.stdout.write(f"  pointer release: {media['media_not_included']} media files not included, named "
                                  f"in {media['pointers']} (fill them in with {media['rebuild']} --media-root DIR)")
            checked = result["archive"]
            self.stdout.write(f"  archive {checked.get('name', '')}: " + (
                ("sha256 as recorded" if checked["sha256"] == checked["actual_sha256"] else "sha256 differs")
                if checked["checked"] else f"not checked: {checked['why']}"))
        if not result["ok"]:
            raise SystemExit(1)
