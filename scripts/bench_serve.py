#!/usr/bin/env python
"""Serving speed beside its floor, in one run (issues 16, 34): what an answer costs over bare search.

On whatever GEO_RAG_HOME holds (the 17-paper corpus for the reported numbers), with new questions
(the hand-written corpus and dev evaluation sets, each question asked once per measurement, so no
answer or sentence cache is warm for it):

(a) the floor: a warm embedder and a bare dense top-5 over the vector store, per question, and its
    throughput with 8 threads — no answer can be cheaper;
(b) warm ``RagService.ask`` per mode and per labelled query type (p50/p95 end to end);
(c) a cold ``geo-rag ask`` (a new process, as a user types it), extractive generator;
(d) the same new questions answered in-process (a fresh ``RagService``, 1 and 8 threads) and over
    HTTP (``geo-rag serve``, 1 and 8 clients, after 16 unmeasured warm-up questions, as the
    in-process embedder is warm): answers/s and p50/p95 side by side, so the HTTP overhead is
    measured, not guessed;
(f) the answer cache: the HTTP questions asked again (8 clients): answers/s of hits, and the hit
    rate the server reports in ``/health`` — apart from the new-question throughput above;
(e) peak RSS of the server and of this process; whether the home's sentence vectors were used.

Times on a shared machine drift, so every line also gives its ratio to the floor measured in the
same run. Example:
``GEO_RAG_HOME=/tmp/hc GEO_RAG_GENERATOR=extractive GEO_RAG_LOCAL_LLM=false python scripts/bench_serve.py``
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
LEVELS = (1, 8)


@functools.cache
def _bench_runtime() -> Any:
    """scripts/bench_runtime.py (its HTTP load generator and offline environment), imported once
    from beside this file."""
    spec = importlib.util.spec_from_file_location("bench_runtime", REPO / "scripts" / "bench_runtime.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _questions() -> list[tuple[str, str]]:
    """(question, labelled type) of the corpus and dev sets, answerable ones first."""
    from geo_assets.evaluation.dataset import load_eval_dataset, resolve_dataset

    out: list[tuple[str, str]] = []
    for name in ("corpus", "dev"):
        items = load_eval_dataset(resolve_dataset(name))
        out += [(q.question, q.query_type) for q in sorted(items, key=lambda q: not q.answerable)]
    return list(dict.fromkeys(out))


def _p(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=float), q)) if values else float("nan")


def floor(service: Any, questions: list[str]) -> dict[str, Any]:
    """(a) embed + dense top-5, warm; sequential latency and 8-thread throughput."""
    embedder, vectors = service.embedder, service.vectors()
    embedder.embed_query("warm-up")
    latencies = []
    for question in questions:
        started = time.perf_counter()
        vectors.query(embedder.embed_query(question), top_k=5)
        latencies.append((time.perf_counter() - started) * 1000)

    def one(question: str) -> None:
        vectors.query(embedder.embed_query(question + " "), top_k=5)  # not the cached text

    started = time.perf_counter()
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(one, questions))
    wall = time.perf_counter() - started
    return {
        "questions": len(questions),
        "p50_ms": round(_p(latencies, 50), 1),
        "p95_ms": round(_p(latencies, 95), 1),
        "per_s_1_thread": round(1000 / statistics.fmean(latencies), 1),
        "per_s_8_threads": round(len(questions) / wall, 1),
    }


def warm(service: Any, questions: list[tuple[str, str]]) -> dict[str, Any]:
    """(b) warm asks, both modes, grouped by the questions' labelled types."""
    out: dict[str, Any] = {}
    for mode in ("hybrid", "baseline"):
        by_type: dict[str, list[float]] = {}
        for question, qtype in questions:
            answer = service.ask(question, mode=mode)
            by_type.setdefault(qtype, []).append(answer.timings_ms["total"])
        by_type["all"] = [v for values in by_type.values() for v in values]
        out[mode] = {
            t: {"n": len(v), "p50_ms": round(_p(v, 50), 1), "p95_ms": round(_p(v, 95), 1)}
            for t, v in by_type.items()
        }
    return out


def cold(question: str, runs: int) -> dict[str, Any]:
    """(c) ``geo-rag ask`` in a new process, wall clock."""
    walls = []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "geo_rag_runtime.cli", "ask", question],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        walls.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise SystemExit(f"cold ask failed: {done.stderr[-2000:]}")
    return {"runs": runs, "median_s": round(statistics.median(walls), 2), "min_s": round(min(walls), 2)}


def in_process(questions_by_level: dict[int, list[str]]) -> dict[str, Any]:
    """(d) a fresh service (answer cache off), each level's new questions from that many threads."""
    from geo_rag_runtime.service import RagService
    from geo_rag_runtime.settings import get_settings

    service = RagService(get_settings().model_copy(update={"answer_cache_entries": 0}))
    service.warm_up()
    out: dict[str, Any] = {}
    for level, questions in questions_by_level.items():
        latencies: list[float] = []

        def one(question: str, latencies: list[float] = latencies) -> None:
            sent = time.perf_counter()
            service.ask(question)
            latencies.append((time.perf_counter() - sent) * 1000)

        began = time.perf_counter()
        with ThreadPoolExecutor(level) as pool:
            list(pool.map(one, questions))
        wall = time.perf_counter() - began
        out[str(level)] = {
            "requests": len(latencies),
            "requests_per_s": round(len(latencies) / wall, 2),
            "latency_p50_ms": round(_p(latencies, 50), 1),
            "latency_p95_ms": round(_p(latencies, 95), 1),
        }
    out["stats"] = getattr(service, "stats", dict)()  # (older code: none)
    service.close()
    return out


def _load(base: str, questions: list[str], concurrency: int, timeout_s: float) -> dict[str, Any]:
    """``concurrency`` clients post ``questions`` (each once) to a running server."""
    import httpx

    token = os.environ.get("GEO_RAG_API_TOKEN")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    pending = iter(questions)
    lock = threading.Lock()
    latencies: list[float] = []
    errors: list[str] = []
    sizes: list[int] = []

    def client_loop() -> None:
        with httpx.Client(base_url=base, timeout=timeout_s, headers=headers) as client:
            while True:
                with lock:
                    question = next(pending, None)
                if question is None:
                    return
                sent = time.perf_counter()
                response = client.post("/ask", json={"question": question})
                elapsed = (time.perf_counter() - sent) * 1000
                with lock:
                    latencies.append(elapsed)
                    sizes.append(len(response.content))
                    if response.status_code != 200:
                        errors.append(f"{response.status_code}: {response.text[:200]}")

    threads = [threading.Thread(target=client_loop) for _ in range(concurrency)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    return {
        "requests": len(latencies),
        "errors": len(errors),
        "first_errors": errors[:3],
        "concurrency": concurrency,
        "wall_s": round(wall, 2),
        "requests_per_s": round(len(latencies) / wall, 2),
        "latency_p50_ms": round(_p(latencies, 50), 1),
        "latency_p95_ms": round(_p(latencies, 95), 1),
        "mean_response_kb": round(statistics.fmean(sizes) / 1024, 1) if sizes else 0.0,
    }


def serve(questions_by_level: dict[int, list[str]], warm_up: list[str], timeout_s: float) -> dict[str, Any]:
    """(d)+(f)+(e) one ``geo-rag serve``: ``warm_up`` questions first (not measured: this process's
    embedder is warm too), each level's new questions, then all of them again (hits)."""
    import httpx

    bench = _bench_runtime()
    port = bench._free_port()
    log = tempfile.TemporaryFile()  # noqa: SIM115 - not a pipe: an unread full pipe stalls the server
    server = subprocess.Popen(
        [sys.executable, "-m", "geo_rag_runtime.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=log,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    token = os.environ.get("GEO_RAG_API_TOKEN")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    out: dict[str, Any] = {}
    try:
        started = time.perf_counter()
        while True:
            if server.poll() is not None:
                log.seek(0)
                raise SystemExit(f"server exited: {log.read().decode(errors='replace')[-2000:]}")
            try:
                if httpx.get(f"{base}/health", timeout=2).status_code in (200, 503):
                    break
            except httpx.HTTPError:
                pass
            if time.perf_counter() - started > timeout_s:
                raise SystemExit("server did not start in time")
            time.sleep(0.5)
        out["startup_s"] = round(time.perf_counter() - started, 2)
        out["warm_up"] = _load(base, warm_up, 1, timeout_s)
        for level, questions in questions_by_level.items():
            out[str(level)] = _load(base, questions, level, timeout_s)
        again = [q for questions in questions_by_level.values() for q in questions]
        out["cached"] = _load(base, again, 8, timeout_s)
        health = httpx.get(f"{base}/health", headers=headers, timeout=30).json()
        out["answer_cache"] = health.get("answer_cache")
        out["sentence_vectors"] = health.get("sentence_vectors")
        out["server_rss_mb"] = bench._peak_rss_mb(server.pid)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--warm-questions", type=int, default=60)
    parser.add_argument(
        "--per-level", type=int, default=48, help="new questions per concurrency level (in-process and HTTP)"
    )
    parser.add_argument("--cold-runs", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args(argv)
    _bench_runtime().offline_environment()
    from geo_rag_runtime.service import RagService
    from geo_rag_runtime.settings import get_settings

    labelled = _questions()
    texts = [q for q, _ in labelled]
    service = RagService(get_settings())
    service.warm_up()
    result: dict[str, Any] = {
        "home": str(get_settings().home),
        "embedder": f"{type(service.embedder).__name__}",
        "generator": get_settings().generator,
    }
    result["floor"] = floor(service, texts[:100])
    result["warm"] = warm(service, labelled[100 : 100 + args.warm_questions])
    result["warm_stats"] = getattr(service, "stats", dict)()
    service.close()
    rest = texts[100 + args.warm_questions :]
    by_level: dict[int, list[str]] = {}
    for position, level in enumerate(LEVELS):
        chunk = rest[position * args.per_level : (position + 1) * args.per_level]
        if len(chunk) < args.per_level:
            chunk = texts[position * args.per_level : (position + 1) * args.per_level]
            result["note"] = "too few questions: some repeat the floor's or warm ones"
        by_level[level] = chunk
    result["in_process"] = in_process(by_level)
    result["bench_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    result["cold"] = cold(texts[0], args.cold_runs)
    result["serve"] = serve(by_level, texts[:16], args.timeout)  # floor questions: new to the server
    print_table(result)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2), encoding="utf-8")
    return 0


def print_table(r: dict[str, Any]) -> None:
    base_ms = r["floor"]["p50_ms"]
    base_rate = r["floor"]["per_s_8_threads"]
    print(f"home {r['home']}; embedder {r['embedder']}; generator {r['generator']}")
    print(f"{'measurement':<44}{'value':>22}{'ratio to floor':>18}")
    print(f"{'(a) floor: embed + dense top-5, p50':<44}{base_ms:>19.1f} ms{1.0:>18.2f}")
    print(f"{'(a) floor throughput, 8 threads':<44}{base_rate:>17.1f} /s{1.0:>18.2f}")
    for mode, types in r["warm"].items():
        for qtype, stats in types.items():
            label = f"(b) warm {mode} {qtype} (n={stats['n']}) p50/p95"
            value = f"{stats['p50_ms']:.0f} / {stats['p95_ms']:.0f} ms"
            print(f"{label:<44}{value:>22}{stats['p50_ms'] / base_ms:>18.1f}")
    cold_s = r["cold"]["median_s"]
    print(
        f"{'(c) cold geo-rag ask, median of ' + str(r['cold']['runs']):<44}{cold_s:>20.2f} s{cold_s * 1000 / base_ms:>18.0f}"
    )
    for level in (str(x) for x in LEVELS):
        for where, s in (("in-process", r["in_process"][level]), ("HTTP", r["serve"][level])):
            label = f"(d) {where} {level}: answers/s, p50/p95"
            value = f"{s['requests_per_s']:.2f}/s {s['latency_p50_ms']:.0f}/{s['latency_p95_ms']:.0f} ms"
            print(f"{label:<44}{value:>22}{s['requests_per_s'] / base_rate:>18.2f}")
            if s.get("errors"):
                print(f"    errors: {s['errors']} {s['first_errors']}")
        http, local = r["serve"][level], r["in_process"][level]
        print(
            f"    HTTP / in-process answers/s at {level}: {http['requests_per_s'] / local['requests_per_s']:.2f}"
        )
    hits = r["serve"]["cached"]
    cache = r["serve"].get("answer_cache") or {}
    label = "(f) HTTP 8 clients, repeated: answers/s, p50/p95"
    value = f"{hits['requests_per_s']:.2f}/s {hits['latency_p50_ms']:.0f}/{hits['latency_p95_ms']:.0f} ms"
    print(f"{label:<44}{value:>22}{hits['requests_per_s'] / base_rate:>18.2f}")
    print(
        f"    answer cache (server /health): hit rate {cache.get('hit_rate')}, hits {cache.get('hits')}, "
        f"misses {cache.get('misses')}, entries {cache.get('entries')}"
    )
    print(f"    sentence vectors (server): {r['serve'].get('sentence_vectors')}")
    print(f"    sentence vectors (warm service): {r.get('warm_stats', {}).get('sentence_vectors')}")
    print(f"{'(e) peak RSS: benchmark process':<44}{r['bench_rss_mb']:>19.1f} MB")
    if r["serve"].get("server_rss_mb"):
        print(f"{'(e) peak RSS: server':<44}{r['serve']['server_rss_mb']:>19.1f} MB")


if __name__ == "__main__":
    threading.excepthook = lambda hook: print(f"thread failed: {hook.exc_value}", file=sys.stderr)
    sys.exit(main())
