"""``manage.py storage_init``: create the media bucket on S3-compatible storage when it is missing."""

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create the S3 media bucket when S3 storage is configured and the bucket is missing (idempotent)."

    def handle(self, *args, **options):
        from annotation.services.storage import storage_bucket_ensure

        bucket = storage_bucket_ensure()
        if bucket is None:
            self.stdout.write("Media is stored on the local disk; nothing to initialise.")
        else:
            self.stdout.write(f"S3 bucket {bucket!r} is ready.")
