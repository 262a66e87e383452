"""Page benchmark: is each sentence of the cleaned text cited to the PDF page that prints it?

    .venv/bin/python scripts/bench_pages.py FOLDER_OR_PDF ... [--json OUT]

For every PDF: the embedded parser and the recovery of lost pages (as `geo-rag ingest` runs them with
no GROBID), then each body and abstract sentence's page before and after
``geo_assets.ingest.page_breaks.place_page_breaks``. The judge is another reader of the PDF than the
one the placement reads (pdfminer, through pdfplumber; the placement reads pypdf's text layer): a
sentence counts where the first 30 letters of it (letters only, so spacing and hyphenation do not
matter) are printed on exactly one page. Prints one row per paper and the totals, and the seconds
the placement took against the floor measured in the same run (reading the text layer once);
nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import re
import time
import unicodedata
from dataclasses import asdict, dataclass
from pathlib import Path

from geo_assets.ingest.chunking import page_at
from geo_assets.ingest.cleaned_paper import clean_paper
from geo_assets.ingest.coverage import text_layer
from geo_assets.ingest.page_breaks import place_page_breaks
from geo_assets.ingest.pdf import pdf_to_tei
from geo_assets.ingest.recovery import recover_lost_text
from geo_assets.ingest.tei import tei_to_paper
from geo_rag_runtime import contract
from geo_rag_runtime.text.sentences import split_sentences

_HEAD = 30  # letters of a sentence the judge looks for


def _pdfs(paths: list[Path]) -> list[Path]:
    out: list[Path] = []
    for path in paths:
        out.extend(sorted(path.glob("*.pdf")) if path.is_dir() else [path])
    return out


def _letters(text: str) -> str:
    return re.sub(r"[^a-z]", "", unicodedata.normalize("NFKC", text).lower())


@dataclass
class PageRow:
    """One paper: sentences judged, cited to their page before and after the placement, seconds."""

    file: str
    judged: int
    before: int
    after: int
    seconds: float  # the placement
    floor: float  # reading the text layer once


def measure(pdf: Path) -> PageRow:
    import pdfplumber

    started = time.perf_counter()
    layer = text_layer(pdf)
    pages = layer.pages
    floor = time.perf_counter() - started
    sha = contract.file_sha256(pdf)
    parsed = tei_to_paper(pdf_to_tei(pdf), paper_id=sha[:16], source_file=pdf.name, sha256=sha)
    paper, _ = recover_lost_text(parsed, pages, layer.undecoded)
    cleaned = clean_paper(paper)
    started = time.perf_counter()
    placed = place_page_breaks(cleaned, pages)
    seconds = time.perf_counter() - started
    with pdfplumber.open(pdf) as document:
        printed = [_letters(page.extract_text() or "") for page in document.pages]
    judged = before = after = 0
    for section in (s for s in cleaned.sections if s.kind in {"body", "abstract"}):
        for a, b in split_sentences(section.text):
            head = _letters(section.text[a:b])[:_HEAD]
            on = [i + 1 for i, page in enumerate(printed) if head in page] if len(head) == _HEAD else []
            if len(on) != 1:
                continue
            judged += 1
            before += page_at(cleaned.page_marks, section.char_start + a) == on[0]
            after += page_at(placed.page_marks, section.char_start + a) == on[0]
    return PageRow(pdf.name, judged, before, after, seconds, floor)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = []
    print(f"{'paper':48} {'judged':>6} {'before':>7} {'after':>7}")
    for pdf in _pdfs(args.paths):
        try:
            row = measure(pdf)
        except Exception as exc:  # a benchmark reports a failed paper and goes on
            print(f"{pdf.name[:48]:48} failed: {type(exc).__name__}: {exc}")
            continue
        rows.append(row)
        n = max(1, row.judged)
        print(f"{pdf.name[:48]:48} {row.judged:>6} {row.before / n:>7.3f} {row.after / n:>7.3f}")
    judged = sum(r.judged for r in rows)
    before, after = sum(r.before for r in rows), sum(r.after for r in rows)
    seconds, floor = sum(r.seconds for r in rows), sum(r.floor for r in rows)
    print(
        f"TOTAL {len(rows)} papers, {judged} sentences judged: cited to the page that prints them "
        f"{before / max(1, judged):.3f} before, {after / max(1, judged):.3f} after; placement {seconds:.2f} s "
        f"({seconds / max(floor, 1e-9):.2f}x reading the text layer, {floor:.2f} s)"
    )
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in rows], indent=1))


if __name__ == "__main__":
    main()
