"""Table cells → typed values: the column header names the analyte and unit, the label columns the
row (and the sample, when a label column's header says it names samples).

A table as the TEI gives it (rows of cell strings, header rows first — GROBID's ``<table>``):

* the label column is the leftmost whose body cells are mostly words (a serial-number column before
  it gives no values), column 0 when all are numbers; the word columns right after it are label
  columns too ("Pluton | Sample | Analysis Number": a row is one analysis, "Ponferrada / LD-1 /
  oc13a11"), and the one headed "Sample" or "Specimen" gives the row's sample;
* header rows are the leading rows whose cells are mostly not numbers, or that print a word in a
  column of numbers ("user 1 41 32 … ng rp sp": grain numbers as headers); a header cell left empty
  under a wider cell above it (a merged header) takes the text to its left; a sparse first header
  row is a group header over the columns that print only a number ("grain ID" → "grain ID 41");
  mass numbers set apart from their element over lines are joined ("206 Pb/ 238 U" → "206Pb/238U"),
  and an isotope or element over another in one column is a ratio set as a fraction ("207Pb" over
  "206Pb" → "207Pb/206Pb", "Th" over "U" → "Th/U"); a row of footnote marks ("(a) (b) (c)") is no
  header text; under a group header, a column that names no analyte is named by its own words
  ("Pbc (pg)", not "Compositional Parameters Pbc (pg)"), and a ratio under a group of ages
  ("Isotopic Ages" over "207Pb/206Pb") is an age, in the one time unit the table's own sentences
  give ages in when its header prints none;
* a column's analyte comes from its header with the same grammar as running text
  (:mod:`geo_assets.measurements.text_values`: "SiO2", "87Sr/86Sr", "εNd(t)", "Tp (°C)", "t [Ma]";
  "206Pb/238U age (Ma)" is an age, and so is a ratio's column in Ma, Ga or ka: "206Pb/238U (Ma)",
  "Ages (Ma) 206Pb/238U" under a group header); its unit from the header's brackets, else from a caption that
  gives the column its unit ("U, s[U], Th, and s[Th] have units of parts per million; … t and s[t]
  are in millions of years", read as the headers "U [ppm]" and "t [Ma]"; a caption that says its
  columns "follow the same convention as Table 1" lends Table 1's, see
  ``geo_assets.measurements.extract``), else from the caption when it names exactly one unit
  ("… concentrations in ppm"), else the analyte's own (ratio,
  epsilon, ‰); a header that names no known analyte is the analyte as printed ("Magnitude",
  "dt"), except headers of positions, counts and identifiers (latitude, n, no., ID, reference);
* uncertainty columns ("±", "± 2σ", "1σ", "2SE", "s[U]", "err", "% err", "1σ (%)", and s + the
  previous header's symbol: "sp" after "rp", level 1σ) belong to the value column before them; a
  column marked "(f)" in a row of footnote marks takes the level its footnote states ("(f) Errors
  are 2-sigma …" → 2σ; the table's note, ``footnotes``), when the header gives none; a
  relative one ("%") stays relative: the number as printed, with the note "relative uncertainty
  (%)" (the text extractor's convention);
* samples as columns (whole-rock tables: analytes as row labels, sample names as headers) are
  read across: analyte from the row label (unit in its brackets or from the caption), sample from
  the column header;
* a sample name's footnote mark ("z26*", "z21†") is no part of the name: sample "z26", the mark
  in ``notes``;
* a row with text in its label cell only ("weighted mean 206Pb/238U age = 1096.19 ± 0.19 Ma") is a
  sentence: its values as the text extractor reads them, the row text as ``row``; one with no value
  that opens with a sample name ("PRI Partridge River intrusion …", "FC-4b Forest Center …",
  "ECMB4") is a section row: the rows under it, down to the next section row, are analyses of that
  sample (``sample`` the section's name, ``row`` "FC-4b / z1": grain numbers repeat from sample to
  sample), and so are the sentences among them; a section row that names no sample
  ("Standards") ends the section;
* a cell is a number (unicode minus, thousands separators, trailing footnote marks a–f * † ‡
  removed), optionally "± u" or "u" in parentheses; "b.d.l.", "<LOD", "n.d.", "–" are flagged nulls
  (``value=None``, qualifier ``bdl``/``nd``), never zeros; "<0.01" keeps its qualifier; an empty
  cell is no value (blank cells do not shift columns: the grid keeps their place).
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
    extract_text_values,
    initial_ratio,
    oxide_name,
    parse_number,
)

__all__ = ["TableValue", "caption_column_units", "extract_table_values", "header_rows"]

_NUM = r"[+\-\u2212]?(?:\d{1,3}(?:[,\u2009]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:[eE][+\-\u2212]?\d+)?"
_CELL = re.compile(
    rf"^(?P<qual>[<>≤≥~∼≈])?\s*(?P<value>{_NUM})\s*(?:(?:±|\+/-)\s*(?P<unc>{_NUM})"
    rf"(?P<more>(?:\s*\({_NUM}\))?(?:\s*\[{_NUM}\])?)|\((?P<unc_paren>{_NUM})\)"
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
# A label column headed "Sample", "Sample ID", "Specimen", "Site" or "Code" (a palaeomagnetic
# table's site codes, "BD03", "JaIb5") names samples: its row labels become the rows' sample. "Spot", "Grain" or "Analysis" columns name spots within a sample (the gold set's
# sample for the spot "GJ1-1-23" is the reference zircon "GJ-1": geo_assets.measurements.extract
# finds it among the samples the paper's text names), and any other label column (a parameter, a
# region, a model) names no sample, so none is guessed.
_SAMPLE_HEADER = re.compile(r"\b(?:samples?|specimens?|sites?)\b|^\s*codes?\s*$", re.IGNORECASE)
# a label column or header row that names what the sample is
_MATERIAL_HEADER = re.compile(
    r"^\s*(?:rock(?:\s*(?:type|name))?|lithology|mineral|material|phase)\s*$", re.IGNORECASE
)
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
    sample: str = ""  # the label cell of the column headed as samples (or a samples-as-columns header)
    value_max: float | None = None  # a range printed in a free-text row
    material: str = ""  # as printed in a column or header row headed "Rock type", "Lithology", "Mineral"


# a minus sign the text layer set apart from its number ("− 2.685"): one number
_LOOSE_SIGN = re.compile(r"^([+\-\u2212])\s+(?=\d)")


def _numeric(cell: str) -> bool:
    text = _LOOSE_SIGN.sub(r"\1", _plain(cell).strip())
    return bool(text) and bool(_CELL.match(text.replace("\u2009", "")) or _BDL.match(text) or _ND.match(text))


def _wordy(body: Sequence[Sequence[str]], column: int) -> bool:
    """A column of names, not numbers: most of its filled body cells are no number."""
    cells = [r[column] for r in body if column < len(r) and r[column].strip()]
    return bool(cells) and sum(not _numeric(c) for c in cells) > len(cells) / 2


def _label_column(rows: Sequence[Sequence[str]], width: int) -> int:
    """The row-label column: the leftmost whose body cells are mostly words, not numbers (a serial
    number column before the country names is no label); column 0 when every column is numeric."""
    return next((i for i in range(min(width, 3)) if _wordy(rows, i)), 0)


def _header_count(rows: Sequence[Sequence[str]], label: int = 0) -> int:
    """Leading rows that are headers: their value cells are mostly not numbers, or a column that
    holds numbers below prints a word in them ("user 1 41 32 … ng rp sp": grain numbers as headers)."""
    width = max(len(r) for r in rows)
    numeric_columns = set()
    for i in range(label + 1, width):
        cells = [r[i] for r in rows[len(rows) // 2 :] if i < len(r) and r[i].strip()]  # the lower half
        if cells and sum(_numeric(c) for c in cells) >= 0.8 * len(cells):
            numeric_columns.add(i)
    count = 0
    for row in rows:
        data = [c for c in row[label + 1 :] if c.strip()]
        mostly_numbers = bool(data) and sum(_numeric(c) for c in data) >= len(data) / 2
        words_in_numbers = any(
            i in numeric_columns and c.strip() and not _numeric(c) for i, c in enumerate(row)
        )
        if mostly_numbers and not (words_in_numbers and count < 3):
            break
        count += 1
    if count >= 2 and _section_sample(" ".join(rows[count - 1][label].split()), rows[count:], label):
        only_label = not any(c.strip() for j, c in enumerate(rows[count - 1]) if j != label)
        count -= only_label  # the first section row under the header ("PRI Partridge River …")
    return min(count, max(len(rows) - 1, 0))


# a header row of footnote marks only ("(a) (b) (c) …" under the column heads): no header text
_MARK_CELL = re.compile(r"^(?:\(?[a-z]\)|[*†‡§¶]+)$")
# an isotope or element alone in a header cell ("207Pb", "206Pb*", "Pbc", "Th"): stacked over
# another one in the same column, the pair is a ratio printed as a fraction ("207Pb" over "206Pb")
_STACKED = re.compile(r"^(?:\d{1,3})?(?P<symbol>[A-Z][a-z]?)[*c]?$")


_LEVEL_WORDS = re.compile(r"\b([12])\s*[-‐]?\s*(?:sigma|σ|s\.?e\.?|SE|SD|s)\b", re.IGNORECASE)


def _footnote_level(mark: str, notes: str) -> str:
    """The uncertainty level the footnote of ``mark`` states ("(f) Errors are 2-sigma, …" → "2σ"),
    when it states exactly one; "" otherwise."""
    letter = mark.strip().strip("()")
    if not letter or not notes:
        return ""
    match = re.search(rf"(?:^|\s)\({re.escape(letter)}\)\s*(?P<text>.*?)(?=\s\([a-z]\)\s|$)", notes)
    if match is None:
        return ""
    stated = list(_LEVEL_WORDS.finditer(match.group("text")))
    if len({m.group(1) for m in stated}) != 1:
        return ""
    level, kind = stated[0].group(1), stated[0].group(0)
    return f"{level}SE" if re.search(r"s\.?e\.?|SE", kind, re.IGNORECASE) else f"{level}σ"


def _marks_row(row: Sequence[str]) -> bool:
    filled = [c.strip() for c in row if c.strip()]
    return len(filled) >= 3 and all(_MARK_CELL.match(c) for c in filled)


def _stacked(upper: str, lower: str) -> bool:
    """Whether ``upper`` over ``lower`` in one column is a ratio set as a fraction ("207Pb" over
    "206Pb", "Th" over "U"); a lone N or C below is a normalisation mark, not a denominator."""
    top = _STACKED.match(upper.split()[-1]) if upper.split() else None
    bottom = _STACKED.match(lower.strip())
    return (
        top is not None
        and bottom is not None
        and top.group("symbol") in _SYMBOLS
        and bottom.group("symbol") in _SYMBOLS
        and lower.strip() not in {"N", "C"}
    )


def _own_header(rows: Sequence[Sequence[str]], i: int) -> str:
    """Column ``i``'s header from ``rows`` alone (the lines under a group header), no cell spread."""
    own = ""
    for row in rows:
        cell = " ".join(row[i].split())
        if cell:
            own = f"{own}{'/' if own and _stacked(own, cell) else ' '}{cell}".strip()
    return _join_isotopes(own)


def _headers(rows: Sequence[Sequence[str]], width: int) -> list[str]:
    filled_first = [c.strip() for c in rows[0][1:] if c.strip()] if rows else []
    sparse = len(rows) > 1 and bool(filled_first) and len(filled_first) <= (width - 1) / 3
    lower = _headers(rows[1:], width) if sparse else []
    if sparse and any(re.fullmatch(r"\d+", h) for h in lower[1:]):
        # a sparse first row is a group header ("grain ID" over grain numbers): it names the columns
        # that print only a number below it ("grain ID 41"); the others keep their own header
        group = " ".join(filled_first)
        return [f"{group} {h}" if i and re.fullmatch(r"\d+", h) else h for i, h in enumerate(lower)]
    columns = [""] * width
    for row in rows:
        filled = list(row) + [""] * (width - len(row))
        for i in range(1, width):  # a merged header cell spans the empty ones to its right, but a
            # sparse top line is the first line of the headers it sits on ("Maximum" over "shaking
            # deaths", beside columns whose headers start lower)
            if (
                not filled[i].strip()
                and filled[i - 1].strip()
                and len(rows) > 1
                and row is rows[0]
                and not sparse
            ):
                filled[i] = filled[i - 1]
        for i, cell in enumerate(filled):
            if cell.strip():
                joint = "/" if i and _stacked(columns[i], cell) else " "
                columns[i] = f"{columns[i]}{joint}{cell.strip()}".strip()
    return [_join_isotopes(re.sub(r"\(cid:\d+\)", "", c)) for c in columns]  # glyphs without text


_MASS_NUMBER = re.compile(r"(?<![\w.])(\d{1,3})\s+([A-Z][a-z]?)(?![a-z])")


def _join_isotopes(header: str) -> str:
    """A header set over lines with raised mass numbers ("206 Pb/ 238 U") as one notation ("206Pb/238U")."""
    joined = _MASS_NUMBER.sub(
        lambda m: m.group(1) + m.group(2) if m.group(2) in _SYMBOLS else m.group(0), header
    )
    return re.sub(r"(?<=[A-Za-z\d])\s*/\s*(?=\d{1,3}[A-Z])", "/", joined)


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


# a bracketed unit outside the vocabulary at a header's end: "U [pmol]", "4He (ncc)", "I (cps)", "x (µm)"
_OTHER_UNIT = re.compile(
    r"[\[(]\s*((?:[pnµμmkf]?(?:mol|g|cc|l|L|m|V|A|s)|cps|counts?|mV/Hz)(?:/[a-zA-Z]+)?)\s*[\])]\s*$"
)


# a column header that sets a condition of a model or an experiment ("λ = 200 (c = 0.01)", "P = 1
# GPa"): its cells are values of the quantity the caption names with its unit ("…, β in %"), under
# that condition
_CONDITION = re.compile(r"^[^\W\d_][^\W_]{0,3}\s*[=≈<>≤≥]\s*[-−+]?\d")
_CAPTION_QUANTITY = re.compile(
    r"(?:^|[\s(,;])(?P<sym>[^\W\d_][^\W_]{0,3})\s+(?:in|\[|\()\s*"
    r"(?P<unit>%|‰|ppm|ppb|wt\.?\s?%|Ma|ka|Ga|°C|K|GPa|kbar)\]?(?=[\s),;.]|$)"
)


def _caption_quantity(caption: str) -> tuple[str, str] | None:
    """(symbol, unit) of the one quantity a caption names with a unit ("β in %"), else None."""
    found = {
        (m.group("sym"), _UNITS.get(m.group("unit"), m.group("unit")))
        for m in _CAPTION_QUANTITY.finditer(caption)
    }
    return found.pop() if len(found) == 1 else None


def _printed_unit(header: str) -> str:
    match = _OTHER_UNIT.search(header)
    return match.group(1) if match else ""


def _strip_units(text: str) -> str:
    """``text`` without the units it prints in brackets ("SiO2 (wt.%)" → "SiO2", "U [pmol]" → "U");
    other brackets stay ("(La/Yb)N", "ln[206Pb/238U]")."""
    return " ".join(
        _BRACKETED_UNIT.sub(
            lambda m: "" if _UNITS.get(m.group(1).strip()) or _printed_unit(m.group(0)) else m.group(0), text
        ).split()
    )


def _caption_units(caption: str) -> dict[str, str]:
    """The unit a caption gives concentrations, by kind ("oxide", "element"): its one unit for both;
    or, where it names both wt.% and ppm ("Major (wt.%) and trace element (ppm) compositions"), wt.%
    for oxides and ppm for elements, the convention of whole-rock tables."""
    found = set(_units_named(caption, {"%", "K", "My", "ε"}))
    if len(found) == 1:
        unit = found.pop()
        return {"oxide": unit, "element": unit}
    concentrations = found & {"wt.%", "ppm", "ppb"}
    if concentrations == {"wt.%", "ppm"}:
        return {"oxide": "wt.%", "element": "ppm"}
    return {"oxide": "wt.%"} if concentrations == {"wt.%", "ppm", "ppb"} else {}


def _section_units(label: str) -> dict[str, str] | None:
    """A row that only names a unit for the rows under it ("Major elements (wt.%)", "Trace elements
    (ppm)"): that unit for oxides and elements, else None."""
    unit = _unit_in(_plain(label))
    return {"oxide": unit, "element": unit} if unit in {"wt.%", "ppm", "ppb"} else None


# units a caption spells out in words, beside the printed forms of the unit vocabulary
_UNIT_WORDS = {
    "parts per million": "ppm",
    "parts per billion": "ppb",
    "millions of years": "Ma",
    "million years": "Ma",
    "billions of years": "Ga",
    "billion years": "Ga",
    "thousands of years": "ka",
    "thousand years": "ka",
    "weight percent": "wt.%",
    "weight per cent": "wt.%",
    "degrees celsius": "°C",
    "gigapascals": "GPa",
    "kilobars": "kbar",
    "per mil": "‰",
    "permil": "‰",
}
_KNOWN_UNITS = set(_UNITS.values())
# a caption that says the table's values are percentages: "All discordance values are expressed as
# percentages", "Relative Abundances (in Area Percent)", "β in %"; columns named by their own words
# and given no unit otherwise take "%"
_PERCENT_CAPTION = re.compile(
    r"\b(?:values|abundances|data|proportions|contents)\s+(?:are|is)\s+"
    r"(?:expressed\s+|given\s+|reported\s+|quoted\s+|listed\s+)?(?:as|in)\s+(?:per\s?cent(?:ages?)?|%)"
    r"|\(\s*in\s+(?:[a-z]+\s+)?per\s?cent\s*\)|\b(?:values|data|abundances)\s+in\s+%|\S\s+in\s+%\)",
    re.IGNORECASE,
)
# "<columns> have units of <unit>", "<columns> are (given|expressed|reported) in <unit>"
_COLUMN_UNITS = re.compile(
    r"(?:^|[;.]\s*|,\s*(?:and\s+)?)(?P<cols>[^;.:]{1,120}?)\s+(?:ha(?:s|ve)\s+units?\s+of|(?:is|are)\s+"
    r"(?:given\s+|expressed\s+|reported\s+|quoted\s+)?in)\s+(?P<unit>[^;.,()]{1,40})",
    re.IGNORECASE,
)


def caption_column_units(caption: str) -> dict[str, str]:
    """Column header → unit, where a caption gives columns their units in words ("U, s[U], Th, and
    s[Th] have units of parts per million"; "t and s[t] are in millions of years"; "…, except for dt,
    which is expressed in Myr"); a unit outside
    the vocabulary is kept in its words ("millivolts per hertz"). Headers compared without spaces,
    case kept."""
    out: dict[str, str] = {}
    for match in _COLUMN_UNITS.finditer(_plain(caption)):
        printed = match.group("unit").split()
        words = " ".join(printed).casefold()
        unit = next((u for w, u in _UNIT_WORDS.items() if words.startswith(w)), "")
        if not unit and printed:
            unit = _UNITS.get(printed[0], "")
        if not unit:  # a unit outside the vocabulary ("millivolts per hertz"): kept in words
            unit = " ".join(printed)
        for column in re.split(r",\s*(?:and\s+)?|\s+and\s+", match.group("cols")):
            # "…, except for dt, which is expressed in Myr": the column is "dt"
            name = re.sub(
                r"^(?:and\s+)?(?:except\s+(?:for\s+)?)?(?:the\s+)?(?:columns?\s+)?",
                "",
                column.strip(),
                flags=re.I,
            )
            key = re.sub(r"\s+", "", name)
            if key and len(key) <= 20:
                out[key] = unit
    return out


_TIME_UNIT = re.compile(r"[\[(]\s*(Ma|Ga|ka)\s*[\])]")


def _analyte_of(header: str, caption_units: dict[str, str]) -> tuple[str, str, str] | None:
    """(analyte, kind, unit) a header names; None when it names none."""
    plain = _plain(header)
    bare = _strip_units(plain)
    if bare in _SYMBOLS or re.fullmatch(_OXIDE, bare):  # a column headed "U [ppm]" or "SiO2"
        kind = "oxide" if bare not in _SYMBOLS else "element"
        found = [_Analyte(oxide_name(bare) if kind == "oxide" else bare, kind, 0, len(bare))]
    else:
        found = _analytes(plain)
    if not found:
        if re.fullmatch(r"\s*t\s*[\[(]\s*(?:Ma|ka|Ga)\s*[\])]\s*", plain):
            return "age", "age", _unit_in(plain)
        return None
    # "206Pb/238U age (Ma)" heads ages, not ratios
    analyte = next((a for a in found if a.kind == "age"), found[0])
    time = _TIME_UNIT.search(plain) if analyte.kind == "ratio" else None
    if time:  # "206Pb/238U Age (Ma)", "Ages (Ma) 206Pb/238U": a ratio in time units is an age
        return "age", "age", time.group(1)
    if analyte.kind == "ratio" and re.search(r"\bages?\b", plain, re.IGNORECASE):
        return "age", "age", ""  # "Isotopic Ages" over "207Pb/206Pb": an age, its unit not printed
    own = _UNIT_FOR_KIND.get(analyte.kind, "")  # ratios, ε and δ carry their own unit
    unit = _unit_in(plain[analyte.end :]) or own or caption_units.get(analyte.kind, "")
    return analyte.name, analyte.kind, unit


# headers of columns that hold no measured quantity: positions, counts, serial numbers, identifiers
_NOT_QUANTITY = re.compile(
    r"^(?:no\.?|#|n|ns|n\s*\(.*\)|N|serial.*|id|lat(?:itude)?.*|long(?:itude)?.*|lon\b.*|x|y|z|"
    r"easting.*|northing.*|utm.*|fig(?:ure)?\.?.*|ref(?:erence)?s?\.?.*|page|year|"
    # error correlations qualify the uncertainties of other columns; they are no measurement
    r"r\s*\[.*\]|ρ.*|rho.*|(?:err(?:or)?\.?\s*)?corr(?:elation|\.)?.*)$",
    re.IGNORECASE,
)
_RELATIVE = re.compile(r"%")
_MARKS = re.compile(r"^(?P<name>.*?[A-Za-z0-9)])\s*(?P<marks>[*†‡§¶]+|\s[a-e])$")


def _wrapped_tail(cell: str) -> bool:
    """A header cell that closes a bracket it did not open: the last line of a header wrapped over
    lines ("ζ" / "(residual" / "error)"), no header of its own."""
    return cell.count(")") > cell.count("(") or cell.count("]") > cell.count("[")


def _uncertainty_header(header: str, previous: str) -> str | None:
    """The uncertainty level ("1σ", "2SE", or "") when ``header`` heads the uncertainty of the column
    before it ("±", "2σ", "% err", "1σ %", "s[t]", and s + the previous header's symbol: "sp" after
    "rp"); None otherwise."""
    plain = _plain(header).strip()
    bare = re.sub(r"[\s()\[\]]", "", plain)
    prev = re.sub(r"[()\[\]]", "", _plain(previous).split()[-1]) if previous.split() else ""
    # what is left of "± 2σ", "% err", "1σ (%)", "2SE abs." without its uncertainty words
    rest = re.sub(r"±|\+/-|%|[()\[\]]|\b(?:[12]\s*(?:σ|s|SE|SD)|σ|err(?:or)?|unc(?:ertainty)?|abs|rel|RSD|int(?:ernal)?|tot(?:al)?|ext(?:ernal)?)\b\.?|σ",
                  "", plain, flags=re.IGNORECASE)  # fmt: skip
    mine = (
        _UNCERTAINTY_HEADER.match(plain)
        or bool(plain) and not rest.strip(" .,:")
        or bool(prev) and bare in {f"s{prev}", f"σ{prev}", f"s[{prev}]"}
        or len(prev) == 2 and bare in {f"s{prev[1]}", f"σ{prev[1]}"}
    )  # fmt: skip
    if not mine:
        return None
    level = re.search(r"([12])\s*(σ|s\b|SE|SD)", plain)
    if level:
        return level.group(1) + {"s": "σ"}.get(level.group(2), level.group(2))
    return (
        "1σ" if bare.startswith(("s", "σ")) and bare not in {"sd", "SD"} and not bare.startswith("se") else ""
    )


def _sample_name(label: str) -> tuple[str, str]:
    """A sample label as the sample and its footnote mark ("z26*" → "z26", "*")."""
    match = _MARKS.match(label.strip())
    if match and any(c.isdigit() for c in match.group("name")):
        return match.group("name").strip(), match.group("marks").strip()
    return label.strip(), ""


def _names_analyte(label: str) -> bool:
    bare = _strip_units(_plain(label))
    if bare in _SYMBOLS or re.fullmatch(_OXIDE, bare):
        return True
    found = _analytes(_plain(label))
    return bool(found) and found[0].start == 0


def header_rows(rows: Sequence[Sequence[str]]) -> list[list[str]]:
    """The table's header rows as :func:`extract_table_values` finds them (what a continued page
    that does not repeat them borrows)."""
    if len(rows) < 2:
        return []
    width = max(len(r) for r in rows)
    padded = [list(r) + [""] * (width - len(r)) for r in rows]
    return padded[: _header_count(padded, _label_column(padded[1:], width))]


def extract_table_values(
    rows: Sequence[Sequence[str]], caption: str = "", definitions: str = "", footnotes: str = ""
) -> list[TableValue]:
    """Every numeric cell of a value column (see module docstring). ``definitions``: another
    caption whose column units this table shares ("same convention as Table 1"); ``footnotes``: the
    table's footnotes ("(f) Errors are 2-sigma"), which give the uncertainty columns marked "(f)"
    their level."""
    if len(rows) < 2:
        return []
    width = max(len(r) for r in rows)
    rows = [list(r) + [""] * (width - len(r)) for r in rows]
    label = _label_column(rows[1:], width)
    n_header = _header_count(rows, label)
    if n_header == 0:
        return []
    marks = next((r for r in rows[:n_header] if _marks_row(r)), [])  # "(a) (b) (c)" under the heads
    head = [r for r in rows[:n_header] if not _marks_row(r)] or rows[:n_header]
    rows, n_header = [*head, *rows[n_header:]], len(head)
    headers = _headers(rows[:n_header], width)
    caption_units = _caption_units(_plain(caption))
    column_units = {**caption_column_units(definitions), **caption_column_units(caption)}
    in_percent = bool(_PERCENT_CAPTION.search(_plain(caption)))  # "values are expressed as percentages"
    quantity = _caption_quantity(_plain(caption))
    condition: dict[int, str] = {}  # index -> the condition a column's header sets
    body = rows[n_header:]
    # the labels of rows that print values (not section rows, "Trace elements (ppm)", nor "2σ" rows)
    labels = [
        " ".join(r[label].split())
        for r in body
        if r[label].strip()
        and any(_numeric(c) for j, c in enumerate(r) if j != label)
        and not _UNCERTAINTY_ROW.match(r[label].strip())
    ]
    value_headers = [h for i, h in enumerate(headers) if i > label and h]
    label_share = sum(_names_analyte(x) for x in labels) / max(len(labels), 1)
    header_share = sum(_names_analyte(h) for h in value_headers) / max(len(value_headers), 1)
    # analytes down the side, none (or few) across the top; with no analyte across the top at all, a
    # side with sums, ages and totals among the analytes ("ΣREE", "TDM (Ma)", "Total") still is one
    if len(labels) >= 3 and (
        label_share >= 0.6 and header_share < 0.3 or label_share >= 0.4 and header_share == 0
    ):
        return _samples_as_columns(head, body, label, caption_units)
    # the label columns: the label column and the word columns right after it ("Pluton | Sample |
    # Analysis": a row is one analysis, and the column headed as samples names its sample)
    labels_at = [label]
    while labels_at[-1] + 1 < width and _wordy(body, labels_at[-1] + 1):
        labels_at.append(labels_at[-1] + 1)
    columns: dict[int, tuple[str, str, str]] = {}  # index -> (analyte, kind, unit)
    # index -> (unit, where it is printed): a unit outside the vocabulary, from the caption's words
    # or the header's brackets
    worded: dict[int, tuple[str, str]] = {}
    uncertainty_of: dict[int, int] = {}
    level_of: dict[int, str] = {}
    relative: set[int] = set()
    percent: set[int] = set()  # columns in the percent the caption says the table's values are in
    for i, header in enumerate(headers):
        if i <= labels_at[-1] or not header:
            continue
        if (i - 1) in uncertainty_of and _uncertainty_header(header, "") is not None:
            continue  # a second uncertainty ("int. unc.", then "tot. unc."): the first one is kept
        level = _uncertainty_header(header, headers[i - 1]) if (i - 1) in columns else None
        bottom = _plain(rows[n_header - 1][i]).strip()
        if level is None and (i - 1) in columns and n_header > 1 and not _wrapped_tail(bottom):
            # "±2s" under a group header ("Isotopic Ratios and 2s (%) Errors") that the merge joined to it
            level = _uncertainty_header(bottom, headers[i - 1])
        if level is not None:
            uncertainty_of[i] = i - 1
            if level:
                level_of[i - 1] = level
            if _RELATIVE.search(header):
                relative.add(i - 1)
            continue
        given = column_units.get(re.sub(r"\s+", "", _plain(header)))
        if given and given in _KNOWN_UNITS and not _unit_in(_plain(header)):
            header = f"{header} [{given}]"  # the caption's unit, as if the header printed it
        elif given and given not in _KNOWN_UNITS:
            worded[i] = (
                given,
                "caption",
            )  # no ratio, no vocabulary unit: the caption's words go to the notes
        elif not _unit_in(_plain(header)) and (printed := _printed_unit(_plain(header))):
            worded[i] = (printed, "header")  # "U [pmol]": a unit outside the vocabulary, kept in the notes
        own = _own_header(rows[1:n_header], i)
        if own and _NOT_QUANTITY.match(_plain(own).strip(" .:")):
            continue  # "corr. coef." under a group header ("Radiogenic Isotope Ratios")
        setting = " ".join(_plain(header).split())
        if _CONDITION.match(setting):  # "λ = 200 (c = 0.01)", "P = 1 GPa": a condition, not the quantity
            condition[i] = setting
            # the quantity the caption names ("β in %"), else the header as printed, with no unit
            columns[i] = (quantity[0], "other", quantity[1]) if quantity else (setting, "other", "")
            continue
        named = _analyte_of(header, caption_units)
        if named is None:
            plain = " ".join(_plain(header).split())
            if _NOT_QUANTITY.match(plain.strip(" .:")) or len(plain) > 90 or not re.search(r"[^\W\d]", plain):
                continue
            top = rows[0][i].strip()
            grouped = (
                n_header > 1
                and own
                and top
                and any(0 <= j < width and rows[0][j].strip() == top for j in (i - 1, i + 1))
            )
            if grouped:  # under a group header ("Compositional Parameters"): the column's own words
                plain = " ".join(_plain(own).split())
            # the header as printed names the quantity, less the unit it prints ("dt [Ma]" → "dt")
            named = (_strip_units(plain) or plain, "other", _unit_in(plain))
        if (
            in_percent
            and named[1] == "other"
            and not named[2]
            and not given
            and _plain(header).split()[0] not in column_units  # "except for dt, …" ("dt −71 −48")
        ):
            named = (named[0], "other", "%")  # "All discordance values are expressed as percentages"
            percent.add(i)
        columns[i] = named
    # "(f)" over a "±" column, "(f) Errors are 2-sigma" below; then a value column's own mark, for
    # the "± x" printed in its cells ("(h) Weighted mean ± 2s internal uncertainty")
    for j, target in [*uncertainty_of.items(), *((i, i) for i in columns)]:
        footnoted = _footnote_level(marks[j] if j < len(marks) else "", footnotes)
        if footnoted and not level_of.get(target):
            level_of[target] = footnoted
    sample_at = next((j for j in labels_at if headers and _SAMPLE_HEADER.search(_plain(headers[j]))), None)
    material_at = next((j for j in labels_at if headers and _MATERIAL_HEADER.match(_plain(headers[j]))), None)
    out: list[TableValue] = []
    section = ""  # the sample a section row names for the rows under it
    above = ""  # the last sample the sample column printed
    for row in body:
        cells = row
        text = " ".join(cells[label].split())
        if text and not any(c.strip() for j, c in enumerate(cells) if j != label):
            said = _free_text_row(text)  # "weighted mean 206Pb/238U age = 1096.19 ± 0.19 Ma"
            if not said:  # a section row: "PRI Partridge River intrusion (Duluth Complex …)"
                section = _section_sample(text, body, label)
            for found in said:
                found.sample = section
            out += said
            continue
        text = " / ".join(" ".join(cells[j].split()) for j in labels_at if cells[j].strip())
        sample, mark = _sample_name(" ".join(cells[sample_at].split())) if sample_at is not None else ("", "")
        continued = sample_at is not None and not sample and bool(text)
        if continued:  # the sample cell left blank under a sample ("R TC" under "BD03"): the same sample
            sample = above
        above = sample or above
        if section:  # the row label names a grain, fraction or spot of the section's sample
            sample, mark, text = section, "", f"{section} / {text}" if text else section
        for i, (name, _kind, unit) in columns.items():
            value = _cell(cells[i])
            if value is None:
                continue
            number, uncertainty, qualifier, marks = value
            for j, target in uncertainty_of.items():
                if target == i and uncertainty is None:
                    extra = _cell(cells[j])
                    uncertainty = extra[0] if extra else None
            notes = _cell_notes(marks, mark, relative=i in relative and uncertainty is not None)
            if continued and sample:
                notes.append("sample: the row above's (its sample cell is blank)")
            if i in percent:
                notes.append("unit: % (caption)")
            if _kind == "ratio" and initial_ratio(_plain(headers[i])):
                notes.append("initial ratio")
            if i in condition:
                notes.append(f"condition: {condition[i]}")
            if i in worded:
                unit = ""
                notes.append("unit {} ({})".format(*worded[i]))
            out.append(
                TableValue(
                    analyte=name,
                    value=number,
                    unit=unit,
                    row=text,
                    column=" ".join(headers[i].split()),
                    uncertainty=uncertainty,
                    uncertainty_level=level_of.get(i, "") if uncertainty is not None else "",
                    qualifier=qualifier,
                    printed=" ".join(cells[i].split()),
                    notes=notes,
                    sample=sample,
                    material=" ".join(cells[material_at].split()) if material_at is not None else "",
                )
            )
    return _age_unit_from_sentences(out)


def _age_unit_from_sentences(values: list[TableValue]) -> list[TableValue]:
    """Age columns whose header prints no unit ("Isotopic Ages" over "206Pb/238U") take the one
    time unit the table's own sentences give ages in ("weighted mean 206Pb/238U age = 1096.19 ±
    0.19 Ma"), with a note; with no such sentence, or two units, they stay without one."""
    said = {v.unit for v in values if v.analyte == "age" and not v.column and v.unit}
    if len(said) != 1:
        return values
    unit = said.pop()
    for value in values:
        if value.analyte == "age" and value.column and not value.unit:
            value.unit = unit
            value.notes.append("unit from the table's weighted-mean rows")
    return values


def _cell_notes(marks: str, sample_mark: str, *, relative: bool = False) -> list[str]:
    """A value's notes: the cell's footnote or asymmetry marks, a relative uncertainty, the mark on
    its sample's name."""
    notes = [marks if marks.startswith(("asym", "further")) else f"footnote mark {marks!r}"] if marks else []
    if relative:
        notes.append("relative uncertainty (%)")
    if sample_mark:
        notes.append(f"sample footnote mark {sample_mark!r}")
    return notes


_SECTION_ID = re.compile(r"^(?P<id>[A-Za-z0-9]+(?:[-._][A-Za-z0-9]+)*)(?:\s+\S|$)")


def _section_sample(text: str, body: Sequence[Sequence[str]], label: int) -> str:
    """The sample a table's section row names for the rows under it: its first word when that is an
    identifier with letters and digits ("FC-4b Forest Center anorthosite …", "BHVO-2 reference
    material"), or an abbreviation in capitals ("PRI Partridge River intrusion …") over rows whose
    labels are short grain, fraction or spot numbers (z1, z2, 3a); "" for a section row that names
    no sample ("Secondary standards", "MORB glasses" over sample names)."""
    match = _SECTION_ID.match(text)
    if match is None:
        return ""
    ident = match.group("id")
    if len(ident) > 16 or _names_analyte(ident):
        return ""
    if any(c.isdigit() for c in ident) and any(c.isalpha() for c in ident):
        return ident
    labels = [
        " ".join(r[label].split())
        for r in body
        if r[label].strip() and any(c.strip() for c in r[label + 1 :])
    ]
    short = bool(labels) and all(len(x) <= 4 for x in labels)
    return ident if ident.isupper() and 2 <= len(ident) <= 5 and short else ""


# a row label that heads the uncertainties of the row above ("2σ", "± 2SD", "2SE (abs.)", "error"),
# not a word of the uncertainty vocabulary alone ("Total")
_UNCERTAINTY_ROW = re.compile(  # case kept for σ: a capital Σ sums ("ΣREE")
    r"^(?:±|\+/-|[12]\s*(?:σ|s|SE|SD|se|sd)\b|σ|%\s*(?i:err)|(?i:err(?:or)?s?|unc(?:ertainty)?)\b)"
)


def _other_quantity(label: str) -> bool:
    """A row label that names a quantity outside the analyte vocabulary ("ΣREE", "TDM (Ma)", "Total"):
    words, not a position, count or identifier, not an uncertainty row."""
    plain = " ".join(_plain(label).split())
    return (
        bool(re.search(r"[^\W\d]", plain))
        and not _NOT_QUANTITY.match(plain.strip(" .:"))
        and not _UNCERTAINTY_ROW.match(plain)
        and _units_row([label]) is None
        and len(plain) <= 60
    )


def _units_row(row: Sequence[str]) -> dict[str, str] | None:
    """A row that only names a unit for the rows under it ("Major elements (wt.%)", "Trace elements
    (ppm)", its words possibly spread over the first cells): that unit for oxides and elements."""
    if any(_numeric(c) for c in row):
        return None
    return _section_units(" ".join(" ".join(c.split()) for c in row if c.strip()))


def _samples_as_columns(
    head: Sequence[Sequence[str]], body: Sequence[Sequence[str]], label: int, caption_units: dict[str, str]
) -> list[TableValue]:
    """A whole-rock table with the samples as columns: the row label names the analyte (its unit in
    brackets, else that of the section row above it, "Trace elements (ppm)", else the caption's),
    the column header the sample. Of several header rows, the one headed "Sample" (else the first)
    names the samples and the others describe them ("Rock type: basalt", a note); a row under an
    analyte headed "2σ", "2SD" or "±" gives that analyte's values their uncertainties."""
    units = dict(caption_units)
    kept: list[Sequence[str]] = []
    for row in head:  # "Major elements (wt.%)" right under the sample names is no header
        found = _units_row(row)
        if found:
            units.update(found)
        else:
            kept.append(row)
    kept = kept or list(head)
    width = max(len(r) for r in [*head, *body])
    headers = _headers(kept, width)
    names = next((r for r in kept if _SAMPLE_HEADER.search(_plain(r[label]))), kept[0])
    described = [r for r in kept if r is not names]
    out: list[TableValue] = []
    section_units = units
    previous = ""  # the analyte row above: what an uncertainty row below it qualifies
    above: dict[int, TableValue] = {}  # column -> the value of the row above in that column
    for row in body:
        text = " ".join(row[label].split())
        named = _analyte_of(text, section_units) if text else None
        if (
            named is None
            and _other_quantity(text)
            and any(_numeric(c) for j, c in enumerate(row) if j != label)
        ):
            named = (
                _strip_units(_plain(text)) or text,
                "other",
                _unit_in(_plain(text)),
            )  # "ΣREE", "TDM (Ma)"
        if named is None:
            level = _uncertainty_header(text, previous) if above and _UNCERTAINTY_ROW.match(text) else None
            if level is not None:  # "2SD" under "87Sr/86Sr": the values' uncertainties
                for i, held in above.items():
                    cell = _cell(row[i]) if i < len(row) else None
                    if cell is not None and cell[0] is not None and held.uncertainty is None:
                        held.uncertainty, held.uncertainty_level = cell[0], level
                        if "%" in text:
                            held.notes.append("relative uncertainty (%)")
                above = {}
                continue
            section = _units_row(row) if text else None
            if section:
                section_units = {**units, **section}
            above, previous = {}, ""
            continue
        name, _kind, unit = named
        above, previous = {}, text
        for i, header in enumerate(headers):
            if i <= label or not header.strip():
                continue
            value = _cell(row[i])
            if value is None:
                continue
            number, uncertainty, qualifier, marks = value
            printed_name = " ".join(names[i].split()) if i < len(names) else ""
            sample, mark = _sample_name(printed_name or " ".join(header.split()))
            notes = _cell_notes(marks, mark)
            if _kind == "ratio" and initial_ratio(_plain(text)):
                notes.append("initial ratio")
            notes += [
                f"{' '.join(r[label].split()) or 'header'}: {' '.join(r[i].split())}"
                for r in described
                if i < len(r) and r[i].strip()
            ]
            material = next(
                (
                    " ".join(r[i].split())
                    for r in described
                    if i < len(r) and _MATERIAL_HEADER.match(_plain(r[label]))
                ),
                "",
            )
            read = TableValue(
                material=material,
                analyte=name,
                value=number,
                unit=unit,
                row=text,
                column=" ".join(header.split()),
                uncertainty=uncertainty,
                qualifier=qualifier,
                printed=" ".join(row[i].split()),
                notes=notes,
                sample=sample,
            )
            out.append(read)
            above[i] = read
    return out


def _free_text_row(text: str) -> list[TableValue]:
    """The values a sentence printed inside a table claims, each once (``row`` the sentence)."""
    return [
        TableValue(
            analyte=v.analyte,
            value=v.value,
            value_max=v.value_max,
            unit=v.unit,
            row=text,
            column="",
            uncertainty=v.uncertainty,
            uncertainty_level=v.uncertainty_level,
            qualifier=v.qualifier,
            printed=v.printed,
            notes=list(v.notes),
        )
        for v in extract_text_values(text)
    ]


def _cell(cell: str) -> tuple[float | None, float | None, str, str] | None:
    """(value, uncertainty, qualifier, footnote marks) of a cell, or None when it holds no value."""
    text = _LOOSE_SIGN.sub(r"\1", " ".join(_plain(cell).split()))
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
    if (match.group("more") or "").strip():  # "1780.78 ± 0.45 [2.39]": an ID-TIMS weighted mean
        marks = f"further uncertainties as printed: {' '.join(match.group('more').split())}"
    if match.group("plus"):  # "1555+28 −51": an asymmetric uncertainty, kept in the notes
        plus, minus = match.group("plus"), match.group("minus")
        if minus is None or float(plus) == float(minus):
            unc = plus if minus is not None else None
        marks = f"asymmetric uncertainty +{plus}/-{minus}" if minus and float(plus) != float(minus) else marks
    return parse_number(match.group("value")), parse_number(unc) if unc else None, qualifier, marks
