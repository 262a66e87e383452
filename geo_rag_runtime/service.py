"""The query service: opens the materialized stores and models once, and answers questions.

``RagService(settings).ask(question, mode="hybrid"|"baseline", top_k=None) -> Answer`` is what
``geo-rag ask`` and ``geo-rag serve`` call. The question itself flows through
:mod:`geo_rag_runtime.query.pipeline`; this module only opens resources and hands them over.

Stores are opened read-only, once per service and lazily; models (MiniLM, classifier, tokenizer)
load once per process. One service is shared by the HTTP server's worker threads, and questions run
side by side: opening is guarded by a lock; the vector store reopens its client under its own lock
and queries concurrently; the keyword index swaps whole immutable snapshots; every graph read opens
its own LadybugDB handle (connections are not for concurrent use); the ONNX embedder is thread-safe
(the torch one serializes its own calls). Only the document store, read for reported values, is
still called one thread at a time (``_Serialized``): litemongo makes no thread-safety promise.

The query router is the one exception to "load once": its files are checked on every question, so
a retrained router is used without restarting the server.

Degradation, always said in ``Answer.notes``: no classifier → the hybrid strategy; no graph store →
vector context only; no keyword index → dense only; a failing LLM → extractive answer. No vector
store, or an empty one, is an error that tells the user to run ``geo-rag ingest``: without passages
there is nothing to answer from.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any

from geo_rag_runtime.answer_cache import AnswerCache, kb_version
from geo_rag_runtime.errors import GeoRagError, StoreError
from geo_rag_runtime.models import Answer, QueryType
from geo_rag_runtime.query.generation import ExtractiveGenerator
from geo_rag_runtime.query.pipeline import MAX_TOP_K, STAGES, Mode, Resources, answer_question
from geo_rag_runtime.query.relevance import RelevanceScorer
from geo_rag_runtime.query.selector import SelectorModel
from geo_rag_runtime.query.tools import RetrievalTools
from geo_rag_runtime.settings import Settings, get_settings
from geo_rag_runtime.stores import opening, publication

__all__ = ["RagService", "MAX_TOP_K", "STAGES"]

_NO_LLM = "LookupError: no LLM configured"  # not a failure: extractive answers are the design
_RETRY_AFTER_S = 30.0  # a store that failed to open is tried again after this long (serve mode)


class _Serialized:
    """Calls into a store one at a time (for a store object not made for threads)."""

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


class _OnFirstUse:
    """A store opened on its first call, not when the tools are built: the document store costs
    ~0.9 s of a cold ``geo-rag ask`` (litemongo, pymongo) and only questions that name an analyte
    read it."""

    def __init__(self, opener: Callable[[], Any], why_not: Callable[[], str | None]) -> None:
        self._opener = opener
        self._why_not = why_not

    def __getattr__(self, name: str) -> Any:
        store = self._opener()
        if store is None:
            raise StoreError(f"the document store cannot be opened: {self._why_not()}")
        return getattr(store, name)


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
        self._classifier_stamp: tuple[int, ...] | None = None
        self.answers = AnswerCache(self.settings.answer_cache_entries)

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
            return self._embedder or opening.open_embedder(self.settings)

        value = self._resource("embedder", open_embedder)
        if value is None:
            raise StoreError(f"the embedding model cannot be loaded: {self.error('embedder')}")
        return value

    def vectors(self) -> Any:
        """The vector store (serialized), or StoreError telling the user to ingest."""

        def open_vectors() -> Any:
            return opening.open_vectors(self.settings, read_only=True)

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
            index = opening.open_keyword_index(self.settings)
            if index.count() == 0:
                raise StoreError("the keyword index holds no chunks")
            return index

        return self._resource("sparse", open_sparse)

    def graph(self) -> Any | None:
        def open_graph() -> Any:
            return opening.open_graph(self.settings, read_only=True)

        return self._resource("graph", open_graph)

    def measurements(self) -> Any | None:
        """The document store, read-only, for the reported values a question quotes (optional)."""

        def open_measurements() -> Any:
            return _Serialized(opening.open_documents(self.settings, read_only=True), threading.Lock())

        return self._resource("measurements", open_measurements)

    def classifier(self) -> Any | None:
        """The query router as its files are now: a router retrained (or restored) while the server
        runs answers the next question, without a restart. Three ``stat`` calls per question decide
        it (``classifier.artifact_stamp``); an artifact that failed to load is retried when its
        files change, or after a while."""
        from geo_rag_runtime.router.model import artifact_stamp, default_artifact_dir

        stamp = artifact_stamp(default_artifact_dir(self.settings))
        with self._open_lock:
            if stamp != self._classifier_stamp:
                self._resources.pop("classifier", None)
                self._errors.pop("classifier", None)
                self._classifier_stamp = stamp

            def open_classifier() -> Any:
                return opening.open_classifier(self.settings)

            return self._resource("classifier", open_classifier)

    def llm(self) -> Any | None:
        if self._llm_choice != "configured":
            return self._llm_choice

        def open_llm() -> Any:
            client = opening.open_llm(self.settings)
            if client is None:
                raise LookupError(_NO_LLM.removeprefix("LookupError: "))
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
            from geo_rag_runtime.query.sentence_vectors import SentenceVectors, embedder_stamp
            from geo_rag_runtime.vocab import recognize

            embedder = self.embedder
            stored = SentenceVectors(self.settings.home_dir, embedder_stamp(embedder))
            return RelevanceScorer(embedder, recognize, sentence_vectors=stored)

        value = self._resource("scorer", open_scorer)
        if not isinstance(value, RelevanceScorer):
            raise StoreError(f"the relevance scorer cannot be built: {self.error('scorer')}")
        return value

    def selector(self) -> SelectorModel | None:
        """The answer-sentence ranker: the packaged one (trained on hand-written questions); with
        ``answer_selector=home`` the home's own (trained by the ``answer_selector`` asset on template
        questions from its papers) where it has one that this code can read; None with
        ``answer_selector=relevance``."""
        if self.settings.answer_selector == "relevance":
            return None

        def open_selector() -> SelectorModel | None:
            from geo_rag_runtime.query.selector import PACKAGED_SELECTOR, SELECTOR_FILE, load_selector

            if self.settings.answer_selector == "home":
                try:
                    own = load_selector(self.settings.home_dir / "models" / SELECTOR_FILE)
                except ValueError:  # trained by an older version on other features: retrain it
                    own = None
                if own is not None:
                    return own
            return load_selector(PACKAGED_SELECTOR)

        value = self._resource("selector", open_selector)
        return value if isinstance(value, SelectorModel) else None

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
            measurements=_OnFirstUse(self.measurements, lambda: self.error("measurements")),
            hidden_papers=publication.hidden_papers(self.settings.home_dir),
            selector=self.selector(),
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
        # papers an ingest is rewriting (or whose rebuild failed), and retired ones: questions leave
        # them out
        report["building"] = sorted(publication.building_papers(self.settings.home_dir))
        report["retired"] = sorted(publication.retired_papers(self.settings.home_dir))
        report.update(self.stats())
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
            for name in ("vectors", "graph", "measurements"):
                store = self._resources.pop(name, None)
                if store is not None:
                    with contextlib.suppress(Exception):  # closing is best effort
                        store.close()
            self._vectors_checked = False

    # ----------------------------------------------------------------- asking

    def resources(self) -> Resources:
        """What the pipeline needs; raises StoreError when there is nothing to answer from."""
        tools = self.tools()
        classifier = self.classifier()
        return Resources(
            tools=tools,
            counter=self.counter(),
            classifier=classifier,
            unavailable={"classifier": self.error("classifier"), "graph": self.error("graph")},
        )

    def ask(
        self,
        question: str,
        mode: Mode = "hybrid",
        top_k: int | None = None,
        *,
        category: QueryType | None = None,
        on_text: Callable[[str], None] | None = None,
    ) -> Answer:
        """Answer one question; ``category`` forces the route (tests, evaluation by type);
        ``on_text`` receives the LLM's draft as it streams.

        A question asked again while the knowledge base is unchanged is answered from the answer
        cache (``answer_cache``; never a streamed one, an error or a degraded answer)."""
        cache = self.answers
        version = kb_version(self.settings.home_dir) if cache.enabled and on_text is None else None
        if version is None:
            if cache.enabled:
                cache.skip()
            return answer_question(
                question,
                self.resources,
                self.settings,
                mode=mode,
                top_k=top_k,
                category=category,
                on_text=on_text,
            )
        key = cache.key(question, mode, top_k, category, version)
        cached = cache.get(key, question)
        if cached is not None:
            return cached
        answer = answer_question(
            question, self.resources, self.settings, mode=mode, top_k=top_k, category=category
        )
        if self._cacheable(answer) and kb_version(self.settings.home_dir) == version:
            cache.put(key, answer)
        return answer

    def _cacheable(self, answer: Answer) -> bool:
        """Not when a store or model failed to open (the answer is degraded), nor when its notes
        say something failed: such an answer must not outlive the failure."""
        with self._open_lock:
            failed = {name for name, (_, why) in self._errors.items() if why != _NO_LLM}
        if failed:
            return False
        return not any("fail" in note.casefold() for note in answer.notes)

    def stats(self) -> dict[str, Any]:
        """Answer cache and sentence vector counters (``/health``, benchmarks)."""
        out: dict[str, Any] = {"answer_cache": self.answers.stats()}
        scorer = self._resources.get("scorer")
        if isinstance(scorer, RelevanceScorer):
            cache = scorer.cache
            out["sentence_vectors"] = {
                "from_ingest": cache.stored,
                "embedded_at_query_time": cache.misses,
                "cache_hits": cache.hits,
                **(scorer.sentence_vectors.stats() if scorer.sentence_vectors is not None else {}),
            }
        return out
