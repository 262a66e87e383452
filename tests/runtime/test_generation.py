"""Answer generation: the LLM generator behind a mock endpoint, and the extractive generator."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from geo_rag_runtime.errors import ServiceError, ServiceUnavailableError
from geo_rag_runtime.llm import LLMClient
from geo_rag_runtime.models import RetrievedItem
from geo_rag_runtime.query.context import ContextBundle
from geo_rag_runtime.query.generation import (
    NOT_FOUND,
    ExtractiveGenerator,
    LLMGenerator,
    parse_markers,
    render_context,
)
from geo_rag_runtime.query.relevance import RelevanceScorer
from geo_rag_runtime.settings import Settings

# Passages restating the two sample papers (Vermeesch & Pease 2021; Keller et al. 2018).
IRON = (
    "The tholeiitic and calc-alkaline magma series differ in how iron behaves during differentiation. "
    "Oxidising conditions in a parent magma promote the crystallisation of ferric iron-bearing magnetite, "
    "which removes Fe efficiently and produces the calc-alkaline trend. "
    "In reduced magmas, Fe is removed slowly by Mg-rich ferrous minerals such as olivine and pyroxene. "
    "The data were compiled from a global database of igneous rocks."
)
IRON_AGAIN = (
    "Magnetite crystallisation removes Fe efficiently from oxidised magmas, producing the calc-alkaline trend. "
    "Arc magmas are more oxidised than those of mid-ocean ridges and Iceland. "
    "Tholeiitic magmas therefore show stronger iron enrichment than calc-alkaline magmas."
)
ZIRCON = (
    "Zircon crystallises over a protracted interval before eruption. "
    "The youngest zircon ages approach the eruption age, while older grains record earlier saturation. "
    "A Bayesian approach estimates the eruption age from the whole distribution of zircon dates."
)


def chunk(i: int, text: str) -> RetrievedItem:
    return RetrievedItem(
        kind="chunk",
        text=text,
        score=1.0 - i / 10,
        retriever="dense",
        chunk_id=f"p{i}-c0000-abcdef12",
        paper_id=f"p{i}",
        source_file=f"paper{i}.pdf",
        title=f"Paper {i}",
        section="Results",
    )


def bundle(*texts: str, facts: list[RetrievedItem] | None = None) -> ContextBundle:
    return ContextBundle(chunks=[chunk(i, t) for i, t in enumerate(texts)], facts=facts or [])


@pytest.fixture(scope="module")
def scorer() -> RelevanceScorer:
    from geo_rag_runtime.embeddings import get_embedder
    from geo_rag_runtime.vocab import recognize

    return RelevanceScorer(get_embedder(Settings()), recognize)


def llm(handler: Any) -> LLMClient:
    settings = Settings(
        llm_model="mock-llm", openai_base_url="http://llm.test/v1", llm_retries=0, llm_timeout_s=5
    )
    return LLMClient(settings, http_client=httpx.Client(transport=httpx.MockTransport(handler)))


def reply(content: str) -> Any:
    def handler(request: httpx.Request) -> httpx.Response:
        reply.last = json.loads(request.content)  # type: ignore[attr-defined]
        return httpx.Response(
            200,
            json={
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 0,
                "model": "mock-llm",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
            },
        )

    return handler


# --------------------------------------------------------------------------- markers


def test_markers_are_parsed_in_order_of_first_use() -> None:
    text = "Fe is removed [V1]. Magnetite grows [V0, G2][V1]. Not a marker: [X1], [v3], V4."
    assert parse_markers(text) == ["V1", "V0", "G2"]


def test_render_context_numbers_items() -> None:
    facts = [RetrievedItem(kind="fact", text="Magnetite CONTAINS Fe", retriever="graph")]
    rendered = render_context(bundle(IRON, ZIRCON, facts=facts))
    assert (
        rendered.index("[V0] (paper0.pdf, Results)")
        < rendered.index("[V1]")
        < rendered.index("[G0] Magnetite CONTAINS Fe")
    )


# --------------------------------------------------------------------------- LLM


def test_llm_answer_is_grounded_and_cited() -> None:
    generator = LLMGenerator(llm(reply("Magnetite removes Fe [V0][G0]; see also [V7].")))
    facts = [RetrievedItem(kind="fact", text="Magnetite CONTAINS Fe", retriever="graph")]
    result = generator.generate(
        "How does magnetite affect iron?", bundle(IRON, facts=facts), "implicit_reasoning"
    )
    assert result.generator == "mock-llm"
    assert result.markers == ["V0", "G0"]
    assert "[V7]" not in result.answer and result.answer.startswith("Magnetite removes Fe [V0][G0]")
    assert any("V7" in note for note in result.notes)
    sent = reply.last  # type: ignore[attr-defined]
    system, user = sent["messages"][0]["content"], sent["messages"][1]["content"]
    assert "Not found in the corpus." in system and "multi-hop" in system
    assert "[V0] (paper0.pdf, Results)" in user and "[G0] Magnetite CONTAINS Fe" in user
    assert sent["temperature"] == 0 and sent["seed"] == 7


def test_llm_not_found_reply_is_normalized() -> None:
    generator = LLMGenerator(llm(reply("not found in the corpus")))
    result = generator.generate("Who won in 2014?", bundle(IRON), "explicit_fact")
    assert result.answer == NOT_FOUND and result.markers == []


def test_llm_is_not_asked_without_context() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise AssertionError("the LLM must not be called")

    result = LLMGenerator(llm(refuse)).generate("Anything?", ContextBundle(), "explicit_fact")
    assert result.answer == NOT_FOUND


def test_llm_failures_raise_service_errors() -> None:
    def fail(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500, json={"error": {"message": "boom"}})

    def busy(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectTimeout("slow", request=request)

    with pytest.raises(ServiceError):
        LLMGenerator(llm(fail)).generate("q?", bundle(IRON), "explicit_fact")
    with pytest.raises(ServiceUnavailableError):
        LLMGenerator(llm(busy)).generate("q?", bundle(IRON), "explicit_fact")
    with pytest.raises(ServiceError, match="empty"):
        LLMGenerator(llm(reply("   "))).generate("q?", bundle(IRON), "explicit_fact")


# --------------------------------------------------------------------------- extractive


def test_extractive_answer_selects_cited_relevant_sentences(scorer: RelevanceScorer) -> None:
    generator = ExtractiveGenerator(scorer)
    result = generator.generate(
        "How does magnetite crystallisation remove iron from calc-alkaline magmas?",
        bundle(ZIRCON, IRON),
        "explicit_fact",
    )
    assert result.generator == "extractive"
    assert "magnetite" in result.answer.split("[")[0]  # the best sentence comes first
    assert "V1" in result.markers
    assert "global database" not in result.answer  # irrelevant sentences stay out
    assert len(result.answer.split()) <= 130
    sentences = [s for s in result.answer.split("]") if s.strip(" .[VG0123456789")]
    assert 1 <= len(sentences) <= 5
    for marker in result.markers:
        assert f"[{marker}]" in result.answer


def test_extractive_answer_drops_redundant_sentences(scorer: RelevanceScorer) -> None:
    repeated = IRON + " " + IRON.replace("The data were", "All data were")
    result = ExtractiveGenerator(scorer).generate(
        "How does magnetite remove Fe from magmas?", bundle(repeated, repeated + " Extra."), "explicit_fact"
    )
    body = result.answer.casefold()
    assert body.count("oxidising conditions in a parent magma") == 1


def test_multi_hop_prefers_sentences_from_different_passages(scorer: RelevanceScorer) -> None:
    question = "How does magnetite crystallisation relate to iron enrichment in calc-alkaline magmas?"
    context = bundle(IRON, IRON_AGAIN)
    multi = ExtractiveGenerator(scorer, max_sentences=2).generate(question, context, "implicit_reasoning")
    assert set(multi.markers) == {"V0", "V1"}


def test_fact_sentences_are_cited_with_their_passage(scorer: RelevanceScorer) -> None:
    sentence = (
        "Oxidising conditions in a parent magma promote the crystallisation of ferric iron-bearing magnetite, "
        "which removes Fe efficiently and produces the calc-alkaline trend."
    )
    facts = [
        RetrievedItem(
            kind="fact",
            text="Magnetite CONTAINS Fe",
            retriever="graph",
            provenance=[{"paper_id": "p0", "chunk_id": "p0-c0000-abcdef12", "sentence": sentence}],
        )
    ]
    result = ExtractiveGenerator(scorer).generate(
        "Why does magnetite remove Fe from oxidised magmas?", bundle(IRON, facts=facts), "hidden_rationale"
    )
    assert "[V0][G0]" in result.answer
    assert result.answer.count("Oxidising conditions") == 1


def test_irrelevant_or_empty_context_is_not_found(scorer: RelevanceScorer) -> None:
    generator = ExtractiveGenerator(scorer)
    empty = generator.generate("How old is zircon?", ContextBundle(), "explicit_fact")
    assert empty.answer == NOT_FOUND and empty.markers == []
    off_topic = generator.generate(
        "Who won the football world cup in 2014?", bundle(IRON, ZIRCON), "explicit_fact"
    )
    assert off_topic.answer == NOT_FOUND and off_topic.markers == []
    assert any("best relevance" in note for note in off_topic.notes)


def test_headings_references_and_captions_are_no_answer_sentences(scorer: RelevanceScorer) -> None:
    text = (
        "2 The inverse Re–Os isochron\n\n"
        "(2018) A stochastic sampling approach to zircon eruption age interpretation. "
        "Figure 3: Bayesian eruption age estimates for two zircon populations. "
        "Inverse isochrons avoid the strong error correlations of conventional Re–Os isochrons."
    )
    sentences = [c.text for c in ExtractiveGenerator(scorer).candidates(bundle(text))]
    assert sentences == [
        "Inverse isochrons avoid the strong error correlations of conventional Re–Os isochrons."
    ]


def test_sentences_that_introduce_a_missing_equation_are_not_quoted() -> None:
    from geo_rag_runtime.query.generation import is_prose

    lead_in = "The decision boundary between the two magma series can be defined as the halfway line between these trends:"
    assert not is_prose(lead_in)
    assert is_prose(lead_in[:-1] + ".")


def test_half_sentences_are_not_quoted() -> None:
    """A sentence cut by a layout break or a chunk's end is no answer, however long the half is."""
    from geo_rag_runtime.query.generation import is_prose

    half = "The concept of the ‘magma series’ and the distinction between alkaline, calc-alkaline"
    assert not is_prose(half)
    assert is_prose(half + " and tholeiitic trends has been a cornerstone in igneous petrology.")
    assert is_prose("Ages cluster at 410 ± 4 Ma (n = 15).")  # closing brackets and quotes are fine
    assert is_prose("The ratio is called the “Bowen-Fenner Index.”")


def test_a_grounded_none_answers_verdict_gives_the_quoted_answer(scorer: RelevanceScorer) -> None:
    """An OpenAI-shaped endpoint whose model says no listed sentence answers: the context names what
    is asked, so the quoted answer stands in (the local model's "none" was wrong far more often than
    right) and the notes say why."""
    from geo_rag_runtime.query.grounded import GroundedGenerator

    model = llm(reply(json.dumps({"answerable": False, "evidence": []})))
    result = GroundedGenerator(model, scorer).generate(
        "How does magnetite affect iron?", bundle(IRON), "implicit_reasoning"
    )
    assert result.generator == "extractive" and result.markers and "[V0]" in result.answer
    assert result.notes[0].startswith("the model found no evidence sentence that answers the question")


def test_a_grounded_answer_nothing_supports_gives_the_quoted_answer(scorer: RelevanceScorer) -> None:
    """The model picks a sentence, then writes a number no evidence gives (the local model's usual
    slip on value questions): its sentence is dropped and the extractive answer stands in, named as
    such, instead of the sentences the model chose."""
    from geo_rag_runtime.query.grounded import GroundedGenerator

    replies = [
        reply(json.dumps({"answerable": True, "evidence": [3]})),
        reply("Magnetite crystallisation removes 97 % of the iron from tholeiitic magmas."),
    ]
    model = llm(lambda request: replies.pop(0)(request))
    question = "How does magnetite affect iron in calc-alkaline magmas?"
    result = GroundedGenerator(model, scorer).generate(question, bundle(IRON), "implicit_reasoning")
    quoted = ExtractiveGenerator(scorer).generate(question, bundle(IRON), "implicit_reasoning")
    assert not replies, "both steps asked the model"
    assert result.generator == "extractive" and result.answer == quoted.answer
    assert "97" not in result.answer and "[V0]" in result.answer
    assert any(n.startswith("unsupported") and "97 %" in n for n in result.notes)
    assert "no sentence of the model's answer was supported: answered extractively" in result.notes


def test_the_answer_does_not_open_with_a_sentence_that_leans_on_another() -> None:
    """Only the order changes: the best sentence that stands on its own goes first."""
    from geo_rag_runtime.query.generation import Candidate, opening_first

    def candidate(text: str, rank: float) -> Candidate:
        return Candidate("V0", 0, 0, text, score=rank, rank=rank)

    leaning = candidate("However despite this shortcoming, the model separates the two magma series.", 0.9)
    also = candidate("It also serves as a building block for the two stage model.", 0.8)
    standing = candidate("Tholeiitic and calc-alkaline magmas differ in their oxygen fugacity.", 0.7)
    last = candidate("The Fenner trend characterises the tholeiitic suite.", 0.6)
    assert opening_first([leaning, also, standing, last]) == [standing, leaning, also, last]
    assert opening_first([standing, leaning]) == [standing, leaning]
    assert opening_first([leaning, also]) == [leaning, also]  # nothing stands alone: rank order
    assert opening_first([]) == []
    here = candidate("Here we date zircon from the Bishop Tuff by CA-ID-TIMS.", 0.9)
    assert opening_first([here, standing]) == [here, standing]  # "Here we …" opens a statement
    segment = candidate("The first of these segments has a steeper slope than the calc-alkaline series.", 0.9)
    assert opening_first([segment, standing]) == [standing, segment]
    # a leaning sentence follows its antecedent (the sentence before it in the same passage)
    base = Candidate(
        "V1", 1, 4, "The one stage model describes iron depletion in the melt.", score=0.5, rank=0.5
    )
    follow = Candidate(
        "V1", 1, 5, "It also serves as a building block for the two stage model.", score=0.8, rank=0.8
    )
    assert opening_first([standing, follow, last, base]) == [standing, last, base, follow]
