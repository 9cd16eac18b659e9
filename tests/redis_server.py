"""A private redis-server on a free port that a test starts, stops and starts again."""

import shutil
import socket
import subprocess
import time
from pathlib import Path

from tests.conftest import port_open, require


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PrivateRedis:
    """redis-server without persistence in ``folder``; ``stop()`` kills it as a crash would, ``start()`` starts
    a new, empty one on the same port."""

    def __init__(self, folder: Path):
        require(shutil.which("redis-server") is not None, "redis-server on PATH")
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> "PrivateRedis":
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while not port_open("127.0.0.1", self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        deadline = time.monotonic() + 10
        while port_open("127.0.0.1", self.port) and time.monotonic() < deadline:
            time.sleep(0.05)

    def __enter__(self) -> "PrivateRedis":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class SilentServer:
    """A port that takes every connection and never sends a byte (a frozen Redis, a half-open connection), closing
    each connection ``close_after`` seconds after taking it."""

    def __init__(self, close_after: float):
        import threading

        self.close_after = close_after
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.listener.settimeout(0.05)
        self.port = self.listener.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def _serve(self) -> None:
        held: list[tuple[float, socket.socket]] = []
        while not self._stop.is_set():
            try:
                held.append((time.monotonic(), self.listener.accept()[0]))
            except TimeoutError:
                pass
            now = time.monotonic()
            for taken, conn in [item for item in held if now - item[0] >= self.close_after]:
                conn.close()
                held.remove((taken, conn))
        for _taken, conn in held:
            conn.close()

    def __enter__(self) -> "SilentServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.listener.close()
