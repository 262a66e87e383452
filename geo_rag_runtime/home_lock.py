"""The home's writer lock: one writer of a GeoRAG home at a time, whoever it is.

Held for their whole run by ``geo-rag ingest``, every Dagster run that writes (launched by the
sensor, the schedule or the UI: the ``home_writer`` resource of ``geo_assets.resources``),
``backup``, ``restore``, ``retire``, ``unretire`` and ``purge``, and by the sensor while it retires.
So a backup's "nothing writes meanwhile" holds against every writer, and a sensor-launched run and
a command-line ingest of the same home follow one another instead of interleaving their writes.

An ``fcntl`` lock (filelock) that the kernel releases when its holder dies, so holding it proves that
no other writer of this home is alive — what lets ingest recover the runs of a killed ingest. A
second writer says who it waits for and backs off (1 s, 2 s, … 10 s between tries) instead of
spinning a core. The lock is re-entrant within one thread: ``geo-rag ingest`` holds it and the
Dagster runs it executes in process take it again without waiting for themselves.

Taking the lock writes ``ingest.pid`` (who holds it); giving it back writes a new
``ingest.version``: the knowledge-base version that the answer cache (``answer_cache``) keys on.
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from geo_rag_runtime import contract
from geo_rag_runtime.errors import StoreError

__all__ = ["HomeBusyError", "holder", "home_lock"]


class HomeBusyError(StoreError):
    """Another writer holds the home's lock and the caller chose not to wait."""


class _Held:
    """This process's hold on one home: the file lock, the thread owning it, and the depth."""

    def __init__(self) -> None:
        self.guard = threading.RLock()
        self.lock: FileLock | None = None
        self.depth = 0


_HOLDS: dict[Path, _Held] = {}
_HOLDS_LOCK = threading.Lock()


def _hold(home: Path) -> _Held:
    with _HOLDS_LOCK:
        return _HOLDS.setdefault(home.resolve(), _Held())


@contextmanager
def home_lock(
    home: Path,
    say: Callable[[str], None],
    *,
    what: str = "geo-rag",
    wait: bool = True,
    max_poll_s: float = 10.0,
) -> Iterator[None]:
    """Hold ``home``'s writer lock for the block; ``what`` names this writer to the ones that wait.

    ``wait=False`` raises :class:`HomeBusyError` (naming the holder) instead of waiting: the sensor
    must not sit in an evaluation for the length of someone else's ingest."""
    held = _hold(home)
    if not held.guard.acquire(blocking=wait):
        raise HomeBusyError(f"the home {home} is being written by {holder(home) or 'another writer'}")
    try:
        if held.depth:  # this thread holds it already (an in-process run inside `geo-rag ingest`)
            held.depth += 1
            try:
                yield
            finally:
                held.depth -= 1
            return
        path = home / contract.INGEST_LOCK
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(path))
        delay, said = 1.0, False
        while True:
            try:
                lock.acquire(timeout=0)
                break
            except Timeout:
                if not wait:
                    raise HomeBusyError(
                        f"the home {home} is being written by {holder(home) or 'another writer'}"
                    ) from None
                if not said:
                    say(
                        f"waiting for the home lock held by {holder(home) or 'another writer'}: it is "
                        f"writing to {home} (lock {path}); this one starts when it ends (Ctrl-C to stop)"
                    )
                    said = True
                time.sleep(delay)
                delay = min(delay * 2, max_poll_s)
        held.lock, held.depth = lock, 1
        try:
            record = {"pid": os.getpid(), "what": what, "since": time.time()}
            path.with_suffix(".pid").write_text(json.dumps(record), encoding="utf-8")
            if said:
                say(f"got the home lock of {home}")
            yield
        finally:
            try:  # a new knowledge-base version: answers cached before it are not used again
                _write_version(home)
            finally:
                held.lock, held.depth = None, 0
                lock.release()
    finally:
        held.guard.release()


def _write_version(home: Path) -> None:
    """A new ``ingest.version`` (``contract.KB_VERSION``), written whole (rename)."""
    target = home / contract.KB_VERSION
    partial = target.with_name(f".{contract.KB_VERSION}.{uuid.uuid4().hex}")
    partial.write_text(f"{time.time_ns()}-{uuid.uuid4().hex}\n", encoding="utf-8")
    os.replace(partial, target)


def holder(home: Path) -> str:
    """Who holds (or last held) the lock, as "pid N (what)"; "" when nothing was recorded."""
    try:
        text = (home / contract.INGEST_LOCK).with_suffix(".pid").read_text(encoding="utf-8")
    except OSError:
        return ""
    try:
        record = json.loads(text)
    except ValueError:
        return ""
    if isinstance(record, int):  # written by an older version: the pid alone
        return f"pid {record}"
    if not isinstance(record, dict) or "pid" not in record:
        return ""
    return f"pid {record['pid']} ({record.get('what', '?')})"
