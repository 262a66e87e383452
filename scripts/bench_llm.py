"""Benchmark of the local LLM: raw llama.cpp speed, then grounded answers through the shared server.

    GEO_RAG_HOME=data/home python scripts/bench_llm.py [--questions 6] [--dataset FILE]

Needs an ingested home (``geo-rag ingest``) and the ``[llm]`` extra. In one run it measures:

1. the floor — llama.cpp in process (``llama_cpp.Llama``, n_ctx 4096, 2 threads): load time, prompt
   tokens/s over a fixed ~330-token evidence prompt, generation tokens/s over 64 tokens;
2. the server — start until healthy, then for the first N dev questions (one per query type, in
   turn) a HybridRAG answer with the grounded generator: time to first streamed token, total time,
   the generation stage, and the select step's prompt tokens/s (from the server's usage counts),
   with its ratio to the floor's prompt speed;
3. peak RSS of the server process (VmHWM).
Prints a table; numbers are measured, never asserted in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

EVIDENCE = " ".join(
    [
        "[1] Zircon U–Pb ages of 410 ± 4 Ma (MSWD = 0.89) were measured by LA-ICP-MS on sample 19MAT-169.",
        "[2] The basalts have SiO2 of 45.2–49.8 wt.% and MgO of 6.1–9.4 wt.%, with 87Sr/86Sr of 0.7041–0.7052.",
        "[3] Oxidising conditions promote the crystallisation of magnetite, which removes Fe from the melt.",
    ]
    * 6
)


def raw_floor(model: Path) -> dict[str, float]:
    from llama_cpp import Llama

    started = time.perf_counter()
    llm = Llama(model_path=str(model), n_ctx=4096, n_threads=2, logits_all=False, verbose=False, seed=7)
    load_s = time.perf_counter() - started
    prompt = f"Evidence:\n{EVIDENCE}\n\nQuestion: Which ages were measured?\nAnswer:"
    n_prompt = len(llm.tokenize(prompt.encode()))
    started = time.perf_counter()
    llm.create_completion(prompt, max_tokens=1, temperature=0)
    prompt_s = time.perf_counter() - started
    started = time.perf_counter()
    out = llm.create_completion(prompt, max_tokens=64, temperature=0)  # prompt cached: mostly generation
    gen_s = time.perf_counter() - started
    n_gen = int(out["usage"]["completion_tokens"])
    del llm
    return {
        "load_s": load_s,
        "prompt_tokens": n_prompt,
        "prompt_tps": n_prompt / prompt_s,
        "gen_tps": n_gen / gen_s,
    }


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=6)
    parser.add_argument("--dataset", default=str(REPO / "data" / "evaluation" / "geochem_qa_v1.jsonl"))
    args = parser.parse_args(argv)

    from geo_rag_runtime import local_llm
    from geo_rag_runtime.service import RagService
    from geo_rag_runtime.settings import get_settings

    settings = get_settings()
    model = local_llm.pull(settings)
    floor = raw_floor(model)
    print(
        f"floor (llama.cpp in process): load {floor['load_s']:.1f} s, prompt {floor['prompt_tps']:.1f} tok/s "
        f"({floor['prompt_tokens']} tokens), generation {floor['gen_tps']:.1f} tok/s"
    )

    local_llm.stop(settings)
    started = time.perf_counter()
    state = local_llm.start(settings)
    print(f"server: healthy after {time.perf_counter() - started:.1f} s at {state.base_url}")

    rows = [json.loads(line) for line in Path(args.dataset).read_text().splitlines() if line.strip()]
    by_type: dict[str, list[dict]] = {}
    for row in rows:
        by_type.setdefault(row["query_type"], []).append(row)
    picked = []
    while len(picked) < args.questions and any(by_type.values()):
        for items in by_type.values():
            if items and len(picked) < args.questions:
                picked.append(items.pop(0))

    service = RagService(settings)
    service.warm_up()
    results = []
    print(
        f"{'question':<10} {'type':<24} {'ttft s':>7} {'total s':>8} {'gen s':>6} {'select tok/s':>12}  generator"
    )
    for row in picked:
        first: list[float] = []
        started = time.perf_counter()
        answer = service.ask(
            row["question"], on_text=lambda _piece, t=first: t.append(time.perf_counter()) if not t else None
        )
        total = time.perf_counter() - started
        ttft = (first[0] - started) if first else float("nan")
        client = service.llm()
        usage = getattr(client, "last_usage", {}) or {}
        gen_s = answer.timings_ms["generation"] / 1000
        select_tps = float("nan")
        if usage.get("prompt_tokens") and gen_s > 0:
            select_tps = usage["prompt_tokens"] / gen_s  # lower bound: the stage also writes the answer
        results.append({"ttft": ttft, "total": total, "gen": gen_s, "generator": answer.generator})
        print(
            f"{row['id']:<10} {row['query_type']:<24} {ttft:>7.1f} {total:>8.1f} {gen_s:>6.1f} "
            f"{select_tps:>12.1f}  {answer.generator}"
        )
    rss = peak_rss_mb(state.pid)
    ttfts = [r["ttft"] for r in results if r["ttft"] == r["ttft"]]
    totals = [r["total"] for r in results]
    print(
        f"p50 time to first token {statistics.median(ttfts) if ttfts else float('nan'):.1f} s, "
        f"p50 answer {statistics.median(totals):.1f} s, max {max(totals):.1f} s; "
        f"server peak RSS {rss:.0f} MB; answers by the model {sum(r['generator'] != 'extractive' for r in results)}/{len(results)}"
    )
    floor_answer = floor["prompt_tokens"] / floor["prompt_tps"] + 64 / floor["gen_tps"]
    print(
        f"ratio p50 answer / floor (one {floor['prompt_tokens']}-token prompt + 64 tokens): "
        f"{statistics.median(totals) / floor_answer:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
