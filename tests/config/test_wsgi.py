"""The WSGI entry point gunicorn loads: the application, its URLconf loaded at boot, and what was loaded frozen."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_worker_boots_with_its_views_loaded_and_out_of_the_collectors_sight():
    # A full garbage collection walked every object loaded at boot and froze a worker for 130–250 ms (the work
    # queue's latency stalls); frozen, those objects are no longer walked.
    probe = (
        "import gc, sys; import config.wsgi as w; "
        "print(gc.get_freeze_count(), callable(w.application), 'annotation.workqueue.api.assignments' in sys.modules)"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    frozen, app, views = out.stdout.split()
    assert int(frozen) > 100_000 and app == "True" and views == "True"
