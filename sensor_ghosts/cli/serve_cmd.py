"""``sensor-ghosts serve``: the web app (docs/WEB.md) on a local port."""

from __future__ import annotations

import click


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (0.0.0.0: every network; the app has no login).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port (0: any free port, printed at start).")
@click.option("--workers", type=click.IntRange(1, 16), default=2, show_default=True,
              help="Processes computing hints and solutions.")
def serve(host: str, port: int, workers: int) -> None:
    """Open the table companion, play and puzzles in a browser (computer or phone)."""
    try:
        from ..web.server import bind, serve_forever
    except ImportError as e:  # a build without the web dependencies
        raise click.ClickException(f"the web app needs starlette and uvicorn: {e}") from None
    try:
        # Bound here so that '--port 0' can print the port it got.
        sock = bind(host, port)
    except OSError as e:
        raise click.ClickException(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    click.echo(f"sensor-ghosts: serving on http://{host}:{sock.getsockname()[1]}/ (Ctrl-C stops)")
    serve_forever(sock, workers)
