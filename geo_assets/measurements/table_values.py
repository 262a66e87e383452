"""Table cells → typed values: the column header names the analyte and unit, the first cell the row
(and the sample, when the first column's header says it names samples).

A table as the TEI gives it (rows of cell strings, header rows first — GROBID's ``<table>``):

* header rows are the leading rows whose cells are mostly not numbers; a header cell left empty
  under a wider cell above it (a merged header) takes the text to its left;
* a column's analyte comes from its header with the same grammar as running text
  (:mod:`geo_assets.measurements.text_values`: "SiO2", "87Sr/86Sr", "εNd(t)", "Tp (°C)", "t [Ma]");
  its unit from the header's brackets, else from the caption when the caption names exactly one
  unit ("… concentrations in ppm"), else the analyte's own (ratio, epsilon, ‰);
* uncertainty columns ("±", "1σ", "2σ", "2SE", "s[U]", "err", "unc") belong to the value column
  before them;
* a cell is a number (unicode minus, thousands separators, trailing footnote marks a–f * † ‡
  removed), optionally "± u" or "u" in parentheses; "b.d.l.", "<LOD", "n.d.", "–" are flagged nulls
  (``value=None``, qualifier ``bdl``/``nd``), never zeros; "<0.01" keeps its qualifier.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from geo_assets.measurements.text_values import (
    _OXIDE,
    _SYMBOLS,
    _UNIT_FOR_KIND,
    _UNITS,
    _Analyte,
    _analytes,
    _plain,
    parse_number,
)

__all__ = ["TableValue", "extract_table_values"]

_NUM = r"[+\-\u2212]?(?:\d{1,3}(?:[,\u2009]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:[eE][+\-\u2212]?\d+)?"
_CELL = re.compile(
    rf"^(?P<qual>[<>≤≥~∼≈])?\s*(?P<value>{_NUM})\s*(?:(?:±|\+/-)\s*(?P<unc>{_NUM})|\((?P<unc_paren>{_NUM})\)"
    r"|\+\s*(?P<plus>\d+(?:\.\d+)?)\s*(?:[−\-–]\s*(?P<minus>\d+(?:\.\d+)?))?)?\s*"
    r"(?P<marks>[a-f*†‡§]{0,2})$"
)
_BDL = re.compile(r"^(?:b\.?\s?d\.?\s?l\.?|bdl|<\s?(?:LOD|LOQ|DL|d\.l\.))$", re.IGNORECASE)
_ND = re.compile(r"^(?:n\.?\s?d\.?|n\.?\s?a\.?|–|—|-|\u2212)$", re.IGNORECASE)
_UNCERTAINTY_HEADER = re.compile(
    r"^(?:±|\+/-|[12]\s*[σs](?:\s*\(.*\))?|2\s*SE|1\s*SE|2\s*SD|1\s*SD|s\s*\[.*\]|err(?:or)?\.?|unc\.?|"
    r"int\.\s*unc\..*|σ.*)$",
    re.IGNORECASE,
)
# A label column headed "Sample", "Sample ID" or "Specimen" names samples: its row labels become the
# rows' sample. "Spot", "Grain" or "Analysis" columns name spots within a sample (the gold set's
# sample for the spot "GJ1-1-23" is the reference zircon "GJ-1"), and any other label column (a
# parameter, a region, a model) names no sample, so none is guessed.
_SAMPLE_HEADER = re.compile(r"\b(?:samples?|specimens?)\b", re.IGNORECASE)
_BRACKETED_UNIT = re.compile(r"[\(\[]\s*([^()\[\]]+?)\s*[\)\]]")


@dataclass
class TableValue:
    """One cell's value with its row label and column header as printed."""

    analyte: str
    value: float | None
    unit: str
    row: str
    column: str
    uncertainty: float | None = None
    uncertainty_level: str = ""
    qualifier: str = ""
    printed: str = ""
    notes: list[str] = field(default_factory=list)
    sample: str = ""  # the row label, when the label column's header says it names samples


def _numeric(cell: str) -> bool:
    text = _plain(cell).strip()
    return bool(text) and bool(_CELL.match(text) or _BDL.match(text))


def _header_count(rows: Sequence[Sequence[str]]) -> int:
    count = 0
    for row in rows:
        data = [c for c in row[1:] if c.strip()]
        if data and sum(_numeric(c) for c in data) >= len(data) / 2:
            break
        count += 1
    return min(count, max(len(rows) - 1, 0))


def _headers(rows: Sequence[Sequence[str]], width: int) -> list[str]:
    columns = [""] * width
    for row in rows:
        filled = list(row) + [""] * (width - len(row))
        for i in range(1, width):  # a merged header cell spans the empty ones to its right
            if not filled[i].strip() and filled[i - 1].strip() and len(rows) > 1 and row is rows[0]:
                filled[i] = filled[i - 1]
        for i, cell in enumerate(filled):
            if cell.strip():
                columns[i] = f"{columns[i]} {cell.strip()}".strip()
    return columns


def _units_named(text: str, skip: set[str]) -> list[str]:
    """The canonical units printed as words in ``text`` (longest printed forms first), except the
    printed forms in ``skip`` (too ambiguous outside brackets: "%", "K", "My" …)."""
    return [
        _UNITS[u]
        for u in sorted(_UNITS, key=len, reverse=True)
        if u not in skip and re.search(rf"(?<![A-Za-z]){re.escape(u)}(?![A-Za-z])", text)
    ]


def _unit_in(text: str) -> str:
    for match in _BRACKETED_UNIT.finditer(text):
        unit = _UNITS.get(match.group(1).strip())
        if unit:
            return unit
    return next(iter(_units_named(text, {"%", "K", "My"})), "")


def _caption_unit(caption: str) -> str:
    found = set(_units_named(caption, {"%", "K", "My", "ε"}))
    return found.pop() if len(found) == 1 else ""


def extract_table_values(rows: Sequence[Sequence[str]], caption: str = "") -> list[TableValue]:
    """Every numeric cell under a column whose header names an analyte (see module docstring)."""
    if len(rows) < 2:
        return []
    width = max(len(r) for r in rows)
    n_header = _header_count(rows)
    if n_header == 0:
        return []
    headers = _headers(rows[:n_header], width)
    caption_unit = _caption_unit(_plain(caption))
    columns: dict[int, tuple[str, str, str]] = {}  # index -> (analyte, kind, unit)
    uncertainty_of: dict[int, int] = {}
    level_of: dict[int, str] = {}
    for i, header in enumerate(headers):
        if i == 0 or not header:
            continue
        plain = _plain(header)
        if _UNCERTAINTY_HEADER.match(plain.strip()) and (i - 1) in columns:
            uncertainty_of[i] = i - 1
            level = re.match(r"\s*([12])\s*(σ|s\b|SE|SD)", plain)
            if level:
                level_of[i - 1] = level.group(1) + {"s": "σ"}.get(level.group(2), level.group(2))
            continue
        bare = _BRACKETED_UNIT.sub("", plain).strip()
        if bare in _SYMBOLS or re.fullmatch(_OXIDE, bare):  # a column headed "U [ppm]" or "SiO2"
            found = [_Analyte(bare, "oxide" if bare not in _SYMBOLS else "element", 0, len(bare))]
        else:
            found = _analytes(plain)
        if not found:
            if re.fullmatch(r"\s*t\s*[\[(]\s*(?:Ma|ka|Ga)\s*[\])]\s*", plain):
                columns[i] = ("age", "age", _unit_in(plain))
            continue
        analyte = found[0]
        own = _UNIT_FOR_KIND.get(analyte.kind, "")  # ratios, ε and δ carry their own unit
        unit = (
            _unit_in(plain[analyte.end :])
            or own
            or (caption_unit if analyte.kind in {"oxide", "element"} else "")
        )
        columns[i] = (analyte.name, analyte.kind, unit)
    out: list[TableValue] = []
    samples = bool(_SAMPLE_HEADER.search(_plain(headers[0]))) if headers else False
    for row in rows[n_header:]:
        cells = list(row) + [""] * (width - len(row))
        label = " ".join(cells[0].split())
        for i, (name, _kind, unit) in columns.items():
            value = _cell(cells[i])
            if value is None:
                continue
            number, uncertainty, qualifier, marks = value
            for j, target in uncertainty_of.items():
                if target == i and uncertainty is None:
                    extra = _cell(cells[j])
                    uncertainty = extra[0] if extra else None
            notes = [marks if marks.startswith("asym") else f"footnote mark {marks!r}"] if marks else []
            out.append(
                TableValue(
                    analyte=name,
                    value=number,
                    unit=unit,
                    row=label,
                    column=" ".join(headers[i].split()),
                    uncertainty=uncertainty,
                    uncertainty_level=level_of.get(i, "") if uncertainty is not None else "",
                    qualifier=qualifier,
                    printed=" ".join(cells[i].split()),
                    notes=notes,
                    sample=label if samples else "",
                )
            )
    return out


def _cell(cell: str) -> tuple[float | None, float | None, str, str] | None:
    """(value, uncertainty, qualifier, footnote marks) of a cell, or None when it holds no value."""
    text = " ".join(_plain(cell).split())
    if not text:
        return None
    if _BDL.match(text):
        return None, None, "bdl", ""
    if _ND.match(text):
        return None, None, "nd", ""
    match = _CELL.match(text.replace("\u2009", ""))
    if match is None:
        return None
    qualifier = {"≤": "<", "≥": ">", "∼": "~", "≈": "~"}.get(
        match.group("qual") or "", match.group("qual") or ""
    )
    unc = match.group("unc") or match.group("unc_paren")
    marks = match.group("marks") or ""
    if match.group("plus"):  # "1555+28 −51": an asymmetric uncertainty, kept in the notes
        plus, minus = match.group("plus"), match.group("minus")
        if minus is None or float(plus) == float(minus):
            unc = plus if minus is not None else None
        marks = f"asymmetric uncertainty +{plus}/-{minus}" if minus and float(plus) != float(minus) else marks
    return parse_number(match.group("value")), parse_number(unc) if unc else None, qualifier, marks
