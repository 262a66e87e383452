"""Index stage: chunk embeddings into ChromaDB and the BM25 keyword index, and the sentence vectors
answering looks up, per paper."""

import time
from typing import Any

import dagster as dg

from geo_assets.partitions import papers_partitions
from geo_assets.resources import (
    DocumentStoreResource,
    EmbedderResource,
    GeoRagResource,
    HomeWriterResource,
    VectorStoreResource,
)
from geo_rag_runtime.query.sentence_vectors import SENTENCE_VECTORS_VERSION


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


@dg.asset(
    partitions_def=papers_partitions,
    group_name="index",
    kinds={"numpy", "pytorch"},
    code_version=f"sentence-vectors-1+{SENTENCE_VECTORS_VERSION}",
    check_specs=[dg.AssetCheckSpec("readable_as_stored", asset="sentence_embeddings")],
    description="One unit vector per sentence of every chunk, as answering embeds them: the extractive "
    "generator's answer-worthy sentences and compression's raw sentences (the same split and "
    "normalisation, `query.sentence_vectors`), in `$GEO_RAG_HOME/sentence_vectors/` (one .npz per "
    "paper) stamped with the embedder's identity, runtime and the splitter's version. Questions "
    "look them up for the passages they retrieved instead of embedding; a file with another stamp "
    "is not used.",
)
def sentence_embeddings(
    context: dg.AssetExecutionContext,
    chunks: dict[str, Any],
    geo: GeoRagResource,
    embedder: EmbedderResource,
    documents: DocumentStoreResource,
    home_writer: HomeWriterResource,  # the home's writer lock, held for the run
):
    from geo_rag_runtime.query.sentence_vectors import SentenceVectors, embedder_stamp, write_paper

    paper_id = chunks["paper_id"]
    with documents.open() as store:
        items = store.get_chunks(chunks["chunk_ids"])
    model = embedder.embedder()
    home = geo.settings().home_dir
    started = time.perf_counter()
    written = write_paper(home, paper_id, items, model)
    seconds = time.perf_counter() - started
    reader = SentenceVectors(home, embedder_stamp(model))
    found = reader.lookup((paper_id, c.chunk_id) for c in items)
    yield dg.AssetCheckResult(
        check_name="readable_as_stored",
        passed=len(found) == written["sentences"],
        metadata={"texts_read_back": len(found), "sentences": written["sentences"]},
    )
    context.log.info(f"{chunks['source_file']}: {written['sentences']} sentence vectors in {seconds:.1f}s")
    yield dg.Output(
        {"paper_id": paper_id, **written},
        metadata={
            **written,
            "model": str(model.identity.get("model")),
            "embed_seconds": round(seconds, 2),
            "sentences_per_second": round(written["sentences"] / seconds, 1) if seconds > 0 else 0.0,
        },
    )
