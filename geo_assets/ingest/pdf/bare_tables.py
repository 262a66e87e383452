"""Tables printed without a caption: which blocks of numbers the word reader finds under a header line
are data, and what they are called.

A supplement's bare table or a notebook's printed DataFrame has no "Table N" line, but its numbers
are the paper's data. The same shape (three or more lines of numbers under a line of words) is also
printed by a figure's axis ticks and panel labels and by displayed equations and matrices, which must
not become measurement rows. Three signs tell them apart, each general to how PDFs are made:

* a figure is drawn: its box holds more vector strokes (curves and lines) than half the table would
  have cells, where a table holds at most its rules (a DataFrame: two) — unless those strokes are a
  ruled table's grid (no curve, a horizontal rule across the block under half its rows or more: a
  survey report's table drawn cell by cell holds more strokes than cells);
* axis ticks are evenly spaced: a line of four or more numbers with one constant step
  ("94 98 102 106", "0.0 0.1 0.2 0.3") is a scale, never a row of measurements;
* an equation prints "=" or its number "(7)" in a short cell (a sentence set as a table row,
  "weighted mean 206Pb/238U age = 1096.19 ± 0.19 Ma", is the table's own).

A table too long for its page goes on at the top of the next one, often without its header (a
DataFrame printed across a page break, a supplement's table set without "continued"): those lines
are the previous page's last table again when every column they print lies in one of its columns,
the first (the row label) among them (:func:`continue_table`).

On the 17 corpus papers and the 15 unseen-benchmark papers the word reader found 25 such blocks with
no caption: 7 tables (2 of them captioned tables another reader holds, dropped as duplicates) and 18
figures and equations; these signs keep the 7 and none of the 18 (``docs/experiments.md``, "Tables
without a caption").
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from geo_assets.ingest.pdf.tables import PageTable
from geo_assets.ingest.pdf.word_tables import WordTable

__all__ = [
    "BARE_TABLE",
    "bare_table_label",
    "continue_table",
    "drop_duplicates",
    "is_bare_table",
    "name_bare_tables",
    "overlaps",
]

BARE_TABLE = "Uncaptioned table"  # how a bare table's label starts
_PLAIN_NUMBER = re.compile(r"^[+\-\u2212]?\d+(?:\.\d+)?$")
_EQUATION = re.compile(r"=|(?:^|\s)\(\d{1,3}\)(?:\s|$)")
_MIN_TICKS = 4
_EQUATION_CELL = 24  # characters: "X = (12)", "= MAD(X)", "(8) yields:"


def _inside(obj: dict[str, Any], box: tuple[float, float, float, float]) -> bool:
    x0, top, x1, bottom = box
    return bool(obj["x0"] < x1 and obj["x1"] > x0 and obj["top"] < bottom and obj["bottom"] > top)


def _ruled(lines: list[dict[str, Any]], table: WordTable) -> bool:
    """Whether a block's straight strokes are a ruled table's cell borders: horizontal rules across
    most of its width at half its rows or more (a report's grid table draws one under every row,
    often as one short segment per cell, so it holds more strokes than cells)."""
    x0, _top, x1, _bottom = table.box
    across: dict[int, float] = {}
    for line in lines:
        if abs(line["top"] - line["bottom"]) < 1:  # horizontal
            level = round(line["top"])
            across[level] = across.get(level, 0.0) + min(line["x1"], x1) - max(line["x0"], x0)
    rules = sum(length >= 0.6 * (x1 - x0) for length in across.values())
    return rules >= max(3, 0.5 * len(table.rows))


def _drawn(table: WordTable, page: Any) -> bool:
    cells = sum(bool(cell.strip()) for row in table.rows for cell in row)
    curves = [obj for obj in page.curves if _inside(obj, table.box)]
    lines = [obj for obj in page.lines if _inside(obj, table.box)]
    if not curves and _ruled(lines, table):  # a grid of rules and no curve: a ruled table
        return False
    return len(curves) + len(lines) > 0.5 * cells


def _is_scale(row: Sequence[str]) -> bool:
    numbers = [float(c.strip().replace("\u2212", "-")) for c in row if _PLAIN_NUMBER.match(c.strip())]
    if len(numbers) < _MIN_TICKS:
        return False
    steps = [b - a for a, b in zip(numbers, numbers[1:], strict=False)]
    first = steps[0]
    return first != 0 and all(abs(step - first) <= 1e-6 * max(1.0, abs(first)) for step in steps)


def is_bare_table(table: WordTable, page: Any) -> bool:
    """Whether a block the word reader found without a caption is a table of data (see the module
    docstring); ``page`` is the pdfplumber page it was found on (its box is in that page's frame)."""
    # short cells only: a sentence printed as a table row ("weighted mean age = 1096.19 ± 0.19 Ma")
    # is the table's, not an equation
    if any(_EQUATION.search(cell) and len(cell) <= _EQUATION_CELL for row in table.rows for cell in row):
        return False
    if any(_is_scale(row) for row in table.rows):
        return False
    return not _drawn(table, page)


def overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    """Whether two boxes share more than half of the smaller one (the same table found twice)."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    if width <= 0 or height <= 0:
        return False
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return smaller > 0 and width * height > 0.5 * smaller


def bare_table_label(page: int, index: int, count: int) -> str:
    """The name a table without a caption goes by in the TEI, the cleaned text and measurement rows:
    where it is printed, since the paper gives it no number."""
    return f"{BARE_TABLE}, page {page}" if count == 1 else f"{BARE_TABLE} {index}, page {page}"


def name_bare_tables(bare: list[PageTable]) -> list[PageTable]:
    """Bare tables (label "") labelled by page, in reading order (top to bottom) on each page."""
    ordered = sorted(bare, key=lambda t: (t.page, t.box[1], t.box[0]))
    per_page: dict[int, int] = {}
    for table in ordered:
        per_page[table.page] = per_page.get(table.page, 0) + 1
    seen: dict[int, int] = {}
    for table in ordered:
        seen[table.page] = seen.get(table.page, 0) + 1
        table.label = bare_table_label(table.page, seen[table.page], per_page[table.page])
    return ordered


def drop_duplicates(bare: list[PageTable], captioned: Sequence[PageTable]) -> list[PageTable]:
    """Bare tables that are not a captioned table read again (the line-fragment finder may hold the
    grid of a caption the word reader did not see)."""
    return [t for t in bare if not any(c.page == t.page and overlaps(c.box, t.box) for c in captioned)]


def continue_table(previous: Sequence[WordTable], block: WordTable) -> WordTable | None:
    """The headless lines that open a page (``block``, see :attr:`WordTable.headless`) as the rest of
    the previous page's last table read in the same frame, with that table's header rows and label;
    None when they do not line up with it.

    They line up when each of their columns overlaps one of the table's, the table's first (row
    label) column among them and at least half of its columns (two at least): a page that opens
    with a line of numbers of its own (an equation, a list) does not share a table's column edges.
    """
    same = [t for t in previous if t.rotation == block.rotation and t.columns]
    if not same or not block.columns:
        return None
    last = max(same, key=lambda t: t.bottom)
    into: list[int] = []
    for a, b in block.columns:
        overlaps = [min(b, d) - max(a, c) for c, d in last.columns]
        best = max(range(len(overlaps)), key=lambda i: overlaps[i])
        if overlaps[best] <= 0:
            return None
        into.append(best)
    if 0 not in into or len(set(into)) < max(2, math.ceil(0.5 * len(last.columns))):
        return None
    rows = [list(row) for row in last.rows[: last.header_rows]]
    for row in block.rows:
        cells = [""] * len(last.columns)
        for i, text in zip(into, row, strict=True):
            cells[i] = f"{cells[i]} {text}".strip()
        rows.append(cells)
    # the last table's label, caption, header rows and columns; the block's page, place and lines
    return replace(last, page=block.page, rows=rows, box=block.box, bottom=block.bottom, note=block.note)
