"""Graph stage: (head, relation, tail) triples with provenance, merged into the graph store."""

from collections import Counter
from typing import Any

import dagster as dg

from geo_assets.partitions import papers_partitions
from geo_assets.resources import DocumentStoreResource, GraphStoreResource, HomeWriterResource, LLMResource
from geo_rag_runtime.prompts import EXTRACT_TRIPLES, PROMPT_SET_VERSION
from geo_rag_runtime.vocab import vocabulary_version


@dg.asset(
    partitions_def=papers_partitions,
    group_name="graph",
    kinds={"mongodb"},
    code_version=f"triples-3+vocab.{vocabulary_version()}",
    pool="llm",
    check_specs=[dg.AssetCheckSpec("entities_in_vocabulary", asset="triples")],
    description="Geochemical entities recognized in every chunk and relations between them as "
    "(head, relation, tail) triples with provenance (paper, chunk, sentence, extractor, confidence): "
    "the deterministic rule extractor, or the LLM extractor when GEO_RAG_LLM_INGEST lists triples.",
)
def triples(
    context: dg.AssetExecutionContext,
    chunks: dict[str, Any],
    documents: DocumentStoreResource,
    llm: LLMResource,
    home_writer: HomeWriterResource,  # the home's writer lock, held for the run
):
    from geo_assets.graph.extraction import extract_triples_with
    from geo_rag_runtime.vocab import load_vocabulary

    with documents.open() as store:
        items = store.get_chunks(chunks["chunk_ids"])
        extracted = extract_triples_with(items, llm=llm.client("triples"))
        store.replace_triples(chunks["paper_id"], extracted)
    types = set(load_vocabulary().types)
    outside = [t.triple_id for t in extracted if t.head_type not in types or t.tail_type not in types]
    entities = {(t.head, t.head_type) for t in extracted} | {(t.tail, t.tail_type) for t in extracted}
    yield dg.AssetCheckResult(
        check_name="entities_in_vocabulary", passed=not outside, metadata={"outside_vocabulary": len(outside)}
    )
    by_relation = Counter(t.relation for t in extracted)
    by_extractor = Counter(t.extractor for t in extracted)
    yield dg.Output(
        {"paper_id": chunks["paper_id"], "triples": len(extracted)},
        metadata={
            "triples": len(extracted),
            "entities": len(entities),
            "relations": dg.MetadataValue.json(dict(by_relation)),
            "extractors": dg.MetadataValue.json(dict(by_extractor)),
            "prompt": EXTRACT_TRIPLES.id,  # used when GEO_RAG_LLM_INGEST opts into LLM extraction
            "prompt_set_version": PROMPT_SET_VERSION,
        },
    )


@dg.asset(
    partitions_def=papers_partitions,
    group_name="graph",
    kinds={"neo4j"},
    code_version="graph-1",
    pool="graph",
    check_specs=[dg.AssetCheckSpec("loaded_equals_extracted", asset="knowledge_graph")],
    description="The paper's triples merged into the graph store (Neo4j, or embedded LadybugDB) "
    "with Paper and Chunk nodes: (Chunk)-[:EXTRACTED_FROM]->(Paper), (Chunk)-[:MENTIONS]->(entity), "
    "so every fact leads back to its text.",
)
def knowledge_graph(
    context: dg.AssetExecutionContext,
    triples: dict[str, Any],
    documents: DocumentStoreResource,
    graph: GraphStoreResource,
    home_writer: HomeWriterResource,
):
    paper_id = triples["paper_id"]
    with documents.open(read_only=True) as store:
        paper = store.get_paper(paper_id) or {}
        paper_chunks = store.chunks_for_paper(paper_id)
        paper_triples = store.triples_for_paper(paper_id)
    info = {
        "paper_id": paper_id,
        "title": paper.get("title", ""),
        "source_file": paper.get("source_file", ""),
    }
    with graph.open() as g:
        g.ensure_schema()
        stats = g.load(info, paper_chunks, paper_triples)
        loaded = g.paper_counts(paper_id)["facts"]
    expected = len({t.triple_id for t in paper_triples})
    yield dg.AssetCheckResult(
        check_name="loaded_equals_extracted",
        passed=loaded == expected,
        metadata={"loaded": loaded, "extracted": expected},
    )
    yield dg.Output(
        {"paper_id": paper_id, "facts": loaded},
        metadata={"facts": loaded, **{k: v for k, v in vars(stats).items() if isinstance(v, int)}},
    )
