"""Benchmark of the retrieval stack on the whole shared corpus.

Chunks every PDF with the ingest pipeline's functions (geo_assets.ingest.pipeline), embeds the chunks, fills an embedded Chroma and the BM25 index in a scratch home, and
reports embedding throughput, index sizes on disk, BM25 rebuild time, and p50/p95 latency plus
hit@5 / MRR of the paper that answers, for dense, sparse and fused retrieval over 51 questions.

    python scripts/bench_retrieval.py [--papers DIR] [--home DIR] [--top-k 5] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

REPO = Path(__file__).resolve().parents[1]
DEFAULT_PAPERS = Path(os.environ.get("GEO_RAG_SHARED", REPO.parent / "shared")) / "corpus" / "papers"

# (question, file-name prefix of the paper that answers it)
QUESTIONS: list[tuple[str, str]] = [
    (
        "How can igneous rocks be classified into the tholeiitic and calc-alkaline magma series?",
        "VermeeschPease2021",
    ),
    ("What is the Bowen-Fenner index computed from Na2O + K2O, FeOT and MgO?", "VermeeschPease2021"),
    ("Why does the tholeiitic log-ratio trend show a dog-leg in Iceland lavas?", "VermeeschPease2021"),
    ("Do zircon U-Pb crystallization ages give the eruption age of a volcanic rock?", "Keller2018"),
    ("Does a low MSWD guarantee an accurate weighted-mean zircon age?", "Keller2018"),
    ("How can zircon saturation be used as a Bayesian prior for the eruption time?", "Keller2018"),
    ("What caused the Great Unconformity in the Neoproterozoic?", "Keller2019"),
    ("How much crust was eroded by Snowball Earth glaciations?", "Keller2019"),
    ("What do zircon Hf and δ18O records say about glacial erosion before the Cambrian?", "Keller2019"),
    ("What is an inverse isochron in Re–Os geochronology?", "LiVermeesch2021"),
    ("How does plotting 188Os/187Os against 187Re/187Os reduce error correlations?", "LiVermeesch2021"),
    ("Can inverse isochrons be applied to the K–Ca, Rb–Sr, Sm–Nd and Lu–Hf methods?", "LiVermeesch2021"),
    (
        "What are the limitations of the Kolmogorov-Smirnov statistic for detrital age distributions?",
        "LippVermeesch2023",
    ),
    ("Why use the Wasserstein-2 distance to compare detrital zircon age populations?", "LippVermeesch2023"),
    ("How does the W2 distance depend on horizontal age differences between samples?", "LippVermeesch2023"),
    ("Which whole-rock thermobarometers does the meltPT package implement?", "McNabBall2023"),
    ("What mantle potential temperature do mid-ocean ridge basalts indicate?", "McNabBall2023"),
    ("What is the excess temperature of the Hawaiian plume?", "McNabBall2023"),
    (
        "How can zircons be located in a thin section by SEM/EDS phase mapping before LA-ICP-MS?",
        "Vermeesch2017",
    ),
    ("What weighted mean age was found for the Guernsey granite zircons?", "Vermeesch2017"),
    ("How does automated phase mapping help in situ petrochronology?", "Vermeesch2017"),
    ("Which statistical distance is appropriate for compositional provenance data?", "Vermeesch2019"),
    ("How should point-counting data such as heavy mineral compositions be compared?", "Vermeesch2019"),
    ("What does the provenance R package offer for multidimensional scaling of sediments?", "Vermeesch2019"),
    ("How can 208Pb/232Th be combined with 206Pb/238U and 207Pb/235U in one isochron?", "Vermeesch2020"),
    ("How is common Pb estimated in a total-Pb/U-Th regression?", "Vermeesch2020"),
    ("What is a 208Pbc/206Pb versus 238U/206Pb isochron?", "Vermeesch2020"),
    ("Should discordant zircon U-Pb data use the 206Pb/238U or the 207Pb/206Pb date?", "Vermeesch2021"),
    ("How can the discordance of a U-Pb analysis be defined?", "Vermeesch2021"),
    ("What are single-grain concordia ages?", "Vermeesch2021"),
    ("How should SIMS U-Pb data be reduced using log-ratio statistics?", "Vermeesch2022"),
    ("How does Poisson noise of secondary electron multiplier detectors affect SIMS data?", "Vermeesch2022"),
    (
        "Why can ratio estimates of SIMS measurements become negative with existing algorithms?",
        "Vermeesch2022",
    ),
    (
        "How can proton-induced 3He serve as a proxy for laser ablation pit volume?",
        "Vermeesch2023_Geochronology",
    ),
    ("What limits in situ U–Th–He dating by laser ablation?", "Vermeesch2023_Geochronology"),
    (
        "How is the U-Th-He age equation solved with relative concentrations and a standard?",
        "Vermeesch2023_Geochronology",
    ),
    (
        "How can multidimensional scaling be applied to varietal provenance data?",
        "Vermeesch2023_JGREarthSurface",
    ),
    (
        "What is the treatment-by-row method for lists of compositional data tables?",
        "Vermeesch2023_JGREarthSurface",
    ),
    (
        "How are Procrustes analysis and 3-way MDS used for single-mineral data?",
        "Vermeesch2023_JGREarthSurface",
    ),
    ("How should overdispersed isochron data (errorchrons) be handled?", "Vermeesch2024"),
    ("How can an isochron be anchored to a fixed non-radiogenic composition or age?", "Vermeesch2024"),
    ("What are the limitations of York regression for isochrons?", "Vermeesch2024"),
    ("How do HeFTy and QTQt differ in inverse thermal history modelling?", "VermeeschTian2014"),
    (
        "Is a Bayesian or a frequentist approach better for thermochronological t-T paths?",
        "VermeeschTian2014",
    ),
    ("Why are fission track and (U-Th)/He thermal history models hard to interpret?", "VermeeschTian2014"),
    ("What caused the opening of the Mongol–Okhotsk Ocean?", "Zhu2024"),
    (
        "Which bimodal volcanic suite indicates Early Devonian extension in the Central Asian Orogenic Belt?",
        "Zhu2024",
    ),
    ("Did a Devonian mantle plume weaken the lithosphere of the Altay-Sayan rift system?", "Zhu2024"),
    ("What paleomagnetic rotations are recorded in the Sierra Madre Oriental?", "GuerraRoel2024"),
    ("Was the Mexican Fold and Thrust Belt bent into an orocline during the Cretaceous?", "GuerraRoel2024"),
    ("When were the Mesozoic units of northeastern Mexico remagnetized?", "GuerraRoel2024"),
]


def chunk_corpus(papers: list[Path]) -> tuple[list[Any], str]:
    """Chunks of every paper (512 tokens, 100 overlap) and the route that produced them."""
    from geo_assets.ingest.pipeline import chunks_from_pdf
    from geo_rag_runtime.settings import get_settings

    settings = get_settings(chunk_tokens=512, chunk_overlap=100)
    chunks: list[Any] = []
    for path in papers:
        chunks.extend(chunks_from_pdf(path, settings)[1])
    return chunks, "pipeline (pdf_to_tei -> tei_to_paper -> clean_paper -> chunk_paper)"


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--papers", type=Path, default=DEFAULT_PAPERS)
    parser.add_argument("--home", type=Path, default=None, help="GeoRAG home to fill (default: a temp dir)")
    parser.add_argument("--top-k", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None, help="also write the numbers as JSON")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(REPO))
    from geo_rag_runtime.embeddings import get_embedder
    from geo_rag_runtime.retrieval import KeywordRetriever, VectorRetriever, fuse
    from geo_rag_runtime.settings import get_settings
    from geo_rag_runtime.stores.sparse import SparseIndex
    from geo_rag_runtime.stores.vectors import ChromaVectorStore

    papers = sorted(args.papers.glob("*.pdf"))
    if not papers:
        print(f"no PDFs in {args.papers}", file=sys.stderr)
        return 2
    scratch = None if args.home else tempfile.TemporaryDirectory(prefix="georag-bench-")
    home = args.home or Path(scratch.name)  # type: ignore[union-attr]
    settings = get_settings(home=home, chroma_host=None)
    report: dict[str, Any] = {"papers": len(papers), "home": str(home)}

    started = time.perf_counter()
    chunks, route = chunk_corpus(papers)
    report["chunking_s"] = round(time.perf_counter() - started, 1)
    report["chunk_route"] = route
    report["chunks"] = len(chunks)
    report["chunk_tokens_mean"] = round(statistics.mean(c.token_count for c in chunks), 1)
    print(f"{len(papers)} papers -> {len(chunks)} chunks in {report['chunking_s']} s via {route}", flush=True)

    embedder = get_embedder(settings)
    started = time.perf_counter()
    embedder.embed_documents(["warm-up: load the model"])
    report["model_load_s"] = round(time.perf_counter() - started, 1)
    windows = sum(len(embedder.windows(c.text)) for c in chunks) if hasattr(embedder, "windows") else None
    started = time.perf_counter()
    vectors = embedder.embed_documents([c.text for c in chunks])
    embed_s = time.perf_counter() - started
    report.update(
        embedding_model=embedder.identity,
        embed_s=round(embed_s, 1),
        chunks_per_s=round(len(chunks) / embed_s, 2),
        model_windows=windows,
        windows_per_s=round(windows / embed_s, 2) if windows else None,
    )
    print(
        f"embedded {len(chunks)} chunks ({windows} model windows) in {embed_s:.1f} s: "
        f"{report['chunks_per_s']} chunks/s",
        flush=True,
    )

    by_paper: dict[str, list[int]] = {}
    for row, chunk in enumerate(chunks):
        by_paper.setdefault(chunk.paper_id, []).append(row)
    store = ChromaVectorStore(settings)
    index = SparseIndex(settings)
    started = time.perf_counter()
    for rows in by_paper.values():
        store.upsert_chunks([chunks[r] for r in rows], vectors[rows], embedder.identity)
    report["chroma_upsert_s"] = round(time.perf_counter() - started, 2)
    started = time.perf_counter()
    for paper_id, rows in by_paper.items():
        index.upsert_paper(paper_id, [chunks[r] for r in rows])
    report["bm25_upserts_s"] = round(time.perf_counter() - started, 2)
    rebuilds = []
    for _ in range(3):
        index.rebuild()
        rebuilds.append(index.last_build_s or 0.0)
    report["bm25_full_rebuild_s"] = round(statistics.median(rebuilds), 3)
    report["chroma_bytes"] = folder_bytes(home / "chroma")
    report["bm25_bytes"] = folder_bytes(home / "sparse")
    report["bm25_index_bytes"] = folder_bytes(home / "sparse" / "index")
    print(
        f"chroma {report['chroma_bytes'] / 1e6:.1f} MB, bm25 {report['bm25_bytes'] / 1e6:.1f} MB "
        f"(matrices {report['bm25_index_bytes'] / 1e6:.1f} MB); full BM25 rebuild "
        f"{report['bm25_full_rebuild_s']} s",
        flush=True,
    )

    reader = ChromaVectorStore(settings, read_only=True)
    dense = VectorRetriever(reader, embedder, top_k=args.top_k)
    sparse = KeywordRetriever(SparseIndex(settings), top_k=args.top_k)
    file_of = {c.paper_id: c.source_file for c in chunks}
    dense.retrieve("warm-up question about zircon")
    sparse.retrieve("warm-up question about zircon")
    timings: dict[str, list[float]] = {"dense": [], "sparse": [], "fused": []}
    hits: dict[str, list[int]] = {"dense": [], "sparse": [], "fused": []}
    reciprocal: dict[str, list[float]] = {"dense": [], "sparse": [], "fused": []}
    for question, expected in QUESTIONS:
        t0 = time.perf_counter()
        dense_items = dense.retrieve(question)
        t1 = time.perf_counter()
        sparse_items = sparse.retrieve(question)
        t2 = time.perf_counter()
        fused_items = fuse(dense_items, sparse_items, top_k=args.top_k)
        t3 = time.perf_counter()
        timings["dense"].append((t1 - t0) * 1000)
        timings["sparse"].append((t2 - t1) * 1000)
        timings["fused"].append((t3 - t0) * 1000)  # both retrievers and the fusion
        for name, items in (("dense", dense_items), ("sparse", sparse_items), ("fused", fused_items)):
            files = [file_of.get(i.paper_id or "", "") for i in items]
            rank = next((n for n, f in enumerate(files, start=1) if f.startswith(expected)), None)
            hits[name].append(1 if rank else 0)
            reciprocal[name].append(1 / rank if rank else 0.0)
    report["questions"] = len(QUESTIONS)
    print(f"\n{len(QUESTIONS)} questions, top {args.top_k}:")
    print(f"{'retriever':<10}{'p50 ms':>10}{'p95 ms':>10}{'hit@k':>10}{'MRR':>8}")
    for name in ("dense", "sparse", "fused"):
        stats: dict[str, float] = {
            "p50_ms": round(percentile(timings[name], 0.50), 1),
            "p95_ms": round(percentile(timings[name], 0.95), 1),
            "hit_at_k": round(sum(hits[name]) / len(QUESTIONS), 3),
            "mrr": round(statistics.mean(reciprocal[name]), 3),
        }
        report[name] = stats
        print(f"{name:<10}{stats['p50_ms']:>10}{stats['p95_ms']:>10}{stats['hit_at_k']:>10}{stats['mrr']:>8}")
    print(json.dumps(report, indent=2, default=str))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str))
    reader.close()
    store.close()
    if scratch is not None:
        scratch.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
