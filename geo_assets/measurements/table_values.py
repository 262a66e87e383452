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
* samples as columns (whole-rock tables: analytes as row labels, sample names as headers; or
  columns each headed by an item's identifier, "Monte Rosa (T12)", whatever the rows name) are
  read across: analyte from the row label (unit in its brackets or from the caption), sample from
  the column header (a bracketed code, "T12", where it prints one);
* a sample name's footnote mark ("z26*", "z21†") is no part of the name: sample "z26", the mark
  in ``notes``;
* a row with text in its label cell only ("weighted mean 206Pb/238U age = 1096.19 ± 0.19 Ma") is a
  sentence: its values as the text extractor reads them, the row text as ``row``; one with no value
  that opens with a sample name ("PRI Partridge River intrusion …", "FC-4b Forest Center …",
  "ECMB4") is a section row: the rows under it, down to the next section row, are analyses of that
  sample (``sample`` the section's name, ``row`` "FC-4b / z1": grain numbers repeat from sample to
  sample), and so are the sentences among them; a section row that names no sample
  ("Standards") ends the section; a row that names a sample and states a parameter in place of
  values ("IH-3  J = 0.0106220 ± 0.0000425", an Ar–Ar sample's irradiation parameter) is a section
  row of that sample too, never a header line;
* rows of heads after a data row (three or more naming a quantity, a unit or an uncertainty: an
  Ar–Ar table's "Results  40(r)/39(k)  ±2σ  Age  ±2σ  MSWD" over its plateau and total-fusion ages)
  head the rows under them, read as a table of their own when every number there has a head over
  it, else not at all; their rows take the one sample of the rows above;
* a cell is a number (unicode minus, thousands separators, trailing footnote marks a–f * † ‡
  removed), optionally "± u" or "u" in parentheses, or a range ("89–95": ``value_max`` its high
  end, a bracketed mean after it a note); a "±" the grid set in a column of its own joins the value
  and uncertainty either side of it; a parameter in the label column under an item's row ("ζ =
  385.9" under "JR1") makes the row that item's next line; "b.d.l.", "<LOD", "n.d.", "–" are flagged nulls
  (``value=None``, qualifier ``bdl``/``nd``), never zeros; "<0.01" keeps its qualifier; an empty
  cell is no value (blank cells do not shift columns: the grid keeps their place).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from geo_assets.ingest.table_cells import COORDINATE, mark_cell, marks_row
from geo_assets.measurements.samples import label_identifier
from geo_assets.measurements.table_headers import (
    CONDITION,
    KNOWN_UNITS,
    LETTER_SPACED,
    MATERIAL_HEADER,
    NOT_QUANTITY,
    PERCENT_CAPTION,
    SAMPLE_HEADER,
    SOURCE_HEADER,
    UNCERTAINTY_ROW,
    WITH_UNCERTAINTY,
    analyte_of,
    caption_column_units,
    caption_printed_unit,
    caption_quantity,
    column_headers,
    names_analyte,
    own_header,
    raised_mark,
    shared_uncertainty,
    strip_units,
    uncertainty_header,
    unit_as_printed,
    unit_in,
    units_of_caption,
    units_of_notes,
    units_of_section,
    wrapped_tail,
)
from geo_assets.measurements.text_values import extract_text_values, parse_number, plain_letters, time_note

__all__ = ["TableValue", "caption_column_units", "extract_table_values", "header_rows", "identifier_label"]

_NUM = r"[+\-\u2212]?(?:\d{1,3}(?:[,\u2009]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:[eE][+\-\u2212]?\d+)?"
_CELL = re.compile(
    rf"^(?P<qual>[<>≤≥~∼≈])?\s*(?P<value>{_NUM})\s*(?:(?:±|\+/-)\s*(?P<unc>{_NUM})"
    rf"(?P<more>(?:\s*\({_NUM}\))?(?:\s*\[{_NUM}\])?)|\((?P<unc_paren>{_NUM})\)"
    r"|\+\s*(?P<plus>\d+(?:\.\d+)?)\s*(?:[−\-–]\s*(?P<minus>\d+(?:\.\d+)?))?)?\s*"
    r"(?P<marks>[a-f*†‡§]{0,2})$"
)
# a range printed in one cell ("89–95", "16.4–14.8", a review's "25 − 66 (45)" with its mean in
# brackets): a depositional age, a range of a rock type's compositions
_RANGE_CELL = re.compile(
    rf"^(?P<qual>[~∼≈])?\s*(?P<low>{_NUM})\s*[–—\-\u2212]\s*(?P<high>{_NUM})"
    rf"(?:\s*\((?P<mean>{_NUM})\))?\s*(?P<marks>[a-f*†‡§]{{0,2}})$"
)
# a parameter stated in the label column under a sample's row ("ζ = 385.9", "ρD = 1557600" under
# "JR1" in a fission-track table): the row is the sample's next grain, not a row of its own
_LABEL_STATEMENT = re.compile(rf"^[^\W\d][^\d=]{{0,10}}=\s*{_NUM}(?:\s*(?:±|\+/-)\s*{_NUM})?$")
# a serial-number column's head: "S/NO", "S/No.", "Sl. No.", "S. No" (checked before the analyte
# vocabulary, which reads "S/N" as a ratio)
_SERIAL = re.compile(r"^(?:s\s*/\s*no|sl?\.?\s*no)\.?$", re.IGNORECASE)
# a header whose cells print two quantities, one over the other: a percentage and a count ("(%,n)")
_PERCENT_AND_COUNT = re.compile(r"\(\s*%\s*,\s*n\s*\)|\(\s*n\s*,\s*%\s*\)")
# the counts of a fission-track table's induced and dosimeter tracks (beside "Ns"): no Ni or Nd
_TRACK_COUNT = re.compile(r"^N[id]$")
# the "±" an uncertainty column prints before its numbers
_SIGNED_UNCERTAINTY = re.compile(r"^\s*(?:±|\+/-)\s*(?=[\d.])")
_DISCORDANCE = re.compile(
    r"^(?:disc(?:ordance|ord\.?|\.)?|%\s*disc(?:ordance|\.)?)\s*(?:\(?%\)?)?$", re.IGNORECASE
)
_BDL = re.compile(r"^(?:b\.?\s?d\.?\s?l\.?|bdl|<\s?(?:LOD|LOQ|DL|d\.l\.))$", re.IGNORECASE)
_ND = re.compile(r"^(?:n\.?\s?d\.?|n\.?\s?a\.?|–|—|-|\u2212)$", re.IGNORECASE)


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
    # what keeps the cell apart from another with the same row label and column header: the line of a
    # row whose label cell is blank under the row it continues, the n-th column with that header
    apart: str = ""


# an isotope ratio written with its mass numbers only ("21/20", "238/43 (×10−3)"): a quantity, though
# it prints no letter
_MASS_RATIO = re.compile(r"^\d{1,3}\s*/\s*\d{1,3}(?:\s*[(\[][^()\[\]]*[)\]])?$")


# a place or name with its code in brackets at a label's end: "Monte Rosa (T12)"
_NAME_AND_CODE = re.compile(r"^[^()\d]{2,40}\(\s*([^()\s]+)\s*\)$")


def identifier_label(label: str) -> str:
    """The identifier a table's row or column label is (:func:`label_identifier`: "BGC-5", "T12"),
    or the code in brackets after a place's name ("Säntis (T7)" → "T7"), unless the label names an
    analyte ("Fe2O3T") or an uncertainty ("1SD"); else "". A row so labelled holds values measured
    on that item, as does a column so headed."""
    bracketed = _NAME_AND_CODE.match(label) if label else None
    for name in (label, *(bracketed.groups() if bracketed else ())):
        if not name or names_analyte(name) or UNCERTAINTY_ROW.match(name):
            return ""
    return label_identifier(bracketed[1] if bracketed else label)


# the end of a sentence of caption text spilled into a header cell, and the column's own head after
# it: "‘acceptable’ solution. λ=800 (c=0.02)", "… https://meltpt.readthedocs.io. 𝑇 (°C)"
_SPILLED = re.compile(r"^(?P<spill>.{12,}?[a-z]{2,}[’'\"”)]?\.)\s+(?P<head>\S.{0,40})$")


def _own_head(header: str) -> str:
    """A header without the caption sentence the grid joined before it (the head must name
    something: "Analysis no. 12" keeps its number); as printed otherwise ("Conc. (ppm)")."""
    match = _SPILLED.match(" ".join(header.split()))
    if match and re.search(r"[^\W\d_]", match.group("head")):
        return match.group("head")
    return header


def _nameless(header: str) -> bool:
    """A header that names nothing: no letter in it ("+2", "3"), unless it is a ratio of mass numbers."""
    return not re.search(r"[^\W\d]", header) and not _MASS_RATIO.match(header)


# a minus sign the text layer set apart from its number ("− 2.685"): one number
_LOOSE_SIGN = re.compile(r"^([+\-\u2212])\s+(?=\d)")


def _numeric(cell: str) -> bool:
    text = _LOOSE_SIGN.sub(r"\1", plain_letters(cell).strip())
    return bool(text) and bool(
        _CELL.match(text.replace("\u2009", ""))
        or _BDL.match(text)
        or _ND.match(text)
        or _range(text)
        or _coordinate(text)
    )


def _wordy(body: Sequence[Sequence[str]], column: int) -> bool:
    """A column of names, not numbers: most of its filled body cells are no number."""
    cells = [r[column] for r in body if column < len(r) and r[column].strip()]
    return bool(cells) and sum(not _numeric(c) for c in cells) > len(cells) / 2


def _label_column(rows: Sequence[Sequence[str]], width: int) -> int:
    """The row-label column: the leftmost whose body cells are mostly words, not numbers (a serial
    number column before the country names is no label); column 0 when every column is numeric."""
    return next((i for i in range(min(width, 3)) if _wordy(rows, i)), 0)


# a parameter the row states for its sample in place of values: "J = 0.0106220 ± 0.0000425" beside
# "IH-3" (an Ar–Ar sample's irradiation parameter), its words spread over the value columns
_STATED = re.compile(rf"^[^\d=±]{{1,24}}=\s*{_NUM}(?:\s*(?:±|\+/-)\s*{_NUM})?(?:\s+[^\s\d=]+)?$")


def _stated_row(row: Sequence[str], label: int) -> str:
    """The statement "name = value ± uncertainty" a row prints right of its label (joined from its
    cells), or "" when it prints anything else."""
    text = " ".join(" ".join(c.split()) for c in row[label + 1 :] if c.strip())
    return text if "=" in text and _STATED.match(text) else ""


# a unit set on its own under its head ("(kg/m3)", "(Pa)", "[mm]")
_UNIT_HEAD = re.compile(r"^[(\[][^()\[\]\d]{1,12}\d?[)\]]$")


def _split_head(header: str, after: str) -> bool:
    """Whether a head and the next column's are one head the grid split over a value's column and
    its uncertainty's: "Age ±" | "2σ (Ma)", or "Age ± 2σ" | "(Ma)" (the unit alone)."""
    if not after.strip():
        return False
    return header.rstrip().endswith("±") or (
        shared_uncertainty(header) is not None and bool(_UNIT_HEAD.match(after.strip()))
    )


def _valued(cell: str) -> bool:
    """Whether a cell prints a value or a null ("<0.5", "n.d.", "–"), not a head: "Na" is sodium
    over its column, not "not analysed"."""
    return _cell(cell) is not None and not names_analyte(cell.strip())


def _valued_row(row: Sequence[str], label: int) -> bool:
    return any(_valued(c) for c in row[label + 1 :])


def _one_sample_above(values: Sequence[TableValue], samples: set[str]) -> None:
    """Gives ``values`` that name no sample the one sample of the analyses above them, when they are
    of one ("Concordia Age: 290.1 ± 1.4 Ma", "Weighted Plateau" under the steps of IH-3)."""
    if len(samples) != 1 or "" in samples:
        return
    (sample,) = samples
    for found in values:
        if not found.sample:
            found.sample = sample
            found.notes.append("sample: the one of the analyses above it")


def _two_blocks(
    rows: Sequence[Sequence[str]],
    n_header: int,
    heads: tuple[int, int],
    label: int,
    said: tuple[str, str, str],
) -> list[TableValue]:
    """The values of a table whose rows from ``heads[0]`` on are a block under the heads in rows
    ``heads[0]:heads[1]`` (see :func:`_heads_again`), each block read as a table; the second's rows
    that name no sample are the one sample's of the first block, when it has one. A second block
    with a number under no head of its own is not read: it is never read under the first block's
    heads."""
    again, end = heads
    first = extract_table_values(rows[:again], *said, header_count=n_header)
    # read only where every number under the heads has a head over it ("Sand  1200 … 21.3" under
    # heads for four of its five numbers shares its last column with the block above): else not at all
    headed = {j for r in rows[again:end] for j, c in enumerate(r) if c.strip()}
    numbers = {j for r in rows[end:] for j, c in enumerate(r) if j != label and _numeric(c)}
    second = extract_table_values(rows[again:], *said, header_count=end - again) if numbers <= headed else []
    _one_sample_above(second, {v.sample for v in first})
    return first + second


def _heads_again(rows: Sequence[Sequence[str]], n_header: int, label: int) -> tuple[int, int] | None:
    """The body rows that head the rows under them anew, as (first, end), or None: rows with no
    value after a data row and before another (the heads and the line of units under them,
    "(Ma)  (%,n)"), one of them with three cells or more right of the label, three or more of
    their cells naming a quantity, a unit or an uncertainty ("Age  ±2σ  39Ar(k)" over "Results
    40(r)/39(k)  ±2σ  MSWD  K/Ca  ±2σ" under an Ar–Ar table's heating steps, over its plateau and
    total-fusion ages)."""
    seen_data = False
    k = n_header
    while k < len(rows):
        if _valued_row(rows[k], label):
            seen_data = seen_data or sum(_numeric(c) for c in rows[k][label + 1 :]) >= 2
            k += 1
            continue
        end = next((j for j in range(k, len(rows)) if _valued_row(rows[j], label)), len(rows))
        lines = [[" ".join(c.split()) for c in r[label + 1 :] if c.strip()] for r in rows[k:end]]
        heads = [h for line in lines for h in line]
        named = sum(
            analyte_of(h, {}) is not None
            or uncertainty_header(h, "") is not None
            or bool(_MASS_RATIO.match(h) or _UNIT_HEAD.match(h))
            for h in heads
        )
        later = any(sum(_numeric(c) for c in r[label + 1 :]) >= 2 for r in rows[end:])
        if seen_data and later and named >= 3 and max(map(len, lines)) >= 3 and max(map(len, heads)) <= 30:
            return k, end
        k = end
    return None


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
        if count and _stated_row(row, label):
            break  # "IH-3  J = 0.0106220 ± 0.0000425": the first section row, no header
        data = [c for c in row[label + 1 :] if c.strip() and not mark_cell(c)]
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


_RELATIVE = re.compile(r"%")
_MARKS = re.compile(r"^(?P<name>.*?[A-Za-z0-9)])\s*(?P<marks>[*†‡§¶]+|\s[a-e])$")


def _sample_name(label: str) -> tuple[str, str]:
    """A sample label as the sample and its footnote mark ("z26*" → "z26", "*")."""
    match = _MARKS.match(label.strip())
    if match and any(c.isdigit() for c in match.group("name")):
        return match.group("name").strip(), match.group("marks").strip()
    return label.strip(), ""


def header_rows(rows: Sequence[Sequence[str]]) -> list[list[str]]:
    """The table's header rows as :func:`extract_table_values` finds them (what a continued page
    that does not repeat them borrows)."""
    if len(rows) < 2:
        return []
    width = max(len(r) for r in rows)
    padded = [list(r) + [""] * (width - len(r)) for r in rows]
    return padded[: _header_count(padded, _label_column(padded[1:], width))]


def extract_table_values(
    rows: Sequence[Sequence[str]],
    caption: str = "",
    definitions: str = "",
    footnotes: str = "",
    *,
    header_count: int | None = None,
) -> list[TableValue]:
    """Every numeric cell of a value column (see module docstring). ``definitions``: another
    caption whose column units this table shares ("same convention as Table 1"); ``footnotes``: the
    table's footnotes ("(f) Errors are 2-sigma"), which give the uncertainty columns marked "(f)"
    their level; ``header_count``: how many rows head the table, where the caller knows (else they are
    found)."""
    if len(rows) < 2:
        return []
    width = max(len(r) for r in rows)
    rows = _plus_minus_joined(_signs_joined([list(r) + [""] * (width - len(r)) for r in rows]))
    width = len(rows[0])
    label = _label_column(rows[1:], width)
    n_header = _header_count(rows, label) if header_count is None else header_count
    if n_header == 0:
        return []
    again = _heads_again(rows, n_header, label)
    if again is not None:  # a block under heads of its own: read as a table of its own
        return _two_blocks(rows, n_header, again, label, (caption, definitions, footnotes))
    marks = next((r for r in rows[:n_header] if marks_row(r)), [])  # "(a) (b) (c)" under the heads
    head = [r for r in rows[:n_header] if not marks_row(r)] or rows[:n_header]
    rows, n_header = [*head, *rows[n_header:]], len(head)
    headers = [_own_head(h) for h in column_headers(rows[:n_header], width)]
    if _statistics(caption, headers, rows[n_header:], label):
        return []
    headers = _unspread(headers, rows[:n_header], rows[n_header:])
    halves = _halves(rows[:n_header], rows[n_header:], label)
    if halves:  # a long table set in halves side by side: each half's rows are rows of their own
        bounds = [0, *halves, width]
        return [
            value
            for a, b in zip(bounds, bounds[1:], strict=False)
            for value in extract_table_values([r[a:b] for r in rows], caption, definitions, footnotes)
        ]
    # the caption's units, then those the footnotes give a kind of row ("Trace elements in ppm")
    caption_units = units_of_notes(plain_letters(footnotes)) | units_of_caption(plain_letters(caption))
    column_units = {**caption_column_units(definitions), **caption_column_units(caption)}
    in_percent = bool(PERCENT_CAPTION.search(plain_letters(caption)))  # "values are expressed as percentages"
    # the quantity the caption names with its unit ("β in %"), else the label column's head ("β (%)"
    # over rows "n=10", "n=100") where the rows name themselves; over numbers ("T (°C)" over 1300,
    # 1350) the head is the rows' quantity, not the cells'
    quantity = caption_quantity(plain_letters(caption)) or (
        caption_quantity(plain_letters(headers[label]))
        if not any(_numeric(r[label]) for r in rows[n_header:] if r[label].strip())
        else None
    )
    table_unit = caption_printed_unit(caption)  # one unit outside the vocabulary for the whole table
    bracket_level = _bracket_level(plain_letters(f"{caption} {footnotes}"))
    condition: dict[int, str] = {}  # index -> the condition a column's header sets
    body = rows[n_header:]
    # the labels of rows that print values (not section rows, "Trace elements (ppm)", nor "2σ" rows)
    labels = [
        " ".join(r[label].split())
        for r in body
        if r[label].strip()
        and any(_numeric(c) for j, c in enumerate(r) if j != label)
        and not UNCERTAINTY_ROW.match(r[label].strip())
    ]
    value_headers = [h for i, h in enumerate(headers) if i > label and h]
    label_share = sum(names_analyte(x) for x in labels) / max(len(labels), 1)
    header_share = sum(names_analyte(h) for h in value_headers) / max(len(value_headers), 1)
    # analytes down the side, none (or few) across the top; with no analyte across the top at all, a
    # side with sums, ages and totals among the analytes ("ΣREE", "TDM (Ma)", "Total") still is one
    # or every column headed by an item's identifier ("Monte Rosa (T12)", "BGC-5"), the rows by none:
    # quantities down the side, whatever they are ("Elevation", "Shielding", "P(3He)")
    items = [h for h in value_headers if identifier_label(" ".join(h.split()))]
    by_item = len(items) >= 2 and len(items) == len(value_headers) and not any(map(identifier_label, labels))
    if len(labels) >= 3 and (
        label_share >= 0.6 and header_share < 0.3 or label_share >= 0.4 and header_share == 0 or by_item
    ):
        return _samples_as_columns(head, body, label, caption_units)
    # the label columns: the label column and the word columns right after it ("Pluton | Sample |
    # Analysis": a row is one analysis, and the column headed as samples names its sample)
    labels_at = [label]
    while labels_at[-1] + 1 < width and _wordy(body, labels_at[-1] + 1):
        labels_at.append(labels_at[-1] + 1)
    columns: dict[int, tuple[str, str, str]] = {}  # index -> (analyte, kind, unit)
    # index -> a unit outside the vocabulary that the caption's words give the column (the header's
    # own brackets give theirs through analyte_of: "U [pmol]", "3He (×10³)")
    worded: dict[int, str] = {}
    uncertainty_of: dict[int, int] = {}
    level_of: dict[int, str] = {}
    relative: set[int] = set()
    percent: set[int] = set()  # columns in the percent the caption says the table's values are in
    timed: dict[int, str] = {}  # columns of initial isotope ratios, εNd(t) or εNd(0): their note
    group_of: dict[int, str] = {}  # columns named by their own head under a group header: the group
    # a fission-track table counts spontaneous, induced and dosimeter tracks ("Ns", "Ni", "Nd")
    counts: set[int] = set()  # columns of counts and identifiers: not read, but they mark repeated blocks
    tracks = any(h.split()[-1:] == ["Ns"] for h in map(plain_letters, headers))
    for i, header in enumerate(headers):
        if i <= labels_at[-1] or not header:
            continue
        if (i - 1) in uncertainty_of and uncertainty_header(header, "") is not None:
            continue  # a second uncertainty ("int. unc.", then "tot. unc."): the first one is kept
        level = uncertainty_header(header, headers[i - 1]) if (i - 1) in columns else None
        # the column's own header under its group header ("±2σ" over a units line "(Ma)" or none)
        bottom = plain_letters(rows[n_header - 1][i]).strip() or plain_letters(
            own_header(rows[1:n_header], i)
        )
        # "Al" over "%", "Cu" over "(%)": the element's unit, not the uncertainty of the column before
        named_over = bottom.strip("() ") == "%" and names_analyte(re.sub(r"[\s(\[]*%[\s)\]]*$", "", header))
        if (
            level is None
            and (i - 1) in columns
            and n_header > 1
            and not wrapped_tail(bottom)
            and not named_over
        ):
            # "±2s" under a group header ("Isotopic Ratios and 2s (%) Errors") that the merge joined to it
            level = uncertainty_header(bottom, headers[i - 1])
        if level is None and (i - 1) in columns and header == headers[i - 1]:
            level = shared_uncertainty(header)  # "36Ar ± 1σ" over the value's column and its uncertainty's
        if (
            level is None
            and (i - 1) in columns
            and _split_head(headers[i - 1], header)
            and _UNIT_HEAD.match(header)
        ):
            level = shared_uncertainty(headers[i - 1]) or ""  # "(Ma)" after "Age ± 2σ": its uncertainty
        if level is not None:
            uncertainty_of[i] = i - 1
            if level:
                level_of[i - 1] = level
            if _RELATIVE.search(header):
                relative.add(i - 1)
            continue
        if uncertainty_header(header, headers[i - 1]) is not None:
            continue  # the uncertainty of a column not read ("2s" after "21/20"): no quantity either
        given = column_units.get(re.sub(r"\s+", "", plain_letters(header)))
        if given and given in KNOWN_UNITS and not unit_in(plain_letters(header)):
            header = f"{header} [{given}]"  # the caption's unit, as if the header printed it
        elif given and given not in KNOWN_UNITS:
            # a unit outside the vocabulary in the caption's words ("have units of millivolts per
            # hertz"): the column's unit as the caption prints it
            worded[i] = given
        own = own_header(rows[1:n_header], i)
        if own and NOT_QUANTITY.match(plain_letters(own).strip(" .:")):
            continue  # "corr. coef." under a group header ("Radiogenic Isotope Ratios")
        setting = " ".join(plain_letters(header).split())
        if CONDITION.match(setting):  # "λ = 200 (c = 0.01)", "P = 1 GPa": a condition, not the quantity
            condition[i] = setting
            # the quantity the caption names ("β in %"), else the header as printed, with no unit
            columns[i] = (quantity[0], "other", quantity[1]) if quantity else (setting, "other", "")
            continue
        if _PERCENT_AND_COUNT.search(header):
            continue  # "39Ar(k) (%,n)": a share and a count of steps, one over the other in a cell
        if _SERIAL.match(plain_letters(header).strip()):
            continue  # "S/NO": the rows' serial numbers, no S/N ratio
        if tracks and _TRACK_COUNT.match(plain_letters(own or header).split()[-1]):
            counts.add(i)
            continue  # "Ni" beside "Ns" in a fission-track table: induced tracks counted, no nickel
        if _DISCORDANCE.match(plain_letters(own or header).strip()):
            # "Disc %" under a group header "Reported age": the discordance, not an age
            columns[i] = ("discordance", "other", "%" if "%" in (own or header) else "")
            continue
        if i + 1 < width and _split_head(header, headers[i + 1]):
            # "Age ±" | "2σ (Ma)", "Age ± 2σ" | "(Ma)": one head the grid split over the value's
            # column and its uncertainty's; the unit it prints is the value's too
            header = f"{header} {headers[i + 1]}"
        named = analyte_of(header, caption_units)
        if named is None:
            plain = " ".join(plain_letters(header).split())
            if NOT_QUANTITY.match(plain.strip(" .:")):
                counts.add(i)  # a count or identifier: not read, but it marks repeated blocks
                continue
            if len(plain) > 90 or _nameless(plain):
                continue
            top = rows[0][i].strip()
            grouped = (
                n_header > 1
                and own
                and top
                and any(0 <= j < width and rows[0][j].strip() == top for j in (i - 1, i + 1))
            )
            if grouped:  # under a group header ("Compositional Parameters"): the column's own words
                group = plain
                plain = " ".join(plain_letters(own).split())
                if _nameless(plain):
                    continue  # "+2" (its "σ" lost) under "Isotopic ratios and 2σ (%) errors": no name
                group_of[i] = group.removesuffix(plain).strip()
            elif spread := _group_words(
                plain, bottom, [headers[j] for j in (i - 1, i + 1) if 0 <= j < width]
            ):
                # a group header printed once over the columns it spans ("In situ statistics" over
                # "N D I k α95"): the column's own head names the quantity, the group is a note
                group_of[i], plain = spread, bottom
                if NOT_QUANTITY.match(plain.strip(" .:")):
                    continue  # "N" under "In situ statistics": a count, no nitrogen
            named = _as_printed(plain)
        if (
            in_percent
            and named[1] == "other"
            and not named[2]
            and not given
            and plain_letters(header).split()[0] not in column_units  # "except for dt, …" ("dt −71 −48")
        ):
            named = (named[0], "other", "%")  # "All discordance values are expressed as percentages"
            percent.add(i)
        elif named[1] in {"other", "element"} and not named[2] and not given and table_unit:
            named = (named[0], named[1], table_unit)  # "Cosmogenic-nuclide data (×10⁴ atoms g⁻¹)"
            worded[i] = table_unit
        columns[i] = named
        note = time_note(headers[i]) if named[1] in {"ratio", "epsilon"} else ""
        if note:
            timed[i] = note  # "(87Sr/86Sr)i", "εNd(t)"
    # "(f)" over a "±" column, "(f) Errors are 2-sigma" below; then a value column's own mark, for
    # the "± x" printed in its cells ("(h) Weighted mean ± 2s internal uncertainty")
    for j, target in [*uncertainty_of.items(), *((i, i) for i in columns)]:
        footnoted = _footnote_level(marks[j] if j < len(marks) else "", footnotes)
        if footnoted and not level_of.get(target):
            level_of[target] = footnoted
    sample_at = next(
        (j for j in labels_at if headers and SAMPLE_HEADER.search(plain_letters(headers[j]))), None
    )
    material_at = next(
        (j for j in labels_at if headers and MATERIAL_HEADER.match(plain_letters(headers[j]))), None
    )
    out: list[TableValue] = []
    nth = _blocks(headers, sorted({*columns, *counts}))
    section = ""  # the sample a section row names for the rows under it
    above = ""  # the last sample the sample column printed
    run: set[str] = set()  # the samples of the data rows since the last sentence or section row
    # a label printed on several rows ("Testing Pressure" on rows 1–3 of a DataFrame) keeps the serial
    # number before it, or each row after the first would read as the same cells again
    label_rows = Counter(" ".join(r[label].split()) for r in body if r[label].strip())
    keys = _RowKeys(
        Counter(" / ".join(" ".join(r[j].split()) for j in labels_at if r[j].strip()) for r in body)
    )
    last: dict[int, TableValue] = {}  # column -> the value the row above printed there
    counted = bool(_COUNT_IN_BRACKETS.search(plain_letters(f"{caption} {footnotes}")))
    for row in body:
        cells = row
        brackets = None if counted else _bracketed_row(cells, labels_at)
        if brackets:  # "(0.0020)  (0.0063) …" under a row of values: their uncertainties
            for j, below in brackets.items():
                # smaller than its value: "0.70350 (12)" counts the last digits, no ±12
                held = last.get(j)
                if held is not None and held.uncertainty is None and held.value and below < abs(held.value):
                    held.uncertainty, held.uncertainty_level = below, bracket_level
                    held.notes.append("uncertainty: printed in brackets under the value")
            last = {}
            continue
        last = {}
        text = " ".join(cells[label].split())
        filled = [j for j, c in enumerate(cells) if c.strip()]
        stated = _stated_row(cells, label) if text else ""
        # words in the label cell alone, or in one cell left of it ("Tectonic" under "(A)"), or a
        # label and the parameter it states ("IH-3  J = 0.0106220 ± 0.0000425"): a section row
        if (
            filled == [label]
            or stated
            or len(filled) == 1
            and filled[0] < label
            and not _numeric(cells[filled[0]])
        ):
            text = " ".join(cells[filled[0]].split())
            said = _free_text_row(f"{text} {stated}" if stated else text)
            if stated or not said:  # a section row: "PRI Partridge River intrusion (Duluth Complex …)"
                section = _section_sample(text, body, label)
            keys.section_row(text if stated or not said else None)
            for found in said:
                found.sample = section
            if not section:  # "Concordia Age: 290.1 ± 1.4 Ma" under the analyses of one sample
                _one_sample_above(said, run)
            run = set()
            out += said
            continue
        repeated = label > 0 and label_rows[text] > 1 and _numeric(cells[0])  # text: the label cell
        text = " / ".join(" ".join(cells[j].split()) for j in labels_at if cells[j].strip())
        under = keys.under(text, section)
        if repeated:
            text = f"{cells[0].strip()} / {text}"
        if sum(_numeric(w) for w in text.split()) >= 3:
            continue  # numbers the grid left in the label ("depths = 0.000 1.000 2.500 …", a listing)
        stated_label = " ".join(text.replace(" / ", " ").split())
        # under an item's row only: "n = 100" under "n = 10" is a row of its own (a condition)
        if identifier_label(keys.last) and _LABEL_STATEMENT.match(stated_label):
            text = ""  # "ζ = 385.9", "ρD = 1557600" under "JR1": the sample's parameters, its grains' rows
        else:
            stated_label = ""
        text, place = keys.place(text, under, section)
        place.states = stated_label
        sample, mark = _sample_name(" ".join(cells[sample_at].split())) if sample_at is not None else ("", "")
        continued = sample_at is not None and not sample and bool(text)
        if continued:  # the sample cell left blank under a sample ("R TC" under "BD03"): the same sample
            sample = above
        above = sample or above
        if section:  # the row label names a grain, fraction or spot of the section's sample
            sample, mark, text = section, "", f"{section} / {text}" if text else section
        if any(_numeric(c) for j, c in enumerate(cells) if j not in labels_at):
            run.add(sample)
        for i, (name, _kind, unit) in columns.items():
            value = _cell(cells[i])
            if value is None:
                continue
            number, uncertainty, qualifier, printed_marks, high = value
            for j, target in uncertainty_of.items():
                if target == i and uncertainty is None:
                    extra = _uncertainty_cell(cells[j])
                    uncertainty = extra[0] if extra else None
            notes = _cell_notes(printed_marks, mark, relative=i in relative and uncertainty is not None)
            if continued and sample:
                notes.append("sample: the row above's (its sample cell is blank)")
            notes += place.notes(text)
            if nth[i] > 1:  # "Ns Ni Age err" printed three times across the page, a grain in each
                notes.append(f"column: number {nth[i]} headed {' '.join(headers[i].split())!r}")
            if i in percent:
                notes.append("unit: % (caption)")
            if i in timed:
                notes.append(timed[i])
            if i in condition:
                notes.append(f"condition: {condition[i]}")
            if group_of.get(i):
                notes.append(f"group: {group_of[i]}")
            if i in worded:
                unit = worded[i]
                notes.append(f"unit: {unit} (caption)")
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
                    value_max=high,
                    material=" ".join(cells[material_at].split()) if material_at is not None else "",
                    apart=place.apart(nth[i]),
                )
            )
            last[i] = out[-1]
    return _age_unit_from_sentences(out)


@dataclass
class _Place:
    """Where a data row stands among rows that print the same label: the line of a row whose label
    cell is blank under the row it continues, the section row (naming no sample) it is under, the
    n-th row printed with that label."""

    line: int = 0
    under: str = ""
    again: int = 0
    states: str = ""  # what the label cell prints in place of a label ("ζ = 385.9" under "JR1")

    def notes(self, text: str) -> list[str]:
        cell = f"states {self.states!r}" if self.states else "is blank"
        return (
            ([f"row: line {self.line} of {text!r} (its label cell {cell})"] if self.line > 1 else [])
            + ([f"row: under the section row {self.under!r}"] if self.under else [])
            + ([f"row: number {self.again} labelled {text!r}"] if self.again > 1 else [])
        )

    def apart(self, nth: int) -> str:
        """The part of a cell's key that keeps it apart (with the n-th printing of its column's header)."""
        return " ".join(
            ([f"line {self.line}"] if self.line > 1 else [])
            + ([f"column {nth}"] if nth > 1 else [])
            + ([f"under {self.under}"] if self.under else [])
            + ([f"row {self.again}"] if self.again > 1 else [])
        )


@dataclass
class _RowKeys:
    """Reads a table's data rows in order and tells rows that print the same label apart, so that no
    cell takes another's key (table, row label, column header) and is dropped as a repeat: a blank
    label under a labelled row is that row's next line (the 800 and 1750 °C steps under "ETH-1  600"),
    a label printed again under another section row that names no sample is that section's
    ("Mina San Miguel" under "Geographic" and under "Tectonic"), and a label printed on another data
    row of the same section with other values is the n-th so labelled (a standard analysed five
    times, "STDZ")."""

    labelled: Counter[str]  # data rows by the label they print
    last: str = ""  # the label of the last data row that printed one
    line: int = 0  # which line of that row's group the current row is (1: its own)
    heading: str = ""  # the words of the last section row that named no value
    times: Counter[tuple[str, str, str]] = field(default_factory=Counter)

    def section_row(self, heading: str | None) -> None:
        """A row of words alone: a section row (its words) or a sentence with values (None)."""
        if heading is not None:
            self.heading = heading
        self.last, self.line = "", 0

    def under(self, text: str, section: str) -> str:
        return self.heading if self.heading and not section and self.labelled[text] > 1 else ""

    def place(self, text: str, under: str, section: str) -> tuple[str, _Place]:
        """The row's label (the labelled row's, for a blank one outside a sample section) and place."""
        blank = not text
        self.line = self.line + 1 if blank else 1
        if not blank:
            self.last = text
            self.times[text, under, section] += 1
            again = self.times[text, under, section] if self.labelled[text] > 1 else 0
            return text, _Place(under=under, again=again)
        return (self.last if not section else text), _Place(line=self.line, under=under)


# a table of statistics over the samples, not of measurements: correlation and covariance matrices,
# principal component or factor loadings
_STATISTICS_CAPTION = re.compile(
    r"correlation\s+(?:coefficient|matri)|covariance|princip(?:al|le)\s+component|factor\s+(?:analysis|loading)|"
    r"eigenvalue|loadings",
    re.IGNORECASE,
)


def _statistics(caption: str, headers: Sequence[str], body: Sequence[Sequence[str]], label: int) -> bool:
    """Whether a table holds statistics of its analytes rather than their values: its caption says so
    ("Correlation Coefficient of Whole Rocks", "Results of Principal Component Analysis"), or it is a
    correlation matrix — three or more rows whose label is a column's header hold 1 in that column
    ("Au 1.00" on the diagonal), or a matrix of pairs — three or more, and most, rows labelled by a
    column's header. Its "Au 0.35" under "Ag" is no Au content, a distance under "Brussels" no
    value of Brussels."""
    if _STATISTICS_CAPTION.search(plain_letters(f"{caption} {' '.join(headers)}")):
        return True  # (the header rows too: a grid read under the next caption keeps the first's title)
    at = {" ".join(h.split()): i for i, h in enumerate(headers) if h.strip()}
    ones = paired = labelled = 0
    for row in body:
        i = at.get(" ".join(row[label].split())) if label < len(row) else None
        labelled += label < len(row) and bool(row[label].strip())
        if i is not None and i != label and i < len(row):
            paired += 1
            ones += bool(re.fullmatch(r"1(?:\.0+)?", row[i].strip()))
    # or a matrix of pairs: most rows are labelled by a column's header ("Brussels" down the side and
    # across the top: distances; samples "a" to "h" both ways: test statistics), no value of either
    return ones >= 3 or paired >= 3 and paired >= 0.6 * labelled


def _unspread(headers: list[str], head: Sequence[Sequence[str]], body: Sequence[Sequence[str]]) -> list[str]:
    """The headers, less those a column only took from a column of words to its left: a merged top
    cell spans the blank ones to its right ("Isotopic ratios" over its ratio columns), but a text
    column's header ("Alteration zone", cells "S/Sm", "Ser-Ch") names no numbers beside it — those
    columns' own headers were printed sideways or not at all, and are unknown. Also less the tail of
    a letter-spaced head split over two columns ("M I N E R A" then "L S")."""
    out = list(headers)
    for i in range(1, len(out)):
        if re.fullmatch(r"(?:\w\s)*\w", out[i]) and re.fullmatch(LETTER_SPACED, headers[i - 1]):
            out[i] = ""  # the last letters of a letter-spaced head split over two columns ("… E R A" "L S")
        elif out[i] and not any(i < len(r) and r[i].strip() for r in head):
            source = next((j for j in range(i - 1, -1, -1) if j < len(head[0]) and head[0][j].strip()), None)
            if source is not None and _wordy(body, source):
                out[i] = ""
    return out


def _halves(head: Sequence[Sequence[str]], body: Sequence[Sequence[str]], label: int) -> list[int]:
    """The columns where a table set in halves side by side starts again ("Sample  UTM-E  UTM-N  Ca
    K" twice across a report's page, a sample in each half of a line): a column of words whose
    header cells are printed as the label column's, followed by the label column's neighbour's
    again (the header cells as printed: a group header spread over blank cells would join them).
    Blocks of value columns repeated beside one label column ("Ns Ni Age err" three times) are not
    halves (:func:`_blocks`)."""

    def printed(column: int) -> list[str]:
        return [" ".join(r[column].split()) for r in head]

    nxt = label + 1
    width = min(len(r) for r in [*head, *body])
    if nxt >= width or not any(printed(nxt)):
        return []
    return [
        c
        for c in range(nxt + 1, width - 1)
        if printed(c) == printed(label) and printed(c + 1) == printed(nxt) and _wordy(body, c)
    ]


def _blocks(headers: Sequence[str], columns: Sequence[int]) -> dict[int, int]:
    """Column → which printing of its header it is, where a table is printed as blocks of the same
    columns side by side ("Ns  Ni  Age  err" three times across the page, a grain in each): a
    column whose header and a neighbour's repeat the columns one block to the left is that block's
    next. A header printed twice alone ("206Pb/238U" over the ratios and again over the ages) is no
    block: its second column is 1, so its cells share the first one's key and are not kept."""
    names = [headers[i] for i in columns]
    nth: dict[int, int] = {}
    for k, i in enumerate(columns):
        nth[i] = 1
        for period in range(2, k + 1):
            same = names[k] == names[k - period]
            beside = any(
                k + d - period >= 0 and k + d < len(names) and names[k + d] == names[k + d - period]
                for d in (-1, 1)
            )
            if same and beside:
                nth[i] = nth[columns[k - period]] + 1
                break
    return nth


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
    # marks are a glyph or two ("a", "*†"); longer is a note the cell's reading wrote ("asymmetric …")
    notes = [marks if len(marks) > 3 else f"footnote mark {marks!r}"] if marks else []
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
    if len(ident) > 16 or names_analyte(ident):
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
def _as_printed(plain: str) -> tuple[str, str, str]:
    """(analyte, kind, unit) of a quantity outside the vocabulary: the header or label as printed,
    less the unit it prints ("dt [Ma]" → "dt", "TDM (Ma)" → "TDM") and its uncertainty ("36Ar ± 1σ")."""
    plain = " ".join(WITH_UNCERTAINTY.sub(" ", plain).split()) or plain
    # a bracketed unit outside the vocabulary before any unit word: "ε (m Ma⁻¹)" is a rate
    return strip_units(plain) or plain, "other", unit_as_printed(plain) or unit_in(plain)


_BRACKETED_NUMBER = re.compile(rf"^\(\s*({_NUM})\s*\)$")
# a caption or footnote that says the bracketed numbers count something: "(n) number of analyses"
_COUNT_IN_BRACKETS = re.compile(
    r"(?:parenthes[ie]s|brackets)[^.;]{0,60}\b(?:numbers?\s+of|n\b|counts?|analyses)"
    r"|\b(?:numbers?\s+of\s+\w+|n)\s+(?:(?:is|are)\s+)?(?:given\s+|shown\s+)?in\s+(?:parenthes[ie]s|brackets)",
    re.IGNORECASE,
)
# the level a caption or footnote gives the uncertainties in brackets: "2σ errors in parentheses"
_BRACKET_LEVEL = re.compile(
    r"(?P<n>[12])\s*(?P<u>σ|sigma|s\b|SD|SE)[^.;]{0,50}(?:parenthes[ie]s|brackets)"
    r"|(?:parenthes[ie]s|brackets)[^.;]{0,50}?(?P<n2>[12])\s*(?P<u2>σ|sigma|s\b|SD|SE)",
    re.IGNORECASE,
)


def _bracket_level(text: str) -> str:
    """The level ("2σ", "2SE", "1SD") of the bracketed uncertainties a caption or footnote states."""
    match = _BRACKET_LEVEL.search(text)
    if match is None:
        return ""
    unit = (match["u"] or match["u2"]).upper()
    return f"{match['n'] or match['n2']}{unit if unit in {'SD', 'SE'} else 'σ'}"


def _bracketed_row(cells: Sequence[str], labels_at: Sequence[int]) -> dict[int, float] | None:
    """Column → number of a row that prints only bracketed numbers under blank labels ("(0.0020)
    (0.0063) (21)"): the uncertainties of the row above, set on a line of their own; else None."""
    if any(cells[j].strip() for j in labels_at if j < len(cells)):
        return None
    found: dict[int, float] = {}
    for j, cell in enumerate(cells):
        if j in labels_at or not cell.strip():
            continue
        match = _BRACKETED_NUMBER.match(plain_letters(cell).strip())
        number = parse_number(match.group(1)) if match else None
        if number is None:
            return None
        found[j] = number
    return found or None


def _group_words(header: str, bottom: str, beside: Sequence[str]) -> str:
    """The words of a group header that the grid spread over this column and joined to its own head
    (``bottom``, its last header line), when a column beside it starts with the same words; else ""."""
    bottom = " ".join(bottom.split())
    if not bottom or header == bottom or not header.endswith(f" {bottom}"):
        return ""
    if _numeric(bottom):
        return ""  # "1.3" under "2s": a value in the header rows, no head
    group = header.removesuffix(bottom).strip()
    shared = any(" ".join(plain_letters(h).split()).startswith(f"{group} ") for h in beside)
    return group if shared else ""


def _other_quantity(label: str) -> bool:
    """A row label that names a quantity outside the analyte vocabulary ("ΣREE", "TDM (Ma)", "Total"):
    words, not a position, count or identifier, not an uncertainty row."""
    plain = " ".join(plain_letters(label).split())
    return (
        bool(re.search(r"[^\W\d]", plain))
        and not NOT_QUANTITY.match(plain.strip(" .:"))
        and not UNCERTAINTY_ROW.match(plain)
        and _units_row([label]) is None
        and len(plain) <= 60
    )


def _units_row(row: Sequence[str]) -> dict[str, str] | None:
    """A row that only names a unit for the rows under it ("Major elements (wt.%)", "Trace elements
    (ppm)", its words possibly spread over the first cells): that unit for oxides and elements."""
    if any(_numeric(c) for c in row):
        return None
    return units_of_section(" ".join(" ".join(c.split()) for c in row if c.strip()))


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
    headers = column_headers(kept, width)
    # the row headed "Sample", else the one that prints the most identifiers ("Analysis: 8/IH/85"
    # under "Biotite granite"), else the first
    names = next((r for r in kept if SAMPLE_HEADER.search(plain_letters(r[label]))), None) or max(
        kept, key=lambda r: sum(any(ch.isdigit() for ch in c) for j, c in enumerate(r) if j != label)
    )
    # a compilation's columns headed by their references name no sample: the caption may
    sourced = bool(SOURCE_HEADER.match(plain_letters(names[label])))
    described = [r for r in kept if r is not names or sourced]
    # per column, once: its sample (and footnote mark), what the other header rows say of it, and
    # its material ("Rock type" row)
    samples = {
        i: ("", "")
        if sourced
        else _sample_name((" ".join(names[i].split()) if i < len(names) else "") or " ".join(header.split()))
        for i, header in enumerate(headers)
    }
    described_as = {
        i: [
            f"{' '.join(r[label].split()) or 'header'}: {' '.join(r[i].split())}"
            for r in described
            if i < len(r) and r[i].strip()
        ]
        for i in range(width)
    }
    # "Monte Rosa (T12)": the code in brackets is the sample, as a row label's is ("Säntis (T7)" → T7)
    for i, (name, mark) in samples.items():
        code = identifier_label(name) if _NAME_AND_CODE.match(name) else ""
        if code:
            samples[i] = (code, mark)
            described_as[i].append("sample: the code the column header prints in brackets")
    material_of = {
        i: next(
            (
                " ".join(r[i].split())
                for r in described
                if i < len(r) and MATERIAL_HEADER.match(plain_letters(r[label]))
            ),
            "",
        )
        for i in range(width)
    }
    out: list[TableValue] = []
    section_units = units
    previous = ""  # the analyte row above: what an uncertainty row below it qualifies
    above: dict[int, TableValue] = {}  # column -> the value of the row above in that column
    stub = _StubUnit()
    for row in body:
        text = " ".join(row[label].split())
        if text and _unit_column(headers, row, label):
            text = f"{text} {' '.join(row[label + 1].split())}"  # "SiO2" | "(%)": the row's unit beside it
        named = analyte_of(text, section_units) if text else None
        if (
            named is None
            and _other_quantity(text)
            and any(_numeric(c) for j, c in enumerate(row) if j != label)
        ):
            named = _as_printed(plain_letters(text))  # "ΣREE", "TDM (Ma)"
        if named is None:
            level = uncertainty_header(text, previous) if above and UNCERTAINTY_ROW.match(text) else None
            if level is not None:  # "2SD" under "87Sr/86Sr": the values' uncertainties
                for i, held in above.items():
                    cell = _uncertainty_cell(row[i]) if i < len(row) else None
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
            stub = _StubUnit()
            continue
        name, kind, unit = named
        unit, carried = stub.read(kind, unit, printed=bool((bare := analyte_of(text, {})) and bare[2]))
        timed_row = time_note(text) if kind in {"ratio", "epsilon"} else ""
        above, previous = {}, text
        for i, header in enumerate(headers):
            if i <= label or not header.strip():
                continue
            value = _cell(row[i])
            if value is None:
                continue
            number, uncertainty, qualifier, marks, high = value
            sample, mark = samples[i]
            notes = [*_cell_notes(marks, mark), *([timed_row] if timed_row else []), *described_as[i]]
            if carried:
                notes.append(f"unit {unit}: printed on a row label above")
            read = TableValue(
                material=material_of[i],
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
                value_max=high,
            )
            out.append(read)
            above[i] = read
    return out


def _unit_column(headers: Sequence[str], row: Sequence[str], label: int) -> bool:
    """Whether the headless column right of the row labels prints this row's unit in brackets
    ("SiO2 | (%) | 98.25 …"): a column of units between the analytes and the samples."""
    return (
        label + 1 < min(len(headers), len(row))
        and not headers[label + 1].strip()
        and bool(_UNIT_HEAD.match(row[label + 1].strip()))
    )


@dataclass
class _StubUnit:
    """The unit a row label prints for the rows under it that print none, in tables whose labels
    print units only now and then ("SiO2 %" over "TiO2 … P2O5"; "Sc ppm" over "V Cr Co"): a unit
    printed where a block begins (the first row, or after a row that printed its own) is the block's,
    for the rows of its kind (oxides, or elements) that print none; one printed inside a block
    whose rows take its unit is that row's alone ("Ge ppb" among ppm rows). Ratios, indices and
    other kinds never take one."""

    unit: str = ""
    kind: str = ""
    inside: bool = False  # the row above took the block's unit

    def read(self, kind: str, unit: str, *, printed: bool) -> tuple[str, bool]:
        """(the row's unit, whether it was carried down) for a row of ``kind`` whose label gives
        ``unit`` (``printed`` when the label itself prints it)."""
        if printed:
            if not (self.inside and unit != self.unit) and kind in {"oxide", "element"}:
                self.unit, self.kind = unit, kind
            self.inside = False
            return unit, False
        if not unit and self.unit and kind == self.kind:
            self.inside = True
            return self.unit, True
        self.inside = False
        return unit, False


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


# a minus sign (U+2212) alone in its cell: a hyphen or an en dash alone is a range's dash ("3804 - 3813",
# "0.5 - 1.0") or the "not measured" mark, never a sign here
_LONE_SIGN = re.compile(r"^\s*\u2212\s*$")


def _signs_joined(rows: list[list[str]]) -> list[list[str]]:
    """The rows with a column of lone minus signs joined to the numbers right of them: a sign set
    far apart from its number gets a column of its own ("24.89  −  102.15  −  60.65": a longitude and
    a rotation that are negative), and the number was read as positive. Only a column that prints
    nothing else, its header included."""
    width = len(rows[0]) if rows else 0
    out = [list(r) for r in rows]
    for j in range(width - 1):
        filled = [r[j] for r in rows if r[j].strip()]
        if not filled or not all(_LONE_SIGN.match(c) for c in filled):
            continue
        for row in out:
            if _LONE_SIGN.match(row[j]) and re.match(r"\d|\.\d", row[j + 1].strip()):
                row[j], row[j + 1] = "", "\u2212" + row[j + 1].strip()
    return out


def _plus_minus_joined(rows: list[list[str]]) -> list[list[str]]:
    """The rows with a column of lone "±" signs joined to the value left of it and the uncertainty
    right of it: a table that sets "131  ±  5" with wide spaces is gridded in three columns, and
    the value, a bare "±" and the uncertainty were read as three values. A column whose filled
    cells are mostly "±" (two at least; the others are its group header spread over it, or a row
    the grid split elsewhere); the three columns' heads become one, each printed once ("U/Pb age",
    "(Ma)")."""
    width = len(rows[0]) if rows else 0
    out = [list(r) for r in rows]
    for j in range(width - 2, 0, -1):  # right to left: the indices left of j stay valid
        filled = [r[j].strip() for r in out if r[j].strip()]
        signs = sum(c in {"±", "+/-"} for c in filled)
        if signs < 2 or signs < 0.6 * len(filled):
            continue
        for row in out:
            parts = [row[j - 1].strip(), row[j].strip(), row[j + 1].strip()]
            if row[j].strip() in {"±", "+/-"}:
                row[j - 1] = " ".join(p for p in parts if p)
            else:
                row[j - 1] = " ".join(dict.fromkeys(p for p in parts if p))
            del row[j : j + 2]
    return out


# the relative uncertainty printed under the absolute one in the same cell ("±0.0638 ±0.37%")
_RELATIVE_AFTER = re.compile(rf"(?<=\d)\s*(?:±|\+/-)\s*{_NUM}\s*%$")


def _uncertainty_cell(cell: str) -> _Read | None:
    """:func:`_cell` of a cell in an uncertainty column or row, which may print its "±" ("±4.94"
    under "ΔD") and the same uncertainty relative after it ("±2.48 ±0.81%": the first is kept)."""
    return _cell(_RELATIVE_AFTER.sub("", _SIGNED_UNCERTAINTY.sub("", cell)))


class _Read(NamedTuple):
    """What a cell prints: its value (the low end of a range), uncertainty, qualifier, footnote
    marks (or a note), and the high end of a range."""

    value: float | None
    uncertainty: float | None
    qualifier: str
    marks: str
    value_max: float | None = None


def _range(text: str) -> _Read | None:
    """A range cell ("89–95", "16.4–14.8"): low and high end in order, whichever is printed first;
    a mean in brackets after it ("25 − 66 (45)") goes to the notes, no uncertainty. A "-" between
    two numbers with no space ("10-3") is no range when the second is the smaller: a sample number."""
    match = _RANGE_CELL.match(text.replace("\u2009", ""))
    if match is None:
        return None
    low, high = parse_number(match.group("low")), parse_number(match.group("high"))
    if low is None or high is None or low == high:
        return None
    tight = re.search(r"\d-\d", match.group(0))
    if tight and high < low:
        return None
    marks = match.group("marks") or ""
    if match.group("mean"):
        marks = f"mean of the range {match.group('mean')}, printed in brackets" + (
            f"; {marks}" if marks else ""
        )
    # as a range in running text: qualifier "range", or "~" where the range is approximate
    qualifier = "~" if match.group("qual") else "range"
    return _Read(min(low, high), None, qualifier, marks, max(low, high))


def _coordinate(text: str) -> _Read | None:
    """A coordinate cell ("36°18.5′", "45°12′30″N") as decimal degrees; south and west of a letter
    in the cell are negative (a header's "(°W)" is left to the unit)."""
    match = COORDINATE.match(text)
    if match is None or not (match.group("min") or match.group("sec") or match.group("side")):
        return None  # "12°" alone is an angle, read as a number with its unit elsewhere
    degrees = (
        float(match.group("deg"))
        + float(match.group("min") or 0) / 60
        + float(match.group("sec") or 0) / 3600
    )
    negative = (match.group("sign") or "") in {"-", "\u2212"} or match.group("side") in {"S", "W"}
    return _Read(
        round(-degrees if negative else degrees, 6),
        None,
        "",
        "decimal degrees, read from degrees and minutes",
    )


def _cell(cell: str) -> _Read | None:
    """(value, uncertainty, qualifier, footnote marks, high end of a range) of a cell, or None when
    it holds no value."""
    cell, raised = raised_mark(cell)
    text = _LOOSE_SIGN.sub(r"\1", " ".join(plain_letters(cell).split()))
    if not text:
        return None
    if _BDL.match(text):
        return _Read(None, None, "bdl", "")
    if _ND.match(text):
        return _Read(None, None, "nd", "")
    match = _CELL.match(text.replace("\u2009", ""))
    if match is None:
        return _range(text) or _coordinate(text)
    qualifier = {"≤": "<", "≥": ">", "∼": "~", "≈": "~"}.get(
        match.group("qual") or "", match.group("qual") or ""
    )
    unc = match.group("unc") or match.group("unc_paren")
    marks = (match.group("marks") or "") + raised
    if (match.group("more") or "").strip():  # "1780.78 ± 0.45 [2.39]": an ID-TIMS weighted mean
        marks = f"further uncertainties as printed: {' '.join(match.group('more').split())}"
    if match.group("plus"):  # "1555+28 −51": an asymmetric uncertainty, kept in the notes
        plus, minus = match.group("plus"), match.group("minus")
        if minus is None or float(plus) == float(minus):
            unc = plus if minus is not None else None
        marks = f"asymmetric uncertainty +{plus}/-{minus}" if minus and float(plus) != float(minus) else marks
    return _Read(parse_number(match.group("value")), parse_number(unc) if unc else None, qualifier, marks)
