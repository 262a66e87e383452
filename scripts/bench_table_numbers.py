"""Table-number benchmark without gold: how many numbers printed on a PDF's data lines reach the
table rows that ingest stores.

    .venv/bin/python scripts/bench_table_numbers.py FOLDER_OR_PDF ... [--json OUT] [--worst N]

Hand-labelled table gold is scarce (a few hundred cells, ``data/benchmark/unseen``), so a table the
reader loses on a new paper shows up nowhere until someone labels it. This proxy needs no labels:
on each page of the text layer (pypdf, layout mode) a *data line* is one with four or more number
tokens that make up at least half its tokens — a table row, as a reader sees one. Each of its
numbers counts as found when a table row ``paper_measurements`` stores for that page (the rows of
``geo-rag ingest``: embedded parser, page recovery) holds it as a value, range end or uncertainty.

It is a recall proxy, not a score: numbers that are no measurements (station numbers, coordinates,
years, a correlation matrix, equations set as matrices) count as missed, and a number found may sit
in another cell of the same page. Read it for where tables are lost — the worst pages are printed —
and compare runs of the same files. Pages whose text names geochemical quantities (SiO2, ppm,
87Sr/86Sr, 206Pb, εNd, wt.% …, three or more mentions) are also summed apart: the tables this
project is for. The floor in the same run is reading the text layer once (pypdf, layout mode).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_coverage import _pdfs  # noqa: E402  (folders and files given on the command line → PDFs)
from bench_tables import read_stored  # noqa: E402  (the stored rows, as the table benchmark reads them)

_NUMBER = re.compile(r"^[<>~≈]?[-−–]?\d+(?:[.,·]\d+)?(?:[eE][-+]?\d+)?[*†‡a-d]?$")
_GEOCHEMICAL = re.compile(
    r"SiO2|Al2O3|MgO|ppm|ppb|wt\s?%|87Sr|143Nd|176Hf|206Pb|207Pb|40Ar|39Ar|εNd|εHf|δ18O|δ13C"
)


def _value(token: str) -> float | None:
    text = token.lstrip("<>~≈").rstrip("*†‡abcd").replace("−", "-").replace("–", "-").replace("·", ".")
    try:
        return round(float(text.replace(",", ".")), 6)
    except ValueError:
        return None


def _layout_pages(pdf: Path) -> list[str]:
    from pypdf import PdfReader

    out = []
    for page in PdfReader(str(pdf)).pages:
        try:
            out.append(page.extract_text(extraction_mode="layout") or "")
        except Exception:  # a damaged content stream: that page has no text layer to count
            out.append("")
    return out


def _data_numbers(text: str) -> list[float]:
    numbers: list[float] = []
    for line in text.splitlines():
        tokens = line.split()
        found = [v for v in (_value(t) for t in tokens if _NUMBER.match(t)) if v is not None]
        if len(found) >= 4 and len(found) >= 0.5 * len(tokens):
            numbers.extend(found)
    return numbers


def measure(pdf: Path) -> dict[str, Any]:
    started = time.perf_counter()
    pages = _layout_pages(pdf)
    floor = time.perf_counter() - started
    started = time.perf_counter()
    try:
        rows = read_stored(pdf, set(range(1, len(pages) + 1)))
        error = ""
    except Exception as exc:  # a benchmark reports a failed paper and goes on
        rows, error = [], f"{type(exc).__name__}: {exc}"
    seconds = time.perf_counter() - started
    held: dict[int, set[float]] = {}
    for page, row in rows:
        for number in (row.value, row.value_max, row.uncertainty):
            if number is not None:
                held.setdefault(page, set()).add(round(float(number), 6))
    per_page = []
    for number, text in enumerate(pages, start=1):
        printed = _data_numbers(text)
        if printed:
            found = sum(v in held.get(number, set()) for v in printed)
            geochemical = len(_GEOCHEMICAL.findall(text)) >= 3
            per_page.append(
                {"page": number, "numbers": len(printed), "found": found, "geochemical": geochemical}
            )
    return {
        "file": pdf.name,
        "numbers": sum(p["numbers"] for p in per_page),
        "found": sum(p["found"] for p in per_page),
        "rows": len(rows),
        "pages": per_page,
        "seconds": round(seconds, 2),
        "floor_seconds": round(floor, 3),
        "error": error,
    }


def _share(found: int, numbers: int) -> str:
    return f"{found / numbers:.3f}" if numbers else "  -  "


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--json", type=Path, help="write every paper's pages here")
    parser.add_argument("--worst", type=int, default=15, help="pages with the most numbers not found")
    args = parser.parse_args()
    pdfs = _pdfs(args.paths)
    results = []
    print(f"{'paper':<60} {'numbers':>8} {'found':>7} {'share':>6} {'rows':>6} {'s':>6} {'x floor':>8}")
    for pdf in pdfs:
        r = measure(pdf)
        results.append(r)
        ratio = r["seconds"] / r["floor_seconds"] if r["floor_seconds"] else float("nan")
        print(
            f"{r['file'][:60]:<60} {r['numbers']:>8} {r['found']:>7} {_share(r['found'], r['numbers']):>6} "
            f"{r['rows']:>6} {r['seconds']:>6.1f} {ratio:>8.1f}" + (f"  {r['error']}" if r["error"] else "")
        )
    pages = [(r["file"], p) for r in results for p in r["pages"]]
    for name, chosen in (
        ("all pages", pages),
        ("geochemical pages", [x for x in pages if x[1]["geochemical"]]),
    ):
        numbers = sum(p["numbers"] for _f, p in chosen)
        found = sum(p["found"] for _f, p in chosen)
        print(
            f"TOTAL {name}: {len(chosen)} pages, {numbers} numbers on data lines, {found} found ({_share(found, numbers)})"
        )
    print(f"pages with the most numbers not found (of {len(pages)}):")
    for file, p in sorted(pages, key=lambda x: x[1]["found"] - x[1]["numbers"])[: args.worst]:
        print(
            f"  {file[:60]:<60} p{p['page']:<4} {p['numbers']:>6} {p['found']:>6}{'  geochemical' if p['geochemical'] else ''}"
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
