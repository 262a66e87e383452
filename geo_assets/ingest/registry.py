"""Which PDF each ``papers`` partition stands for.

Partition keys are file names (readable in the UI); the registry in the document store maps each
key to the absolute path, so ``geo-rag ingest`` can take PDFs from anywhere and the sensor can tell
new, changed and removed files apart.
"""

import hashlib
from pathlib import Path
from typing import Any

from geo_rag_runtime import contract


def scan_pdfs(paths: list[Path]) -> list[Path]:
    """Every PDF under the given files/folders (recursively), sorted, resolved."""
    found: list[Path] = []
    for path in paths:
        path = path.expanduser().resolve()
        if path.is_dir():
            found.extend(
                p.resolve() for p in sorted(path.rglob("*")) if p.suffix.lower() == ".pdf" and p.is_file()
            )
        else:
            found.append(path)
    return sorted(dict.fromkeys(found))


def register(store: Any, path: Path) -> str:
    """Register a PDF and return its partition key (file name; suffixed when the name is taken)."""
    path = path.expanduser().resolve()
    col = store.db[contract.SOURCES]
    existing = col.find_one({"path": str(path)})
    if existing:
        return str(existing["_id"])
    key = contract.partition_key_for(path)
    taken = col.find_one({"_id": key})
    if taken and taken["path"] != str(path):
        key = f"{Path(key).stem}-{hashlib.sha1(str(path).encode()).hexdigest()[:6]}{Path(key).suffix}"
    with store._writing():
        col.replace_one({"_id": key}, {"_id": key, "path": str(path)}, upsert=True)
    return key


def lookup(store: Any, key: str) -> Path | None:
    doc = store.db[contract.SOURCES].find_one({"_id": key})
    return Path(doc["path"]) if doc else None


def registered(store: Any) -> dict[str, Path]:
    return {str(d["_id"]): Path(d["path"]) for d in store.db[contract.SOURCES].find({})}


def unregister(store: Any, key: str) -> None:
    with store._writing():
        store.db[contract.SOURCES].delete_one({"_id": key})
