"""Implicit reasoning → multi-query: rephrasings (LLM, or keyword form and vocabulary names) whose
dense hits join the shared dense + BM25 first stage in one reciprocal rank fusion
(docs/method.md#query-types-and-routes)."""

from __future__ import annotations

from geo_rag_runtime.errors import GeoRagError
from geo_rag_runtime.models import QueryType
from geo_rag_runtime.prompts import REPHRASE
from geo_rag_runtime.query.analysis import entity_alternatives, keyword_form
from geo_rag_runtime.query.question import Question
from geo_rag_runtime.query.strategies.base import Strategy, StrategyRun, candidates, llm_strings
from geo_rag_runtime.query.tools import RetrievalTools

__all__ = ["MultiQuery"]

_MAX_VARIANTS = 5
# a rephrasing's dense list counts half as much as the question's own lists: on the hand-written sets
# equal weights let the variants outvote the literal question (implicit reasoning, evidence recall@5:
# fused first stage 0.758 corpus / 0.801 dev; with rephrasings at half weight 0.771 / 0.819)
VARIANT_WEIGHT = 0.5


class MultiQuery(Strategy):
    """Implicit reasoning: rephrasings reach passages the literal wording misses; hits are unioned.

    Deterministic rephrasings keep the question's meaning (keyword form, vocabulary synonyms and
    canonical names). Graph neighbours are not rephrasings — they add other entities — so they feed
    the keyword expansion of the rationale strategy instead: as multi-query variants they pulled in
    passages about the neighbours and cost the implicit-reasoning questions of the evaluation set
    0.06 hit@5 and 0.06 MRR against the literal question (geochem_qa_v1, 18 questions).
    """

    name = "multi_query"
    category: QueryType = "implicit_reasoning"

    def rephrasings(self, question: Question, tools: RetrievalTools) -> tuple[list[str], str, list[str]]:
        """(variants without the question itself, how they were made, notes)."""
        notes: list[str] = []
        if (llm := tools.step_llm("rephrase")) is not None:
            try:
                variants = llm_strings(llm, REPHRASE, question.text, "rephrasings", 4)
                variants = [v for v in variants if v.casefold() != question.text.casefold()]
                if variants:
                    return variants, "llm", notes
                notes.append("LLM rephrasings repeated the question; used deterministic rephrasings")
            except GeoRagError as exc:
                notes.append(f"LLM rephrasing failed ({exc}); used deterministic rephrasings")
        variants, sources = [], []
        keywords = keyword_form(question.text)
        if keywords and keywords.casefold() != question.text.casefold():
            variants.append(keywords)
            sources.append("keywords")
        alternatives = entity_alternatives(question.text, question.entities, tools)
        if alternatives:
            rewritten = question.text
            for surface, names in alternatives.items():
                rewritten = rewritten.replace(surface, f"{surface} ({', '.join(names[:3])})", 1)
            variants.append(rewritten)
            # a second wording with the first alternative in place of each surface form
            swapped = question.text
            for surface, names in alternatives.items():
                swapped = swapped.replace(surface, names[0], 1)
            if swapped != question.text:
                variants.append(swapped)
            sources.append("vocabulary")
        unique = list(dict.fromkeys(v for v in variants if v.strip()))
        return unique[: _MAX_VARIANTS - 1], "+".join(sources) or "none", notes

    def retrieve(self, question: Question, tools: RetrievalTools, top_k: int) -> StrategyRun:
        variants, how, notes = self.rephrasings(question, tools)
        found = candidates(question, tools, top_k, notes)
        ranked = tools.dense_many(variants, len(found.dense) or top_k) if variants else []
        chunks = found.fused(top_k * 2, *((items, VARIANT_WEIGHT) for items in ranked))
        return StrategyRun(
            self.category,
            f"{self.name}(rephrasings={how})",
            chunks,
            notes,
            {"rephrasings": variants},
            [REPHRASE.id] if tools.step_llm("rephrase") is not None else [],
        )
