"""Table readers compared on the unseen-papers table gold set (``data/benchmark/unseen/tables_gold.csv``).

    python scripts/bench_tables.py --pdfs /work/unseen_pdfs                      # dev half
    python scripts/bench_tables.py --pdfs /work/unseen_pdfs --split heldout      # once, at the end
    python scripts/bench_tables.py --pdfs … --camelot-python /tmp/camvenv/bin/python  # adds camelot
    python scripts/bench_tables.py --pdfs shared/corpus/papers --gold data/measurements/gold_v1.csv
                                                         # the corpus's table cells (no split)
    python scripts/bench_tables.py --pdfs /work/unseen_pdfs --turn content-ccw   # the gold pages landscape

Each reader turns the gold pages into grids (rows of cell strings); the same cell reader
(:func:`geo_assets.measurements.table_values.extract_table_values`) turns every grid into values, so
the readers differ only in where they put the cells. A gold cell is recovered when a value of its
page has

* ``cell``: the gold value, in the gold row (row label as printed, or the row's sample) and the gold
  column (the printed header, or its last words: a spanning header "grain ID" over "41" gives
  "grain ID 41"; words compared without spaces or punctuation, case folded);
* ``full``: and the gold unit, and the gold uncertainty (none where the gold has none).

``precision`` counts the values a reader puts in a gold (row, column) pair of a labelled block
(cells outside the labelled blocks are not labelled, so they are not counted): the share that hold
the gold value. ``sample`` is the share of recovered cells whose gold names a sample that carry it.
Readers:

* ``finder``: the embedded parser's table finder (line fragments under a caption,
  :mod:`geo_assets.ingest.pdf.tables`), as ``geo-rag ingest`` ran before this script;
* ``plumber-page``: pdfplumber's text strategy on the whole page;
* ``plumber-region``: pdfplumber's text strategy on the table regions the word reader finds;
* ``words``: :mod:`geo_assets.ingest.pdf.word_tables` (words → region → columns by x coverage);
* ``ingest``: what ``geo-rag ingest`` keeps (the embedded parser: the word reader's captioned
  tables, the finder's where the word reader finds none; uncaptioned blocks are not kept);
* ``stored``: the rows ``geo-rag ingest`` stores from the same tables (``paper_measurements`` after
  page recovery: a continued page's header lent, repeated cells dropped, and a row's sample also from
  the sample names the paper prints elsewhere or the one its caption names). ``sample`` is only
  meaningful here: the other readers' cells carry a sample only when a column is headed "Sample";
* ``camelot-stream``: camelot's stream mode on the same regions (only with ``--camelot-python``,
  a Python with camelot-py installed; run in a subprocess, the project does not depend on it).

Seconds are wall time for reading the gold pages (the ``finder`` parses the whole paper, as ingest
does); ratios are to the fastest reader.

``--turn`` scores copies of the papers whose gold pages are turned a quarter with pypdf (written to a
temporary folder): ``rotate-90`` / ``rotate-270`` set the page's ``/Rotate``, ``content-ccw`` /
``content-cw`` turn the content stream (text drawn sideways, media box swapped), the two ways
landscape tables are printed.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
Grid = tuple[int, str, list[list[str]], str]  # page, label, rows, caption

_CAMELOT = """
import json, sys, camelot
path, jobs = sys.argv[1], json.loads(sys.argv[2])
out = []
for page, height, box in jobs:
    x0, top, x1, bottom = box
    area = f"{x0 - 2},{height - top + 2},{x1 + 2},{height - bottom - 2}"
    for t in camelot.read_pdf(path, pages=str(page), flavor="stream", table_areas=[area]):
        out.append([page, t.df.values.tolist()])
print(json.dumps(out))
"""


def _tokens(text: str) -> list[str]:
    """Words of a header or row label: math-italic letters as plain ones (𝑇𝑝 → Tp), case folded."""
    return re.findall(r"\w+", unicodedata.normalize("NFKC", text).replace("\u2212", "-").casefold())


def _same_header(extracted: str, gold: str) -> bool:
    a, b = _tokens(extracted), _tokens(gold)
    if not a or not b:
        return False
    if "".join(a) == "".join(b):
        return True
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return long[-len(short) :] == short


def _same_row(value: Any, gold: dict[str, str]) -> bool:
    return "".join(_tokens(value.row)) == "".join(_tokens(gold["row"])) or (
        bool(gold["sample"]) and value.sample == gold["sample"] and _same_header(value.row, gold["row"])
    )


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _num(text: str) -> float | None:
    return float(text) if text.strip() else None


def read_finder(pdf: Path, pages: set[int]) -> list[Grid]:
    import pdfplumber

    from geo_assets.ingest.pdf.analyse import analyse
    from geo_assets.ingest.pdf.tei import to_tei
    from geo_assets.ingest.tei import tei_to_paper

    with pdfplumber.open(pdf) as doc:
        tei = to_tei(analyse(doc, pdf.name, word_tables=False))
    paper = tei_to_paper(tei, paper_id="b", source_file=pdf.name, sha256="0" * 64)
    return [
        (c.page or 0, c.label or "", c.rows, c.text) for c in paper.captions if c.kind == "table" and c.rows
    ]


def read_ingest(pdf: Path, pages: set[int]) -> list[Grid]:
    from geo_assets.ingest.pdf import pdf_to_tei
    from geo_assets.ingest.tei import tei_to_paper

    paper = tei_to_paper(pdf_to_tei(pdf), paper_id="b", source_file=pdf.name, sha256="0" * 64)
    return [
        (c.page or 0, c.label or "", c.rows, c.text) for c in paper.captions if c.kind == "table" and c.rows
    ]


def read_stored(pdf: Path, pages: set[int]) -> list[tuple[int, Any]]:
    """The table rows ``geo-rag ingest`` stores: the embedded parser with page recovery, then
    ``paper_measurements`` (a continued page's header lent, repeated cells dropped, and the sample a
    row label or the caption names from the paper's own sample names — what ``extract_table_values``
    alone, as the other readers are scored, does not give)."""
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.ingest.coverage import text_layer
    from geo_assets.ingest.pdf import pdf_to_tei
    from geo_assets.ingest.recovery import recover_lost_text
    from geo_assets.ingest.tei import tei_to_paper
    from geo_assets.measurements.extract import paper_measurements

    paper = tei_to_paper(pdf_to_tei(pdf), paper_id="b", source_file=pdf.name, sha256="0" * 64)
    layer = text_layer(pdf)
    paper, _ = recover_lost_text(paper, layer.pages, layer.undecoded)
    rows = paper_measurements(clean_paper(paper), [], paper.captions)
    return [(r.page, r) for r in rows if r.source_type == "table" and r.page in pages]


def _grid_values(
    reader: Callable[[Path, set[int]], list[Grid]],
) -> Callable[[Path, set[int]], list[tuple[int, Any]]]:
    """A grid reader's values: the same cell reader for every reader's grids."""
    from geo_assets.measurements.table_values import extract_table_values

    def values(pdf: Path, pages: set[int]) -> list[tuple[int, Any]]:
        return [
            (page, v)
            for page, _label, rows, caption in reader(pdf, pages)
            if page in pages
            for v in extract_table_values(rows, caption)
        ]

    return values


def read_words(pdf: Path, pages: set[int]) -> list[Grid]:
    import pdfplumber

    from geo_assets.ingest.pdf.word_tables import page_word_tables

    out: list[Grid] = []
    with pdfplumber.open(pdf) as doc:
        for number in sorted(pages):
            out += [
                (t.page, t.label, t.rows, t.caption) for t in page_word_tables(doc.pages[number - 1], number)
            ]
    return out


def _regions(
    pdf: Path, pages: set[int]
) -> list[tuple[int, float, str, str, tuple[float, float, float, float]]]:
    import pdfplumber

    from geo_assets.ingest.pdf.word_tables import page_word_tables

    out = []
    with pdfplumber.open(pdf) as doc:
        for number in sorted(pages):
            page = doc.pages[number - 1]
            out += [
                (number, float(page.height), t.label, t.caption, t.box)
                for t in page_word_tables(page, number)
            ]
    return out


def read_plumber_page(pdf: Path, pages: set[int]) -> list[Grid]:
    import pdfplumber

    out: list[Grid] = []
    with pdfplumber.open(pdf) as doc:
        for number in sorted(pages):
            settings = {"vertical_strategy": "text", "horizontal_strategy": "text"}
            for rows in doc.pages[number - 1].extract_tables(settings):
                out.append((number, "", [[c or "" for c in r] for r in rows], ""))
    return out


def read_plumber_region(pdf: Path, pages: set[int]) -> list[Grid]:
    import pdfplumber

    out: list[Grid] = []
    regions = _regions(pdf, pages)
    with pdfplumber.open(pdf) as doc:
        for number, _height, label, caption, (x0, top, x1, bottom) in regions:
            page = doc.pages[number - 1]
            crop = page.crop(
                (max(0, x0 - 2), max(0, top - 2), min(page.width, x1 + 2), min(page.height, bottom + 2))
            )
            settings = {"vertical_strategy": "text", "horizontal_strategy": "text"}
            for rows in crop.extract_tables(settings):
                out.append((number, label, [[c or "" for c in r] for r in rows], caption))
    return out


def camelot_reader(python: str) -> Callable[[Path, set[int]], list[Grid]]:
    def read(pdf: Path, pages: set[int]) -> list[Grid]:
        regions = _regions(pdf, pages)
        jobs = [[n, h, box] for n, h, _label, _caption, box in regions]
        done = subprocess.run(
            [python, "-c", _CAMELOT, str(pdf), json.dumps(jobs)], capture_output=True, text=True, check=False
        )
        if done.returncode:
            print(f"  camelot failed on {pdf.name}: {done.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
            return []
        found = json.loads(done.stdout.strip().splitlines()[-1])
        captions = {n: (label, caption) for n, _h, label, caption, _box in regions}
        return [(n, *captions[n][:1], rows, captions[n][1]) for n, rows in found]

    return read


def score(
    reader: Callable[[Path, set[int]], list[tuple[int, Any]]],
    gold: dict[str, list[dict[str, str]]],
    pdfs: Path,
) -> tuple[dict[str, dict[str, int]], float, list[str]]:
    from geo_assets.measurements.table_headers import vocabulary_unit

    per: dict[str, dict[str, int]] = {}
    errors: list[str] = []
    start = time.perf_counter()
    for source, expected in sorted(gold.items()):
        pages = {int(g["page"]) for g in expected}
        try:
            values = reader(pdfs / source, pages)
        except Exception as exc:  # a paper the reader cannot read scores 0 (ingest: no text at all)
            errors.append(f"FAILED {source[:24]}: {type(exc).__name__}: {str(exc)[:120]}")
            values = []
        counts = dict.fromkeys(
            ("gold", "cell", "full", "in_block", "right_in_block", "sample", "with_sample"), 0
        )
        counts["gold"] = len(expected)
        used: set[int] = set()
        for g in expected:
            hit = next(
                (
                    i
                    for i, (page, v) in enumerate(values)
                    if i not in used
                    and page == int(g["page"])
                    and _close(v.value, _num(g["value"]))
                    and _same_row(v, g)
                    and _same_header(v.column, g["column"])
                ),
                None,
            )
            if hit is None:
                errors.append(f"FN {source[:24]} p{g['page']} {g['row']!r} {g['column']!r} {g['value']}")
                continue
            used.add(hit)
            v = values[hit][1]
            counts["cell"] += 1
            # the gold names units of the vocabulary only ("pmol" is empty there, TABLES_GOLD.md)
            full = vocabulary_unit(v.unit) == g["unit"] and _close(v.uncertainty, _num(g["uncertainty"]))
            counts["full"] += full
            if not full:
                errors.append(
                    f"PART {source[:24]} {g['row']!r} {g['column']!r} unit {v.unit!r}/{g['unit']!r} unc {v.uncertainty}/{g['uncertainty']}"
                )
            if g["sample"]:
                counts["with_sample"] += 1
                counts["sample"] += v.sample == g["sample"]
                if v.sample != g["sample"]:
                    errors.append(
                        f"SAMPLE {source[:24]} {g['row']!r} {g['column']!r} {v.sample!r}/{g['sample']!r}"
                    )
        for page, v in values:
            if v.value is None:
                continue
            pair = [
                g
                for g in expected
                if int(g["page"]) == page and _same_row(v, g) and _same_header(v.column, g["column"])
            ]
            if pair:
                counts["in_block"] += 1
                ok = any(_close(v.value, _num(g["value"])) for g in pair)
                counts["right_in_block"] += ok
                if not ok:
                    errors.append(f"FP {source[:24]} p{page} {v.row!r} {v.column!r} {v.value}")
        per[source] = counts
    return per, time.perf_counter() - start, errors


def turn_pages(source: Path, pages: set[int], turn: str, target: Path) -> None:
    """A copy of ``source`` with ``pages`` turned (see ``--turn``) written to ``target``."""
    from pypdf import PdfReader, PdfWriter, Transformation
    from pypdf.generic import RectangleObject

    writer = PdfWriter(clone_from=PdfReader(source))
    for number in pages:
        page = writer.pages[number - 1]
        if turn.startswith("rotate-"):
            page.rotate(int(turn.removeprefix("rotate-")))
            continue
        x0, y0, x1, y1 = (float(v) for v in page.mediabox)
        width, height = x1 - x0, y1 - y0
        move = Transformation().translate(-x0, -y0)
        move = (
            move.rotate(90).translate(height, 0)
            if turn == "content-ccw"
            else move.rotate(-90).translate(0, width)
        )
        page.add_transformation(move)
        page.mediabox = page.cropbox = RectangleObject([0, 0, height, width])
        for box in ("/TrimBox", "/BleedBox", "/ArtBox"):
            if box in page:
                del page[box]
    with open(target, "wb") as handle:
        writer.write(handle)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pdfs", required=True, help="folder holding the benchmark PDFs")
    parser.add_argument("--gold", default=str(ROOT / "data/benchmark/unseen/tables_gold.csv"))
    parser.add_argument("--split", default="dev", choices=["dev", "heldout"])
    parser.add_argument("--readers", default="finder,plumber-page,plumber-region,words")
    parser.add_argument("--camelot-python", help="a Python with camelot-py: adds the camelot-stream reader")
    parser.add_argument("--show-errors", action="store_true")
    parser.add_argument(
        "--turn", choices=["rotate-90", "rotate-270", "content-ccw", "content-cw"], help="gold pages turned"
    )
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    with open(args.gold, encoding="utf-8") as handle:
        rows = [
            r
            for r in csv.DictReader(handle)
            if r.get("split", args.split) == args.split and r["value"].strip() and r["source_type"] == "table"
        ]  # gold sets without a split (the corpus's gold_v1.csv) are scored whole
    gold: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        gold[row["source_file"]].append(row)
    readers: dict[str, Callable[[Path, set[int]], list[Grid]]] = {
        "finder": read_finder,
        "plumber-page": read_plumber_page,
        "plumber-region": read_plumber_region,
        "words": read_words,
        "ingest": read_ingest,
    }
    chosen = {name: _grid_values(readers[name]) for name in args.readers.split(",") if name in readers}
    if "stored" in args.readers.split(","):
        chosen["stored"] = read_stored
    if args.camelot_python:
        chosen["camelot-stream"] = _grid_values(camelot_reader(args.camelot_python))
    with tempfile.TemporaryDirectory() as turned:
        pdfs = Path(args.pdfs)
        if args.turn:
            for source, expected in gold.items():
                turn_pages(
                    pdfs / source, {int(g["page"]) for g in expected}, args.turn, Path(turned) / source
                )
            pdfs = Path(turned)
        results = {name: score(reader, gold, pdfs) for name, reader in chosen.items()}
    fastest = min(seconds for _per, seconds, _errors in results.values()) or 1e-9
    split = args.split if "split" in rows[0] else "all (no split)"
    turn = f", gold pages turned {args.turn}" if args.turn else ""
    print(
        f"{Path(args.gold).name}, split {split}{turn}: {len(rows)} gold cells with a value in {len(gold)} papers"
    )
    print("reader           paper                                  gold  cell  full  prec    sample")
    for name, (per, seconds, errors) in results.items():
        total = dict.fromkeys(next(iter(per.values())), 0)
        for source, c in per.items():
            for key in total:
                total[key] += c[key]
            print(f"{name:16} {source[:38]:38} {c['gold']:4} {c['cell']:5} {c['full']:5} "
                  f"{c['right_in_block']:3}/{c['in_block']:<4} {c['sample']}/{c['with_sample']}")  # fmt: skip
        prec = total["right_in_block"] / total["in_block"] if total["in_block"] else float("nan")
        print(
            f"{name:16} {'TOTAL':38} {total['gold']:4} {total['cell']:5} {total['full']:5} "
            f"{prec:.3f}  {total['sample']}/{total['with_sample']}  "
            f"cell {total['cell'] / total['gold']:.3f} full {total['full'] / total['gold']:.3f}  "
            f"{seconds:.2f} s ({seconds / fastest:.1f}x)"
        )
        if args.show_errors:
            print("\n".join(f"    {e}" for e in errors))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
