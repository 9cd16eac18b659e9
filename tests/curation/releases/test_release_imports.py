"""Web and Celery processes do not pay for ``datasets``: it is imported only when a release is written."""

import subprocess
import sys

from django.conf import settings


def test_starting_the_web_and_worker_code_does_not_import_datasets():
    code = ("import django, sys; django.setup(); import config.urls, curation.tasks, curation.services.releases; "
            "print(sorted(m for m in ('datasets', 'huggingface_hub') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], cwd=settings.BASE_DIR, capture_output=True, text=True, check=True,
                          env={"DJANGO_SETTINGS_MODULE": "config.settings.test", "PATH": "/usr/bin:/bin"})
    assert done.stdout.strip() == "[]", done.stderr
