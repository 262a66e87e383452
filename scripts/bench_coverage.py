"""Coverage benchmark: how much of each PDF's text layer the embedded parser carries into the text.

    .venv/bin/python scripts/bench_coverage.py FOLDER_OR_PDF ... [--json OUT]

For every PDF: the embedded parser (PDF → TEI → paper → cleaned text, as `geo-rag ingest` runs it
with no GROBID), with and without the recovery of lost pages (``geo_assets.ingest.recovery``), then the coverage measure of ``geo_assets.ingest.coverage`` (share of the pypdf
text layer's distinct words of ≥ 4 letters found in the cleaned text), the pages lost, and the
seconds taken. The floor in the same run is pypdf's own text extraction of the paper (the time to
read the text layer once), so the parser's cost is also given as a ratio to it. Prints one row per
paper and the median; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from geo_assets.ingest.cleaned_paper import clean_paper
from geo_assets.ingest.coverage import measure_coverage, text_layer
from geo_assets.ingest.pdf import pdf_to_tei
from geo_assets.ingest.recovery import recover_lost_text
from geo_assets.ingest.tei import tei_to_paper
from geo_rag_runtime import contract


def _pdfs(paths: list[Path]) -> list[Path]:
    out: list[Path] = []
    for path in paths:
        out.extend(sorted(path.glob("*.pdf")) if path.is_dir() else [path])
    return out


def measure(pdf: Path) -> dict[str, object]:
    started = time.perf_counter()
    layer = text_layer(pdf)
    pages, undecoded = layer.pages, layer.undecoded
    floor = time.perf_counter() - started
    started = time.perf_counter()
    sha = contract.file_sha256(pdf)
    try:
        tei = pdf_to_tei(pdf)
        paper = tei_to_paper(tei, paper_id=sha[:16], source_file=pdf.name, sha256=sha)
        parsed = clean_paper(paper).text
        recovered_paper, recovered = recover_lost_text(paper, pages, undecoded)
        text = clean_paper(recovered_paper).text
        error = ""
    except Exception as exc:  # a benchmark reports a failed paper and goes on
        parsed, text, recovered, error = "", "", [], f"{type(exc).__name__}: {exc}"
    seconds = time.perf_counter() - started
    coverage = measure_coverage(pages, text, undecoded)
    return {
        "file": pdf.name,
        "pages": len(pages),
        "parser_coverage": round(measure_coverage(pages, parsed, undecoded).share, 3),
        "coverage": round(coverage.share, 3),
        "recovered_pages": recovered,
        "added_chars": len(text) - len(parsed),
        "parsed_chars": len(parsed),
        "level": coverage.level,
        "reason": error or coverage.reason(),
        "seconds": round(seconds, 2),
        "floor_seconds": round(floor, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    rows = [measure(pdf) for pdf in _pdfs(args.paths)]
    print(
        "| paper | pages | parser alone | with recovery | text added | level | s | s / pypdf floor | reason |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        ratio = float(r["seconds"]) / max(float(r["floor_seconds"]), 1e-3)  # type: ignore[arg-type]
        print(
            f"| {r['file']} | {r['pages']} | {r['parser_coverage']:.3f} | {r['coverage']:.3f} | "
            f"{int(r['added_chars']) / max(int(r['parsed_chars']), 1):+.0%} | {r['level']} | "  # type: ignore[call-overload]
            f"{r['seconds']} | "
            f"{ratio:.1f} | {r['reason']} |"
        )
    shares = [float(r["coverage"]) for r in rows]  # type: ignore[arg-type]
    parser_alone = [float(r["parser_coverage"]) for r in rows]  # type: ignore[arg-type]
    if shares:
        print(
            f"\nparser alone: median coverage {statistics.median(parser_alone):.3f}, min {min(parser_alone):.3f}"
        )
        print(
            f"\nmedian coverage {statistics.median(shares):.3f} over {len(rows)} papers; "
            f"min {min(shares):.3f}; below 0.85: {sum(s < 0.85 for s in shares)}; "
            f"seconds per paper (median) {statistics.median(float(r['seconds']) for r in rows):.1f}"  # type: ignore[arg-type]
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
