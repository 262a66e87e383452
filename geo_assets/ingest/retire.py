"""Retiring a paper: remove everything derived from one partition from every store."""

from typing import Any

from geo_rag_runtime.settings import Settings


def retire_paper(settings: Settings, store: Any, partition_key: str) -> dict[str, Any]:
    """Delete the paper of ``partition_key`` from the document, vector, keyword and graph stores.

    Shared graph entities stay while other papers still mention them (the graph store decides).
    """
    from geo_assets.ingest import registry

    doc = store.db["papers"].find_one({"partition_key": partition_key})
    removed: dict[str, Any] = {"partition": partition_key}
    if doc is not None:
        paper_id = doc["paper_id"]
        removed["paper_id"] = paper_id
        from geo_rag_runtime.stores.graph import get_graph_store
        from geo_rag_runtime.stores.sparse import SparseIndex
        from geo_rag_runtime.stores.vectors import ChromaVectorStore

        removed["vectors"] = ChromaVectorStore(settings).delete_paper(paper_id)
        removed["sparse"] = SparseIndex(settings).delete_paper(paper_id)
        graph = get_graph_store(settings)
        try:
            removed["graph"] = graph.delete_paper(paper_id)
        finally:
            graph.close()
        removed["documents"] = store.delete_paper(paper_id)
    registry.unregister(store, partition_key)
    return removed
