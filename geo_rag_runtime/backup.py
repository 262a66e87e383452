"""Back up the knowledge base to one portable archive, and restore it into an empty home.

Logical, through the store adapters, not a copy of store files: the archive holds the papers,
chunks, triples, measurement rows and sources registry as JSON lines, the chunk vectors as one
float32 array (with the embedder identity), the TEI files and the trained models. Restore writes
them back through the same adapters — documents, vectors and graph into whatever this home's
settings name (embedded, or MongoDB / a Chroma server / Neo4j), the keyword index and the graph
rebuilt from the chunks and triples — so a backup also moves a knowledge base from the embedded
stores to servers. Embedded store files would be neither portable across versions nor safe to
copy while a reader holds them.

Consistency: the backup holds this home's ingest lock (the one ``geo-rag ingest`` holds), so no
ingest writes while it reads. Not in the archive: the Dagster event log (lineage; a restored home's
next ``geo-rag ingest`` re-runs its papers once), the embedder's ONNX export (remade by the next
ingest; until then questions use the torch model), the local LLM's weights (a package).
"""

from __future__ import annotations

import datetime as dt
import io
import json
import tarfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from geo_rag_runtime.errors import StoreError
from geo_rag_runtime.home_lock import home_lock
from geo_rag_runtime.models import Chunk, Measurement, Paper, Triple
from geo_rag_runtime.settings import Settings
from geo_rag_runtime.stores import publication

__all__ = ["FORMAT", "backup", "restore"]

FORMAT = "georag.backup/1"
_FILE_FOLDERS = ("tei", "models")
_SKIPPED_MODELS = ("embedder-onnx",)  # 90 MB, remade by the next ingest


def _add(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = int(time.time())
    archive.addfile(info, io.BytesIO(data))


def _jsonl(items: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items).encode("utf-8")


def backup(settings: Settings, out: Path, say: Any = print) -> dict[str, Any]:
    """Write the archive ``out`` (a .tar.gz) and return its manifest."""
    from geo_rag_runtime.stores.opening import open_documents, open_vectors

    out = Path(out)
    with home_lock(settings.home_dir, say):
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
        }
        buffer = io.BytesIO()
        np.save(buffer, embeddings.astype(np.float32), allow_pickle=False)
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = out.with_name(out.name + ".partial")
        with tarfile.open(partial, "w:gz") as archive:
            _add(archive, "manifest.json", json.dumps(manifest, indent=1, default=str).encode("utf-8"))
            _add(archive, "papers.jsonl", _jsonl(papers))
            _add(archive, "chunks.jsonl", _jsonl(chunks))
            _add(archive, "triples.jsonl", _jsonl(triples))
            _add(archive, "measurements.jsonl", _jsonl(rows))
            _add(archive, "sources.json", json.dumps(sources, ensure_ascii=False).encode("utf-8"))
            _add(archive, "vectors.npy", buffer.getvalue())
            for folder in _FILE_FOLDERS:
                root = settings.path(folder)
                for path in sorted(root.rglob("*")) if root.is_dir() else []:
                    relative = path.relative_to(root)
                    if (
                        path.is_file()
                        and not path.name.endswith(".lock")
                        and relative.parts[0] not in _SKIPPED_MODELS
                    ):
                        archive.add(path, arcname=f"files/{folder}/{relative.as_posix()}")
        partial.replace(out)
    return manifest


def _read(archive: tarfile.TarFile, name: str) -> bytes:
    member = archive.extractfile(name)
    if member is None:
        raise StoreError(f"the backup has no {name}: not a GeoRAG backup, or damaged")
    return member.read()


def _lines(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]


def restore(settings: Settings, archive_path: Path, say: Any = print) -> dict[str, Any]:
    """Restore ``archive_path`` into this (empty) home's stores; returns the counts written."""
    from geo_rag_runtime.stores.opening import open_documents, open_graph, open_keyword_index, open_vectors

    try:
        archive = tarfile.open(archive_path, "r:gz")  # noqa: SIM115 - closed by the with below
    except (OSError, tarfile.TarError) as exc:
        raise StoreError(f"cannot read the backup {archive_path}: {exc}") from exc
    with archive, home_lock(settings.home_dir, say):
        manifest = json.loads(_read(archive, "manifest.json"))
        if manifest.get("format") != FORMAT:
            raise StoreError(f"{archive_path} is not a {FORMAT} archive (format {manifest.get('format')!r})")
        store = open_documents(settings)
        vectors = open_vectors(settings)
        try:
            if store.counts().get("papers", 0) or vectors.count():
                raise StoreError(
                    f"the home {settings.home_dir} already holds a knowledge base: restore only into an "
                    "empty home (set GEO_RAG_HOME to a new folder, and empty the server stores if used)"
                )
            papers = _lines(_read(archive, "papers.jsonl"))
            chunks = [Chunk.model_validate(c) for c in _lines(_read(archive, "chunks.jsonl"))]
            triples = [Triple.model_validate(t) for t in _lines(_read(archive, "triples.jsonl"))]
            rows = [Measurement.model_validate(m) for m in _lines(_read(archive, "measurements.jsonl"))]
            embeddings = np.load(io.BytesIO(_read(archive, "vectors.npy")), allow_pickle=False)
            if embeddings.shape[0] != len(chunks):
                raise StoreError(f"the backup holds {len(chunks)} chunks but {embeddings.shape[0]} vectors")
            for paper_id in manifest.get("building", []):
                publication.mark_building(settings.home_dir, str(paper_id), "restored half-written")
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
            sparse = open_keyword_index(settings)
            graph = open_graph(settings)
            try:
                for document in papers:
                    fields = {k: v for k, v in document.items() if k in Paper.model_fields}
                    extra = {
                        k: v for k, v in document.items() if k not in Paper.model_fields and k != "updated_at"
                    }
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
                for key, path in json.loads(_read(archive, "sources.json")).items():
                    store.register_source(key, path)
            finally:
                graph.close()
        finally:
            store.close()
            vectors.close()
        for member in archive.getmembers():
            parts = Path(member.name).parts
            if member.isfile() and len(parts) > 2 and parts[0] == "files" and parts[1] in _FILE_FOLDERS:
                if ".." in parts:
                    raise StoreError(f"refusing the archive member {member.name!r} (leaves the home)")
                target = settings.path(parts[1]).joinpath(*parts[2:])
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(_read(archive, member.name))
    counts: dict[str, Any] = manifest["counts"]
    return counts
