"""Every Cypher statement of the graph stores, for both dialects, in one place.

Values always travel as parameters. The only things placed into query text are (a) labels and
relationship types, which must come from the fixed vocabulary and are validated here first, and (b) the
path depth, a validated small int (Cypher accepts no parameter for variable-length bounds).

LadybugDB needs a declared schema: one ``Entity`` node table (``type`` property) and one ``FACT`` rel
table whose ``type`` property holds the relation. Neo4j gets ``:Entity:<Type>`` nodes and real
relationship types. The facts returned are the same. Notes measured on ladybug 0.22
(docs/architecture.md#measured-pitfalls): nodes are merged first and relationships then
``MATCH … MERGE``d, and the neighbourhood of the question's entities is walked one hop per query
(``LADYBUG_FACTS_AROUND``): a variable-length ``TRAIL`` query enumerates every trail and blew up
around hub entities.
"""

from __future__ import annotations

import re

from geo_rag_runtime.contract import CHUNK_LABEL, EXTRACTED_FROM, MENTIONS, PAPER_LABEL
from geo_rag_runtime.errors import InputError
from geo_rag_runtime.stores.graph.base import check_depth
from geo_rag_runtime.vocab import ENTITY_TYPES, RELATIONS

ENTITY_LABEL = "Entity"
LADYBUG_FACT_TABLE = "FACT"
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def entity_label(type_: str) -> str:
    """An entity type usable as a label: must be a vocabulary type (and a plain identifier)."""
    if type_ not in ENTITY_TYPES or not _IDENT.fullmatch(type_):
        raise InputError(f"not a vocabulary entity type: {type_!r}")
    return type_


def relation_type(relation: str) -> str:
    """A relation usable as a relationship type: must be in the relation vocabulary."""
    if relation not in RELATIONS or not _IDENT.fullmatch(relation):
        raise InputError(f"not a vocabulary relation: {relation!r}")
    return relation


def _fact_types() -> str:
    return "|".join(relation_type(r) for r in sorted(RELATIONS))


_FACT_COLUMNS = (
    "h.name AS head, h.type AS head_type, {rel_type} AS relation, t.name AS tail, t.type AS tail_type, "
    "r.triple_id AS triple_id, r.paper_id AS paper_id, r.chunk_id AS chunk_id, r.sentence AS sentence, "
    "r.extractor AS extractor, r.confidence AS confidence, "
    "CASE WHEN h.name IN $names OR t.name IN $names THEN 0 ELSE 1 END AS hop"
)
_FACT_ORDER = "ORDER BY hop, confidence DESC, triple_id LIMIT $limit"

# --- LadybugDB ---------------------------------------------------------------------------------------

LADYBUG_SCHEMA: tuple[str, ...] = (
    f"CREATE NODE TABLE IF NOT EXISTS {PAPER_LABEL}(paper_id STRING, title STRING, source_file STRING, "
    "PRIMARY KEY(paper_id))",
    f"CREATE NODE TABLE IF NOT EXISTS {CHUNK_LABEL}(chunk_id STRING, paper_id STRING, ordinal INT64, "
    "section STRING, PRIMARY KEY(chunk_id))",
    f"CREATE NODE TABLE IF NOT EXISTS {ENTITY_LABEL}(name STRING, type STRING, PRIMARY KEY(name))",
    f"CREATE REL TABLE IF NOT EXISTS {EXTRACTED_FROM}(FROM {CHUNK_LABEL} TO {PAPER_LABEL})",
    f"CREATE REL TABLE IF NOT EXISTS {MENTIONS}(FROM {CHUNK_LABEL} TO {ENTITY_LABEL}, paper_id STRING)",
    f"CREATE REL TABLE IF NOT EXISTS {LADYBUG_FACT_TABLE}(FROM {ENTITY_LABEL} TO {ENTITY_LABEL}, "
    "triple_id STRING, type STRING, paper_id STRING, chunk_id STRING, sentence STRING, extractor STRING, "
    "confidence DOUBLE, attributes STRING)",
)
LADYBUG_MERGE_PAPER = (
    f"MERGE (p:{PAPER_LABEL} {{paper_id: $paper_id}}) SET p.title = $title, p.source_file = $source_file"
)
LADYBUG_MERGE_CHUNKS = (
    f"UNWIND $rows AS row MERGE (c:{CHUNK_LABEL} {{chunk_id: row.chunk_id}}) "
    "SET c.paper_id = row.paper_id, c.ordinal = row.ordinal, c.section = row.section"
)
LADYBUG_MERGE_EXTRACTED_FROM = (
    f"UNWIND $rows AS row MATCH (c:{CHUNK_LABEL} {{chunk_id: row.chunk_id}}), "
    f"(p:{PAPER_LABEL} {{paper_id: row.paper_id}}) MERGE (c)-[:{EXTRACTED_FROM}]->(p)"
)
LADYBUG_MERGE_ENTITIES = (
    f"UNWIND $rows AS row MERGE (e:{ENTITY_LABEL} {{name: row.name}}) ON CREATE SET e.type = row.type"
)
LADYBUG_MERGE_MENTIONS = (
    f"UNWIND $rows AS row MATCH (c:{CHUNK_LABEL} {{chunk_id: row.chunk_id}}), "
    f"(e:{ENTITY_LABEL} {{name: row.name}}) MERGE (c)-[m:{MENTIONS}]->(e) SET m.paper_id = row.paper_id"
)
LADYBUG_MERGE_FACTS = (
    f"UNWIND $rows AS row MATCH (h:{ENTITY_LABEL} {{name: row.head}}), (t:{ENTITY_LABEL} {{name: row.tail}}) "
    f"MERGE (h)-[r:{LADYBUG_FACT_TABLE} {{triple_id: row.triple_id}}]->(t) "
    "SET r.type = row.relation, r.paper_id = row.paper_id, r.chunk_id = row.chunk_id, "
    "r.sentence = row.sentence, r.extractor = row.extractor, r.confidence = row.confidence, "
    "r.attributes = row.attributes"
)
LADYBUG_PAPER_ENTITY_NAMES = (
    f"MATCH (c:{CHUNK_LABEL})-[:{MENTIONS}]->(e:{ENTITY_LABEL}) WHERE c.paper_id = $paper_id "
    "RETURN DISTINCT e.name AS name"
)
LADYBUG_DELETE_FACTS = f"MATCH (:{ENTITY_LABEL})-[r:{LADYBUG_FACT_TABLE}]->(:{ENTITY_LABEL}) WHERE r.paper_id = $paper_id DELETE r"
LADYBUG_DELETE_CHUNKS = f"MATCH (c:{CHUNK_LABEL}) WHERE c.paper_id = $paper_id DETACH DELETE c"
LADYBUG_DELETE_PAPER = f"MATCH (p:{PAPER_LABEL}) WHERE p.paper_id = $paper_id DETACH DELETE p"
LADYBUG_DELETE_ORPHANS = (
    f"MATCH (e:{ENTITY_LABEL}) WHERE e.name IN $names "
    f"AND NOT EXISTS {{ MATCH (:{CHUNK_LABEL})-[:{MENTIONS}]->(e) }} DETACH DELETE e"
)
LADYBUG_COUNTS: dict[str, str] = {
    "papers": f"MATCH (n:{PAPER_LABEL}) RETURN count(n) AS n",
    "chunks": f"MATCH (n:{CHUNK_LABEL}) RETURN count(n) AS n",
    "entities": f"MATCH (n:{ENTITY_LABEL}) RETURN count(n) AS n",
    "facts": f"MATCH (:{ENTITY_LABEL})-[r:{LADYBUG_FACT_TABLE}]->(:{ENTITY_LABEL}) RETURN count(r) AS n",
    "mentions": f"MATCH (:{CHUNK_LABEL})-[r:{MENTIONS}]->(:{ENTITY_LABEL}) RETURN count(r) AS n",
    "extracted_from": f"MATCH (:{CHUNK_LABEL})-[r:{EXTRACTED_FROM}]->(:{PAPER_LABEL}) RETURN count(r) AS n",
}
LADYBUG_PAPER_COUNTS: dict[str, str] = {
    "chunks": f"MATCH (c:{CHUNK_LABEL}) WHERE c.paper_id = $paper_id RETURN count(c) AS n",
    "facts": f"MATCH (:{ENTITY_LABEL})-[r:{LADYBUG_FACT_TABLE}]->(:{ENTITY_LABEL}) WHERE r.paper_id = $paper_id "
    "RETURN count(r) AS n",
    "mentions": f"MATCH (:{CHUNK_LABEL})-[m:{MENTIONS}]->(:{ENTITY_LABEL}) WHERE m.paper_id = $paper_id "
    "RETURN count(m) AS n",
}


LADYBUG_FACTS_AROUND = (
    f"MATCH (a:{ENTITY_LABEL})-[r:{LADYBUG_FACT_TABLE}]-(b:{ENTITY_LABEL}) WHERE a.name IN $names "
    "RETURN DISTINCT r.triple_id AS triple_id, b.name AS name, b.type AS type"
)

LADYBUG_FACTS_BY_ID = (
    f"MATCH (h:{ENTITY_LABEL})-[r:{LADYBUG_FACT_TABLE}]->(t:{ENTITY_LABEL}) WHERE r.triple_id IN $ids "
    f"RETURN {_FACT_COLUMNS.format(rel_type='r.type')} {_FACT_ORDER}"
)

# --- Neo4j -------------------------------------------------------------------------------------------

NEO4J_SCHEMA: tuple[str, ...] = (
    f"CREATE CONSTRAINT georag_paper_id IF NOT EXISTS FOR (n:{PAPER_LABEL}) REQUIRE n.paper_id IS UNIQUE",
    f"CREATE CONSTRAINT georag_chunk_id IF NOT EXISTS FOR (n:{CHUNK_LABEL}) REQUIRE n.chunk_id IS UNIQUE",
    f"CREATE CONSTRAINT georag_entity_name IF NOT EXISTS FOR (n:{ENTITY_LABEL}) REQUIRE n.name IS UNIQUE",
    f"CREATE INDEX georag_chunk_paper IF NOT EXISTS FOR (n:{CHUNK_LABEL}) ON (n.paper_id)",
)


def neo4j_fact_index(relation: str) -> str:
    rel = relation_type(relation)
    return f"CREATE INDEX georag_fact_{rel.lower()} IF NOT EXISTS FOR ()-[r:{rel}]-() ON (r.triple_id)"


NEO4J_MERGE_PAPER = (
    f"MERGE (p:{PAPER_LABEL} {{paper_id: $paper_id}}) SET p.title = $title, p.source_file = $source_file"
)
NEO4J_MERGE_CHUNKS = (
    f"UNWIND $rows AS row MERGE (c:{CHUNK_LABEL} {{chunk_id: row.chunk_id}}) "
    "SET c.paper_id = row.paper_id, c.ordinal = row.ordinal, c.section = row.section "
    f"WITH c, row MATCH (p:{PAPER_LABEL} {{paper_id: row.paper_id}}) MERGE (c)-[:{EXTRACTED_FROM}]->(p)"
)


def neo4j_label_entities(type_: str) -> str:
    """Existing entities named in ``rows`` that lack the type label get it (``neo4j_merge_entities``
    runs right after, on the same rows).

    Split from the merge for ArcadeDB: its ``SET e:<Type>`` re-creates the record under a composite
    type, which on a node created earlier in the same transaction collides with that node's own
    ``Entity.name`` key (ConstraintValidationFailed); on a node committed before it works. Within a
    load no statement creates a node before this one meets it (a paper gives each name one type), and
    ``WHERE NOT`` keeps a reload from relabelling at all. On Neo4j it is the ``SET e:<Type>`` of the
    single ``MERGE … SET e:<Type>`` this pair replaces, for the nodes that already existed."""
    label = entity_label(type_)
    return (
        f"UNWIND $rows AS row MATCH (e:{ENTITY_LABEL} {{name: row.name}}) WHERE NOT e:{label} SET e:{label}"
    )


def neo4j_merge_entities(type_: str) -> str:
    """Entities of one type: ``:Entity`` (the unique name) plus the type as a second label.

    After ``neo4j_label_entities`` every existing node of a row's name has both labels, so the MERGE
    matches it (``type`` untouched: set once, on create) or creates the node with both labels at once.
    """
    label = entity_label(type_)
    return (
        f"UNWIND $rows AS row MERGE (e:{ENTITY_LABEL}:{label} {{name: row.name}}) "
        "ON CREATE SET e.type = row.type"
    )


NEO4J_MERGE_MENTIONS = (
    f"UNWIND $rows AS row MATCH (c:{CHUNK_LABEL} {{chunk_id: row.chunk_id}}) "
    f"MATCH (e:{ENTITY_LABEL} {{name: row.name}}) MERGE (c)-[m:{MENTIONS}]->(e) SET m.paper_id = row.paper_id"
)


def neo4j_merge_facts(relation: str) -> str:
    """Facts of one relation: one relationship per triple, keyed by triple_id."""
    rel = relation_type(relation)
    return (
        f"UNWIND $rows AS row MATCH (h:{ENTITY_LABEL} {{name: row.head}}) "
        f"MATCH (t:{ENTITY_LABEL} {{name: row.tail}}) "
        f"MERGE (h)-[r:{rel} {{triple_id: row.triple_id}}]->(t) "
        "SET r.paper_id = row.paper_id, r.chunk_id = row.chunk_id, r.sentence = row.sentence, "
        "r.extractor = row.extractor, r.confidence = row.confidence, r.attributes = row.attributes"
    )


NEO4J_PAPER_ENTITY_NAMES = (
    f"MATCH (c:{CHUNK_LABEL} {{paper_id: $paper_id}})-[:{MENTIONS}]->(e:{ENTITY_LABEL}) "
    "RETURN DISTINCT e.name AS name"
)
NEO4J_DELETE_FACTS = (
    f"MATCH (c:{CHUNK_LABEL} {{paper_id: $paper_id}})-[:{MENTIONS}]->(:{ENTITY_LABEL})-[r]-(:{ENTITY_LABEL}) "
    "WHERE r.paper_id = $paper_id WITH DISTINCT r DELETE r"
)
NEO4J_DELETE_CHUNKS = f"MATCH (c:{CHUNK_LABEL} {{paper_id: $paper_id}}) DETACH DELETE c"
NEO4J_DELETE_PAPER = f"MATCH (p:{PAPER_LABEL} {{paper_id: $paper_id}}) DETACH DELETE p"
NEO4J_DELETE_ORPHANS = (
    f"MATCH (e:{ENTITY_LABEL}) WHERE e.name IN $names "
    f"AND NOT EXISTS {{ MATCH (:{CHUNK_LABEL})-[:{MENTIONS}]->(e) }} DETACH DELETE e"
)


def _neo4j_fact_pattern() -> str:
    return f"(:{ENTITY_LABEL})-[r:{_fact_types()}]->(:{ENTITY_LABEL})"


def neo4j_counts() -> dict[str, str]:
    return {
        "papers": f"MATCH (n:{PAPER_LABEL}) RETURN count(n) AS n",
        "chunks": f"MATCH (n:{CHUNK_LABEL}) RETURN count(n) AS n",
        "entities": f"MATCH (n:{ENTITY_LABEL}) RETURN count(n) AS n",
        "facts": f"MATCH {_neo4j_fact_pattern()} RETURN count(r) AS n",
        "mentions": f"MATCH (:{CHUNK_LABEL})-[r:{MENTIONS}]->(:{ENTITY_LABEL}) RETURN count(r) AS n",
        "extracted_from": f"MATCH (:{CHUNK_LABEL})-[r:{EXTRACTED_FROM}]->(:{PAPER_LABEL}) RETURN count(r) AS n",
    }


def neo4j_paper_counts() -> dict[str, str]:
    return {
        "chunks": f"MATCH (c:{CHUNK_LABEL} {{paper_id: $paper_id}}) RETURN count(c) AS n",
        "facts": f"MATCH {_neo4j_fact_pattern()} WHERE r.paper_id = $paper_id RETURN count(r) AS n",
        "mentions": f"MATCH (:{CHUNK_LABEL})-[m:{MENTIONS}]->(:{ENTITY_LABEL}) WHERE m.paper_id = $paper_id "
        "RETURN count(m) AS n",
    }


NEO4J_HAS_APOC = "SHOW PROCEDURES YIELD name WHERE name = 'apoc.path.expandConfig' RETURN count(name) AS n"

_NEO4J_FACT_TAIL = (
    "UNWIND relationships(path) AS rel WITH DISTINCT rel "
    "WITH startNode(rel) AS h, rel AS r, endNode(rel) AS t "
    f"RETURN {_FACT_COLUMNS.format(rel_type='type(r)')} {_FACT_ORDER}"
)


def neo4j_subgraph_apoc() -> str:
    """APOC path expansion (relationship-path uniqueness = TRAIL) from each start entity.

    ``apoc.path.subgraphAll`` (the seed paper's query, docs/method.md#graph-retrieval) uses node-global
    uniqueness, which also returns relationships between two nodes of the last level and cannot stop at
    quantity nodes; ``expandConfig`` with RELATIONSHIP_PATH returns exactly the trails the embedded
    store returns.
    """
    return (
        f"MATCH (s:{ENTITY_LABEL}) WHERE s.name IN $names "
        "CALL apoc.path.expandConfig(s, {minLevel: 1, maxLevel: $depth, relationshipFilter: $rel_filter, "
        f"labelFilter: '+{ENTITY_LABEL}', uniqueness: 'RELATIONSHIP_PATH'}}) YIELD path "
        "WITH path WHERE all(n IN nodes(path)[1..-1] WHERE NOT n.type IN $leaf_types) " + _NEO4J_FACT_TAIL
    )


def neo4j_rel_filter() -> str:
    """APOC relationship filter: every fact relation, either direction."""
    return _fact_types()


def neo4j_subgraph_plain(depth: int) -> str:
    """The same trails as a variable-length pattern (Neo4j matches relationships at most once per path)."""
    d = check_depth(depth)
    return (
        f"MATCH (s:{ENTITY_LABEL}) WHERE s.name IN $names "
        f"MATCH path = (s)-[:{_fact_types()}*1..{d}]-(:{ENTITY_LABEL}) "
        "WHERE all(n IN nodes(path)[1..-1] WHERE NOT n.type IN $leaf_types) " + _NEO4J_FACT_TAIL
    )
