"""Knowledge-graph stores: LadybugDB embedded (default) and Neo4j (when ``NEO4J_URI`` is set)."""

from __future__ import annotations

from geo_rag_runtime.settings import Settings
from geo_rag_runtime.stores.graph.base import Fact, GraphStore, LoadStats, facts_from_rows
from geo_rag_runtime.stores.graph.ladybug_store import LadybugGraphStore
from geo_rag_runtime.stores.graph.neo4j_store import Neo4jGraphStore

LADYBUG_FILE = "graph.lbug"


def get_graph_store(settings: Settings, read_only: bool = False) -> GraphStore:
    """Neo4j when ``NEO4J_URI`` is configured, else the LadybugDB database under ``GEO_RAG_HOME/graph``."""
    if settings.neo4j_uri:
        return Neo4jGraphStore(
            settings.neo4j_uri, settings.neo4j_user, settings.neo4j_password, settings.neo4j_database
        )
    return LadybugGraphStore(settings.path("graph") / LADYBUG_FILE, read_only=read_only)


__all__ = [
    "Fact",
    "GraphStore",
    "LadybugGraphStore",
    "LoadStats",
    "Neo4jGraphStore",
    "facts_from_rows",
    "get_graph_store",
]
