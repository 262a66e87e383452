"""The home's writer lock: held by ``geo-rag ingest``, ``backup`` and ``restore`` for their whole run.

An ``fcntl`` lock (filelock) that the kernel releases when its holder dies, so holding it proves that
no other writer of this home is alive — what lets ingest recover the runs of a killed ingest. A
second writer says what it waits for and backs off (1 s, 2 s, … 10 s between tries) instead of
spinning a core.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from geo_rag_runtime import contract

__all__ = ["home_lock"]


@contextmanager
def home_lock(home: Path, say: Callable[[str], None], *, max_poll_s: float = 10.0) -> Iterator[None]:
    """Hold ``home``'s writer lock for the block."""
    path = home / contract.INGEST_LOCK
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(path))
    delay, said = 1.0, False
    while True:
        try:
            lock.acquire(timeout=0)
            break
        except Timeout:
            if not said:
                say(
                    f"waiting: another geo-rag ingest, backup or restore{_holder(path)} is writing to "
                    f"{home} (lock {path}); this one starts when it ends (Ctrl-C to stop)"
                )
                said = True
            time.sleep(delay)
            delay = min(delay * 2, max_poll_s)
    try:
        path.with_suffix(".pid").write_text(str(os.getpid()), encoding="utf-8")
        yield
    finally:
        lock.release()


def _holder(path: Path) -> str:
    try:
        return f" (pid {int(path.with_suffix('.pid').read_text(encoding='utf-8'))})"
    except (OSError, ValueError):
        return ""
