"""One question, top to bottom: HybridRAG (docs/method.md) or the vector-only BaselineRAG.

=================  ==========================================================================
stage (timings)    HybridRAG                               BaselineRAG
=================  ==========================================================================
(question)         cleaned once: text, search form, entities — same
classification     classifier → category → route           same (category reported, not used)
vector             the routed strategy retrieves           dense top-k similarity search
graph              graph facts around the entities; for    — (no graph, no values)
                   explicit facts also the reported values
                   (measurement rows) of the analytes it
                   names, from the passages' papers
fusion             the strategy refines (compression or    —
                   source choice); the context is built    the context, same token budget
                   within the token budget
generation         "not found" when no passage mentions    same check, same generator
                   an entity of the question; else LLM,
                   else extractive (cited)
=================  ==========================================================================

So the two modes differ only in retrieval. Every fallback is said in ``Answer.notes``: an unsure or
missing classifier → the hybrid route; a failing strategy → dense similarity; a failing refinement →
the retrieved chunks as they are; no graph → passages only; a failing LLM → the extractive answer.
The pipeline owns no resources: ``RagService`` opens them and passes them in as ``RetrievalTools``.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from geo_rag_runtime.errors import QueryError, ServiceError, StoreError
from geo_rag_runtime.models import QUERY_TYPES, Answer, QueryType, RetrievedItem
from geo_rag_runtime.query.abstention import unsupported
from geo_rag_runtime.query.context import ContextBundle, build_context
from geo_rag_runtime.query.generation import NOT_FOUND, ExtractiveGenerator, Generation, LLMGenerator
from geo_rag_runtime.query.graph_facts import facts_for_the_question, graph_facts
from geo_rag_runtime.query.grounded import GroundedGenerator
from geo_rag_runtime.query.question import Question, clean_question, prepare_question
from geo_rag_runtime.query.reported_values import value_facts
from geo_rag_runtime.query.routing import Route, route
from geo_rag_runtime.query.strategies import StrategyRun, strategy_for
from geo_rag_runtime.query.tools import RetrievalTools
from geo_rag_runtime.settings import Settings
from geo_rag_runtime.stores.protocols import QueryClassifierModel, TokenCounter

__all__ = [
    "MAX_TOP_K",
    "STAGES",
    "Mode",
    "Resources",
    "Retrieved",
    "answer_question",
    "fallback_strategy",
    "generate_answer",
    "retrieve_context",
]

MAX_TOP_K = 50
STAGES = ("classification", "vector", "graph", "fusion", "generation", "total")
Mode = Literal["hybrid", "baseline"]


# The note a failing strategy leaves: an answer still comes (from dense similarity), but the
# evaluation must count it as the bug it is (``fallback_strategy``), not as a lower score.
_FALLBACK_NOTE = "strategy {name} failed ({error}): answered with dense similarity"
_FALLBACK_PATTERN = re.compile(r"strategy (\S+) failed \(.*\): answered with dense similarity", re.DOTALL)


def fallback_strategy(notes: Sequence[str]) -> str | None:
    """The strategy whose retrieval raised and was replaced by dense similarity, read from an
    answer's notes (None when none fell back)."""
    for note in notes:
        found = _FALLBACK_PATTERN.fullmatch(note)
        if found:
            return found.group(1)
    return None


@dataclass
class Resources:
    """What a question needs, opened by the service; ``unavailable`` says why an optional one is missing."""

    tools: RetrievalTools
    counter: TokenCounter
    classifier: QueryClassifierModel | None
    unavailable: dict[str, str | None]


class _Timer:
    def __init__(self) -> None:
        self.timings: dict[str, float] = dict.fromkeys(STAGES[:-1], 0.0)

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] += (time.perf_counter() - started) * 1000


@dataclass
class Retrieved:
    """A question after retrieval: what the generator reads (also the answer selector's training and
    benchmark input, so they see exactly the candidates an answer is chosen from)."""

    question: Question
    route: Route
    strategy: str
    bundle: ContextBundle
    notes: list[str]
    prompts: list[str]  # ids of the prompt templates a retrieval step sent to a model
    timer: _Timer
    started: float


def retrieve_context(
    raw_question: str,
    open_resources: Callable[[], Resources],
    settings: Settings,
    *,
    mode: Mode = "hybrid",
    top_k: int | None = None,
    category: QueryType | None = None,
) -> tuple[Retrieved, RetrievalTools]:
    """Every stage before generation: classification, retrieval, graph, fusion, the context bundle.

    The input is checked before any store is opened, so a bad question fails fast with QueryError.
    """
    started = time.perf_counter()
    text = clean_question(raw_question, settings.max_question_chars)
    k = _checked(mode, settings.top_k if top_k is None else int(top_k), category)
    resources = open_resources()
    tools = resources.tools
    question = prepare_question(text, settings.max_question_chars, tools.recognize)
    timer = _Timer()
    notes: list[str] = []

    with timer.stage("classification"):
        chosen = route(
            question.text,
            resources.classifier,
            forced=category,
            routing=mode == "hybrid",
            unavailable_reason=resources.unavailable.get("classifier"),
        )
        notes += chosen.notes

    if mode == "baseline":
        with timer.stage("vector"):
            run = StrategyRun(chosen.category, "baseline_dense", tools.dense(question.search_text, k))
        chunks, facts = run.chunks, []
    else:
        with timer.stage("vector"):
            run = _retrieve(question, chosen, tools, k, notes)
        with timer.stage("graph"):
            facts = graph_facts(
                question, chosen.category, tools, notes, unavailable=resources.unavailable.get("graph")
            )
        with timer.stage("fusion"):
            chunks, facts = _refine(question, chosen, run, facts, tools, k, notes)
            facts = facts_for_the_question(question, facts, tools)
        if chosen.category == "explicit_fact":
            with timer.stage("graph"):
                facts = _values(question, chunks[:k], tools, notes) + facts
        notes += run.notes

    with timer.stage("fusion"):
        bundle = build_context(chunks, facts, resources.counter, settings.context_token_budget)
    return Retrieved(question, chosen, run.label, bundle, notes, list(run.prompts), timer, started), tools


def answer_question(
    raw_question: str,
    open_resources: Callable[[], Resources],
    settings: Settings,
    *,
    mode: Mode = "hybrid",
    top_k: int | None = None,
    category: QueryType | None = None,
    on_text: Callable[[str], None] | None = None,
) -> Answer:
    """Answer one question; ``category`` forces the route (tests, evaluation by type); ``on_text``
    receives the LLM's draft as it is generated (the final answer is cited and checked after).

    The input is checked before any store is opened, so a bad question fails fast with QueryError.
    """
    got, tools = retrieve_context(
        raw_question, open_resources, settings, mode=mode, top_k=top_k, category=category
    )
    question, chosen, bundle, notes, timer = got.question, got.route, got.bundle, got.notes, got.timer
    with timer.stage("generation"):
        generation = generate_answer(question, bundle, chosen.category, tools, notes, on_text)

    timings = {**timer.timings, "total": (time.perf_counter() - got.started) * 1000}
    return Answer(
        question=question.text,
        category=chosen.category,
        strategy=got.strategy,
        answer=generation.answer,
        generator=generation.generator,
        citations=bundle.citations(generation.markers),
        contexts=bundle.contexts(),
        timings_ms={stage: round(timings[stage], 2) for stage in STAGES},
        mode=mode,
        notes=notes + generation.notes,
        classification=chosen.classification,
        prompts=list(dict.fromkeys(got.prompts + generation.prompts)),
    )


def _checked(mode: str, k: int, category: QueryType | None) -> int:
    if mode not in ("hybrid", "baseline"):
        raise QueryError(f"unknown mode {mode!r}: use 'hybrid' or 'baseline'")
    if not 1 <= k <= MAX_TOP_K:
        raise QueryError(f"top_k must lie between 1 and {MAX_TOP_K}, got {k}")
    if category is not None and category not in QUERY_TYPES:
        raise QueryError(f"unknown category {category!r}; known: {', '.join(QUERY_TYPES)}")
    return k


def _retrieve(
    question: Question, chosen: Route, tools: RetrievalTools, k: int, notes: list[str]
) -> StrategyRun:
    """The routed strategy's retrieval; if it breaks, plain dense similarity still answers."""
    try:
        return chosen.strategy.retrieve(question, tools, k)
    except (QueryError, StoreError):
        raise
    except Exception as exc:
        if chosen.strategy.name == "similarity":
            raise
        notes.append(_FALLBACK_NOTE.format(name=chosen.strategy.name, error=f"{type(exc).__name__}: {exc}"))
        chosen.strategy = strategy_for("explicit_fact")
        return StrategyRun(chosen.category, "dense(fallback)", tools.dense(question.search_text, k))


def _refine(
    question: Question,
    chosen: Route,
    run: StrategyRun,
    facts: list[RetrievedItem],
    tools: RetrievalTools,
    k: int,
    notes: list[str],
) -> tuple[list[RetrievedItem], list[RetrievedItem]]:
    """Compression or source choice; if it breaks, the retrieved chunks as they are."""
    try:
        return chosen.strategy.refine(question, run, facts, tools, k)
    except Exception as exc:  # keep what was retrieved if refinement breaks
        notes.append(f"{chosen.strategy.name} refinement failed ({type(exc).__name__}: {exc}); skipped")
        return run.chunks[:k], facts


def _values(
    question: Question, chunks: list[RetrievedItem], tools: RetrievalTools, notes: list[str]
) -> list[RetrievedItem]:
    """The reported values (measurement rows) of what the question names, from the passages'
    papers; none when the document store cannot be read (said in the notes)."""
    if tools.measurements is None:
        return []
    try:
        return value_facts(question, chunks, tools.measurements)
    except Exception as exc:  # values are an addition; the passages still answer
        notes.append(f"reported values unavailable ({type(exc).__name__}: {exc})")
        return []


def generate_answer(
    question: Question,
    bundle: ContextBundle,
    category: QueryType,
    tools: RetrievalTools,
    notes: list[str],
    on_text: Callable[[str], None] | None,
) -> Generation:
    """Not found when the context does not mention what the question asks about, or gives no value
    for the quantity it asks the value of; else the LLM's answer (grounded by default), else — no
    model, ``generator=extractive``, or the model failed — the extractive one."""
    settings = tools.settings
    if settings.abstain and (
        abstention := unsupported(question.text, question.entities, bundle, tools.recognize, NOT_FOUND)
    ):
        return Generation(
            abstention.answer,
            "evidence_check",
            notes=[f"abstained: {abstention.reason} (GEO_RAG_ABSTAIN=false answers anyway)"],
        )
    # "auto" is the extractive answer: on every hand-written set it carried as much evidence as the
    # local model's grounded answer or more, at a tenth of the time
    # (docs/experiments.md#the-local-llm-as-writer)
    if tools.llm is not None and settings.generator in ("grounded", "llm"):
        generator: GroundedGenerator | LLMGenerator = (
            LLMGenerator(tools.llm, max_tokens=settings.answer_max_tokens)
            if settings.generator == "llm"
            else GroundedGenerator(
                tools.llm,
                tools.scorer,
                evidence_sentences=settings.evidence_sentences,
                evidence_token_budget=settings.evidence_token_budget,
                max_tokens=settings.answer_max_tokens,
                on_text=on_text,
                selector=tools.selector,
            )
        )
        try:
            return generator.generate(question.text, bundle, category)
        except ServiceError as exc:
            notes.append(f"LLM {tools.llm.name} failed ({exc}): answered extractively")
    elif settings.generator in ("grounded", "llm"):
        notes.append(
            f"generator {settings.generator} asked for, but no LLM is available: answered extractively"
        )
    return ExtractiveGenerator(tools.scorer, selector=tools.selector).generate(
        question.text, bundle, category
    )
