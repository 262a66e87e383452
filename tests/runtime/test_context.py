"""The merged context: typed items in marker order, deduplication, token budget, graph share,
citations, sentence relevance."""

from __future__ import annotations

import pytest

from geo_rag_runtime.models import (
    Answer,
    FactContext,
    Measurement,
    PassageContext,
    RetrievedItem,
    Statement,
    ValueContext,
)
from geo_rag_runtime.query.context import TokenCounter, build_context
from geo_rag_runtime.query.relevance import RelevanceScorer
from geo_rag_runtime.query.reported_values import value_facts
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


def test_typed_items_in_marker_order_with_their_metadata(counter: TokenCounter) -> None:
    graph_fact = fact("Magnetite CONTAINS Fe", sentence=MAGNETITE.strip()).model_copy(
        update={"statement": Statement(head="magnetite", head_type="MINERAL", relation="CONTAINS", tail="Fe")}
    )
    bundle = build_context([chunk(0, MAGNETITE), chunk(1, ZIRCON)], [graph_fact], counter, 3000)
    contexts = bundle.contexts()
    assert [(c.kind, c.marker) for c in contexts] == [("passage", "V0"), ("passage", "V1"), ("fact", "G0")]
    first = contexts[0]
    assert isinstance(first, PassageContext)
    assert first.text == MAGNETITE and first.chunk_id == "p1-c0000-abcdef12"
    assert (first.paper_id, first.source_file, first.title, first.section) == (
        "p1", "paper.pdf", "A paper", "Section 0"
    )  # fmt: skip
    assert first.score == 1.0 and first.retriever == "dense" and first.chunk_ids == ["p1-c0000-abcdef12"]
    facts = contexts[2]
    assert isinstance(facts, FactContext)
    assert (facts.head, facts.relation, facts.tail) == ("magnetite", "CONTAINS", "Fe")
    assert facts.sentence == MAGNETITE.strip() and facts.provenance[0].chunk_id == "p1-c0000-abcdef12"
    assert facts.provenance[0].source_file == "paper.pdf"
    # every marker resolves to the item of that marker, and the JSON reads back as the same items
    assert all(bundle.item(c.marker) is not None for c in contexts)
    answer = Answer(question="q", category="explicit_fact", strategy="s", answer="a", generator="g")
    answer.contexts = contexts
    assert Answer.model_validate_json(answer.model_dump_json()).contexts == contexts


class _Rows:
    """A measurement reader with one table row of the passages' paper."""

    ROW = Measurement(
        measurement_id="m1",
        paper_id="p1",
        source_file="paper.pdf",
        source_type="table",
        analyte="87Sr/86Sr",
        value=0.7035,
        unit="ratio",
        uncertainty=0.00002,
        uncertainty_level="2σ",
        sample="KIL-1",
        method="TIMS",
        page=4,
        section="Results",
        chunk_id="p1-c0000-abcdef12",
        table_label="Table 2",
        row="KIL-1",
        column="87Sr/86Sr",
        printed="0.70350 ± 0.00002",
    )

    def measurement_analytes(self) -> dict[str, int]:
        return {"87Sr/86Sr": 1}

    def find_measurements(self, **_: object) -> list[Measurement]:
        return [self.ROW]


def test_a_reported_value_is_a_typed_value_item(counter: TokenCounter) -> None:
    from geo_rag_runtime.query.question import prepare_question

    question = prepare_question("What 87Sr/86Sr values are reported for KIL-1?", 2000, None)
    passages = [chunk(0, MAGNETITE)]
    values = value_facts(question, passages, _Rows())
    bundle = build_context(passages, values, counter, 3000)
    value = bundle.contexts()[1]
    assert isinstance(value, ValueContext) and value.marker == "G0"
    assert (value.analyte, value.value, value.unit, value.uncertainty, value.sample) == (
        "87Sr/86Sr", 0.7035, "ratio", 0.00002, "KIL-1"
    )  # fmt: skip
    assert (
        value.printed == "0.70350 ± 0.00002" and value.source_type == "table" and value.section == "Results"
    )
    where = value.provenance[0]
    assert (where.measurement_id, where.page_start, where.table_label, where.row) == (
        "m1",
        4,
        "Table 2",
        "KIL-1",
    )
    assert value.text.startswith("87Sr/86Sr = 0.70350 ± 0.00002")


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


def _stitched(paper: str, text: str, bounds: list[tuple[int, int, float]], best: int) -> RetrievedItem:
    """A passage stitched from windows ``(start, end, score)`` of ``text``; ``best`` is its own window."""
    low, high = bounds[0][0], max(end for _, end, _ in bounds)
    return RetrievedItem(
        kind="chunk",
        text=text[low:high],
        score=1.0,
        retriever="fused",
        chunk_id=f"{paper}-{bounds[best][0]}",
        paper_id=paper,
        source_file=f"{paper}.pdf",
        provenance=[
            {"chunk_id": f"{paper}-{s}", "paper_id": paper, "char_start": s, "char_end": e, "score": sc}
            for s, e, sc in bounds
        ],
    )


def test_stitched_passages_give_back_weak_windows_before_a_passage_is_dropped(counter: TokenCounter) -> None:
    papers = [" ".join(f"Sample S{n}-{j} holds {j} ppm Sr." for j in range(400)) for n in range(5)]
    window = 1200  # characters; neighbouring windows overlap by 200
    three = [(i * 1000, i * 1000 + window, score) for i, score in enumerate((0.5, 0.9, 0.7))]
    passages = [_stitched(f"p{n}", papers[n], three, best=1) for n in range(4)]
    single = _stitched("p9", papers[4], three[:1], best=0)
    items = [*passages, single]
    full = sum(counter.count(item.text) for item in items)
    budget = full - counter.count(passages[0].text) // 2  # the five do not fit as they are
    bundle = build_context(items, [], counter, budget)
    assert [c.chunk_id for c in bundle.chunks] == [i.chunk_id for i in items]  # nothing dropped
    assert bundle.tokens_used <= budget and bundle.dropped_for_budget == 0
    # the lowest-ranked stitched passage gives first, its weaker end (score 0.5) before the other,
    # down to its own best window; the better-ranked passages stay whole
    assert [c.text for c in bundle.chunks[:3]] == [p.text for p in passages[:3]]
    assert bundle.chunks[3].text == papers[3][1000 : 1000 + window] and bundle.windows_trimmed == 2
    assert [e["chunk_id"] for e in bundle.chunks[3].provenance] == ["p3-1000"]


def test_unstitched_or_altered_passages_are_not_trimmed(counter: TokenCounter) -> None:
    from geo_rag_runtime.retrieval.fusion import drop_weakest_window, window_count

    paper = " ".join(f"Zircon Z{j} gives {j} Ma." for j in range(300))
    bounds = [(0, 900, 0.4), (700, 1600, 0.9)]
    stitched = _stitched("p1", paper, bounds, best=1)
    assert window_count(stitched) == 2
    shorter = drop_weakest_window(stitched)
    assert shorter is not None and shorter.text == paper[700:1600]
    assert [e["chunk_id"] for e in shorter.provenance] == ["p1-700"]
    assert drop_weakest_window(shorter) is None  # one window left: its own
    altered = stitched.model_copy(update={"text": "Results\n" + stitched.text})  # not a verbatim slice
    assert window_count(altered) == 1 and drop_weakest_window(altered) is None
    own_weakest = _stitched("p1", paper, [(0, 900, 0.1), (700, 1600, 0.9)], best=0)
    assert drop_weakest_window(own_weakest).text == paper[0:900]  # never its own window
