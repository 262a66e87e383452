"""Table cells under a "Table N" caption: line fragments → rows × columns, or nothing.

Journal tables are mostly unruled (booktabs style), so pdfplumber's ruling-line table finder finds
none of the six labelled tables of the gold set, and its text strategy cuts words apart. The line
fragments of step 1 are a better start: they never merge across a gap wider than about one em, so
in a table each fragment is a cell or a run of cells set closer than that.

For each caption line "Table N …" on a page:

1. the caption continues while lines below it stay in its span and read as prose (one fragment,
   wide); the table starts at the first line with two or more fragments;
2. the table's span is the caption's column: a caption in the left half of a two-column page keeps
   to that half (the other column's prose runs beside the table), a page-wide caption the page;
3. rows: fragments grouped by their top (within 40 % of the body size); a small-font fragment
   (super/subscript, e.g. an asymmetric uncertainty "−51" under "1555+28") joins the row above it;
   the table ends at a gap of more than 2.5 times the median row pitch, at a prose line, or at
   the next caption;
4. columns: the x-intervals of the data rows' fragments merged where they overlap;
5. the grid is kept only when it is consistent — every data row's fragments fall into distinct
   columns, at least two columns and two data rows — otherwise the table keeps its caption only
   (a wrong cell is worse than a missing one; the note of the ``measurements`` asset counts them).
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field

from geo_assets.ingest.pdf.headings import CAPTION
from geo_assets.ingest.pdf.layout import Line

__all__ = ["PageTable", "page_tables"]

_MAX_ROWS = 80


@dataclass
class PageTable:
    """The cells of one captioned table (header rows first), with where they were printed."""

    label: str
    page: int
    rows: list[list[str]] = field(default_factory=list)
    box: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # x0, top, x1, bottom
    note: str = ""  # footnotes printed under the table (the word reader's)


def _caption_label(line: Line) -> str | None:
    match = CAPTION.match(line.text.strip())
    if match is None or not match.group("kind").lower().startswith("tab"):
        return None
    return f"Table {match.group('num')}"


def page_tables(lines: list[Line], page_width: float, body_size: float) -> list[PageTable]:
    """The consistent tables of one page (see the module docstring)."""
    ordered = sorted(lines, key=lambda ln: (ln.top, ln.x0))
    captions = [ln for ln in ordered if _caption_label(ln)]
    out = []
    for caption in captions:
        table = _table_under(caption, ordered, captions, page_width, body_size)
        if table is not None:
            out.append(table)
    return out


def _table_under(
    caption: Line, lines: list[Line], captions: list[Line], page_width: float, body_size: float
) -> PageTable | None:
    label = _caption_label(caption) or "Table"
    middle = page_width / 2
    half = caption.x0 < middle - 20 and caption.x1 < middle + 0.1 * page_width
    if caption.x1 - caption.x0 > 0.6 * page_width:  # a page-wide caption
        half = False
    left, right = (caption.x0 - 8, middle + 5) if half else (caption.x0 - 8, page_width)
    below = [
        ln
        for ln in lines
        if ln.top > caption.top + 1
        and ln.x0 >= left
        and (ln.x1 <= right + 2 or not half)
        and ln is not caption
    ]
    next_caption = min((c.top for c in captions if c.top > caption.top + 1), default=float("inf"))
    # prose beside or above the table (the caption's continuation, the other column's text) is no cell
    below = [ln for ln in below if ln.top < next_caption and not _prose(ln)]
    tolerance = 0.4 * body_size
    rows: list[list[Line]] = []
    for line in below:
        small = line.size < 0.85 * body_size
        if rows and (
            abs(line.top - rows[-1][0].top) <= tolerance or (small and line.top - rows[-1][0].top < body_size)
        ):
            rows[-1].append(line)
        else:
            rows.append([line])
    while rows and len(rows[0]) == 1:  # the caption's last line(s), above the first row of cells
        rows = rows[1:]
    table: list[list[Line]] = []
    for row in rows:
        if table:
            pitch = statistics.median(
                [b[0].top - a[0].top for a, b in zip(table, table[1:], strict=False)] or [body_size * 1.4]
            )
            if row[0].top - table[-1][0].top > 2.5 * max(pitch, body_size):
                break
        table.append(row)
        if len(table) >= _MAX_ROWS:
            break
    if len(table) < 3:
        return None
    return _grid(label, caption.page, table, body_size, middle)


def _prose(line: Line) -> bool:
    """A run of words, not a cell: long, mostly letters, six words or more."""
    text = line.text
    letters = sum(c.isalpha() for c in text)
    return len(text) > 40 and letters > 0.6 * len(text) and len(text.split()) >= 6


def _grid(
    label: str, page: int, table: list[list[Line]], body_size: float, middle: float
) -> PageTable | None:
    main_rows = [[ln for ln in row if ln.size >= 0.85 * body_size] or row for row in table]
    widest = max(len(r) for r in main_rows)
    data = [r for r in main_rows if len(r) >= max(2, widest - 1)]
    intervals = sorted((ln.x0, ln.x1) for row in data for ln in row)
    columns: list[list[float]] = []
    for x0, x1 in intervals:
        if columns and x0 <= columns[-1][1] + 1:
            columns[-1][1] = max(columns[-1][1], x1)
        else:
            columns.append([x0, x1])
    # a table in the left column of a two-column page: short lines of the right column's text
    # (a heading, a paragraph's last words) are not a column of the table
    inside = [c for c in columns if c[1] < middle]
    if len(inside) >= 2 and len(inside) < len(columns):
        outside = [ln for row in table for ln in row if ln.x0 > middle]
        if len(outside) < 0.5 * len(table):
            columns = inside
            table = [[ln for ln in row if ln.x0 <= middle] for row in table]
            table = [row for row in table if row]
    if len(columns) < 2:
        return None
    grid: list[list[str]] = []
    for row in table:
        cells = [""] * len(columns)
        for line in sorted(row, key=lambda ln: (ln.size < 0.85 * body_size, ln.x0)):
            slots = [i for i, (a, b) in enumerate(columns) if line.x0 < b + 1 and line.x1 > a - 1]
            if not slots:
                slots = [min(range(len(columns)), key=lambda i: abs(columns[i][0] - line.x0))]
            i = slots[0]
            text = line.text.strip()
            if line.size < 0.85 * body_size and cells[i]:
                cells[i] = f"{cells[i]} {text}"  # a sub/superscript beside its value
            elif cells[i] and len(slots) == 1 and row in data:
                return None  # two cells of a data row in one column: the grid is not consistent
            else:
                cells[i] = f"{cells[i]} {text}".strip()
        grid.append(cells)
    body = [r for r in grid if sum(bool(c) for c in r) >= 2]
    if len(body) < 3:
        return None
    flat = [ln for row in table for ln in row]
    box = (
        min(ln.x0 for ln in flat),
        min(ln.top for ln in flat),
        max(ln.x1 for ln in flat),
        max(ln.bottom for ln in flat),
    )
    return PageTable(
        label=label, page=page, rows=[[re.sub(r"\s+", " ", c) for c in r] for r in grid], box=box
    )
