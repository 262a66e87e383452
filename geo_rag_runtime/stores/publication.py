"""Which papers questions may use: none that an ingest is rewriting.

A paper's stores are rewritten one stage at a time (chunks, then vectors and keyword index, graph,
measurement rows). From the moment the ``chunks`` stage starts rewriting a paper until the
``published_paper`` stage has seen every store hold it, the paper is *building*: questions leave it
out, so a question asked during an ingest is answered from the papers last completed, never from
half a paper. A paper whose rebuild fails stays hidden until a rerun succeeds (``geo-rag status``
lists it).

Why one marker file per paper under ``GEO_RAG_HOME/building`` and not a document-store collection:
every question reads the set, and opening the document store costs ~0.9 s of a cold ``geo-rag ask``
(pymongo, litemongo) where listing one small folder costs microseconds. The home is shared by ingest
and serving in every deployment (the keyword index lives there too), so both see the markers.
Creating (write, then rename) or removing one file is atomic, so no lock is needed.

A *retired* paper (its PDF left the watched folder, or ``geo-rag retire`` named it) is hidden the
same way, by a marker under ``GEO_RAG_HOME/retired`` that records when and why, while every store
still holds it: ``geo-rag unretire`` (or the PDF coming back) removes the mark, and only ``geo-rag
purge`` deletes a retired paper's data, once it has been retired longer than
``GEO_RAG_RETIRE_KEEP_DAYS``. So an unmounted folder costs answers for a while, never the papers.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import re
from pathlib import Path

__all__ = [
    "BUILDING_DIR",
    "RETIRED_DIR",
    "building_papers",
    "hidden_papers",
    "mark_building",
    "mark_published",
    "mark_retired",
    "mark_unretired",
    "retired_papers",
]

BUILDING_DIR = "building"
RETIRED_DIR = "retired"
_SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}")


def _marker(home: Path, paper_id: str, folder: str = BUILDING_DIR) -> Path:
    """The marker's path; an id that is not a plain file name is hashed (ids are ``p<hex>``)."""
    name = paper_id if _SAFE.fullmatch(paper_id) else "h" + hashlib.sha256(paper_id.encode()).hexdigest()[:32]
    return home / folder / f"{name}.json"


def _write_marker(path: Path, record: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    partial.write_text(json.dumps(record), encoding="utf-8")
    os.replace(partial, path)


def _read_markers(folder: Path) -> dict[str, dict[str, str]]:
    if not folder.is_dir():
        return {}
    found: dict[str, dict[str, str]] = {}
    for path in folder.glob("*.json"):
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):  # removed meanwhile
            record = json.loads(path.read_text(encoding="utf-8"))
            found[str(record["paper_id"])] = {k: str(v) for k, v in record.items()}
    return found


def mark_building(home: Path, paper_id: str, run_id: str = "") -> None:
    """Hide ``paper_id`` from questions until :func:`mark_published`."""
    record = {"paper_id": paper_id, "run_id": run_id, "since": dt.datetime.now(dt.UTC).isoformat()}
    _write_marker(_marker(home, paper_id), record)


def mark_published(home: Path, paper_id: str) -> None:
    """Every store holds ``paper_id`` completely: questions may use it (again)."""
    _marker(home, paper_id).unlink(missing_ok=True)


def building_papers(home: Path) -> dict[str, dict[str, str]]:
    """The papers being (re)built, by id, with the run that started and when."""
    return _read_markers(home / BUILDING_DIR)


def mark_retired(
    home: Path, paper_id: str, *, partition_key: str, source_path: str, reason: str, since: str = ""
) -> None:
    """Hide ``paper_id`` from questions as retired (its data stay until purged); ``since`` keeps the
    original time when a retirement is restored from a backup."""
    record = {
        "paper_id": paper_id,
        "partition_key": partition_key,
        "source_path": source_path,
        "reason": reason,
        "since": since or dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    _write_marker(_marker(home, paper_id, RETIRED_DIR), record)


def mark_unretired(home: Path, paper_id: str) -> bool:
    """Questions may use ``paper_id`` again; False when it was not retired."""
    path = _marker(home, paper_id, RETIRED_DIR)
    existed = path.is_file()
    path.unlink(missing_ok=True)
    return existed


def retired_papers(home: Path) -> dict[str, dict[str, str]]:
    """The retired papers, by id: partition key, source path, reason and since when."""
    return _read_markers(home / RETIRED_DIR)


def hidden_papers(home: Path) -> frozenset[str]:
    """Every paper questions and exports leave out: being (re)built, or retired."""
    return frozenset(building_papers(home)) | frozenset(retired_papers(home))
