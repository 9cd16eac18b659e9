import gc
import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
application = get_wsgi_application()
# Load the URLconf, and with it every view and what they import (numpy, pandas, scikit-learn: seconds of
# CPU), while the worker boots rather than inside its first request.
get_resolver().url_patterns  # noqa: B018
# Everything loaded so far lives as long as the process: move it out of the garbage collector's sight. A full
# collection walked all of it (Django, DRF, numpy, pandas, scipy) and froze the worker, both its threads, for
# 130–250 ms every few thousand requests: the work queue's p95 and p99 stalls. With it frozen, 1–8 ms.
gc.freeze()
