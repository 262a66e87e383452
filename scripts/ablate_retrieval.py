"""Retrieval ablation: evidence recall@5 and hit@5 per method and query type, with the full pipelines.

    GEO_RAG_HOME=/path/to/corpus-home python scripts/ablate_retrieval.py [--dataset corpus] [--k 5]

Methods, all on the same answerable questions of the dataset (route forced to the question's type,
so the classifier's mistakes do not blur the retrieval comparison):

* ``dense``, ``bm25``: one retriever's top k for the question;
* ``bm25+names`` and ``rrf_hybrid+names@budget``: BM25 for the question plus up to four other
  names the vocabulary knows for each of its entities ("MSWD" + "mean square weighted deviation",
  "Hawaii" + "Hawaiian"), alone and in the first stage (not shipped: docs/experiments.md#the-ablation);
* ``rrf``: dense and BM25 fused by reciprocal rank (k=60, equal weights); ``rrf_hybrid``: fused as
  the hybrid routes fuse them (``base.HYBRID_FUSION``, printed in the header);
* ``rrf_hybrid@budget``: the same top k after the context is built (3,000-token budget: stitched
  passages give back end windows, then the last one is dropped);
* ``+graph_list@budget``: ``rrf_hybrid`` plus a third list, the chunks the question's graph facts
  come from, ranked by how many facts point at them (one hop of HippoRAG's entity–chunk walk);
* ``+compression@budget``: ``rrf_hybrid`` top k through sentence-relevance compression;
* ``baseline``: BaselineRAG as a user gets it (``ask(mode="baseline")``: its context's chunks);
* ``hybrid``: HybridRAG's routed strategy, refinement and context, as a user gets it;
* with ``--all-routes``, ``route <type>``: every question through each of the four routes (forced),
  whatever its type — which route is safest when the router is unsure or wrong.

A chunk holds a reference passage when the evaluation's partial-ratio match says so. Prints one table
(method × type, evidence recall@k / hit@k) and the seconds per question. Numbers are measured, not
asserted; the answers use the extractive generator (the answer is not what is measured).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", default="corpus")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--all-routes", action="store_true", help="also every question through every route")
    args = parser.parse_args(argv)

    from geo_assets.evaluation.answering import contexts_of
    from geo_assets.evaluation.dataset import load_eval_dataset, resolve_dataset
    from geo_assets.evaluation.retrieval_metrics import passage_matches
    from geo_rag_runtime.models import QUERY_TYPES
    from geo_rag_runtime.query.analysis import entity_alternatives
    from geo_rag_runtime.query.compression import compress_passages
    from geo_rag_runtime.query.context import build_context
    from geo_rag_runtime.query.graph_facts import graph_facts
    from geo_rag_runtime.query.question import prepare_question
    from geo_rag_runtime.query.strategies.base import HYBRID_FUSION
    from geo_rag_runtime.retrieval.fusion import fuse
    from geo_rag_runtime.retrieval.keyword import record_item
    from geo_rag_runtime.service import RagService
    from geo_rag_runtime.settings import get_settings
    from geo_rag_runtime.vocab import names_of

    k = args.k
    service = RagService(get_settings().model_copy(update={"generator": "extractive", "llm_steps": []}))
    resources = service.resources()
    tools = resources.tools
    if tools.sparse is None:
        raise SystemExit("the keyword index is missing: ingest first")
    budget = service.settings.context_token_budget

    def after_budget(items: list[Any]) -> list[str]:
        return [c.text for c in build_context(items[:k], [], resources.counter, budget).chunks]

    questions = [q for q in load_eval_dataset(resolve_dataset(args.dataset)) if q.answerable]
    pagerank = _PersonalizedPageRank(service.measurements(), tools.recognize)
    scores: dict[tuple[str, str], list[tuple[float, float]]] = {}
    seconds: dict[str, list[float]] = {}

    def record(method: str, qtype: str, passages: list[str], texts: list[str], started: float) -> None:
        seconds.setdefault(method, []).append(time.perf_counter() - started)
        found = [any(passage_matches(p, t) for t in texts[:k]) for p in passages]
        scores.setdefault((method, qtype), []).append((sum(found) / len(found), float(any(found))))

    for number, q in enumerate(questions, 1):
        passages = [p.text for p in q.reference_passages]
        question = prepare_question(q.question, 2000, tools.recognize)
        started = time.perf_counter()
        dense = tools.dense(question.search_text, 4 * k)
        record("dense", q.query_type, passages, [i.text for i in dense], started)
        started = time.perf_counter()
        sparse = tools.keyword(question.search_text, 4 * k)
        record("bm25", q.query_type, passages, [i.text for i in sparse], started)
        started = time.perf_counter()
        alternatives = entity_alternatives(question.text, question.entities, tools)
        names = " ".join(name for forms in alternatives.values() for name in forms[:4])
        named = tools.keyword(f"{question.search_text} {names}", 4 * k)
        record("bm25+names", q.query_type, passages, [i.text for i in named], started)
        named_tuned = fuse(dense, named, top_k=k, **HYBRID_FUSION)
        record("rrf_hybrid+names@budget", q.query_type, passages, after_budget(named_tuned), started)
        started = time.perf_counter()
        record("rrf", q.query_type, passages, [i.text for i in fuse(dense, sparse, top_k=k)], started)
        started = time.perf_counter()
        tuned = fuse(dense, sparse, top_k=k, **HYBRID_FUSION)
        record("rrf_hybrid", q.query_type, passages, [i.text for i in tuned], started)
        record("rrf_hybrid@budget", q.query_type, passages, after_budget(tuned), started)
        started = time.perf_counter()
        facts = graph_facts(question, q.query_type, tools, [], unavailable=None)
        walked = _chunks_of_facts(facts, tools)
        graph_fused = fuse(
            dense, sparse, walked, top_k=k, k=HYBRID_FUSION["k"], weights=(*HYBRID_FUSION["weights"], 1.0)
        )
        record("+graph_list@budget", q.query_type, passages, after_budget(graph_fused), started)
        started = time.perf_counter()
        first = fuse(dense, sparse, top_k=4 * k, **HYBRID_FUSION)
        ranked = pagerank.rank(names_of(question.entities), [i.chunk_id for i in first])
        records = {r["chunk_id"]: r for r in tools.sparse.records([cid for cid, _ in ranked[: 4 * k]])}
        walked = [record_item(records[cid], score, "ppr") for cid, score in ranked[: 4 * k] if cid in records]
        record("ppr", q.query_type, passages, [i.text for i in walked], started)
        ppr_fused = fuse(
            dense, sparse, walked, top_k=k, k=HYBRID_FUSION["k"], weights=(*HYBRID_FUSION["weights"], 1.0)
        )
        record("+ppr_list@budget", q.query_type, passages, after_budget(ppr_fused), started)
        started = time.perf_counter()
        compressed, _, _ = compress_passages(question.text, tuned[:k], tools)
        record("+compression@budget", q.query_type, passages, after_budget(compressed), started)
        for mode in ("baseline", "hybrid"):
            started = time.perf_counter()
            answer = service.ask(q.question, mode=mode, category=q.query_type)
            chunks = [c["text"] for c in contexts_of(answer)[0]]
            record(mode, q.query_type, passages, chunks, started)
        for route in QUERY_TYPES if args.all_routes else ():
            started = time.perf_counter()
            answer = service.ask(q.question, mode="hybrid", category=route)
            chunks = [c["text"] for c in contexts_of(answer)[0]]
            record(f"route {route.split('_')[0][:8]}", q.query_type, passages, chunks, started)
        if number % 20 == 0:
            print(f"{number}/{len(questions)}", file=sys.stderr, flush=True)

    types = [t for t in QUERY_TYPES if any(key[1] == t for key in scores)]
    print(
        f"evidence recall@{k} / hit@{k}, {len(questions)} answerable questions ({args.dataset}); {HYBRID_FUSION=}"
    )
    print(f"{'method':<16} " + " ".join(f"{t[:22]:>23}" for t in [*types, "all"]) + f" {'s/q':>6}")
    for method in seconds:
        cells = []
        for t in [*types, "all"]:
            values = [
                v for (m, qt), vs in scores.items() if m == method and (qt == t or t == "all") for v in vs
            ]
            recall = statistics.fmean(v[0] for v in values)
            hit = statistics.fmean(v[1] for v in values)
            cells.append(f"{recall:.3f} / {hit:.3f} (n={len(values)})".rjust(23))
        print(f"{method:<16} " + " ".join(cells) + f" {statistics.fmean(seconds[method]):>6.2f}")
    return 0


class _PersonalizedPageRank:
    """HippoRAG 2's passage ranking over our graph (see the module docstring for the weights).

    Built here from the document store (chunks and triples) rather than read from the graph store,
    so the walk sees exactly the recognizer's mentions; not in the runtime, since the ablation did not
    earn it a place there (docs/experiments.md#the-ablation)."""

    def __init__(
        self, documents: Any, recognize: Any, damping: float = 0.5, passage_weight: float = 0.05
    ) -> None:
        import numpy as np
        import scipy.sparse as sp

        from geo_rag_runtime.vocab import names_of

        self.damping, self.passage_weight = damping, passage_weight
        self.nodes: dict[tuple[str, str], int] = {}
        self.naming: dict[str, int] = {}  # entity → chunks that name it
        edges: dict[tuple[int, int], float] = {}

        def link(a: int, b: int) -> None:
            edges[(a, b)] = edges.get((a, b), 0.0) + 1.0
            edges[(b, a)] = edges.get((b, a), 0.0) + 1.0

        for paper in documents.papers():
            for chunk in documents.chunks_for_paper(paper["paper_id"]):
                node = self._node("chunk", chunk.chunk_id)
                for name in dict.fromkeys(names_of(recognize(chunk.text))):
                    self.naming[name] = self.naming.get(name, 0) + 1
                    link(node, self._node("entity", name))
            for triple in documents.triples_for_paper(paper["paper_id"]):
                link(self._node("entity", triple.head), self._node("entity", triple.tail))
        n = len(self.nodes)
        rows, cols = zip(*edges, strict=True) if edges else ((), ())
        adjacency = sp.csr_matrix((list(edges.values()), (rows, cols)), shape=(n, n))
        degree = np.maximum(np.asarray(adjacency.sum(axis=1)).ravel(), 1.0)
        self.transition = (sp.diags(1.0 / degree) @ adjacency).T.tocsr()
        self.chunks = [(key[1], i) for key, i in self.nodes.items() if key[0] == "chunk"]

    def _node(self, kind: str, name: str) -> int:
        return self.nodes.setdefault((kind, name), len(self.nodes))

    def rank(self, entities: list[str], first_stage: list[str | None]) -> list[tuple[str, float]]:
        """Chunk ids by PageRank mass, best first (empty when nothing seeds the walk)."""
        import numpy as np

        seed = np.zeros(len(self.nodes))
        for name in entities:
            if ("entity", name) in self.nodes:
                seed[self.nodes[("entity", name)]] += self.naming.get(name, 1) ** -0.5
        if seed.sum() > 0:
            seed /= seed.sum()
        for rank, chunk_id in enumerate(first_stage):
            if ("chunk", str(chunk_id)) in self.nodes:
                seed[self.nodes[("chunk", str(chunk_id))]] += self.passage_weight / (rank + 1)
        if seed.sum() == 0:
            return []
        seed /= seed.sum()
        mass = seed.copy()
        for _ in range(30):
            mass = (1 - self.damping) * seed + self.damping * (self.transition @ mass)
        return sorted(((cid, float(mass[i])) for cid, i in self.chunks), key=lambda x: -x[1])


def _chunks_of_facts(facts: list[Any], tools: Any) -> list[Any]:
    """The chunks graph facts were extracted from, most-pointed-at first, as retrieved items."""
    from collections import Counter

    from geo_rag_runtime.retrieval.keyword import record_item

    counts: Counter[str] = Counter(
        str(p["chunk_id"]) for f in facts for p in f.provenance if p.get("chunk_id")
    )
    ids = [chunk_id for chunk_id, _ in counts.most_common(20)]
    records = {r["chunk_id"]: r for r in tools.sparse.records(ids)} if tools.sparse else {}
    return [record_item(records[i], float(counts[i]), "graph") for i in ids if i in records]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
