"""The embedded default: SQLite, media on local disk, eager tasks, debug on."""

from .base import *  # noqa: F403
from .base import env

DEBUG = env.bool("DJANGO_DEBUG", default=True)

# The embedded default keeps its database and media under var/.
VAR_DIR.mkdir(exist_ok=True)  # noqa: F405
