"""kombu's filesystem transport with each message written whole before a worker can see it.

kombu creates a message's file under its final name and only then writes it; a worker polling the folder can
move and read it in between, get zero bytes and stop with "Unrecoverable error: JSONDecodeError" (celery/kombu
#1551). Here a message is written under a name the worker ignores and renamed into place, which is atomic within
one filesystem. The embedded default (`make demo`) selects it with CELERY_BROKER_TRANSPORT.
"""

import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.json import dumps

# The worker only takes files named "<stamp>_<uuid>.<queue>.msg"; this suffix keeps a partial one out of its sight.
PARTIAL = ".partial"


class Channel(filesystem.Channel):
    def _put(self, queue: str, payload: dict, **kwargs) -> None:
        """Put ``payload`` on ``queue``: written to a partial file, then renamed to the name a worker looks for."""
        final = os.path.join(self.data_folder_out, f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg")
        try:
            with open(final + PARTIAL, "wb") as partial:
                partial.write(dumps(payload).encode())
            os.replace(final + PARTIAL, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel
