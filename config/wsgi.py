import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
application = get_wsgi_application()
# Load the URLconf, and with it every view and what they import (numpy, pandas, crowd-kit: seconds of
# CPU), while the worker boots rather than inside its first request.
get_resolver().url_patterns  # noqa: B018
