"""The query service: HybridRAG and BaselineRAG answers from the materialized stores.

``RagService(settings).ask(question, mode="hybrid"|"baseline", top_k=None) -> Answer`` is what
``geo-rag ask`` and ``geo-rag serve`` call. Per question:

=================  ==========================================================================
stage (timings)    HybridRAG                               BaselineRAG
=================  ==========================================================================
classification     query classifier → query type           same (category reported, not used)
vector             the routed strategy (strategies.py)     dense top-k similarity search
graph              GraphRetriever facts                    — (no graph)
fusion             strategy refinement (compression or     context dictionary within the
                   source choice) + context dictionary     same token budget
generation         LLMGenerator, else ExtractiveGenerator  same generator
=================  ==========================================================================

So the two modes differ only in retrieval. Stores are opened read-only, once per service and lazily;
models (MiniLM, classifier, tokenizer) load once per process. One service is shared by the HTTP
server's worker threads: opening is guarded by a lock, and each store's calls are serialized
(embedded Chroma reopens its client when another process wrote, and LadybugDB connections are not
meant for concurrent use); the embedder serializes its own calls.

Degradation, always said in ``Answer.notes``: no classifier (or an unconfident one) → the hybrid
strategy; no graph store → vector context only; no keyword index → dense only; a failing LLM →
extractive answer. No vector store, or an empty one, is an error that tells the user to run
``geo-rag ingest``: without passages there is nothing to answer from.
"""

from __future__ import annotations

import contextlib
import threading
import time
import unicodedata
from collections.abc import Callable, Iterator
from typing import Any, Literal

from geo_rag_runtime.context import ContextBundle, RelevanceScorer, build_context
from geo_rag_runtime.errors import GeoRagError, QueryError, ServiceError, StoreError
from geo_rag_runtime.generation import ExtractiveGenerator, Generation, LLMGenerator
from geo_rag_runtime.models import QUERY_TYPES, Answer, QueryType, RetrievedItem
from geo_rag_runtime.settings import Settings, get_settings
from geo_rag_runtime.strategies import (
    HybridSparseDense,
    RetrievalTools,
    StrategyRun,
    strategy_for,
)

__all__ = ["RagService", "format_answer", "clean_question", "MAX_TOP_K", "STAGES"]

MAX_TOP_K = 50
STAGES = ("classification", "vector", "graph", "fusion", "generation", "total")
FALLBACK_CATEGORY: QueryType = "hidden_rationale"
_RETRY_AFTER_S = 30.0  # a store that failed to open is tried again after this long (serve mode)
_KEEP_CONTROL = {"\t": " ", "\n": " ", "\r": " "}
Mode = Literal["hybrid", "baseline"]


def clean_question(question: Any, max_chars: int) -> str:
    """The question without control characters and surplus whitespace; QueryError if unusable.

    Any language is accepted: a German or Chinese question is answered from what the (English)
    corpus yields for it.
    """
    if not isinstance(question, str):
        raise QueryError("the question must be text")
    if len(question) > 10 * max_chars:  # do not even normalize megabytes
        raise QueryError(
            f"the question has {len(question)} characters; at most {max_chars} are allowed "
            "(GEO_RAG_MAX_QUESTION_CHARS)"
        )
    text = unicodedata.normalize("NFC", question)
    text = "".join(
        _KEEP_CONTROL.get(ch, "") if unicodedata.category(ch) in {"Cc", "Cf", "Cs", "Co"} else ch
        for ch in text
    )
    text = " ".join(text.split())
    if not text:
        raise QueryError("the question is empty")
    if len(text) > max_chars:
        raise QueryError(
            f"the question has {len(text)} characters; at most {max_chars} are allowed "
            "(GEO_RAG_MAX_QUESTION_CHARS)"
        )
    return text


class _Serialized:
    """Calls into a store one at a time (the store objects are not made for threads)."""

    def __init__(self, target: Any, lock: threading.Lock) -> None:
        self._target = target
        self._lock = lock

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._target, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return attr(*args, **kwargs)

        return call


class _Timer:
    def __init__(self) -> None:
        self.timings: dict[str, float] = {}

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = self.timings.get(name, 0.0) + (time.perf_counter() - started) * 1000


class RagService:
    """Answers questions from the stores; one instance per process (see module docstring)."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        llm: Any = "configured",
        embedder: Any = None,
    ) -> None:
        """``llm``: "configured" (from settings), None (no LLM) or a client; ``embedder``: injected model."""
        self.settings = settings or get_settings()
        self._llm_choice = llm
        self._embedder = embedder
        self._open_lock = threading.RLock()
        self._resources: dict[str, Any] = {}
        self._errors: dict[str, tuple[float, str]] = {}
        self._vectors_checked = False

    # ----------------------------------------------------------------- resources

    def _resource(self, name: str, opener: Callable[[], Any]) -> Any | None:
        """Open a resource once; a failure is remembered (and retried after a while), not raised."""
        with self._open_lock:
            if name in self._resources:
                return self._resources[name]
            failed = self._errors.get(name)
            if failed is not None and time.monotonic() - failed[0] < _RETRY_AFTER_S:
                return None
            try:
                value = opener()
            except Exception as exc:  # any failure to open means: degrade and say so
                self._errors[name] = (time.monotonic(), f"{type(exc).__name__}: {exc}")
                return None
            self._errors.pop(name, None)
            self._resources[name] = value
            return value

    def error(self, name: str) -> str | None:
        """Why a resource is unavailable (None if it opened or was never tried)."""
        failed = self._errors.get(name)
        return failed[1] if failed else None

    @property
    def embedder(self) -> Any:
        def open_embedder() -> Any:
            from geo_rag_runtime.embeddings import get_embedder

            return self._embedder or get_embedder(self.settings)

        value = self._resource("embedder", open_embedder)
        if value is None:
            raise StoreError(f"the embedding model cannot be loaded: {self.error('embedder')}")
        return value

    def vectors(self) -> Any:
        """The vector store (serialized), or StoreError telling the user to ingest."""

        def open_vectors() -> Any:
            from geo_rag_runtime.stores.vectors import ChromaVectorStore

            return _Serialized(ChromaVectorStore(self.settings, read_only=True), threading.Lock())

        store = self._resource("vectors", open_vectors)
        if store is None:
            raise StoreError(
                f"the vector store cannot be opened ({self.error('vectors')}): run `geo-rag ingest` first"
            )
        if not self._vectors_checked:
            held = store.count()
            if held == 0:
                raise StoreError(
                    f"the vector store at {store.location} holds no chunks: run `geo-rag ingest` "
                    "(papers folder: GEO_RAG_PAPERS) first"
                )
            self._vectors_checked = True
        return store

    def sparse(self) -> Any | None:
        def open_sparse() -> Any:
            from geo_rag_runtime.stores.sparse import SparseIndex

            index = SparseIndex(self.settings)
            if index.count() == 0:
                raise StoreError("the keyword index holds no chunks")
            return _Serialized(index, threading.Lock())

        return self._resource("sparse", open_sparse)

    def graph(self) -> Any | None:
        def open_graph() -> Any:
            from geo_rag_runtime.stores.graph import get_graph_store

            return _Serialized(get_graph_store(self.settings, read_only=True), threading.Lock())

        return self._resource("graph", open_graph)

    def classifier(self) -> Any | None:
        def open_classifier() -> Any:
            from geo_rag_runtime.classifier import get_classifier

            return get_classifier(self.settings)

        return self._resource("classifier", open_classifier)

    def llm(self) -> Any | None:
        if self._llm_choice != "configured":
            return self._llm_choice

        def open_llm() -> Any:
            from geo_rag_runtime.llm import get_llm

            client = get_llm(self.settings)
            if client is None:
                raise LookupError("no LLM configured")
            return client

        return self._resource("llm", open_llm)

    def counter(self) -> Any:
        def open_counter() -> Any:
            from geo_rag_runtime.text.tokenizer import get_token_counter

            return get_token_counter(self.settings)

        value = self._resource("counter", open_counter)
        if value is None:
            raise StoreError(f"the token counter cannot be loaded: {self.error('counter')}")
        return value

    def scorer(self) -> RelevanceScorer:
        def open_scorer() -> RelevanceScorer:
            from geo_rag_runtime.vocab import recognize

            return RelevanceScorer(self.embedder, recognize)

        value = self._resource("scorer", open_scorer)
        if not isinstance(value, RelevanceScorer):
            raise StoreError(f"the relevance scorer cannot be built: {self.error('scorer')}")
        return value

    def tools(self) -> RetrievalTools:
        """Everything the strategies need; the vector store is required, the rest optional."""
        vectors = self.vectors()

        def open_vocabulary() -> Any:
            from geo_rag_runtime.vocab import load_vocabulary

            return load_vocabulary()

        from geo_rag_runtime.vocab import recognize

        return RetrievalTools(
            settings=self.settings,
            embedder=self.embedder,
            vectors=vectors,
            scorer=self.scorer(),
            sparse=self.sparse(),
            graph=self.graph(),
            vocabulary=self._resource("vocabulary", open_vocabulary),
            recognize=recognize,
            llm=self.llm(),
        )

    def warm_up(self) -> dict[str, Any]:
        """Open every store and load every model now (server start, benchmarks); returns health."""
        try:
            tools = self.tools()
            self.counter()
            self.embedder.embed_query("warm-up")
            if tools.recognize is not None:
                tools.recognize("warm-up: 87Sr/86Sr in zircon")  # compiles the vocabulary matcher
        except GeoRagError:
            pass  # health() reports it
        self.classifier()
        return self.health()

    def health(self) -> dict[str, Any]:
        """What is available, with counts; never raises."""
        report: dict[str, Any] = {}
        try:
            vectors = self.vectors()
            report["vectors"] = {"available": True, "count": int(vectors.count())}
        except GeoRagError as exc:
            report["vectors"] = {"available": False, "error": str(exc)}
        sparse = self.sparse()
        report["keyword_index"] = (
            {"available": True, "count": int(sparse.count())}
            if sparse is not None
            else {"available": False, "error": self.error("sparse")}
        )
        graph = self.graph()
        if graph is not None:
            try:
                report["graph"] = {"available": True, **dict(graph.counts())}
            except Exception as exc:  # a broken graph must not break the health report
                report["graph"] = {"available": False, "error": f"{type(exc).__name__}: {exc}"}
        else:
            report["graph"] = {"available": False, "error": self.error("graph")}
        classifier = self.classifier()
        report["classifier"] = (
            {"available": True, "model_version": getattr(classifier, "model_version", "")}
            if classifier is not None
            else {"available": False, "error": self.error("classifier")}
        )
        llm = self.llm()
        report["llm"] = (
            {"available": True, "model": llm.name}
            if llm is not None
            else {"available": False, "generator": ExtractiveGenerator.name}
        )
        if not report["vectors"]["available"]:
            status = "unavailable"
        elif all(report[k]["available"] for k in ("keyword_index", "graph", "classifier")):
            status = "ok"
        else:
            status = "degraded"
        return {"status": status, **report}

    def close(self) -> None:
        """Release the stores (a later ask opens them again)."""
        with self._open_lock:
            for name in ("vectors", "graph"):
                store = self._resources.pop(name, None)
                if store is not None:
                    with contextlib.suppress(Exception):  # closing is best effort
                        store.close()
            self._vectors_checked = False

    # ----------------------------------------------------------------- asking

    def ask(
        self,
        question: str,
        mode: Mode = "hybrid",
        top_k: int | None = None,
        *,
        category: QueryType | None = None,
    ) -> Answer:
        """Answer one question; ``category`` forces the route (tests, evaluation by type)."""
        started = time.perf_counter()
        text = clean_question(question, self.settings.max_question_chars)
        if mode not in ("hybrid", "baseline"):
            raise QueryError(f"unknown mode {mode!r}: use 'hybrid' or 'baseline'")
        k = self.settings.top_k if top_k is None else int(top_k)
        if not 1 <= k <= MAX_TOP_K:
            raise QueryError(f"top_k must lie between 1 and {MAX_TOP_K}, got {k}")
        if category is not None and category not in QUERY_TYPES:
            raise QueryError(f"unknown category {category!r}; known: {', '.join(QUERY_TYPES)}")
        timer = _Timer()
        tools = self.tools()
        notes: list[str] = []
        with timer.stage("classification"):
            routed, classification, confident = self._classify(
                text, category, notes, routing=mode == "hybrid"
            )
        if mode == "baseline":
            strategy_label, chunks, facts = self._baseline(text, tools, k, timer)
        else:
            strategy_label, chunks, facts = self._hybrid(
                text, tools, k, timer, routed, use_route=confident, notes=notes
            )
        with timer.stage("fusion_context"):
            bundle = build_context(chunks, facts, self.counter(), self.settings.context_token_budget)
        with timer.stage("generation"):
            generation = self._generate(text, bundle, routed, tools, notes)
        timings = timer.timings
        timings["fusion"] = timings.get("fusion", 0.0) + timings.pop("fusion_context")
        timings["total"] = (time.perf_counter() - started) * 1000
        return Answer(
            question=text,
            category=routed,
            strategy=strategy_label,
            answer=generation.answer,
            generator=generation.generator,
            citations=bundle.citations(generation.markers),
            contexts=bundle.as_dict(),
            timings_ms={stage: round(timings.get(stage, 0.0), 2) for stage in STAGES},
            mode=mode,
            notes=notes + generation.notes,
            classification=classification,
        )

    def _classify(
        self, question: str, forced: QueryType | None, notes: list[str], *, routing: bool
    ) -> tuple[QueryType, dict[str, Any], bool]:
        """(category, classification record, whether to follow the category's route)."""
        if forced is not None:
            return forced, {"label": forced, "source": "forced"}, True
        fallback = "used the hybrid strategy; " if routing else ""
        classifier = self.classifier()
        if classifier is None:
            notes.append(
                f"query classifier unavailable ({self.error('classifier')}): {fallback}"
                f"category defaults to {FALLBACK_CATEGORY}"
            )
            return FALLBACK_CATEGORY, {"source": "unavailable"}, False
        try:
            decision = classifier.predict(question)
        except Exception as exc:  # a broken model must not take the service down
            notes.append(
                f"query classifier failed ({type(exc).__name__}: {exc}): {fallback}"
                f"category defaults to {FALLBACK_CATEGORY}"
            )
            return FALLBACK_CATEGORY, {"source": "failed"}, False
        record = {**decision.to_dict(), "source": "classifier"}
        if not decision.confident and routing:
            notes.append(
                f"classifier confidence {decision.confidence:.2f} < {decision.min_confidence:.2f} "
                f"for {decision.label}: used the hybrid strategy"
            )
        return decision.label, record, bool(decision.confident)

    def _baseline(
        self, question: str, tools: RetrievalTools, k: int, timer: _Timer
    ) -> tuple[str, list[RetrievedItem], list[RetrievedItem]]:
        with timer.stage("vector"):
            chunks = tools.dense(question, k)
        timer.timings.setdefault("graph", 0.0)
        timer.timings.setdefault("fusion", 0.0)
        return "baseline_dense", chunks, []

    def _hybrid(
        self,
        question: str,
        tools: RetrievalTools,
        k: int,
        timer: _Timer,
        category: QueryType,
        *,
        use_route: bool,
        notes: list[str],
    ) -> tuple[str, list[RetrievedItem], list[RetrievedItem]]:
        strategy = strategy_for(category) if use_route else HybridSparseDense()
        with timer.stage("vector"):
            try:
                run = strategy.retrieve(question, tools, k)
            except (QueryError, StoreError):
                raise
            except Exception as exc:  # the routed strategy broke: the plain dense route still answers
                if strategy.name == "dense_similarity":
                    raise
                notes.append(
                    f"strategy {strategy.name} failed ({type(exc).__name__}: {exc}): "
                    "answered with dense similarity"
                )
                strategy = strategy_for("explicit_fact")
                run = StrategyRun(category, "dense_similarity(fallback)", tools.dense(question, k))
        with timer.stage("graph"):
            facts = self._graph_facts(question, category, tools, notes)
        with timer.stage("fusion"):
            try:
                chunks, facts = strategy.refine(question, run, facts, tools, k)
            except Exception as exc:  # keep what was retrieved if refinement breaks
                notes.append(f"{strategy.name} refinement failed ({type(exc).__name__}: {exc}); skipped")
                chunks = run.chunks[:k]
        notes.extend(run.notes)
        return run.label, chunks, facts

    def _graph_facts(
        self, question: str, category: QueryType, tools: RetrievalTools, notes: list[str]
    ) -> list[RetrievedItem]:
        if tools.graph is None:
            notes.append(f"graph store unavailable ({self.error('graph')}): answered from passages only")
            return []
        try:
            from geo_rag_runtime.retrieval.graph import GraphRetriever

            facts = GraphRetriever(tools.graph).retrieve(question, category=category)
        except (GeoRagError, RuntimeError, ValueError, OSError) as exc:
            notes.append(f"graph retrieval failed ({type(exc).__name__}: {exc}): answered from passages only")
            return []
        return _with_sources(list(facts), tools)

    def _generate(
        self,
        question: str,
        bundle: ContextBundle,
        category: QueryType,
        tools: RetrievalTools,
        notes: list[str],
    ) -> Generation:
        if tools.llm is not None:
            try:
                return LLMGenerator(tools.llm).generate(question, bundle, category)
            except ServiceError as exc:
                notes.append(f"LLM {tools.llm.name} failed ({exc}): answered extractively")
        return ExtractiveGenerator(tools.scorer).generate(question, bundle, category)


def _with_sources(facts: list[RetrievedItem], tools: RetrievalTools) -> list[RetrievedItem]:
    """Facts whose provenance also names the source file and title of each chunk it came from.

    The graph keeps paper and chunk ids; the keyword index holds every chunk's file and title, so
    a fact can be cited like a passage without another store round trip.
    """
    wanted = {
        str(p["chunk_id"])
        for f in facts
        for p in f.provenance
        if p.get("chunk_id") and not p.get("source_file")
    }
    if not wanted or tools.sparse is None:
        return facts
    try:
        found = {r["chunk_id"]: r for r in tools.sparse.records(sorted(wanted))}
    except Exception:  # provenance stays as the graph gave it
        return facts
    out = []
    for fact in facts:
        provenance = []
        for entry in fact.provenance:
            record = found.get(str(entry.get("chunk_id")))
            if record is not None and not entry.get("source_file"):
                entry = {**entry, "source_file": record.get("source_file"), "title": record.get("title")}
            provenance.append(entry)
        out.append(fact.model_copy(update={"provenance": provenance}))
    return out


# --------------------------------------------------------------------------- CLI output


def format_answer(answer: Answer) -> str:
    """The human-readable form of an answer for ``geo-rag ask`` (``--json`` prints the contract)."""
    lines = [answer.answer, ""]
    lines.append(
        f"category: {answer.category}   strategy: {answer.strategy}   generator: {answer.generator}"
        f"   mode: {answer.mode}"
    )
    vector = answer.contexts.get("VectorRAG_Context", {})
    graph = answer.contexts.get("GraphRAG_Context", {})
    if vector:
        lines += ["", "sources:"]
        cited = {c.chunk_id for c in answer.citations}
        for key, item in vector.items():
            mark = "*" if item.get("chunk_id") in cited else " "
            where = item.get("source_file") or "?"
            if item.get("section"):
                where += f", {item['section']}"
            lines.append(f" {mark}[V{key}] {where}  (score {float(item.get('score', 0.0)):.3f})")
    if graph:
        lines += ["", "graph facts:"]
        for key, item in graph.items():
            lines.append(f"  [G{key}] {item.get('text', '')}")
    if answer.notes:
        lines += ["", "notes:"]
        lines += [f"  - {note}" for note in answer.notes]
    timings = "  ".join(f"{k} {v:.0f}" for k, v in answer.timings_ms.items())
    lines += ["", f"timings (ms): {timings}"]
    return "\n".join(lines)
