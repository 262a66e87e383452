"""Query-type routing (PAPER.md §6): one retrieval strategy per query type.

=========================  ===================================  ====================================
query type                 strategy                             what runs
=========================  ===================================  ====================================
explicit_fact              ``dense_similarity``                 dense top-k similarity search
implicit_reasoning         ``multi_query``                      several rephrasings, union of their
                                                                dense hits (RRF), multi-hop answer
interpretable_rationale    ``keyword_expansion+compression``    expanded query (dense + BM25), then
                                                                contextual compression of passages
hidden_rationale           ``hybrid_sparse_dense``              BM25 + dense fused by RRF, then a
                                                                choice among sources (dense, sparse,
                                                                graph facts)
=========================  ===================================  ====================================

The paper lets an LLM write the rephrasings and expansions, compress passages and pick sources. With
an LLM configured these steps ask it for JSON, validate it, and fall back on any failure; without one
they run deterministic equivalents that are real code, named in the strategy label:

* rephrasings/expansions from the vocabulary (canonical names and synonyms of the question's entities,
  e.g. "Sr" ↔ "strontium", plus the isotope ratio an "X isotopes" phrase means: "Sr isotopes" ↔
  "87Sr/86Sr"), from the graph (entities one hop from the question's entities), and a keyword form of
  the question with question words and stop words removed;
* compression by sentence relevance (:class:`~geo_rag_runtime.context.RelevanceScorer`);
* source choice by agreement: chunks found by both retrievers first, single-retriever chunks only
  when strong, graph facts only when their entities occur in the question or in a kept passage.

Each strategy has two steps so the service can time them separately: ``retrieve`` (stage "vector")
and ``refine`` (stage "fusion": compression and source choice need the graph facts).
"""

from __future__ import annotations

import re
import threading
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from geo_rag_runtime.context import RelevanceScorer
from geo_rag_runtime.errors import GeoRagError, ServiceError
from geo_rag_runtime.models import QUERY_TYPES, QueryType, RetrievedItem
from geo_rag_runtime.settings import Settings

__all__ = [
    "RetrievalTools",
    "StrategyRun",
    "Strategy",
    "DenseSimilarity",
    "MultiQuery",
    "KeywordExpansionCompression",
    "HybridSparseDense",
    "STRATEGIES",
    "strategy_for",
    "keyword_form",
    "entity_alternatives",
    "graph_neighbours",
    "compress_passages",
]

# Isotope systems a question names as "<element> isotopes": the ratio that phrase means in papers.
ISOTOPE_SYSTEM_RATIOS: dict[str, tuple[str, ...]] = {
    "Sr": ("87Sr/86Sr",),
    "Nd": ("143Nd/144Nd", "εNd"),
    "Hf": ("176Hf/177Hf", "εHf"),
    "Pb": ("206Pb/204Pb", "207Pb/204Pb", "208Pb/204Pb"),
    "Os": ("187Os/188Os",),
    "O": ("δ18O",),
    "H": ("δD",),
    "C": ("δ13C",),
    "S": ("δ34S",),
    "Li": ("δ7Li",),
    "B": ("δ11B",),
    "Mg": ("δ26Mg",),
    "Fe": ("δ56Fe",),
    "U": ("238U/235U", "234U/238U"),
    "Ar": ("40Ar/39Ar",),
    "He": ("3He/4He",),
    "Ca": ("40Ca/44Ca", "δ44Ca"),
    "Re": ("187Re/188Os",),
}
_ISOTOPE_WORD = re.compile(r"\bisotop", re.IGNORECASE)
_QUESTION_WORDS = frozenset(
    # a word list reads best as text
    """what which who whom whose when where why how does do did is are was were can could should
    would will shall may might explain describe tell give list name please""".split()  # noqa: SIM905
)
_WORD = re.compile(r"[^\s,;:?!()\[\]{}\"“”‘’]+")
_MAX_VARIANTS = 5
_MAX_LLM_TEXT = 400
COMPRESSION_THRESHOLD = 0.35  # sentence relevance kept by embedding compression (see RelevanceScorer)
DENSE_FLOOR = 0.25  # cosine below which a dense-only hit is not chosen by the hybrid source choice
TOP_SPARSE_RANKS = 2  # a sparse-only hit is chosen when it ranks among BM25's best two


@dataclass
class RetrievalTools:
    """Everything a strategy may use; the service builds it once (stores opened read-only)."""

    settings: Settings
    embedder: Any
    vectors: Any  # ChromaVectorStore (or a thread-safe proxy of it)
    scorer: RelevanceScorer
    sparse: Any | None = None  # SparseIndex
    graph: Any | None = None  # graph store (subgraph for neighbours)
    vocabulary: Any | None = None
    recognize: Callable[[str], Sequence[Any]] | None = None
    llm: Any | None = None  # LLMClient

    def dense(self, question: str, top_k: int) -> list[RetrievedItem]:
        """VectorRetriever top-k; the question's vector comes from (and stays in) the shared cache."""
        from geo_rag_runtime.retrieval.vector import VectorRetriever

        retriever = VectorRetriever(
            self.vectors,
            self.scorer.query_embedder,
            top_k=top_k,
            max_question_chars=self.settings.max_question_chars,
        )
        return retriever.retrieve(question)

    def dense_many(self, questions: Sequence[str], top_k: int) -> list[list[RetrievedItem]]:
        """Dense hits of several questions, their vectors computed in one batch."""
        from geo_rag_runtime.retrieval.vector import preprocess_query

        prepared = [preprocess_query(q, self.settings.max_question_chars) for q in questions]
        self.scorer.cache.embed(prepared)
        return [self.dense(q, top_k) for q in prepared]

    def keyword(self, question: str, top_k: int) -> list[RetrievedItem]:
        from geo_rag_runtime.retrieval.keyword import KeywordRetriever

        if self.sparse is None:
            return []
        retriever = KeywordRetriever(
            self.sparse, top_k=top_k, max_question_chars=self.settings.max_question_chars
        )
        return retriever.retrieve(question)


@dataclass
class StrategyRun:
    """What a strategy retrieved and how; ``label`` becomes ``Answer.strategy``."""

    category: QueryType
    label: str
    chunks: list[RetrievedItem]
    notes: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)  # rephrasings, expansion terms, sources


# --------------------------------------------------------------------------- query analysis


def keyword_form(question: str) -> str:
    """The question without question words and stop words, notation kept as written."""
    from geo_rag_runtime.text.normalize import STOP_WORDS

    kept = []
    for match in _WORD.finditer(question):
        word = match.group().strip(".'\"")
        if not word:
            continue
        low = word.casefold()
        if low in _QUESTION_WORDS or low in STOP_WORDS:
            continue
        kept.append(word)
    return " ".join(kept)


_FORMS: dict[int, dict[str, list[str]]] = {}
_FORMS_LOCK = threading.Lock()


def _forms_by_canonical(vocabulary: Any) -> dict[str, list[str]]:
    """Every surface form per canonical name (built once per vocabulary object)."""
    with _FORMS_LOCK:
        cached = _FORMS.get(id(vocabulary))
        if cached is None:
            cached = {}
            for term in vocabulary.terms():
                bucket = cached.setdefault(term.canonical, [])
                if term.form not in bucket:
                    bucket.append(term.form)
            _FORMS[id(vocabulary)] = cached
        return cached


def entity_alternatives(question: str, tools: RetrievalTools) -> tuple[list[Any], dict[str, list[str]]]:
    """The question's entities and, per surface form, other names the corpus may use for them."""
    if tools.recognize is None:
        return [], {}
    entities = list(tools.recognize(question))
    forms = _forms_by_canonical(tools.vocabulary) if tools.vocabulary is not None else {}
    out: dict[str, list[str]] = {}
    for entity in entities:
        surface = str(entity.surface)
        names = [str(entity.name)] + [f for f in forms.get(str(entity.name), []) if len(f) > 1]
        if entity.type == "Element" and _ISOTOPE_WORD.search(question):
            names += list(ISOTOPE_SYSTEM_RATIOS.get(str(entity.name), ()))
        seen = {surface.casefold()}
        alternatives = []
        for name in names:
            if name.casefold() not in seen:
                seen.add(name.casefold())
                alternatives.append(name)
        if alternatives:
            out[surface] = alternatives[:4]
    return entities, out


def graph_neighbours(entity_names: Sequence[str], tools: RetrievalTools, limit: int = 6) -> list[str]:
    """Entities one hop from the question's entities in the graph, most connected first."""
    if tools.graph is None or not entity_names:
        return []
    facts = tools.graph.subgraph(list(entity_names), 1, 50)
    asked = {name.casefold() for name in entity_names}
    counts: Counter[str] = Counter()
    for fact in facts:
        for name in _fact_entities(fact):
            if name.casefold() not in asked:
                counts[name] += 1
    return [name for name, _ in counts.most_common(limit)]


def _fact_entities(fact: Any) -> list[str]:
    """Head and tail names of a graph fact: a store ``Fact`` or a retrieved fact item."""
    if isinstance(fact, RetrievedItem):
        from geo_rag_runtime.vocab import RELATIONS

        words = fact.text.split(" ")
        for i, word in enumerate(words[1:-1], start=1):  # "<head> RELATION <tail>" (GraphRetriever)
            if word in RELATIONS:
                return [" ".join(words[:i]), " ".join(words[i + 1 :])]
        return []
    names = [getattr(fact, key, None) for key in ("head", "tail")]
    return [str(name) for name in names if name]


def _named_entities(texts: Sequence[str], tools: RetrievalTools) -> set[str]:
    """Canonical names (case folded) of the entities the texts mention.

    With the recognizer, "iron" and "Fe" are the same entity; without it, whole words of the texts
    stand in (never substrings: the element U must not match every "u").
    """
    if tools.recognize is not None:
        return {str(e.name).casefold() for text in texts for e in tools.recognize(text)}
    words = re.findall(r"[^\s,;:.!?()\[\]]+", " ".join(texts))
    return {w.casefold() for w in words}


def _question_entity_names(entities: Sequence[Any]) -> list[str]:
    """Canonical names usable as graph start nodes (values such as "2 GPa" are none)."""
    from geo_rag_runtime.vocab import QUANTITY_TYPES

    return list(dict.fromkeys(str(e.name) for e in entities if e.type not in QUANTITY_TYPES))


# --------------------------------------------------------------------------- LLM helpers


def _llm_strings(llm: Any, system: str, user: str, key: str, limit: int) -> list[str]:
    """A validated list of short strings from the LLM (ServiceError when unusable)."""
    schema = {
        "type": "object",
        "properties": {key: {"type": "array", "items": {"type": "string"}, "maxItems": limit}},
        "required": [key],
    }
    value = llm.complete_json(system, user, json_schema=schema, max_tokens=300)
    items = value.get(key)
    if not isinstance(items, list):
        raise ServiceError(f"LLM output has no list {key!r}")
    out: list[str] = []
    for item in items:
        if isinstance(item, str) and item.strip() and len(item) <= _MAX_LLM_TEXT:
            text = " ".join(item.split())
            if text.casefold() not in {o.casefold() for o in out}:
                out.append(text)
    if not out:
        raise ServiceError(f"LLM output {key!r} holds no usable strings")
    return out[:limit]


# --------------------------------------------------------------------------- compression


def compress_passages(
    question: str,
    chunks: Sequence[RetrievedItem],
    tools: RetrievalTools,
    *,
    threshold: float = COMPRESSION_THRESHOLD,
) -> tuple[list[RetrievedItem], str, list[str]]:
    """Keep only the sentences of each passage that bear on the question; returns (items, how, notes).

    With an LLM: it names, per passage, the numbers of the relevant sentences (validated). Without,
    or when it fails: sentences whose relevance reaches ``threshold``, and always a passage's best.
    Passages keep their order and metadata; kept sentences keep their order, joined by " … ".
    """
    from geo_rag_runtime.text.sentences import split_sentences

    passages = [[item.text[s:e] for s, e in split_sentences(item.text)] or [item.text] for item in chunks]
    notes: list[str] = []
    keep: list[list[int]] | None = None
    how = "embedding"
    if tools.llm is not None and chunks:
        try:
            keep = _llm_compression(question, passages, tools.llm)
            how = "llm"
        except GeoRagError as exc:
            notes.append(f"LLM compression failed ({exc}); compressed by sentence relevance instead")
    if keep is None:
        relevance = tools.scorer.for_question(question)
        flat = [sentence for sentences in passages for sentence in sentences]
        scores = relevance.score(flat)
        keep, offset = [], 0
        for sentences in passages:
            own = scores[offset : offset + len(sentences)]
            offset += len(sentences)
            best = max(range(len(own)), key=lambda i: own[i].total)
            keep.append([i for i, s in enumerate(own) if s.total >= threshold or i == best])
    out: list[RetrievedItem] = []
    for item, sentences, indices in zip(chunks, passages, keep, strict=True):
        if not indices:
            continue
        text = " … ".join(sentences[i].strip() for i in sorted(set(indices)))
        retriever = f"{item.retriever}+compressed" if item.retriever else "compressed"
        out.append(item.model_copy(update={"text": text, "retriever": retriever}))
    return out, how, notes


def _llm_compression(question: str, passages: list[list[str]], llm: Any) -> list[list[int]]:
    numbered = "\n\n".join(
        f"Passage {p}:\n" + "\n".join(f"  ({i}) {s}" for i, s in enumerate(sentences))
        for p, sentences in enumerate(passages)
    )
    schema = {
        "type": "object",
        "properties": {
            "keep": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "passage": {"type": "integer"},
                        "sentences": {"type": "array", "items": {"type": "integer"}},
                    },
                    "required": ["passage", "sentences"],
                },
            }
        },
        "required": ["keep"],
    }
    value = llm.complete_json(
        "You compress retrieved passages for a geochemistry question. For each passage, list the "
        "numbers of the sentences that help answer the question; list none for an irrelevant passage. "
        'Reply with JSON: {"keep": [{"passage": 0, "sentences": [1, 3]}, ...]}.',
        f"Question: {question}\n\n{numbered}",
        json_schema=schema,
        max_tokens=400,
    )
    entries = value.get("keep")
    if not isinstance(entries, list):
        raise ServiceError("LLM compression output has no list 'keep'")
    keep: list[list[int]] = [[] for _ in passages]
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        p, sentences = entry.get("passage"), entry.get("sentences")
        if not isinstance(p, int) or not 0 <= p < len(passages) or not isinstance(sentences, list):
            continue
        keep[p] = [i for i in sentences if isinstance(i, int) and 0 <= i < len(passages[p])]
    if not any(keep):
        raise ServiceError("LLM compression kept no sentence of any passage")
    return keep


# --------------------------------------------------------------------------- strategies


class Strategy(ABC):
    """A retrieval strategy for one query type."""

    name: str
    category: QueryType

    @abstractmethod
    def retrieve(self, question: str, tools: RetrievalTools, top_k: int) -> StrategyRun:
        """Retrieve ranked chunks for the question (stage "vector")."""

    def refine(
        self, question: str, run: StrategyRun, facts: list[RetrievedItem], tools: RetrievalTools, top_k: int
    ) -> tuple[list[RetrievedItem], list[RetrievedItem]]:
        """Post-retrieval step (stage "fusion"): by default the chunks and facts as they are."""
        return run.chunks[:top_k], facts


class DenseSimilarity(Strategy):
    """Explicit facts: the passage that states the fact is the one most similar to the question."""

    name = "dense_similarity"
    category: QueryType = "explicit_fact"

    def retrieve(self, question: str, tools: RetrievalTools, top_k: int) -> StrategyRun:
        return StrategyRun(self.category, self.name, tools.dense(question, top_k))


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

    def rephrasings(self, question: str, tools: RetrievalTools) -> tuple[list[str], str, list[str]]:
        """(variants without the question itself, how they were made, notes)."""
        notes: list[str] = []
        if tools.llm is not None:
            try:
                variants = _llm_strings(
                    tools.llm,
                    "You rewrite geochemistry questions for retrieval. Write 3 different rephrasings of "
                    "the question that keep its meaning, using synonyms and the standard notation of "
                    'the field (e.g. "Sr isotopes" -> "87Sr/86Sr"). Reply with JSON: '
                    '{"rephrasings": ["...", "...", "..."]}.',
                    question,
                    "rephrasings",
                    4,
                )
                variants = [v for v in variants if v.casefold() != question.casefold()]
                if variants:
                    return variants, "llm", notes
                notes.append("LLM rephrasings repeated the question; used deterministic rephrasings")
            except GeoRagError as exc:
                notes.append(f"LLM rephrasing failed ({exc}); used deterministic rephrasings")
        variants, sources = [], []
        keywords = keyword_form(question)
        if keywords and keywords.casefold() != question.casefold():
            variants.append(keywords)
            sources.append("keywords")
        entities, alternatives = entity_alternatives(question, tools)
        if alternatives:
            rewritten = question
            for surface, names in alternatives.items():
                rewritten = rewritten.replace(surface, f"{surface} ({', '.join(names[:3])})", 1)
            variants.append(rewritten)
            # a second wording with the first alternative in place of each surface form
            swapped = question
            for surface, names in alternatives.items():
                swapped = swapped.replace(surface, names[0], 1)
            if swapped != question:
                variants.append(swapped)
            sources.append("vocabulary")
        unique = list(dict.fromkeys(v for v in variants if v.strip()))
        return unique[: _MAX_VARIANTS - 1], "+".join(sources) or "none", notes

    def retrieve(self, question: str, tools: RetrievalTools, top_k: int) -> StrategyRun:
        from geo_rag_runtime.retrieval.fusion import fuse

        variants, how, notes = self.rephrasings(question, tools)
        ranked = tools.dense_many([question, *variants], top_k)
        chunks = fuse(*ranked, top_k=top_k * 2)
        return StrategyRun(
            self.category,
            f"{self.name}(rephrasings={how})",
            chunks,
            notes,
            {"rephrasings": variants},
        )


class KeywordExpansionCompression(Strategy):
    """Interpretable rationale: expand the query with the field's terms, then keep what bears on it."""

    name = "keyword_expansion+compression"
    category: QueryType = "interpretable_rationale"

    def expansion(self, question: str, tools: RetrievalTools) -> tuple[list[str], str, list[str]]:
        """(expansion terms, how they were made, notes)."""
        notes: list[str] = []
        if tools.llm is not None:
            try:
                terms = _llm_strings(
                    tools.llm,
                    "You expand geochemistry questions for keyword search. List up to 8 short keywords "
                    "or technical terms (synonyms, related processes, elements, isotope ratios, "
                    "minerals) that passages answering the question would contain. Reply with JSON: "
                    '{"keywords": ["...", "..."]}.',
                    question,
                    "keywords",
                    8,
                )
                return terms, "llm", notes
            except GeoRagError as exc:
                notes.append(f"LLM keyword expansion failed ({exc}); expanded deterministically")
        terms, sources = [], []
        entities, alternatives = entity_alternatives(question, tools)
        for names in alternatives.values():
            terms.extend(names[:3])
        if alternatives:
            sources.append("vocabulary")
        neighbours = graph_neighbours(_question_entity_names(entities), tools)
        if neighbours:
            terms.extend(neighbours)
            sources.append("graph")
        asked = set(keyword_form(question).casefold().split())
        terms = [t for t in dict.fromkeys(terms) if t.casefold() not in asked]
        return terms, "+".join(sources) or "none", notes

    def retrieve(self, question: str, tools: RetrievalTools, top_k: int) -> StrategyRun:
        from geo_rag_runtime.retrieval.fusion import fuse

        terms, how, notes = self.expansion(question, tools)
        expanded = f"{question} {' '.join(terms)}".strip()
        ranked = tools.dense_many([question, expanded] if terms else [question], top_k)
        sparse_query = f"{keyword_form(question)} {' '.join(terms)}".strip() or question
        sparse = tools.keyword(sparse_query, top_k)
        if tools.sparse is None:
            notes.append("keyword index unavailable: expansion searched the vector store only")
        if sparse:
            ranked.append(sparse)
        chunks = fuse(*ranked, top_k=top_k)
        return StrategyRun(
            self.category,
            f"{self.name}(expansion={how})",
            chunks,
            notes,
            {"expansion": terms},
        )

    def refine(
        self, question: str, run: StrategyRun, facts: list[RetrievedItem], tools: RetrievalTools, top_k: int
    ) -> tuple[list[RetrievedItem], list[RetrievedItem]]:
        compressed, how, notes = compress_passages(question, run.chunks[:top_k], tools)
        run.notes.extend(notes)
        run.label = run.label[:-1] + f", compression={how})"
        return compressed, facts


class HybridSparseDense(Strategy):
    """Hidden rationale (and the fallback route): BM25 + dense fused by RRF, then a choice of sources."""

    name = "hybrid_sparse_dense"
    category: QueryType = "hidden_rationale"

    def retrieve(self, question: str, tools: RetrievalTools, top_k: int) -> StrategyRun:
        from geo_rag_runtime.retrieval.fusion import fuse, positions

        notes: list[str] = []
        dense = tools.dense(question, top_k * 2)
        sparse = tools.keyword(question, top_k * 2)
        if tools.sparse is None:
            notes.append("keyword index unavailable: hybrid retrieval used the vector store only")
        fused = fuse(dense, sparse, top_k=top_k * 2)
        found: dict[str, set[str]] = {}
        dense_score: dict[str, float] = {}
        sparse_rank: dict[str, int] = {}
        for retriever, items in (("dense", dense), ("sparse", sparse)):
            for rank, item in enumerate(items):
                for entry in positions(item):
                    found.setdefault(entry["chunk_id"], set()).add(retriever)
                    if retriever == "dense":
                        dense_score.setdefault(entry["chunk_id"], item.score)
                    else:
                        sparse_rank.setdefault(entry["chunk_id"], rank)
        return StrategyRun(
            self.category,
            self.name,
            fused,
            notes,
            {"found": found, "dense_score": dense_score, "sparse_rank": sparse_rank},
        )

    def refine(
        self, question: str, run: StrategyRun, facts: list[RetrievedItem], tools: RetrievalTools, top_k: int
    ) -> tuple[list[RetrievedItem], list[RetrievedItem]]:
        how = "agreement"
        chosen: tuple[list[RetrievedItem], list[RetrievedItem]] | None = None
        if tools.llm is not None and (run.chunks or facts):
            try:
                chosen = _llm_choose(question, run.chunks, facts, tools.llm, top_k)
                how = "llm"
            except GeoRagError as exc:
                run.notes.append(f"LLM source choice failed ({exc}); chose sources by agreement")
        if chosen is None:
            chosen = self._choose_by_agreement(question, run, facts, tools, top_k)
        chunks, kept_facts = chosen
        sources = sorted(
            {"dense" for c in chunks if self._found(run, c) & {"dense"}}
            | {"sparse" for c in chunks if self._found(run, c) & {"sparse"}}
        )
        if kept_facts:
            sources.append("graph")
        run.label = f"{self.name}(sources={'+'.join(sources) or 'none'}, choice={how})"
        run.details["sources"] = sources
        return chunks, kept_facts

    @staticmethod
    def _found(run: StrategyRun, item: RetrievedItem) -> set[str]:
        from geo_rag_runtime.retrieval.fusion import positions

        out: set[str] = set()
        for entry in positions(item):
            out |= run.details.get("found", {}).get(entry["chunk_id"], set())
        return out

    def _choose_by_agreement(
        self, question: str, run: StrategyRun, facts: list[RetrievedItem], tools: RetrievalTools, top_k: int
    ) -> tuple[list[RetrievedItem], list[RetrievedItem]]:
        """Chunks both retrievers found first; single-retriever chunks only when strong."""
        from geo_rag_runtime.retrieval.fusion import positions

        both, single = [], []
        for item in run.chunks:
            found = self._found(run, item)
            if "dense" in found and "sparse" in found:
                both.append(item)
                continue
            ids = [entry["chunk_id"] for entry in positions(item)]
            cosine = max((run.details["dense_score"].get(i, -1.0) for i in ids), default=-1.0)
            rank = min((run.details["sparse_rank"].get(i, top_k) for i in ids), default=top_k)
            top_sparse = rank < TOP_SPARSE_RANKS
            if ("dense" in found and cosine >= DENSE_FLOOR) or top_sparse:
                single.append(item)
        chunks = (both + single)[:top_k] or run.chunks[:top_k]
        # graph facts agree with the text when an entity of theirs occurs in the question or a kept passage
        named = _named_entities([question] + [c.text for c in chunks], tools)
        kept_facts = [f for f in facts if any(name.casefold() in named for name in _fact_entities(f))]
        return chunks, kept_facts


def _llm_choose(
    question: str, chunks: list[RetrievedItem], facts: list[RetrievedItem], llm: Any, top_k: int
) -> tuple[list[RetrievedItem], list[RetrievedItem]]:
    listing = "\n".join(
        f"[C{i}] ({c.source_file}, {c.section or 'no section'}) {' '.join(c.text.split())[:300]}"
        for i, c in enumerate(chunks)
    )
    listing += "\n" + "\n".join(f"[F{i}] {f.text}" for i, f in enumerate(facts))
    schema = {
        "type": "object",
        "properties": {
            "chunks": {"type": "array", "items": {"type": "integer"}},
            "facts": {"type": "array", "items": {"type": "integer"}},
        },
        "required": ["chunks", "facts"],
    }
    value = llm.complete_json(
        "You choose evidence for a geochemistry question among text passages [C#] and knowledge-graph "
        f"facts [F#]. Pick at most {top_k} passages and any facts that help answer it, best first. "
        'Reply with JSON: {"chunks": [0, 2], "facts": [1]}.',
        f"Question: {question}\n\n{listing}",
        json_schema=schema,
        max_tokens=200,
    )
    picked_chunks = value.get("chunks")
    picked_facts = value.get("facts")
    if not isinstance(picked_chunks, list) or not isinstance(picked_facts, list):
        raise ServiceError("LLM source choice lacks the lists 'chunks' and 'facts'")
    chunk_ids = [i for i in dict.fromkeys(picked_chunks) if isinstance(i, int) and 0 <= i < len(chunks)]
    fact_ids = [i for i in dict.fromkeys(picked_facts) if isinstance(i, int) and 0 <= i < len(facts)]
    if chunks and not chunk_ids:
        raise ServiceError("LLM source choice kept no passage")
    return [chunks[i] for i in chunk_ids[:top_k]], [facts[i] for i in fact_ids]


STRATEGIES: dict[QueryType, Strategy] = {
    "explicit_fact": DenseSimilarity(),
    "implicit_reasoning": MultiQuery(),
    "interpretable_rationale": KeywordExpansionCompression(),
    "hidden_rationale": HybridSparseDense(),
}
assert set(STRATEGIES) == set(QUERY_TYPES)


def strategy_for(category: QueryType) -> Strategy:
    """The strategy that PAPER.md §6 assigns to a query type."""
    try:
        return STRATEGIES[category]
    except KeyError:
        raise ValueError(f"unknown query type {category!r}; known: {', '.join(QUERY_TYPES)}") from None
