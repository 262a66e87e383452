"""The context dictionary: deduplication, token budget, graph share, citations, sentence relevance."""

from __future__ import annotations

import pytest

from geo_rag_runtime.models import RetrievedItem
from geo_rag_runtime.query.context import GRAPH_KEY, VECTOR_KEY, TokenCounter, build_context
from geo_rag_runtime.query.relevance import RelevanceScorer
from geo_rag_runtime.settings import Settings

MAGNETITE = (
    "Oxidising conditions in a parent magma promote the crystallisation of ferric iron-bearing "
    "magnetite, which removes Fe more efficiently, producing the calc-alkaline trend. "
)
ZIRCON = (
    "Zircon saturation in the magma precedes eruption, so the youngest zircon ages approach the "
    "eruption age while older grains record protracted crystallisation. "
)
MANTLE = (
    "A Devonian mantle plume assisted the opening of the Mongol-Okhotsk Ocean in the accretionary orogen. "
)


@pytest.fixture(scope="module")
def counter() -> TokenCounter:
    from geo_rag_runtime.text.tokenizer import get_token_counter

    return get_token_counter(Settings())


def chunk(i: int, text: str, score: float = 1.0) -> RetrievedItem:
    return RetrievedItem(
        kind="chunk",
        text=text,
        score=score,
        retriever="dense",
        chunk_id=f"p1-c{i:04d}-abcdef12",
        paper_id="p1",
        source_file="paper.pdf",
        title="A paper",
        section=f"Section {i}",
    )


def fact(text: str, chunk_id: str = "p1-c0000-abcdef12", sentence: str = "") -> RetrievedItem:
    return RetrievedItem(
        kind="fact",
        text=text,
        score=2.0,
        retriever="graph",
        provenance=[
            {"paper_id": "p1", "chunk_id": chunk_id, "sentence": sentence, "source_file": "paper.pdf"}
        ],
    )


def test_dictionary_shape_and_item_metadata(counter: TokenCounter) -> None:
    bundle = build_context(
        [chunk(0, MAGNETITE), chunk(1, ZIRCON)], [fact("Magnetite CONTAINS Fe")], counter, 3000
    )
    context = bundle.as_dict()
    assert set(context) == {VECTOR_KEY, GRAPH_KEY}
    assert list(context[VECTOR_KEY]) == ["0", "1"] and list(context[GRAPH_KEY]) == ["0"]
    first = context[VECTOR_KEY]["0"]
    assert first["text"] == MAGNETITE and first["chunk_id"] == "p1-c0000-abcdef12"
    assert {"paper_id", "source_file", "title", "section", "score"} <= set(first)
    assert context[GRAPH_KEY]["0"]["provenance"][0]["chunk_id"] == "p1-c0000-abcdef12"


def test_exact_and_near_duplicates_are_dropped(counter: TokenCounter) -> None:
    near = "  " + (MAGNETITE + ZIRCON).upper() + " Extra words at the end."
    items = [
        chunk(0, MAGNETITE + ZIRCON),
        chunk(1, (MAGNETITE + ZIRCON).replace(" ", "  ")),  # exact after whitespace folding
        chunk(2, near),  # contains the first almost entirely
        chunk(3, MANTLE),
        chunk(0, MAGNETITE + ZIRCON + MANTLE),  # same chunk id again
    ]
    facts = [fact("Magnetite CONTAINS Fe"), fact("magnetite contains fe"), fact("Magnetite CONTAINS Ti")]
    bundle = build_context(items, facts, counter, 3000)
    assert [c.chunk_id for c in bundle.chunks] == ["p1-c0000-abcdef12", "p1-c0003-abcdef12"]
    assert [f.text for f in bundle.facts] == ["Magnetite CONTAINS Fe", "Magnetite CONTAINS Ti"]
    assert bundle.dropped_duplicates == 4


def test_budget_drops_lowest_ranked_first_and_keeps_graph_share(counter: TokenCounter) -> None:
    items = [
        chunk(i, " ".join(f"Sample S{i}-{j} holds {7 * i + j} ppm of element E{i}." for j in range(40)))
        for i in range(6)
    ]
    per_chunk = counter.count(items[0].text)
    facts = [fact(f"Mineral{i} CONTAINS Element{i}") for i in range(200)]
    budget = per_chunk * 3 + 40
    bundle = build_context(items, facts, counter, budget)
    fact_tokens = sum(counter.count(f.text) for f in bundle.facts)
    chunk_tokens = sum(counter.count(c.text) for c in bundle.chunks)
    assert fact_tokens <= budget * 0.25 < fact_tokens + counter.count(facts[len(bundle.facts)].text)
    assert chunk_tokens + fact_tokens == bundle.tokens_used <= budget
    assert [c.chunk_id for c in bundle.chunks] == [items[0].chunk_id, items[1].chunk_id]
    assert [f.text for f in bundle.facts] == [f.text for f in facts[: len(bundle.facts)]]
    assert bundle.dropped_for_budget == (6 - len(bundle.chunks)) + (200 - len(bundle.facts))


def test_facts_may_use_the_whole_budget_without_passages(counter: TokenCounter) -> None:
    facts = [fact(f"Mineral{i} CONTAINS Element{i}") for i in range(20)]
    bundle = build_context([], facts, counter, 3000)
    assert len(bundle.facts) == 20 and not bundle.chunks


def test_an_oversized_best_chunk_is_shortened_at_a_sentence(counter: TokenCounter) -> None:
    big = chunk(0, (MAGNETITE + ZIRCON + MANTLE) * 20)
    bundle = build_context([big, chunk(1, MANTLE)], [], counter, 200)
    assert len(bundle.chunks) == 1 and bundle.truncated == 1
    text = bundle.chunks[0].text
    assert counter.count(text) <= 200 and text.endswith(".") and big.text.startswith(text)


def test_citations_follow_markers_and_fact_provenance(counter: TokenCounter) -> None:
    facts = [fact("Zircon INDICATES Eruption", chunk_id="p1-c0007-abcdef12")]
    bundle = build_context([chunk(0, MAGNETITE), chunk(1, ZIRCON)], facts, counter, 3000)
    cited = bundle.citations(["V1", "G0", "V1", "V9", "X0"])
    assert [c.chunk_id for c in cited] == ["p1-c0001-abcdef12", "p1-c0007-abcdef12"]
    assert cited[1].source_file == "paper.pdf"
    assert bundle.item("V9") is None and bundle.item("G0") is facts[0]


def test_invalid_budget_is_refused(counter: TokenCounter) -> None:
    with pytest.raises(ValueError, match="budget"):
        build_context([], [], counter, 0)
    with pytest.raises(ValueError, match="graph_share"):
        build_context([], [], counter, 10, graph_share=1.5)


def test_relevance_ranks_the_sentence_that_answers() -> None:
    from geo_rag_runtime.embeddings import get_embedder
    from geo_rag_runtime.vocab import recognize

    scorer = RelevanceScorer(get_embedder(Settings()), recognize)
    relevance = scorer.for_question(
        "How does magnetite crystallisation remove iron from calc-alkaline magmas?"
    )
    scores = relevance.score([MANTLE.strip(), MAGNETITE.strip(), ZIRCON.strip()])
    assert max(range(3), key=lambda i: scores[i].total) == 1
    assert scores[1].entities > 0 and scores[1].keywords > 0 and scores[1].cosine > scores[0].cosine
    # with a cap of one embedded sentence, the lexically best one is embedded, the others get cosine 0
    capped = relevance.score([MANTLE.strip(), MAGNETITE.strip(), ZIRCON.strip()], max_embedded=1)
    assert capped[1].cosine == pytest.approx(scores[1].cosine, abs=1e-5)
    assert capped[0].cosine == 0.0 and capped[2].cosine == 0.0
    hits = scorer.cache.hits
    relevance.score([MAGNETITE.strip()])
    assert scorer.cache.hits == hits + 1  # sentence vectors are cached
