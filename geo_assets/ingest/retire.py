"""Retiring a paper: remove everything derived from one partition from every store."""

from typing import Any

from geo_rag_runtime.settings import Settings
from geo_rag_runtime.stores import opening, publication
from geo_rag_runtime.stores.protocols import DocumentRepository


def retire_paper(settings: Settings, store: DocumentRepository, partition_key: str) -> dict[str, Any]:
    """Delete the paper of ``partition_key`` from the document, vector, keyword and graph stores.

    Shared graph entities stay while other papers still mention them (the graph store decides).
    """
    from geo_assets.ingest import registry

    doc = store.find_paper_by_partition(partition_key)
    removed: dict[str, Any] = {"partition": partition_key}
    if doc is not None:
        paper_id = doc["paper_id"]
        removed["paper_id"] = paper_id
        publication.mark_building(settings.home_dir, paper_id, "retire")  # questions stop using it now
        removed["vectors"] = opening.open_vectors(settings).delete_paper(paper_id)
        removed["sparse"] = opening.open_keyword_index(settings).delete_paper(paper_id)
        graph = opening.open_graph(settings)
        try:
            removed["graph"] = graph.delete_paper(paper_id)
        finally:
            graph.close()
        removed["documents"] = store.delete_paper(paper_id)
        publication.mark_published(settings.home_dir, paper_id)  # gone from every store
    registry.unregister(store, partition_key)
    return removed
