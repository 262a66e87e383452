#!/usr/bin/env python
"""Latency of the query service per stage, and HTTP throughput under concurrent clients.

Runs on whatever GEO_RAG_HOME holds (default ``data/home``; run ``geo-rag ingest`` first):

1. one RagService, warmed up (models loaded, stores opened; the warm-up time is reported apart);
2. every question of QUESTIONS (100 geochemistry questions over the five sample papers, cycled
   when ``--questions`` asks for more) through HybridRAG and through BaselineRAG: p50 and p95 of
   each stage (classification, vector, graph, fusion, generation) and end to end;
3. ``geo-rag serve`` started in a subprocess on a free loopback port; ``--concurrency`` threads
   (8) with their own HTTP client post ``/ask`` until ``--requests`` answers came back:
   requests per second and the client-side latency.

Example: ``GEO_RAG_HOME=data/home python scripts/bench_runtime.py --json bench.json``
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
STAGES = ("classification", "vector", "graph", "fusion", "generation", "total")

# Varied on purpose: the four query types, all five sample papers, notation, short and long wording.
QUESTIONS: tuple[str, ...] = (
    # Vermeesch & Pease 2021: tholeiitic vs calc-alkaline magma series
    "What distinguishes the tholeiitic from the calc-alkaline magma series?",
    "Which diagram is traditionally used to separate tholeiitic and calc-alkaline rocks?",
    "How does magnetite crystallisation affect iron enrichment in calc-alkaline magmas?",
    "Why do tholeiitic magmas show stronger iron enrichment than calc-alkaline magmas?",
    "What is the Bowen-Fenner index?",
    "What role does the oxidation state of the magma play in the calc-alkaline trend?",
    "Which tectonic settings produce tholeiitic basalts such as those of Iceland?",
    "How is the AFM diagram constructed from Na2O, K2O, FeOT and MgO?",
    "What factors control whether a magma follows a tholeiitic or a calc-alkaline trend?",
    "Why are calc-alkaline rocks common in subduction zones?",
    "What training data were used to define the tholeiitic and calc-alkaline fields?",
    "How does water content influence the crystallisation sequence of arc magmas?",
    "What evidence suggests that the calc-alkaline series forms under oxidising conditions?",
    "Which samples from the Aleutians and Cascades were compared?",
    "How does the ratio FeOT/MgO change during differentiation?",
    "Why would a genetic classification be preferable to a purely descriptive one?",
    "What is the role of olivine and pyroxene in removing ferrous iron?",
    "How are kernel density estimates used to compare the two magma series?",
    "What criteria define the boundary between the tholeiitic and calc-alkaline fields?",
    "Why does the log-ratio diagram show a change in slope during magma evolution?",
    # Keller et al. 2018: zircon eruption ages
    "How is the eruption age estimated from a population of zircon ages?",
    "What is the relationship between zircon saturation and eruption age?",
    "Why do some zircons crystallise long before eruption?",
    "What is a Bayesian eruption age estimate?",
    "How does the weighted mean compare with the youngest zircon as an eruption age estimate?",
    "What analytical method gives the most precise zircon U-Pb ages?",
    "Which factors influence the accuracy of a zircon eruption age?",
    "What does the ratio Δt/σ describe in zircon geochronology?",
    "Why can the youngest zircon age postdate the true eruption?",
    "How does the number of analysed zircons affect the eruption age estimate?",
    "What is the relative zircon crystallisation distribution?",
    "How does Markov chain Monte Carlo sampling estimate the eruption age?",
    "Why might antecrysts bias a weighted-mean zircon age?",
    "What is CA-ID-TIMS?",
    "How does open-system behaviour affect zircon U-Pb dates?",
    "What happens to zircon crystallisation when magma cools to the solidus?",
    "What evidence shows that zircon ages record a protracted crystallisation interval?",
    "How were the well-known volcanic zircon populations used to test the method?",
    "Why is an abrupt truncation of the zircon age distribution expected at eruption?",
    "What is the MSWD and why is it used to judge weighted means?",
    # McNab & Ball 2023: meltPT thermobarometry
    "What does the meltPT Python package calculate?",
    "How are the pressure and temperature of mantle melting estimated from basalt compositions?",
    "Which thermobarometers are implemented in meltPT?",
    "Why must olivine be added back to a basalt before thermobarometry?",
    "What is the mantle potential temperature beneath Hawai'i according to meltPT?",
    "How does the Fe3+/Fe ratio affect the thermobarometric results?",
    "What is the role of the water content in the primary melt calculation?",
    "How are melting paths fitted to the pressure-temperature estimates?",
    "What factors influence the accuracy of whole-rock thermobarometry?",
    "Why do basalts from Hawai'i record higher melting temperatures than mid-ocean ridge basalts?",
    "What is backtracking of olivine fractionation?",
    "Which samples were selected for the thermobarometric analysis?",
    "How does source lithology affect estimates of melting pressure?",
    "What is a primary melt composition?",
    "How is the uncertainty of the pressure and temperature estimates propagated?",
    "Why are only samples with MgO above a threshold used?",
    "What are the assumptions of the Plank and Forsyth thermobarometer?",
    "How does meltPT compare with the Lee et al. thermobarometer?",
    "What is pyMelt and how is it used together with meltPT?",
    "Why would lithospheric thickness limit the depth of melting?",
    # Zhu et al. 2024: Mongol-Okhotsk Ocean and a Devonian mantle plume
    "When did the Mongol-Okhotsk Ocean open?",
    "What evidence supports a Devonian mantle plume in the Mongol-Okhotsk region?",
    "How can a mantle plume assist the opening of an ocean in an accretionary orogen?",
    "What is a Wilson cycle?",
    "Which geochemical signatures indicate ocean island basalt affinity?",
    "What zircon U-Pb ages were obtained for the Devonian magmatic rocks?",
    "How do εHf values of zircon constrain the magma source?",
    "Why do intraplate basalts differ from arc basalts in Nb and Ta?",
    "What role did the Central Asian Orogenic Belt play in the opening of the ocean?",
    "How do whole-rock trace element patterns distinguish plume-related basalts?",
    "What factors control the break-up of an accretionary orogen?",
    "Why is the opening of an ocean within an accretionary orogen unusual?",
    "Which rock types were sampled in Mongolia?",
    "What is the significance of high-Ti basalts?",
    "How do Sr and Nd isotopes constrain the mantle source of the basalts?",
    "What could explain bimodal volcanism during continental rifting?",
    "How did the Mongol-Okhotsk Ocean close?",
    "What are the implications of the plume for the Paleozoic tectonics of Central Asia?",
    "Which analytical methods were used for the zircon Hf isotope analyses?",
    "Why do large igneous provinces often accompany continental break-up?",
    # Li & Vermeesch 2021: inverse isochron regression
    "What is an inverse isochron?",
    "Why is inverse isochron regression useful for Re–Os and K–Ca geochronology?",
    "How does the error correlation between isotope ratios affect isochron regression?",
    "What is the 187Os/188Os ratio used for?",
    "Which chronometers have abundant radiogenic daughter isotopes?",
    "How is the York regression algorithm used for isochrons?",
    "Why do conventional isochrons suffer from strong error correlations?",
    "What software implements the inverse isochron method?",
    "How is the initial ratio obtained from an inverse isochron?",
    "What factors influence the precision of a Re-Os isochron age?",
    "Why would the K-Ca system need a different normalisation isotope?",
    "How does the choice of the normalising isotope change the isochron?",
    "What is the decay constant of 187Re?",
    "What is the difference between a normal and an inverse isochron?",
    "How are the uncertainties of an isochron age calculated?",
    "Why can spurious correlations arise when ratios share a common denominator?",
    # cross-paper and hidden-rationale questions
    "Why do isotopes fractionate under high pressure?",
    "How does mineral composition affect element diffusion in magmas?",
    "What could explain anomalously old zircon ages in a young volcanic rock?",
    "Which statistical methods are used across these geochemistry papers?",
)


def offline_environment() -> None:
    """No hub downloads and no telemetry in this process and the servers it starts (unless set)."""
    for key, value in {
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
    }.items():
        os.environ.setdefault(key, value)


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=float), q)) if values else float("nan")


def run_service(questions: list[str], modes: list[str], cold_cache: bool = False) -> dict[str, Any]:
    """Ask every question in every mode; per-stage p50/p95 (ms) and what ran.

    Each mode gets its own service, so neither inherits the other's sentence-vector cache; within
    a mode the cache fills as it would in a long-running server; ``cold_cache`` empties it before
    every question (the cost of a question whose passages nobody asked about before).
    """
    from geo_rag_runtime.service import RagService
    from geo_rag_runtime.settings import get_settings

    out: dict[str, Any] = {"modes": {}}
    for mode in modes:
        service = RagService(get_settings())
        started = time.perf_counter()
        health = service.warm_up()
        warm_s = time.perf_counter() - started
        if health["status"] == "unavailable":
            raise SystemExit(f"the stores are not usable: {health['vectors'].get('error')}")
        out.setdefault("warm_up_s", round(warm_s, 2))  # the first includes loading the models
        out["health"] = health
        timings: dict[str, list[float]] = {stage: [] for stage in STAGES}
        strategies: dict[str, int] = {}
        generators: dict[str, int] = {}
        not_found = 0
        for question in questions:
            if cold_cache:
                service.scorer().cache.clear()
            answer = service.ask(question, mode=mode)  # type: ignore[arg-type]
            for stage in STAGES:
                timings[stage].append(answer.timings_ms[stage])
            key = answer.strategy.split("(")[0]
            strategies[key] = strategies.get(key, 0) + 1
            generators[answer.generator] = generators.get(answer.generator, 0) + 1
            not_found += answer.answer == "Not found in the corpus."
        cache = service.scorer().cache
        out["modes"][mode] = {
            "questions": len(questions),
            "p50_ms": {s: round(percentile(v, 50), 1) for s, v in timings.items()},
            "p95_ms": {s: round(percentile(v, 95), 1) for s, v in timings.items()},
            "mean_ms": {s: round(statistics.fmean(v), 1) for s, v in timings.items()},
            "strategies": strategies,
            "generators": generators,
            "not_found": not_found,
            "sentence_cache": {"hits": cache.hits, "misses": cache.misses},
        }
        service.close()
    return out


def _peak_rss_mb(pid: int) -> float | None:
    """Peak resident memory of a live process (Linux /proc), or None elsewhere."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_server(questions: list[str], requests: int, concurrency: int, timeout_s: float) -> dict[str, Any]:
    """Throughput of ``geo-rag serve`` on loopback under ``concurrency`` clients."""
    import httpx

    port = _free_port()
    token = os.environ.get("GEO_RAG_API_TOKEN")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    server = subprocess.Popen(
        [sys.executable, "-m", "geo_rag_runtime.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # own process group: stopped as a whole below
    )
    base = f"http://127.0.0.1:{port}"
    try:
        started = time.perf_counter()
        while True:
            if server.poll() is not None:
                raise SystemExit(f"server exited: {server.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            try:
                if httpx.get(f"{base}/health", timeout=2).status_code in (200, 503):
                    break
            except httpx.HTTPError:
                pass
            if time.perf_counter() - started > timeout_s:
                raise SystemExit("server did not start in time")
            time.sleep(0.5)
        startup_s = time.perf_counter() - started
        counter = iter(range(requests))
        lock = threading.Lock()
        latencies: list[float] = []
        errors: list[str] = []

        def client_loop() -> None:
            with httpx.Client(base_url=base, timeout=timeout_s, headers=headers) as client:
                while True:
                    with lock:
                        index = next(counter, None)
                    if index is None:
                        return
                    question = questions[index % len(questions)]
                    sent = time.perf_counter()
                    response = client.post("/ask", json={"question": question})
                    elapsed = (time.perf_counter() - sent) * 1000
                    with lock:
                        latencies.append(elapsed)
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
            "server_rss_mb": _peak_rss_mb(server.pid),
            "startup_s": round(startup_s, 2),
            "requests": len(latencies),
            "errors": len(errors),
            "first_errors": errors[:3],
            "concurrency": concurrency,
            "wall_s": round(wall, 2),
            "requests_per_s": round(len(latencies) / wall, 2),
            "latency_p50_ms": round(percentile(latencies, 50), 1),
            "latency_p95_ms": round(percentile(latencies, 95), 1),
        }
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def print_table(result: dict[str, Any]) -> None:
    cache = (
        "emptied before every question" if result["service"].get("cold_cache") else "kept across questions"
    )
    print(
        f"warm-up (models loaded, stores opened): {result['service']['warm_up_s']} s; sentence cache {cache}"
    )
    header = f"{'mode':<9}{'stat':<6}" + "".join(f"{s:>16}" for s in STAGES)
    print(header)
    print("-" * len(header))
    for mode, data in result["service"]["modes"].items():
        for stat in ("p50_ms", "p95_ms"):
            print(f"{mode:<9}{stat[:3]:<6}" + "".join(f"{data[stat][s]:>14.1f}ms" for s in STAGES))
    for mode, data in result["service"]["modes"].items():
        print(
            f"{mode}: {data['questions']} questions; strategies {data['strategies']}; "
            f"generators {data['generators']}; not found {data['not_found']}; "
            f"sentence-vector cache {data['sentence_cache']}"
        )
    server = result.get("server")
    if server:
        print(
            f"server: {server['requests']} requests from {server['concurrency']} clients in {server['wall_s']} s "
            f"= {server['requests_per_s']} requests/s; latency p50 {server['latency_p50_ms']} ms, "
            f"p95 {server['latency_p95_ms']} ms; errors {server['errors']}; start-up {server['startup_s']} s"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--questions", type=int, default=100, help="questions per mode (cycled)")
    parser.add_argument("--modes", default="hybrid,baseline")
    parser.add_argument("--requests", type=int, default=64, help="HTTP requests in the throughput run")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--skip-server", action="store_true")
    parser.add_argument(
        "--cold-cache", action="store_true", help="empty the sentence-vector cache before every question"
    )
    parser.add_argument(
        "--timeout", type=float, default=300.0, help="seconds for server start and each request"
    )
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args(argv)
    offline_environment()
    questions = [QUESTIONS[i % len(QUESTIONS)] for i in range(args.questions)]
    result: dict[str, Any] = {"service": run_service(questions, args.modes.split(","), args.cold_cache)}
    result["service"]["cold_cache"] = args.cold_cache
    if not args.skip_server:
        result["server"] = run_server(questions, args.requests, args.concurrency, args.timeout)
    print_table(result)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
