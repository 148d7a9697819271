"""Files the tool writes: the mode a new file gets."""

from __future__ import annotations

import os


def new_file_mode() -> int:
    """The mode ``open()`` would give a new file (0o666 less the umask).

    Files are written to a ``tempfile.mkstemp`` file (mode 0600) and renamed
    into place, so they are given this mode before the rename."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask
