"""Graph retrieval over a real LadybugDB store: question entities, depth, merging, widening, ranking."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from geo_assets.graph.extraction import extract_triples
from geo_rag_runtime import contract
from geo_rag_runtime.models import Chunk
from geo_rag_runtime.retrieval.graph import GraphRetriever, choose_depth, display_name, merge_facts
from geo_rag_runtime.stores.graph import Fact, LadybugGraphStore

# Sentences from the shared corpus (Zhu 2024, Keller 2019, Vermeesch 2021) plus one on Sr isotopes.
TEXT = (
    "Zircon U–Pb dating results indicate the Silurian age of the Mukhar formation. "
    "The felsic rocks have positive εNd(t) values (1.3–2.1). "
    "The low Th/Ce (0.05–0.06) indicate negligible crustal contamination during the evolution of the basalts. "
    "Hawaiian basalts are tholeiitic. "
    "This section applies the discordance filters to zircon U–Pb analyses that were acquired by SHRIMP. "
    "The 87Sr/86Sr ratios of the basalts indicate crustal contamination. "
    "Sr-87 is produced by the decay of Rb-87."
)


def _graph_of(folder: Path, text: str, paper: str = "p1") -> LadybugGraphStore:
    """A real graph store holding one chunk of ``text`` and the triples ingest extracts from it."""
    chunk = Chunk(
        chunk_id=contract.chunk_id(paper, 0, text),
        paper_id=paper,
        source_file=f"{paper}.pdf",
        ordinal=0,
        char_start=0,
        char_end=len(text),
        token_count=100,
        text=text,
    )
    s = LadybugGraphStore(folder / "graph.lbug", keep_open=True)
    s.load(
        {"paper_id": paper, "title": "t", "source_file": f"{paper}.pdf"}, [chunk], extract_triples([chunk])
    )
    return s


@pytest.fixture()
def store(tmp_path: Path) -> Iterator[LadybugGraphStore]:
    s = _graph_of(tmp_path, TEXT)
    yield s
    s.close()


@pytest.mark.parametrize(
    ("question", "category", "depth"),
    [
        ("What is the εNd of the felsic rocks?", None, 1),
        ("Why do basalts show crustal contamination?", None, 2),
        ("How does mineral composition affect element diffusion?", None, 2),
        ("What is the zircon age?", "implicit_reasoning", 2),
        ("Why is zircon dated?", "explicit_fact", 1),
        ("List the isotopes of Sr.", "hidden_rationale", 2),
    ],
)
def test_choose_depth(question: str, category: str | None, depth: int) -> None:
    assert choose_depth(question, category) == depth


def test_retrieve_facts_with_provenance(store: LadybugGraphStore) -> None:
    items = GraphRetriever(store).retrieve("Which zircons were dated by U-Pb?")
    texts = [i.text for i in items]
    assert texts[0] == "Zircon DATED_BY U–Pb"  # touches both question entities
    assert "U–Pb MEASURED_BY SHRIMP" in texts
    top = items[0]
    assert top.kind == "fact" and top.retriever == "graph" and top.paper_id == "p1"
    assert top.provenance and {"paper_id", "chunk_id", "sentence", "extractor", "confidence"} <= set(
        top.provenance[0]
    )
    assert "Zircon U–Pb dating" in top.provenance[0]["sentence"]
    assert [i.score for i in items] == sorted((i.score for i in items), reverse=True)


def test_depth_two_reaches_further(store: LadybugGraphStore) -> None:
    retriever = GraphRetriever(store, min_facts=0)
    one = {i.text for i in retriever.retrieve("basalts", depth=1)}
    two = {i.text for i in retriever.retrieve("basalts", depth=2)}
    assert one < two
    assert "87Sr/86Sr INDICATES Crustal contamination" in two - one


def test_scope_widens_when_little_is_found(store: LadybugGraphStore) -> None:
    narrow = GraphRetriever(store, min_facts=0).retrieve("Hawaii", depth=1)
    widened = GraphRetriever(store, min_facts=5).retrieve("Hawaii", depth=1)
    assert len(narrow) < 5 and len(widened) > len(narrow)


def test_no_entities_no_facts(store: LadybugGraphStore) -> None:
    assert GraphRetriever(store).retrieve("What is the meaning of life?") == []
    assert GraphRetriever(store, max_facts=2).retrieve("zircon U–Pb SHRIMP basalt", depth=2)[2:] == []


def test_merge_folds_duplicates_and_inverses() -> None:
    prov = [{"triple_id": "a", "confidence": 1.0}]
    facts = [
        Fact("87Sr", "Isotope", "ISOTOPE_OF", "Sr", "Element", list(prov)),
        Fact("Sr", "Element", "HAS_ISOTOPE", "87Sr", "Isotope", [{"triple_id": "b", "confidence": 0.8}]),
        Fact("87Sr", "Isotope", "ISOTOPE_OF", "Sr", "Element", list(prov)),
    ]
    merged = merge_facts(facts)
    assert len(merged) == 1 and merged[0].key == ("87Sr", "ISOTOPE_OF", "Sr")
    assert [p["triple_id"] for p in merged[0].provenance] == ["a", "b"]


def test_display_names() -> None:
    assert display_name("zircon") == "Zircon"
    assert display_name("87Sr/86Sr") == "87Sr/86Sr"
    assert display_name("εNd") == "εNd"
    assert display_name("MORB") == "MORB"


def test_vocabulary_truisms_never_reach_the_context(store: LadybugGraphStore) -> None:
    """The text's 87Sr/86Sr sentence puts "87Sr/86Sr RATIO_OF Sr" (and 87Sr ISOTOPE_OF Sr) in the
    graph: true whatever the paper says, so retrieval walks through them but never returns them;
    what the sentence says about the basalts stays."""
    assert {"RATIO_OF", "ISOTOPE_OF"} & {f.relation for f in store.subgraph(["87Sr/86Sr", "Sr"], 2, 200)}
    texts = [
        item.text for item in GraphRetriever(store).retrieve("What do the 87Sr/86Sr ratios of Sr indicate?")
    ]
    assert texts and not [t for t in texts if any(r in t for r in ("RATIO_OF", "ISOTOPE_OF", "OXIDE_OF"))]
    assert any("INDICATES" in t or "MEASURED_IN" in t for t in texts), texts


def test_facts_about_a_class_name_leave_the_context_unless_they_place_or_date_it(tmp_path: Path) -> None:
    """Sentences of the Vermeesch & Pease paper put "Magma BELONGS_TO Calc-alkaline" and "Magma FORMED_BY
    Partial melting" in the graph: definitions, whatever the paper adds. A class name tied to a place
    stays, and so does every fact about a particular rock."""
    text = (
        "Calc-alkaline magma forms under oxidising conditions. "
        "The magma formed by partial melting of the mantle. "
        "Tholeiitic basalts occur in Iceland. "
        "Igneous rocks from Iceland were analysed. "
        "Hawaiian basalts are tholeiitic."
    )
    store = _graph_of(tmp_path, text, "p2")
    try:
        in_graph = {(f.head, f.relation, f.tail) for f in store.subgraph(["magma", "calc-alkaline"], 2, 200)}
        assert ("magma", "BELONGS_TO", "calc-alkaline") in in_graph, in_graph
        texts = [
            item.text
            for item in GraphRetriever(store).retrieve(
                "Why do calc-alkaline magma and tholeiitic basalts differ?"
            )
        ]
    finally:
        store.close()
    assert texts
    assert not [t for t in texts if t.startswith("Magma ") and "OCCURS_IN" not in t], texts
    assert "Basalt BELONGS_TO Tholeiitic" in texts, texts
