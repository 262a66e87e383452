"""Index stage: chunk embeddings into ChromaDB and the BM25 keyword index, per paper."""

import time
from typing import Any

import dagster as dg

from geo_assets.partitions import papers_partitions
from geo_assets.resources import (
    DocumentStoreResource,
    EmbedderResource,
    HomeWriterResource,
    VectorStoreResource,
)


@dg.asset(
    partitions_def=papers_partitions,
    group_name="index",
    kinds={"chromadb", "pytorch"},
    code_version="embed-2",
    check_specs=[
        dg.AssetCheckSpec("one_vector_per_chunk", asset="chunk_embeddings"),
        dg.AssetCheckSpec("dimension_as_configured", asset="chunk_embeddings"),
    ],
    description="One vector per chunk (long chunks embedded completely as the mean of window "
    "embeddings) upserted into ChromaDB with paper/section metadata, and the paper's keyword tokens "
    "upserted into the persisted BM25 index. The model identity is stored with the vectors; a "
    "different configured model fails instead of mixing.",
)
def chunk_embeddings(
    context: dg.AssetExecutionContext,
    chunks: dict[str, Any],
    embedder: EmbedderResource,
    vector_store: VectorStoreResource,
    documents: DocumentStoreResource,
    home_writer: HomeWriterResource,  # the home's writer lock, held for the run
):
    paper_id = chunks["paper_id"]
    with documents.open() as store:
        items = store.get_chunks(chunks["chunk_ids"])
    model = embedder.embedder()
    vectors = vector_store.vectors()
    vectors.ensure_model(model.identity)
    started = time.perf_counter()
    matrix = model.embed_documents([c.text for c in items])
    seconds = time.perf_counter() - started
    vectors.upsert_chunks(items, matrix, model.identity)
    sparse = vector_store.sparse()
    sparse.upsert_paper(paper_id, items)
    stored = vectors.count_paper(paper_id)
    dim = int(matrix.shape[1]) if len(items) else model.dim
    yield dg.AssetCheckResult(
        check_name="one_vector_per_chunk",
        passed=stored == len(items),
        metadata={"vectors": stored, "chunks": len(items)},
    )
    yield dg.AssetCheckResult(
        check_name="dimension_as_configured",
        passed=dim == model.dim,
        metadata={"dimension": dim, "configured": model.dim},
    )
    context.log.info(f"{chunks['source_file']}: {len(items)} vectors in {seconds:.1f}s")
    yield dg.Output(
        {"paper_id": paper_id, "vectors": stored},
        metadata={
            "vectors": stored,
            "dimension": dim,
            "model": str(model.identity.get("model")),
            "embed_seconds": round(seconds, 2),
            "chunks_per_second": round(len(items) / seconds, 1) if seconds > 0 else 0.0,
        },
    )
