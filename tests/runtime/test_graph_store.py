"""Graph stores: LadybugDB on disk with real extracted triples (count for count), Neo4j's Cypher and params."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from geo_assets.graph.extraction import extract_triples
from geo_rag_runtime import contract
from geo_rag_runtime.errors import InputError, StoreError
from geo_rag_runtime.models import Chunk, Triple
from geo_rag_runtime.settings import Settings
from geo_rag_runtime.stores.graph import LadybugGraphStore, Neo4jGraphStore, cypher, get_graph_store
from geo_rag_runtime.stores.graph.base import LEAF_TYPES, paper_rows
from geo_rag_runtime.vocab import ENTITY_TYPES, RELATIONS

HOSTILE = '"}) DETACH DELETE n //'


def pdf_chunks(path: Path, pages: slice, size: int = 2000) -> tuple[dict[str, str], list[Chunk]]:
    """Real text of the first pages of a sample paper, cut into fixed windows (no other pipeline needed)."""
    import pypdf

    reader = pypdf.PdfReader(path)
    text = " ".join((p.extract_text() or "") for p in reader.pages[pages])
    text = " ".join(text.replace("-\n", "").split())
    pid = contract.paper_id_from_sha256(contract.file_sha256(path))
    chunks = []
    for i, start in enumerate(range(0, len(text), size)):
        body = text[start : start + size]
        chunks.append(
            Chunk(
                chunk_id=contract.chunk_id(pid, i, body),
                paper_id=pid,
                source_file=path.name,
                ordinal=i,
                char_start=start,
                char_end=start + len(body),
                token_count=len(body.split()),
                text=body,
            )
        )
    return {"paper_id": pid, "title": path.stem, "source_file": path.name}, chunks


@pytest.fixture(scope="module")
def papers(sample_papers: Path) -> list[tuple[dict[str, str], list[Chunk], list[Triple]]]:
    out = []
    for name, pages in (
        ("Zhu2024_GRL_MongolOkhotskMantlePlume_CCBY.pdf", slice(2, 5)),
        ("Keller2018_GPL_ZirconEruptionAge_CCBY.pdf", slice(0, 2)),
    ):
        paper, chunks = pdf_chunks(sample_papers / name, pages)
        out.append((paper, chunks, extract_triples(chunks)))
    return out


def expected_counts(loaded: list[tuple[dict[str, str], list[Chunk], list[Triple]]]) -> dict[str, int]:
    triples = [t for _, _, ts in loaded for t in ts]
    chunks = [c for _, cs, _ in loaded for c in cs]
    names = {t.head for t in triples} | {t.tail for t in triples}
    mentions = {(t.chunk_id, n) for t in triples for n in (t.head, t.tail)}
    return {
        "papers": len(loaded),
        "chunks": len(chunks),
        "entities": len(names),
        "facts": len({t.triple_id for t in triples}),
        "mentions": len(mentions),
        "extracted_from": len(chunks),
    }


def test_load_reload_delete_count_for_count(tmp_path: Path, papers: list[Any]) -> None:
    (pa, ca, ta), (pb, cb, tb) = papers
    assert len(ta) > 50 and len(tb) >= 5
    names_a = {t.head for t in ta} | {t.tail for t in ta}
    names_b = {t.head for t in tb} | {t.tail for t in tb}
    shared = names_a & names_b
    assert "zircon" in shared

    store = LadybugGraphStore(tmp_path / "graph.lbug")
    store.ensure_schema()
    stats = store.load(pa, ca, ta)
    assert store.counts() == expected_counts([papers[0]])
    assert stats.facts == len({t.triple_id for t in ta}) and stats.chunks == len(ca)
    assert stats.nodes == 1 + len(ca) + len(names_a)
    assert stats.relationships == len(ca) + stats.mentions + stats.facts

    store.load(pb, cb, tb)
    both = expected_counts(papers)
    assert store.counts() == both

    again = store.load(pa, ca, ta)  # idempotent: same counts, same stats
    assert store.counts() == both and again == stats

    store.delete_paper(pa["paper_id"])
    assert store.counts() == expected_counts([papers[1]])
    left = {f.head for f in store.subgraph(sorted(names_b), 1, 10_000)} | {
        f.tail for f in store.subgraph(sorted(names_b), 1, 10_000)
    }
    assert "zircon" in left  # the shared entity survives for the other paper
    assert not (names_a - names_b) & left
    store.delete_paper(pb["paper_id"])
    assert set(store.counts().values()) == {0}
    store.close()


def reference_trails(triples: list[Triple], start: str, depth: int) -> set[str]:
    """Triple ids on undirected trails of <= depth facts from start, interior nodes not quantities."""
    rels = {t.triple_id: t for t in triples}
    kind = {n: ty for t in triples for n, ty in ((t.head, t.head_type), (t.tail, t.tail_type))}
    found: set[str] = set()

    def walk(node: str, used: frozenset[str], left: int) -> None:
        for tid, t in rels.items():
            if tid in used or node not in (t.head, t.tail):
                continue
            found.add(tid)
            nxt = t.tail if t.head == node else t.head
            if left > 1 and kind[nxt] not in LEAF_TYPES:
                walk(nxt, used | {tid}, left - 1)

    walk(start, frozenset(), depth)
    return found


def assert_subgraph_contract(store: Any, triples: list[Triple]) -> None:
    """What every graph backend's ``subgraph`` must do with the loaded ``triples`` (LadybugDB here,
    a Bolt server in tests/stores): the facts of the trails of ≤ depth hops, each with the provenance
    of the triples that state it, nearest first, within the limit, and a bounded depth."""
    by_id = {t.triple_id: t for t in triples}
    grew = []
    for start in ("zircon", "U–Pb", "Nd", "basalt", "εNd", "SiO2", "crustal contamination"):
        one = store.subgraph([start], 1, 10_000)
        two = store.subgraph([start], 2, 10_000)
        ids1 = {p["triple_id"] for f in one for p in f.provenance}
        ids2 = {p["triple_id"] for f in two for p in f.provenance}
        assert ids1 == reference_trails(triples, start, 1), start
        assert ids2 == reference_trails(triples, start, 2), start
        assert ids1 <= ids2 and all(start in (f.head, f.tail) for f in one)
        if ids1 < ids2:
            grew.append(start)
        for fact in two:  # every fact carries the provenance of the triples that state it
            for prov in fact.provenance:
                t = by_id[prov["triple_id"]]
                assert (fact.head, fact.relation, fact.tail) == (t.head, t.relation, t.tail)
                assert (prov["paper_id"], prov["chunk_id"], prov["sentence"]) == (
                    t.paper_id,
                    t.chunk_id,
                    t.sentence,
                )
                assert prov["extractor"] == t.extractor and prov["confidence"] == pytest.approx(t.confidence)
    assert grew  # depth 2 reaches past the first hop somewhere
    two = store.subgraph(["zircon", "εNd"], 2, 10_000)
    hops = [0 if {f.head, f.tail} & {"zircon", "εNd"} else 1 for f in two]
    assert hops == sorted(hops)  # nearest first, then by confidence
    assert len(store.subgraph(["zircon"], 2, 3)) <= 3
    assert store.subgraph(["no such entity"], 2, 10) == []
    assert store.subgraph(["zircon"], 2, 0) == []
    with pytest.raises(InputError):
        store.subgraph(["zircon"], 9, 10)


def test_subgraph_depths_match_reference(tmp_path: Path, papers: list[Any]) -> None:
    store = LadybugGraphStore(tmp_path / "graph.lbug", keep_open=True)
    for paper, chunks, triples in papers:
        store.load(paper, chunks, triples)
    assert_subgraph_contract(store, [t for _, _, ts in papers for t in ts])
    store.close()


def test_read_only_store_and_factory(tmp_path: Path, geo_home: Path, papers: list[Any]) -> None:
    settings = Settings(home=geo_home)
    with pytest.raises(StoreError):
        get_graph_store(settings, read_only=True)  # nothing ingested yet
    writer = get_graph_store(settings)
    assert isinstance(writer, LadybugGraphStore)
    paper, chunks, triples = papers[1]
    writer.load(paper, chunks, triples)
    reader = get_graph_store(settings, read_only=True)
    assert reader.counts() == writer.counts()
    with pytest.raises(StoreError):
        reader.load(paper, chunks, triples)
    neo = get_graph_store(Settings(neo4j_uri="bolt://localhost:7687", neo4j_password="x"))
    assert isinstance(neo, Neo4jGraphStore)
    neo.close()


def test_a_read_only_store_reuses_read_handles_until_a_write(
    tmp_path: Path, geo_home: Path, papers: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(home=geo_home)
    writer = get_graph_store(settings)
    paper, chunks, triples = papers[0]
    writer.load(paper, chunks, triples)
    reader = get_graph_store(settings, read_only=True)
    assert isinstance(reader, LadybugGraphStore)
    opened: list[int] = []
    connect = reader._connect

    def counting() -> tuple[Any, Any]:
        opened.append(1)
        return connect()

    monkeypatch.setattr(reader, "_connect", counting)
    first = reader.counts()
    assert reader.counts() == first and len(opened) == 1  # the idle handle answered the second read
    other_paper, other_chunks, other_triples = papers[1]
    writer.load(other_paper, other_chunks, other_triples)  # another store (as another process) writes
    assert reader.counts() == writer.counts() != first  # the write is seen: a fresh handle
    assert len(opened) == 2
    reader.close()
    writer.close()


def hostile_triple(chunk: Chunk) -> Triple:
    sentence = f"{HOSTILE} contains Hf."
    return Triple(
        triple_id=contract.triple_id(chunk.chunk_id, HOSTILE, "CONTAINS", "Hf", sentence),
        head=HOSTILE,
        head_type="Mineral",
        relation="CONTAINS",
        tail="Hf",
        tail_type="Element",
        paper_id=chunk.paper_id,
        chunk_id=chunk.chunk_id,
        sentence=sentence,
        extractor="test",
    )


def test_hostile_names_stay_parameters_in_ladybug(tmp_path: Path, papers: list[Any]) -> None:
    paper, chunks, triples = papers[1]
    store = LadybugGraphStore(tmp_path / "graph.lbug", keep_open=True)
    store.load(paper, chunks, [*triples, hostile_triple(chunks[0])])
    facts = store.subgraph([HOSTILE], 1, 10)
    assert [(f.head, f.relation, f.tail) for f in facts] == [(HOSTILE, "CONTAINS", "Hf")]
    assert store.counts()["papers"] == 1
    store.close()


def test_input_outside_the_vocabulary_is_refused(tmp_path: Path, papers: list[Any]) -> None:
    paper, chunks, triples = papers[1]
    store = LadybugGraphStore(tmp_path / "graph.lbug")
    bad_relation = triples[0].model_copy(update={"relation": "KNOWS]->() DETACH DELETE x //"})
    bad_type = triples[0].model_copy(update={"head_type": "Entity:Admin"})
    other_paper = triples[0].model_copy(update={"paper_id": "p-other"})
    for bad in (bad_relation, bad_type, other_paper):
        with pytest.raises(InputError):
            store.load(paper, chunks, [bad])
    for label in ("Mineral) DETACH DELETE (n", "Paper"):
        with pytest.raises(InputError):
            cypher.entity_label(label)
    with pytest.raises(InputError):
        cypher.relation_type("CONTAINS|MENTIONS")


# --- Neo4j: generated Cypher and parameters ---------------------------------------------------------


class FakeRecord:
    def __init__(self, data: dict[str, Any]):
        self._data = data

    def data(self) -> dict[str, Any]:
        return dict(self._data)


class FakeResult(list):
    def consume(self) -> None:
        return None


class FakeTx:
    def __init__(
        self, log: list[tuple[str, dict[str, Any]]], answer: Callable[[str, dict[str, Any]], list[dict]]
    ):
        self.log, self.answer = log, answer

    def run(self, query: str, parameters: dict[str, Any] | None = None, **kwargs: Any) -> FakeResult:
        params = dict(parameters or {}, **kwargs)
        self.log.append((query, params))
        return FakeResult(FakeRecord(r) for r in self.answer(query, params))


class FakeSession(FakeTx):
    def __enter__(self) -> FakeSession:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def execute_write(self, work: Callable[[FakeTx], Any]) -> Any:
        return work(FakeTx(self.log, self.answer))

    execute_read = execute_write


class FakeDriver:
    """Records every (query, parameters) the adapter sends; no server can run here."""

    def __init__(self, answer: Callable[[str, dict[str, Any]], list[dict]] = lambda q, p: []):
        self.log: list[tuple[str, dict[str, Any]]] = []
        self.answer = answer
        self.databases: list[str | None] = []
        self.closed = False

    def session(self, database: str | None = None) -> FakeSession:
        self.databases.append(database)
        return FakeSession(self.log, self.answer)

    def close(self) -> None:
        self.closed = True


def counting_answer(
    rows: Any, apoc: bool = False, off_by: int = 0
) -> Callable[[str, dict[str, Any]], list[dict]]:
    paper_counts = cypher.neo4j_paper_counts()
    expected = {
        paper_counts["chunks"]: len(rows.chunks),
        paper_counts["facts"]: len(rows.facts) + off_by,
        paper_counts["mentions"]: len(rows.mentions),
    }

    def answer(query: str, params: dict[str, Any]) -> list[dict]:
        if query == cypher.NEO4J_HAS_APOC:
            return [{"n": 1 if apoc else 0}]
        if query in expected:
            return [{"n": expected[query]}]
        return []

    return answer


def texts_and_params(driver: FakeDriver) -> tuple[str, str]:
    return "\n".join(q for q, _ in driver.log), repr([p for _, p in driver.log])


def test_neo4j_load_sends_parameterized_batches(papers: list[Any]) -> None:
    paper, chunks, triples = papers[0]
    triples = [*triples, hostile_triple(chunks[0])]
    rows = paper_rows(paper, chunks, triples)
    driver = FakeDriver(counting_answer(rows))
    store = Neo4jGraphStore("bolt://x", "neo4j", "pw", database="geo", driver=driver)
    stats = store.load(paper, chunks, triples)
    assert stats.facts == len(rows.facts) and set(driver.databases) == {"geo"}
    queries, params = texts_and_params(driver)
    assert HOSTILE not in queries and HOSTILE in params  # user text only ever travels as a parameter
    assert cypher.NEO4J_DELETE_FACTS in queries and cypher.NEO4J_MERGE_CHUNKS in queries
    for query, p in driver.log:
        if query.startswith("UNWIND $rows"):
            assert set(p) == {"rows"} and 0 < len(p["rows"]) <= 1000
    fact_statements = [q for q, _ in driver.log if "MERGE (h)-[r:" in q]
    assert {q.split("MERGE (h)-[r:")[1].split(" ")[0] for q in fact_statements} == {
        t.relation for t in triples
    }
    # per type: the label added to the entities that exist, then a MERGE on both labels, same rows
    entity_statements = [
        (q, p["rows"])
        for q, p in driver.log
        if q.startswith(("UNWIND $rows AS row MATCH (e:Entity", "UNWIND $rows AS row MERGE (e:Entity"))
    ]
    labels = [q.rsplit("SET e:", 1)[1] for q, _ in entity_statements[::2]]
    assert [q for q, _ in entity_statements] == [
        s for t in labels for s in (cypher.neo4j_label_entities(t), cypher.neo4j_merge_entities(t))
    ]
    assert set(labels) == {r["type"] for r in rows.entities} and set(labels) <= set(ENTITY_TYPES)
    assert [r for _, r in entity_statements[::2]] == [r for _, r in entity_statements[1::2]]
    assert all(r["type"] == t for t, (_, rs) in zip(labels, entity_statements[1::2], strict=True) for r in rs)
    sent = [r for q, p in driver.log if "MERGE (h)-[r:" in q for r in p["rows"]]
    assert sorted(r["triple_id"] for r in sent) == sorted(r["triple_id"] for r in rows.facts)


def test_neo4j_load_verifies_counts(papers: list[Any]) -> None:
    paper, chunks, triples = papers[1]
    driver = FakeDriver(counting_answer(paper_rows(paper, chunks, triples), off_by=-1))
    with pytest.raises(StoreError, match="incomplete"):
        Neo4jGraphStore("bolt://x", driver=driver).load(paper, chunks, triples)


def test_neo4j_schema_and_subgraph_queries() -> None:
    driver = FakeDriver()
    store = Neo4jGraphStore("bolt://x", driver=driver)
    store.ensure_schema()
    queries = [q for q, _ in driver.log]
    assert all("IF NOT EXISTS" in q for q in queries)
    assert any("REQUIRE n.name IS UNIQUE" in q for q in queries)
    assert sum("FOR ()-[r:" in q for q in queries) == len(RELATIONS)

    plain, params = store.subgraph_query([HOSTILE, "zircon"], 2, 50)
    assert "*1..2]" in plain and "apoc" not in plain and HOSTILE not in plain
    assert params == {"names": sorted([HOSTILE, "zircon"]), "limit": 50, "leaf_types": list(LEAF_TYPES)}

    apoc_store = Neo4jGraphStore(
        "bolt://x", driver=FakeDriver(lambda q, p: [{"n": 1}] if "SHOW" in q else [])
    )
    query, params = apoc_store.subgraph_query(["zircon"], 2, 50)
    assert "apoc.path.expandConfig" in query and "RELATIONSHIP_PATH" in query
    assert params["depth"] == 2 and set(params["rel_filter"].split("|")) == set(RELATIONS)
    with pytest.raises(InputError):
        store.subgraph_query(["zircon"], "2]-() DETACH DELETE n //", 5)  # type: ignore[arg-type]


def test_neo4j_subgraph_groups_rows_into_facts() -> None:
    row = {
        "head": "zircon",
        "head_type": "Mineral",
        "relation": "CONTAINS",
        "tail": "Hf",
        "tail_type": "Element",
        "paper_id": "p",
        "chunk_id": "c",
        "sentence": "s",
        "extractor": "rules-v1",
        "confidence": 0.8,
        "hop": 0,
    }
    rows = [dict(row, triple_id="t1"), dict(row, triple_id="t2", chunk_id="c2")]
    driver = FakeDriver(lambda q, p: rows if "MATCH (s:Entity)" in q else [])
    facts = Neo4jGraphStore("bolt://x", driver=driver).subgraph(["zircon"], 1, 10)
    assert len(facts) == 1 and [p["triple_id"] for p in facts[0].provenance] == ["t1", "t2"]


def test_shared_statements_agree_on_ladybug(tmp_path: Path, papers: list[Any]) -> None:
    """Where the dialects agree, the Neo4j statements run on ladybug and return what ladybug's own do."""
    store = LadybugGraphStore(tmp_path / "graph.lbug", keep_open=True)
    for paper, chunks, triples in papers:
        store.load(paper, chunks, triples)
    conn = store._open()
    pid = papers[0][0]["paper_id"]
    neo = sorted(r["name"] for r in store._rows(conn, cypher.NEO4J_PAPER_ENTITY_NAMES, {"paper_id": pid}))
    lady = sorted(r["name"] for r in store._rows(conn, cypher.LADYBUG_PAPER_ENTITY_NAMES, {"paper_id": pid}))
    assert neo == lady and neo
    counts = cypher.neo4j_counts()
    for key in ("papers", "chunks", "entities", "mentions", "extracted_from"):
        assert store._scalar(conn, counts[key]) == store.counts()[key], key
    assert cypher.NEO4J_DELETE_ORPHANS == cypher.LADYBUG_DELETE_ORPHANS
    store.close()
