"""``manage.py storage_init``: create the media and releases buckets on S3-compatible storage when missing."""

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create the S3 buckets for media and releases when S3 is configured and they are missing (idempotent)."

    def handle(self, *args, **options):
        from core.services.storage import storage_buckets_ensure

        ready = storage_buckets_ensure()
        if not ready:
            self.stdout.write("Media and releases are stored on the local disk; nothing to initialise.")
        for bucket in ready:
            self.stdout.write(f"S3 bucket {bucket!r} is ready.")
