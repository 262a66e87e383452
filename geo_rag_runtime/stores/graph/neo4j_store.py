"""The production graph store: Neo4j (with APOC when installed) through the official ``neo4j`` driver.

Writes run in one transaction per paper as batched ``UNWIND $rows`` statements, grouped by entity type
and relation (labels and relationship types cannot be parameters; they come from the vocabulary and are
validated in ``cypher``). Subgraphs use APOC's path expander when the server has it (checked once with
``SHOW PROCEDURES``) and an equivalent variable-length pattern otherwise.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from geo_rag_runtime.errors import ServiceUnavailableError, StoreError
from geo_rag_runtime.models import Chunk, Triple
from geo_rag_runtime.stores.graph import cypher
from geo_rag_runtime.stores.graph.base import (
    LEAF_TYPES,
    Fact,
    GraphStore,
    LoadStats,
    check_depth,
    facts_from_rows,
    paper_rows,
)
from geo_rag_runtime.vocab import RELATIONS

BATCH = 1000


def _records(result: Any) -> list[dict[str, Any]]:
    return [record.data() for record in result]


class Neo4jGraphStore(GraphStore):
    """Graph store on a Neo4j server; ``driver`` may be injected (tests, shared pools)."""

    def __init__(
        self,
        uri: str,
        user: str = "neo4j",
        password: str | None = None,
        database: str | None = None,
        *,
        driver: Any = None,
    ) -> None:
        if driver is None:
            import neo4j

            # The driver's defaults retry a transaction for 30 s when the server is unreachable, so a
            # question waited half a minute for an error; 10 s still rides out a leader switch.
            driver = neo4j.GraphDatabase.driver(
                uri, auth=(user, password or ""), connection_timeout=10.0, max_transaction_retry_time=10.0
            )
        self.uri = uri
        self.database = database
        self._driver = driver
        self._apoc: bool | None = None

    # -- plumbing --

    def _session(self) -> Any:
        return self._driver.session(database=self.database) if self.database else self._driver.session()

    def _write(self, work: Any) -> Any:
        try:
            with self._session() as session:
                return session.execute_write(work)
        except Exception as exc:  # driver errors: map the retryable ones
            raise _map_error(exc) from exc

    def _read(self, query: str, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        try:
            with self._session() as session:
                rows: list[dict[str, Any]] = session.execute_read(
                    lambda tx: _records(tx.run(query, dict(params)))
                )
                return rows
        except Exception as exc:
            raise _map_error(exc) from exc

    def has_apoc(self) -> bool:
        """Whether APOC's path expander is installed (asked once per store)."""
        if self._apoc is None:
            try:
                rows = self._read(cypher.NEO4J_HAS_APOC, {})
                self._apoc = bool(rows and rows[0].get("n"))
            except StoreError:
                self._apoc = False
        return self._apoc

    # -- GraphStore --

    def ensure_schema(self) -> None:
        statements = list(cypher.NEO4J_SCHEMA) + [cypher.neo4j_fact_index(r) for r in sorted(RELATIONS)]
        for statement in statements:  # schema statements cannot share a transaction with writes
            try:
                with self._session() as session:
                    session.run(statement).consume()
            except Exception as exc:
                raise _map_error(exc) from exc

    def load(
        self, paper: Mapping[str, Any] | Any, chunks: Sequence[Chunk], triples: Sequence[Triple]
    ) -> LoadStats:
        rows = paper_rows(paper, chunks, triples)
        pid = rows.paper["paper_id"]
        by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for entity in rows.entities:
            by_type[entity["type"]].append(entity)
        by_relation: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for fact in rows.facts:
            by_relation[fact["relation"]].append(fact)
        statements: list[tuple[str, dict[str, Any]]] = [(cypher.NEO4J_MERGE_PAPER, rows.paper)]
        statements += _batched(cypher.NEO4J_MERGE_CHUNKS, rows.chunks)
        for type_ in sorted(by_type):  # per batch: label the nodes that exist, then merge (see cypher)
            merge = cypher.neo4j_merge_entities(type_)
            for label, params in _batched(cypher.neo4j_label_entities(type_), by_type[type_]):
                statements += [(label, params), (merge, params)]
        statements += _batched(cypher.NEO4J_MERGE_MENTIONS, rows.mentions)
        for relation in sorted(by_relation):
            statements += _batched(cypher.neo4j_merge_facts(relation), by_relation[relation])

        def work(tx: Any) -> None:
            self._delete(tx, pid)
            for query, params in statements:
                tx.run(query, params).consume()
            stored = {k: _scalar(tx, q, {"paper_id": pid}) for k, q in cypher.neo4j_paper_counts().items()}
            expected = {"chunks": len(rows.chunks), "facts": len(rows.facts), "mentions": len(rows.mentions)}
            if stored != expected:  # raising rolls the transaction back
                raise StoreError(f"graph load of {pid} is incomplete: stored {stored}, expected {expected}")

        self._write(work)
        return LoadStats(
            nodes=1 + len(rows.chunks) + len(rows.entities),
            relationships=len(rows.chunks) + len(rows.mentions) + len(rows.facts),
            entities=len(rows.entities),
            facts=len(rows.facts),
            mentions=len(rows.mentions),
            chunks=len(rows.chunks),
        )

    @staticmethod
    def _delete(tx: Any, paper_id: str) -> None:
        params = {"paper_id": paper_id}
        names = [r["name"] for r in _records(tx.run(cypher.NEO4J_PAPER_ENTITY_NAMES, params))]
        tx.run(cypher.NEO4J_DELETE_FACTS, params).consume()
        tx.run(cypher.NEO4J_DELETE_CHUNKS, params).consume()
        tx.run(cypher.NEO4J_DELETE_PAPER, params).consume()
        if names:
            tx.run(cypher.NEO4J_DELETE_ORPHANS, {"names": names}).consume()

    def delete_paper(self, paper_id: str) -> None:
        self._write(lambda tx: self._delete(tx, paper_id))

    def subgraph_query(
        self, entity_names: Sequence[str], depth: int, limit: int
    ) -> tuple[str, dict[str, Any]]:
        """The statement and parameters ``subgraph`` runs (APOC or plain, by what the server has)."""
        d = check_depth(depth)
        params: dict[str, Any] = {
            "names": sorted({n for n in entity_names if n}),
            "limit": int(limit),
            "leaf_types": list(LEAF_TYPES),
        }
        if self.has_apoc():
            params.update(depth=d, rel_filter=cypher.neo4j_rel_filter())
            return cypher.neo4j_subgraph_apoc(), params
        return cypher.neo4j_subgraph_plain(d), params

    def subgraph(self, entity_names: Sequence[str], depth: int, limit: int) -> list[Fact]:
        query, params = self.subgraph_query(entity_names, depth, limit)
        if not params["names"] or limit <= 0:
            return []
        return facts_from_rows(self._read(query, params))

    def counts(self) -> dict[str, int]:
        return {k: _first_n(self._read(q, {})) for k, q in cypher.neo4j_counts().items()}

    def paper_counts(self, paper_id: str) -> dict[str, int]:
        return {
            k: _first_n(self._read(q, {"paper_id": paper_id})) for k, q in cypher.neo4j_paper_counts().items()
        }

    def close(self) -> None:
        self._driver.close()


def _batched(query: str, rows: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    return [(query, {"rows": rows[i : i + BATCH]}) for i in range(0, len(rows), BATCH)]


def _scalar(tx: Any, query: str, params: Mapping[str, Any]) -> int:
    return _first_n(_records(tx.run(query, dict(params))))


def _first_n(rows: list[dict[str, Any]]) -> int:
    return int(rows[0]["n"]) if rows else 0


def _map_error(exc: Exception) -> Exception:
    if isinstance(exc, StoreError):
        return exc
    try:
        from neo4j import exceptions as neo
    except ImportError:  # pragma: no cover - neo4j is a dependency
        return StoreError(str(exc))
    if isinstance(exc, neo.ServiceUnavailable | neo.SessionExpired | neo.TransientError):
        return ServiceUnavailableError(f"Neo4j unavailable: {exc}")
    return StoreError(f"Neo4j error: {exc}")
