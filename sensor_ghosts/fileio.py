"""Files the tool writes: all or nothing, with the mode a new file gets."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any


def new_file_mode() -> int:
    """The mode ``open()`` would give a new file (0o666 less the umask).

    Files are written to a ``tempfile.mkstemp`` file (mode 0600) and renamed
    into place, so they are given this mode before the rename."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextmanager
def atomic_file(path: str | Path, mode: str = "w") -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` (``mode`` "w" for text, "wb" for
    bytes) and rename it into place when the block ends without an error:
    never a partial file, even on Ctrl-C. ``OSError`` when the folder cannot
    be written."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent if str(target.parent) else ".",
                               prefix=f".{target.name}.", suffix=".tmp")
    try:
        if "b" in mode:
            f: IO[Any] = os.fdopen(fd, mode)
        else:
            f = os.fdopen(fd, mode, encoding="utf-8", newline="\n")
        with f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, new_file_mode())  # mkstemp makes 0600: respect the umask
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` all or nothing (``atomic_file``)."""
    with atomic_file(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
