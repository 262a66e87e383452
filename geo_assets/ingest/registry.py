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
    existing = store.source_key_for_path(str(path))
    if existing is not None:
        return existing
    key = contract.partition_key_for(path)
    taken = store.source_path(key)
    if taken is not None and taken != str(path):
        key = f"{Path(key).stem}-{hashlib.sha1(str(path).encode()).hexdigest()[:6]}{Path(key).suffix}"
    store.register_source(key, str(path))
    return key


def lookup(store: Any, key: str) -> Path | None:
    path = store.source_path(key)
    return Path(path) if path is not None else None


def registered(store: Any) -> dict[str, Path]:
    return {key: Path(path) for key, path in store.sources().items()}


def unregister(store: Any, key: str) -> None:
    store.delete_source(key)
