"""The graph store interface: papers, chunks, entities and facts, with provenance back to the text.

Both adapters (LadybugDB embedded, Neo4j server) store the same model and return the same ``Fact``s:

    (Chunk)-[:EXTRACTED_FROM]->(Paper)      every chunk of a paper
    (Chunk)-[:MENTIONS]->(Entity)           every entity a triple of that chunk names
    (Entity)-[fact]->(Entity)               one relationship per triple: type = relation, properties =
                                            triple_id, paper_id, chunk_id, sentence, extractor, confidence

Entity ``name`` is unique (canonical names are unique across types, see the vocabulary), so the same
mineral found in two papers is one node, and deleting one paper leaves it to the other.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from geo_rag_runtime import contract
from geo_rag_runtime.errors import InputError
from geo_rag_runtime.models import Chunk, Triple
from geo_rag_runtime.vocab import ENTITY_TYPES, QUANTITY_TYPES, RELATIONS

PROVENANCE_KEYS = ("triple_id", "paper_id", "chunk_id", "sentence", "extractor", "confidence")
LEAF_TYPES: tuple[str, ...] = QUANTITY_TYPES
"""Entity types a subgraph expansion never walks through: one "2 GPa" node would join unrelated facts."""
MAX_DEPTH = 4


@dataclass
class Fact:
    """One (head, relation, tail) with every triple that states it."""

    head: str
    head_type: str
    relation: str
    tail: str
    tail_type: str
    provenance: list[dict[str, Any]] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.head, self.relation, self.tail)

    @property
    def confidence(self) -> float:
        return max((float(p.get("confidence") or 0.0) for p in self.provenance), default=0.0)


@dataclass(frozen=True)
class LoadStats:
    """What one ``load`` wrote for the paper (checked against the store): nodes = paper + chunks + the
    distinct entities its triples name; relationships = EXTRACTED_FROM + MENTIONS + facts."""

    nodes: int
    relationships: int
    entities: int
    facts: int
    mentions: int
    chunks: int


def facts_from_rows(rows: Iterable[Mapping[str, Any]]) -> list[Fact]:
    """Group relationship rows (one per triple) into facts, keeping the rows' order."""
    facts: dict[tuple[str, str, str], Fact] = {}
    for row in rows:
        key = (row["head"], row["relation"], row["tail"])
        fact = facts.get(key)
        if fact is None:
            fact = facts[key] = Fact(
                row["head"], row["head_type"], row["relation"], row["tail"], row["tail_type"]
            )
        fact.provenance.append({k: row.get(k) for k in PROVENANCE_KEYS})
    return list(facts.values())


@dataclass
class PaperRows:
    """A paper, its chunks and triples as the parameter rows the Cypher statements expect."""

    paper: dict[str, Any]
    chunks: list[dict[str, Any]]
    entities: list[dict[str, Any]]
    mentions: list[dict[str, Any]]
    facts: list[dict[str, Any]]


def paper_rows(
    paper: Mapping[str, Any] | Any, chunks: Sequence[Chunk], triples: Sequence[Triple]
) -> PaperRows:
    """Validate the input and turn it into rows; refuses types/relations outside the vocabulary."""
    get = paper.get if isinstance(paper, Mapping) else (lambda k, d=None: getattr(paper, k, d))
    paper_id = str(get("paper_id") or "")
    if not paper_id:
        raise InputError("paper has no paper_id")
    chunk_ids = {c.chunk_id for c in chunks}
    if any(c.paper_id != paper_id for c in chunks):
        raise InputError(f"a chunk given with paper {paper_id} belongs to another paper")
    entities: dict[str, str] = {}
    mentions: dict[tuple[str, str], None] = {}
    facts: dict[str, dict[str, Any]] = {}
    for t in triples:
        if t.paper_id != paper_id or t.chunk_id not in chunk_ids:
            raise InputError(f"triple {t.triple_id} does not belong to a given chunk of paper {paper_id}")
        if t.relation not in RELATIONS:
            raise InputError(f"triple {t.triple_id}: unknown relation {t.relation!r}")
        for name, type_ in ((t.head, t.head_type), (t.tail, t.tail_type)):
            if type_ not in ENTITY_TYPES:
                raise InputError(f"triple {t.triple_id}: unknown entity type {type_!r}")
            entities.setdefault(name, type_)
            mentions.setdefault((t.chunk_id, name), None)
        facts.setdefault(
            t.triple_id,
            {
                "triple_id": t.triple_id,
                "head": t.head,
                "tail": t.tail,
                "relation": t.relation,
                "paper_id": t.paper_id,
                "chunk_id": t.chunk_id,
                "sentence": t.sentence,
                "extractor": t.extractor,
                "confidence": float(t.confidence),
                "attributes": json.dumps(t.attributes, sort_keys=True),
            },
        )
    return PaperRows(
        paper={
            "paper_id": paper_id,
            "title": str(get("title") or ""),
            "source_file": str(get("source_file") or ""),
        },
        chunks=[
            {"chunk_id": c.chunk_id, "paper_id": paper_id, "ordinal": int(c.ordinal), "section": c.section}
            for c in chunks
        ],
        entities=[{"name": n, "type": ty} for n, ty in entities.items()],
        mentions=[{"chunk_id": c, "name": n, "paper_id": paper_id} for c, n in mentions],
        facts=list(facts.values()),
    )


def check_depth(depth: int) -> int:
    """Depth goes into query text (Cypher takes no parameter for path lengths): only a small int passes."""
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise InputError(f"depth must be an int between 1 and {MAX_DEPTH}, got {depth!r}")
    return depth


class GraphStore(ABC):
    """A knowledge graph of papers: load, delete, expand subgraphs around entities, count."""

    paper_label = contract.PAPER_LABEL
    chunk_label = contract.CHUNK_LABEL

    @abstractmethod
    def ensure_schema(self) -> None:
        """Create tables / constraints / indexes if missing (idempotent)."""

    @abstractmethod
    def load(
        self, paper: Mapping[str, Any] | Any, chunks: Sequence[Chunk], triples: Sequence[Triple]
    ) -> LoadStats:
        """Replace everything of this paper by the given chunks and triples; counts are verified."""

    @abstractmethod
    def delete_paper(self, paper_id: str) -> None:
        """Remove the paper, its chunks, its facts and the entities no other paper mentions."""

    @abstractmethod
    def subgraph(self, entity_names: Sequence[str], depth: int, limit: int) -> list[Fact]:
        """Facts within ``depth`` hops of the named entities (direction ignored), nearest and surest first.

        ``limit`` bounds the triples read; quantity nodes (Measurement, Age) end a path, never join two.
        """

    @abstractmethod
    def counts(self) -> dict[str, int]:
        """papers, chunks, entities, facts, mentions, extracted_from."""

    @abstractmethod
    def paper_counts(self, paper_id: str) -> dict[str, int]:
        """chunks, facts and mentions stored for one paper (what ``load`` verifies)."""

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> GraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
