"""The app served by uvicorn on a socket bound here (so that port 0 gives a
free port whose number is known), in the foreground (``serve``) or in a
background thread (tests, the screenshot script)."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def _server(workers: int):
    import uvicorn

    from .app import create_app

    return uvicorn.Server(uvicorn.Config(create_app(workers), log_level="warning"))


def serve_forever(sock: socket.socket, workers: int) -> None:
    _server(workers).run(sockets=[sock])


class BackgroundServer:
    """``with BackgroundServer() as url:`` the app on a free port of 127.0.0.1
    until the block ends; ``warm`` waits for the hint workers to be ready."""

    def __init__(self, workers: int = 2, warm: bool = True, timeout: float = 300.0):
        self.workers = workers
        self.warm = warm
        self.timeout = timeout
        self.sock = bind("127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.server = _server(workers)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)

    def __enter__(self) -> str:
        import json
        import urllib.request

        self.thread.start()
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/api/health", timeout=5) as r:
                    if json.load(r)["workers_warm"] or not self.warm:
                        return self.url
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise TimeoutError(f"the server did not get ready within {self.timeout:g} s")

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=60)
        self.sock.close()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
