"""Benchmark of the text stages every chunk and question goes through: keyword normalization,
token counting with the embedding model's tokenizer, and entity recognition.

    python scripts/bench_text.py [PDF ...]      (default: the five papers in data/papers)

Each stage runs over the real text of the papers (pypdf), best of 3 runs after a warm-up, and is
reported beside a floor measured in the same run on the same text: ``str.split`` for word-level
stages and ``re.finditer`` over sentence ends for the recognizer. Ratios to the floor stay
comparable when the machine's absolute speed drifts. Timings are reported, never asserted in tests.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pypdf

from geo_rag_runtime.settings import Settings
from geo_rag_runtime.text.keyword_terms import normalize_tokens
from geo_rag_runtime.text.sentences import split_sentences
from geo_rag_runtime.text.tokenizer import get_token_counter
from geo_rag_runtime.vocab import recognize

REPO = Path(__file__).resolve().parents[1]


def best_of(fn: Callable[[], object], runs: int = 3) -> float:
    """Best wall time of ``runs`` calls after one warm-up call (caches and compiled regexes)."""
    fn()
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def main(argv: list[str]) -> int:
    pdfs = [Path(a) for a in argv] or sorted((REPO / "data" / "papers").glob("*.pdf"))
    text = "\n".join(page.extract_text() or "" for pdf in pdfs for page in pypdf.PdfReader(pdf).pages)
    flat = re.sub(r"\s+", " ", text)
    words = len(text.split())
    sentences = [flat[s:e] for s, e in split_sentences(flat)]
    counter = get_token_counter(Settings())
    tokens = counter.count(text)
    print(f"{len(pdfs)} papers: {words:,} words, {tokens:,} word pieces, {len(sentences):,} sentences")

    floor_words = best_of(lambda: text.split())
    floor_sentences = best_of(lambda: sum(1 for _ in re.finditer(r"[.!?]\s", flat)))
    rows = [
        ("floor: str.split", words / floor_words, "words/s", 1.0),
        (
            "normalize_tokens",
            words / (t := best_of(lambda: normalize_tokens(text))),
            "words/s",
            t / floor_words,
        ),
        (
            "token count (MiniLM)",
            tokens / (t := best_of(lambda: counter.count(text))),
            "pieces/s",
            t / floor_words,
        ),
        ("floor: sentence regex", len(sentences) / floor_sentences, "sentences/s", 1.0),
        (
            "recognize (per sentence)",
            len(sentences) / (t := best_of(lambda: [recognize(s) for s in sentences])),
            "sentences/s",
            t / floor_sentences,
        ),
    ]
    print(f"{'stage':<26} {'rate':>14} {'unit':<12} {'time / floor':>12}")
    for name, rate, unit, ratio in rows:
        print(f"{name:<26} {rate:>14,.0f} {unit:<12} {ratio:>12.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
