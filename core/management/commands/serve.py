"""``manage.py serve [ADDRPORT]``: the web server with a real Celery worker beside it (what ``make demo`` runs).

With ``CONCORD_EMBEDDED_WORKER=1`` and no broker configured, the worker takes its tasks from kombu's
filesystem transport under ``var/celery/``, so background jobs run outside the request and their
progress bars move, with no Redis. With a broker configured (``REDIS_URL``), run ``make worker``
instead; with neither, tasks run eagerly inside the request, as before.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from core.queues import Queue

QUEUES = (Queue.DEFAULT, Queue.IMPORTS, Queue.JUDGES, Queue.ANALYTICS, Queue.RELEASES)


def embedded_folders() -> list[Path]:
    root = Path(settings.CONCORD_CELERY_DIR)
    return [root / "queue", root / "control", root / "results"]


def worker_command(*, concurrency: int = 4) -> list[str]:
    """The Celery worker's command line: every queue, a thread pool (one process: SQLite's one writer waits its turn)."""
    return [sys.executable, "-m", "celery", "-A", "config", "worker", "-l", "warning", "-Q", ",".join(QUEUES),
            "--pool", "threads", "--concurrency", str(concurrency), "--without-gossip", "--without-mingle",
            "--without-heartbeat", "-n", f"embedded-{os.getpid()}@%h"]


class Command(BaseCommand):
    help = ("Serve Concord and, in the embedded default with CONCORD_EMBEDDED_WORKER=1, a Celery worker on the "
            "filesystem transport beside it, so background jobs run as in production (no Redis).")

    def add_arguments(self, parser):
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--no-reload", action="store_true", help="Do not restart the web server on code changes.")

    def handle(self, *args, addrport: str, no_reload: bool, **options):
        worker = None
        embedded = settings.CELERY_BROKER_URL.startswith("filesystem")
        # runserver's reloader runs this command again in a child (RUN_MAIN=true): the worker starts once, here.
        if embedded and os.environ.get("RUN_MAIN") != "true":
            for folder in embedded_folders():
                folder.mkdir(parents=True, exist_ok=True)
            worker = subprocess.Popen(worker_command(), env={**os.environ, "CONCORD_EMBEDDED_WORKER": "1"},
                                      start_new_session=True)
            self.stderr.write(f"Celery worker {worker.pid} started on the filesystem transport "
                              f"({settings.CONCORD_CELERY_DIR}).")
            # Stopped by SIGTERM as by Ctrl-C, the worker goes down with the server.
            signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        elif not embedded and not settings.CELERY_TASK_ALWAYS_EAGER and os.environ.get("RUN_MAIN") != "true":
            self.stderr.write(f"Tasks go to {settings.CELERY_BROKER_URL.split('@')[-1]}: start workers with `make worker`.")
        try:
            call_command("runserver", addrport, use_reloader=not no_reload)
        finally:
            if worker is not None and worker.poll() is None:
                os.killpg(worker.pid, signal.SIGTERM)
                try:
                    worker.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(worker.pid, signal.SIGKILL)
