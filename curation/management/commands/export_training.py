"""export_training --release NAME@X.Y.Z --format {trl,llamafactory,openrlhf,swift} [--ties drop|margin]
[--min-agreement X] [--media-root DIR] [--out DIR] [--json]

A pointer release's media are taken from ``--media-root`` (the user's copy) or, for ``--release`` on this server,
from Concord's own media store; every file is checked against its sha256 first."""

import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core.errors import ApplicationError
from curation.models import Release
from curation.releases.training import FORMATS, TIES, TrainingExportError, default_folder, export_training
from curation.selectors.releases import release_get, release_parse_ref
from curation.services.training_exports import stored_media_source


class Command(BaseCommand):
    help = ("Write a published release as reward-model training data (TRL, LLaMA-Factory, OpenRLHF or ms-swift) "
            "in a folder of its own; the release's files are only read.")

    def add_arguments(self, parser):
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--release", help="NAME@X.Y.Z, a published release on local storage")
        source.add_argument("--folder", type=Path, help="A published release folder (e.g. one downloaded from S3)")
        parser.add_argument("--format", required=True, choices=FORMATS)
        parser.add_argument("--ties", choices=TIES, default="drop",
                            help="drop: tie pairs left out (default); margin: left out too, and a margin column "
                                 "from the ratings' strength")
        parser.add_argument("--min-agreement", type=float, default=None,
                            help="Keep pairs whose raters' agreement with the chosen side is at least this share")
        parser.add_argument("--media-root", type=Path, default=None,
                            help="A pointer release's media: your copy of its sources, found and checked as its "
                                 "rebuild.py does (default with --release: this server's own media store)")
        parser.add_argument("--out", type=Path, default=None,
                            help="Output folder (default: <releases root>/<name>/<version>-training/<format>/)")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **options):
        folder = options["folder"]
        try:
            if folder is None:
                name, version = release_parse_ref(options["release"])
                release = release_get(name=name, version=version, published=True)
                if release.storage != Release.Storage.LOCAL:
                    raise CommandError(f"{release} is on S3: fetch it with its download links (the release page's "
                                       "script) and pass --folder with the downloaded folder")
                folder = Path(settings.CONCORD_RELEASES_ROOT) / name / version
            scratch = Path(options["out"] or default_folder(folder, options["format"])).parent
            with stored_media_source(scratch) as stored:
                result = export_training(
                    release_folder=folder, format=options["format"], out=options["out"], ties=options["ties"],
                    min_agreement=options["min_agreement"], media_root=options["media_root"],
                    media_source=stored if options["folder"] is None else None)
        except (ApplicationError, TrainingExportError) as exc:
            raise CommandError(getattr(exc, "message", None) or str(exc)) from exc
        if options["json"]:
            self.stdout.write(json.dumps(result.as_dict()))
            return
        left = ", ".join(f"{reason} {n}" for reason, n in result.left_out.items()) or "none"
        self.stdout.write(f"{result.format}: {result.pairs} pairs, {result.files} files in {result.folder} "
                          f"(left out: {left})")
