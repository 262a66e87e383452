"""What a table's cells print that is no value and no header text, shared by the embedded PDF
parser's word reader (``ingest/pdf/word_tables``) and the cell reader that turns any TEI table into
values (``measurements/table_values``): both must skip the same rows. Plain Python, no PDF library,
so the measurement side does not load one."""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["COORDINATE", "mark_cell", "marks_row"]

# a latitude or longitude in degrees (and minutes, seconds, a hemisphere): "36°18.5′", "120°27′W",
# "45°12′30″N", "45.2°N" — a number to both readers (a data line's word, a table cell)
COORDINATE = re.compile(
    r"^(?P<sign>[+\-\u2212])?(?P<deg>\d{1,3}(?:\.\d+)?)°\s*(?:(?P<min>\d{1,2}(?:\.\d+)?)\s*[′'])?"
    r"\s*(?:(?P<sec>\d{1,2}(?:\.\d+)?)\s*[″\"])?\s*(?P<side>[NSEW])?$"
)
_MARK_CELL = re.compile(r"\(?[a-z]\)|[*†‡§¶]+")
# a letter mark set beside a value in a cell of its own ("40 (a)": a compilation's analytical
# method), whole or split where the text layer split it ("(c", ")")
_LETTER_MARK = re.compile(r"\(?[a-h]\s*\)|\([a-h]|\)")


def mark_cell(cell: str) -> bool:
    """A cell holding only a letter mark set beside the value before it: neither a value nor a word."""
    return _LETTER_MARK.fullmatch(cell.strip()) is not None


def marks_row(cells: Sequence[str]) -> bool:
    """A header row of footnote marks only ("(a) (b) (c) …" under the column heads): no header text."""
    filled = [c.strip() for c in cells if c.strip()]
    return len(filled) >= 3 and all(_MARK_CELL.fullmatch(c) for c in filled)
