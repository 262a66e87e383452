"""What a table's header cells say: the analyte and unit a column (or, across the top, a row label)
names, the units a caption gives, uncertainty headers, and how header rows over one another join.

The reading rules are described in :mod:`geo_assets.measurements.table_values`, which turns the cells
under these headers into values; this module holds the header grammar so that the cell reader stays
readable. Analyte names follow running text (:mod:`geo_assets.measurements.text_values`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from geo_assets.measurements.text_values import (
    END_MEMBER,
    OXIDE,
    SYMBOLS,
    UNIT_FOR_KIND,
    UNITS,
    AnalyteMention,
    analyte_mentions,
    oxide_name,
    plain_letters,
)

# Uncertainty words as tables print them, read three ways: UNCERTAINTY_HEADER, a whole header cell
# that heads the uncertainty of the column before it; _UNCERTAINTY_MARK, a mark of uncertainty
# anywhere in a header; UNCERTAINTY_ROW, a row label that gives the uncertainty of the row above.
# All three share the level ("2σ", "1s", "2SE", "2 SD").
_LEVEL = r"[12]\s*(?:σ|s|SE|SD)"
UNCERTAINTY_HEADER = re.compile(
    rf"^(?:±|\+/-|[12]\s*[σs](?:\s*\(.*\))?|{_LEVEL}|s\s*\[.*\]|err(?:or)?\.?|unc\.?|int\.\s*unc\..*|σ.*)$",
    re.IGNORECASE,
)
UNCERTAINTY_ROW = re.compile(  # case kept for σ: a capital Σ sums ("ΣREE")
    rf"^(?:±|\+/-|(?i:{_LEVEL})\b|σ|%\s*(?i:err)|(?i:err(?:or)?s?|unc(?:ertainty)?)\b)"
)


# A label column headed "Sample", "Sample ID", "Specimen", "Site" or "Code" (a palaeomagnetic
# table's site codes, "BD03", "JaIb5") names samples: its row labels become the rows' sample. "Spot", "Grain" or "Analysis" columns name spots within a sample (the gold set's
# sample for the spot "GJ1-1-23" is the reference zircon "GJ-1": geo_assets.measurements.extract
# finds it among the samples the paper's text names), and any other label column (a parameter, a
# region, a model) names no sample, so none is guessed.
SAMPLE_HEADER = re.compile(r"\b(?:samples?|specimens?|sites?)\b|^\s*codes?\s*$", re.IGNORECASE)


# a header row that names where each column's analysis comes from, not its sample: a compilation's
# "reference" row ("Rhodes73  Wiesmann75  Dowty73"), "source", "analyst", "laboratory"
SOURCE_HEADER = re.compile(
    r"^\s*(?:ref(?:erences?|s?\.)?|(?:data\s+)?sources?|analysts?|lab(?:oratory|s?\.)?|citations?)\s*:?\s*$",
    re.IGNORECASE,
)


# a label column or header row that names what the sample is
MATERIAL_HEADER = re.compile(
    r"^\s*(?:rock(?:\s*(?:type|name))?|lithology|mineral|material|phase)\s*$", re.IGNORECASE
)


_BRACKETED_UNIT = re.compile(r"[\(\[]\s*([^()\[\]]+?)\s*[\)\]]")


# an isotope or element alone in a header cell ("207Pb", "206Pb*", "Pbc", "Th"): stacked over
# another one in the same column, the pair is a ratio printed as a fraction ("207Pb" over "206Pb")
_STACKED = re.compile(r"^(?:\d{1,3})?(?P<symbol>[A-Z][a-z]?)[*c]?$")


def _stacked(upper: str, lower: str) -> bool:
    """Whether ``upper`` over ``lower`` in one column is a ratio set as a fraction ("207Pb" over
    "206Pb", "Th" over "U"); a lone N or C below is a normalisation mark, not a denominator."""
    top = _STACKED.match(upper.split()[-1]) if upper.split() else None
    bottom = _STACKED.match(lower.strip())
    return (
        top is not None
        and bottom is not None
        and top.group("symbol") in SYMBOLS
        and bottom.group("symbol") in SYMBOLS
        and lower.strip() not in {"N", "C"}
    )


def own_header(rows: Sequence[Sequence[str]], i: int) -> str:
    """Column ``i``'s header from ``rows`` alone (the lines under a group header), no cell spread."""
    own = ""
    for row in rows:
        cell = " ".join(row[i].split())
        if cell:
            own = f"{own}{'/' if own and _stacked(own, cell) else ' '}{cell}".strip()
    return _join_isotopes(own)


def column_headers(rows: Sequence[Sequence[str]], width: int) -> list[str]:
    filled_first = [c.strip() for c in rows[0][1:] if c.strip()] if rows else []
    sparse = len(rows) > 1 and bool(filled_first) and len(filled_first) <= (width - 1) / 3
    lower = column_headers(rows[1:], width) if sparse else []
    if sparse and any(re.fullmatch(r"\d+", h) for h in lower[1:]):
        # a sparse first row is a group header ("grain ID" over grain numbers): it names the columns
        # that print only a number below it ("grain ID 41"); the others keep their own header
        group = " ".join(filled_first)
        return [f"{group} {h}" if i and re.fullmatch(r"\d+", h) else h for i, h in enumerate(lower)]
    columns = [""] * width
    spread: set[int] = set()  # the columns the top line's merged cells were spread over
    for row in rows:
        filled = list(row) + [""] * (width - len(row))
        for i in range(1, width):  # a merged header cell spans the empty ones to its right, but a
            # sparse top line is the first line of the headers it sits on ("Maximum" over "shaking
            # deaths", beside columns whose headers start lower)
            # a head that names a quantity with its uncertainty ("36Ar ± 1σ") spans the blank one
            # right of it even as the header's only line: its uncertainty's column
            if (
                not filled[i].strip()
                and filled[i - 1].strip()
                and (len(rows) > 1 or shared_uncertainty(filled[i - 1]) is not None)
                and row is rows[0]
                and not sparse
            ):
                filled[i] = filled[i - 1]
                spread.add(i)
            elif (
                i in spread
                and not filled[i].strip()
                and filled[i - 1].strip()
                and len(rows) > 2
                and row is rows[1]
            ):
                # the second line of a merged cell ("In situ" over "statistics", "Tilt" over
                # "corrected") spans the same columns, above the columns' own headers
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
        lambda m: m.group(1) + m.group(2) if m.group(2) in SYMBOLS else m.group(0), header
    )
    return re.sub(r"(?<=[A-Za-z\d])\s*/\s*(?=\d{1,3}[A-Z])", "/", joined)


def _units_named(text: str, skip: set[str]) -> list[str]:
    """The canonical units printed as words in ``text`` (longest printed forms first), except the
    printed forms in ``skip`` (too ambiguous outside brackets: "%", "K", "My" …)."""
    return [
        UNITS[u]
        for u in sorted(UNITS, key=len, reverse=True)
        if u not in skip and re.search(rf"(?<![A-Za-z]){re.escape(u)}(?![A-Za-z])", text)
    ]


def unit_in(text: str) -> str:
    """The vocabulary unit ``text`` prints: in brackets, else as a word; never one read out of a
    bracketed unit outside the vocabulary ("(m Ma⁻¹)" is a rate, not Ma)."""
    for match in _BRACKETED_UNIT.finditer(text):
        unit = UNITS.get(match.group(1).strip())
        if unit:
            return unit
    text = _BRACKETED_UNIT.sub(lambda m: " " if unit_as_printed(m.group(0)) else m.group(0), text)
    return next(iter(_units_named(text, {"%", "K", "My"})), "")


# a bracketed unit outside the vocabulary at a header's end: "U [pmol]", "4He (ncc)", "I (cps)",
# "x (µm)", a scale ("3He (×10³)", "21/20 (×10⁻³)"), a scale and a unit ("10Be (×1000 at g⁻¹)"), a
# compound unit ("ε (m Ma⁻¹)", "q (mW m⁻²)", "dT/dz (°C/km)"); a lone "(a)" is a footnote mark, no year
_SCALE = r"(?:[×x]\s*)?10\s*\^?\s*[-−–]?\d{1,2}|[×x]\s*10{2,}"
_BASE = r"(?:[pnµμmkfcMG]?(?:mol|g|cc|l|L|m|V|A|s|Hz|W|J|Pa|bar)|atoms?|at|yrs?|Ma|ka|Myr|°C|°|K|cps|counts?|ppm|ppb)"
_POWER = r"(?:\s*\^?\s*[-−–]?[1-3](?![\d.]))?"
_TERM = rf"{_BASE}{_POWER}"
_OTHER_UNIT = re.compile(
    rf"[\[(]\s*((?:{_SCALE})(?:\s+{_TERM}(?:\s*[/·⋅ ]\s*{_TERM})*)?|{_TERM}(?:\s*[/·⋅ ]\s*{_TERM})*)"
    r"\s*[\])]\s*$"
)
_RAISED_SCALE = re.compile(r"^([×x]?)\s*10\s*\^?\s*([-−–]?)(\d{1,2})(?=\s|$)")


# a column header that sets a condition of a model or an experiment ("λ = 200 (c = 0.01)", "P = 1
# GPa"): its cells are values of the quantity the caption names with its unit ("…, β in %"), under
# that condition
CONDITION = re.compile(r"^[^\W\d_][^\W_]{0,3}\s*[=≈<>≤≥]\s*[-−+]?\d")


_CAPTION_QUANTITY = re.compile(
    r"(?:^|[\s(,;])(?P<sym>[^\W\d_][^\W_]{0,3})\s+(?:in|\[|\()\s*"
    r"(?P<unit>%|‰|ppm|ppb|wt\.?\s?%|Ma|ka|Ga|°C|K|GPa|kbar)\]?(?=[\s),;.]|$)"
)


def caption_quantity(caption: str) -> tuple[str, str] | None:
    """(symbol, unit) of the one quantity a caption names with a unit ("β in %"), else None."""
    found = {
        (m.group("sym"), UNITS.get(m.group("unit"), m.group("unit")))
        for m in _CAPTION_QUANTITY.finditer(caption)
    }
    return found.pop() if len(found) == 1 else None


def unit_as_printed(header: str) -> str:
    """The unit outside the vocabulary that ``header`` prints in brackets at its end, as printed but
    for a scale's lost superscript ("×103" → "×10^3"; "×1000" stays); "" when none."""
    match = _OTHER_UNIT.search(header)
    if match is None or UNITS.get(match.group(1).strip()):
        return ""
    printed = " ".join(match.group(1).split())
    scale = _RAISED_SCALE.match(printed)
    if scale and not (scale.group(3).startswith("0") or printed[scale.end(2) :].startswith("00")):
        sign = "−" if scale.group(2) else ""
        printed = f"{scale.group(1)}10^{sign}{scale.group(3)}{printed[scale.end() :]}"
    return printed


# a caption's first sentence that ends in a bracketed unit: "Cosmogenic-nuclide data (×10⁴ atoms g⁻¹)"
_CAPTION_UNIT = re.compile(r"^[^.;:]*?(\([^()]+\))\s*(?:[.;:]|$)")


def caption_printed_unit(caption: str) -> str:
    """The unit outside the vocabulary that a caption gives the whole table, printed in brackets at
    the end of its first sentence ("Cosmogenic-nuclide data (×104 atoms g−1)" → "×10^4 atoms g−1");
    "" when none, or when the bracket stands inside the sentence ("elevations (m) and ages": one
    column's)."""
    match = _CAPTION_UNIT.match(" ".join(plain_letters(caption).split()))
    return unit_as_printed(match.group(1)) if match else ""


def strip_units(text: str) -> str:
    """``text`` without the units it prints in brackets ("SiO2 (wt.%)" → "SiO2", "U [pmol]" → "U");
    other brackets stay ("(La/Yb)N", "ln[206Pb/238U]")."""
    return " ".join(
        _BRACKETED_UNIT.sub(
            lambda m: "" if UNITS.get(m.group(1).strip()) or unit_as_printed(m.group(0)) else m.group(0), text
        ).split()
    )


def units_of_caption(caption: str) -> dict[str, str]:
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


# a note naming the unit of one kind of row: "Trace elements in ppm", "major elements are given in
# wt.%", "Major oxides (wt%)", "trace element concentrations in ppm", "REE in ppb"
_KIND_UNIT = re.compile(
    r"\b(?P<kind>major(?:[\s-]+elements?|[\s-]+oxides?)?|oxides|trace(?:[\s-]+elements?)?|REE"
    r"|rare[\s-]+earth\s+elements)"
    r"(?:\s+(?:concentrations|contents|abundances|data|compositions|analyses))?"
    r"(?:\s+(?:are|is|were|was))?(?:\s+(?:given|reported|expressed|quoted|listed|shown))?"
    r"\s*(?:\(|\s(?:in|as)\s+)(?P<unit>wt\.?\s?%|ppm|ppb|[µμ]g/g|ng/g)",
    re.I,
)


def units_of_notes(notes: str) -> dict[str, str]:
    """The unit a table's footnotes give a kind of row ("Trace elements in ppm by XRF-F" → ppm for
    elements), by kind, as :func:`units_of_caption` reads them. Only where the note names the kind:
    a note says many things in many units ("Errors are 2σ in Ma"), unlike a caption."""
    out: dict[str, str] = {}
    for match in _KIND_UNIT.finditer(notes):
        kind = "element" if match.group("kind")[0] in "tTrR" else "oxide"
        out.setdefault(kind, unit_in(f"({match.group('unit')})"))
    return {kind: unit for kind, unit in out.items() if unit}


def units_of_section(label: str) -> dict[str, str] | None:
    """A row that only names a unit for the rows under it ("Major elements (wt.%)", "Trace elements
    (ppm)"): that unit for oxides and elements, else None."""
    unit = unit_in(plain_letters(label))
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


KNOWN_UNITS = set(UNITS.values())


def vocabulary_unit(unit: str) -> str:
    """``unit`` when it is in the unit vocabulary (wt.%, ppm, Ma, ratio …), else "": how the gold
    sets, labelled before table rows kept units outside it ("pmol", "×10^3"), state a row's unit."""
    return unit if unit in KNOWN_UNITS or unit in UNIT_FOR_KIND.values() else ""


# a caption that says the table's values are percentages: "All discordance values are expressed as
# percentages", "Relative Abundances (in Area Percent)", "β in %"; columns named by their own words
# and given no unit otherwise take "%"
PERCENT_CAPTION = re.compile(
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
    for match in _COLUMN_UNITS.finditer(plain_letters(caption)):
        printed = match.group("unit").split()
        words = " ".join(printed).casefold()
        unit = next((u for w, u in _UNIT_WORDS.items() if words.startswith(w)), "")
        if not unit and printed:
            unit = UNITS.get(printed[0], "")
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


# raised digits at the end of a cell or label ("161·2¹", "Be¹"): the word reader prints a footnote
# mark set as a superscript (often the analytical method: "¹ICP; ²NA; ³ICP-MS") this way
_RAISED_MARK = re.compile(r"(?<=[\w.·*)\]])([⁰¹²³⁴⁵⁶⁷⁸⁹]{1,2})$")


def raised_mark(text: str) -> tuple[str, str]:
    """(the text without its raised footnote mark, the mark as plain digits); the text itself and ""
    when it ends in no superscript digits."""
    match = _RAISED_MARK.search(text.rstrip())
    if match is None:
        return text, ""
    return text.rstrip()[: match.start()], plain_letters(match.group(1))


def _unmarked(label: str) -> str:
    """A label without its raised footnote mark when what is left is an element or an oxide ("Be¹"),
    else as printed ("km²" keeps its square)."""
    bare, mark = raised_mark(label)
    plain = strip_units(plain_letters(bare))
    return bare if mark and (plain in SYMBOLS or re.fullmatch(OXIDE, plain)) else label


_NAME_OVER_UNIT = re.compile(r"^(?P<name>\S+)\s+(?P<unit>wt\.?\s?%|ppm|ppb|%|mol\.?\s?%)$")


# an oxide whose subscripts the text layer prints in square brackets ("SiO[2]", "Al[2]O[3]", a
# typesetting of Lithos tables)
_BRACKETED_SUBSCRIPT = re.compile(r"(?<=[A-Za-z])\[(\d{1,2})\](?=[A-Z(\s]|$)")


def _subscripts_joined(header: str) -> str:
    """``header`` with an oxide's bracketed subscripts printed as digits ("SiO[2] (wt.%)" → "SiO2
    (wt.%)"); as it is when what the brackets hold is no oxide's ("ln[206Pb/238U]", "s[t]")."""
    joined = _BRACKETED_SUBSCRIPT.sub(r"\1", header)
    if joined == header:
        return header
    formula = joined.split()[0] if joined.split() else ""
    return joined if re.fullmatch(OXIDE, formula) else header


def analyte_of(header: str, caption_units: dict[str, str]) -> tuple[str, str, str] | None:
    """(analyte, kind, unit) a header names; None when it names none."""
    header = _subscripts_joined(_unmarked(header))
    # "Age (Ma)", "U-Pb Age": a table's headers are capitalised where running text is not
    plain = re.sub(r"\b(?:Age|Ages|AGE|AGES)\b", lambda m: m.group(0).lower(), plain_letters(header))
    bare = strip_units(plain)
    over = _NAME_OVER_UNIT.match(bare)
    if over and (over["name"] in SYMBOLS or re.fullmatch(OXIDE, over["name"])):
        # "Au" over "ppm", "Al" over "%": a name over its unit, a header of two lines
        bare, plain = over["name"], f"{over['name']} ({over['unit']})"
    if bare in SYMBOLS or re.fullmatch(OXIDE, bare):  # a column headed "U [ppm]" or "SiO2"
        kind = "oxide" if bare not in SYMBOLS else "element"
        found = [AnalyteMention(oxide_name(bare) if kind == "oxide" else bare, kind, 0, len(bare))]
    elif re.fullmatch(END_MEMBER, bare):  # a mineral table's "Fo" or "An" column: mol%
        found = [AnalyteMention(bare, "end-member", 0, len(bare))]
    else:
        found = analyte_mentions(plain)
    if not found:
        if re.fullmatch(r"\s*t\s*[\[(]\s*(?:Ma|ka|Ga)\s*[\])]\s*", plain):
            return "age", "age", unit_in(plain)
        return None
    # "206Pb/238U age (Ma)" heads ages, not ratios
    analyte = next((a for a in found if a.kind == "age"), found[0])
    time = _TIME_UNIT.search(plain) if analyte.kind == "ratio" else None
    if time:  # "206Pb/238U Age (Ma)", "Ages (Ma) 206Pb/238U": a ratio in time units is an age
        return "age", "age", time.group(1)
    if analyte.kind == "ratio" and re.search(r"\bages?\b", plain, re.IGNORECASE):
        return "age", "age", ""  # "Isotopic Ages" over "207Pb/206Pb": an age, its unit not printed
    own = UNIT_FOR_KIND.get(analyte.kind, "")  # ratios, ε and δ carry their own unit
    after = plain[analyte.end :]
    unit = unit_in(after) or unit_as_printed(after) or own or caption_units.get(analyte.kind, "")
    if unit == "%" and analyte.kind in {"oxide", "element"}:
        unit = "wt.%"  # "SiO2 %", "S (%)": a concentration in per cent is one by weight
    return analyte.name, analyte.kind, unit


# a head set letter-spaced ("M I N E R A L S"; three letters or more, so that "δ D" stays δD)
LETTER_SPACED = r"(?:\w\s){2,}\w"
# headers of columns that hold no measured quantity: positions, counts, serial numbers, identifiers
NOT_QUANTITY = re.compile(
    r"^(?:no\.?|#|n|ns|n\s*\(.*\)|N|serial.*|id|lat(?:itude)?.*|long(?:itude)?.*|lon\b.*|x|y|z|"
    r"easting.*|northing.*|utm.*|coord(?:inate)?s?\b.*|fig(?:ure)?\.?.*|ref(?:erence)?s?\.?.*|page|year|"
    # a letter-spaced head is a group header's letters, no quantity; a column of remarks holds none
    rf"{LETTER_SPACED}|remarks?|comments?|"
    # error correlations qualify the uncertainties of other columns; they are no measurement
    # (not "corrected": "Tilt corrected" over "Dec" heads declinations)
    r"r\s*\[.*\]|ρ.*|rho.*|(?:err(?:or)?\.?\s*)?corr(?:elation|\.|\b).*)$",
    re.IGNORECASE,
)


def wrapped_tail(cell: str) -> bool:
    """A header cell that closes a bracket it did not open: the last line of a header wrapped over
    lines ("ζ" / "(residual" / "error)"), no header of its own."""
    return cell.count(")") > cell.count("(") or cell.count("]") > cell.count("[")


_LOST_PLUS_MINUS = re.compile(rf"^\+\s*(?={_LEVEL}\b)")
# "36Ar ± 1σ", "87Sr/86Sr ± 2SE (%)": a quantity with its uncertainty, printed over two columns
WITH_UNCERTAINTY = re.compile(r"(?:±|\+/-)\s*(?P<level>[12]\s*(?:SE|SD|σ|s)(?![A-Za-z]))?", re.IGNORECASE)
_UNCERTAINTY_MARK = re.compile(rf"±|\+/-|%|σ|\berr|\bunc|\b{_LEVEL}\b|\bRSD\b", re.IGNORECASE)


def uncertainty_header(header: str, previous: str) -> str | None:
    """The uncertainty level ("1σ", "2SE", or "") when ``header`` heads the uncertainty of the column
    before it ("±", "2σ", "% err", "1σ %", "s[t]", and s or Δ + the previous header's symbol: "sp"
    after "rp", "ΔD" after "D"); None otherwise."""
    # a "±" the font lost to "+" ("+2σ", "+ 1s"): a plus sign heads no quantity of its own
    plain = _LOST_PLUS_MINUS.sub("±", plain_letters(header).strip())
    bare = re.sub(r"[\s()\[\]]", "", plain)
    prev = re.sub(r"[()\[\]]", "", plain_letters(previous).split()[-1]) if previous.split() else ""
    # what is left of "± 2σ", "% err", "1σ (%)", "2SE abs." without its uncertainty words
    rest = re.sub(rf"±|\+/-|%|[()\[\]]|\b(?:{_LEVEL}|σ|err(?:or)?|unc(?:ertainty)?|abs|rel|RSD|int(?:ernal)?|tot(?:al)?|ext(?:ernal)?)\b\.?|σ",
                  "", plain, flags=re.IGNORECASE)  # fmt: skip
    mine = (
        UNCERTAINTY_HEADER.match(plain)
        # nothing but uncertainty words, one of them a mark of uncertainty ("int. unc.", "2σ abs."): a
        # "Total" column is no uncertainty of the oxide before it
        or bool(plain) and not rest.strip(" .,:") and bool(_UNCERTAINTY_MARK.search(plain))
        # "sp" after "rp", "s[t]" after "t", "ΔD" after "D" (a palaeomagnetic table's declination error)
        or bool(prev) and bare in {f"s{prev}", f"σ{prev}", f"s[{prev}]", f"Δ{prev}"}
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


def shared_uncertainty(header: str) -> str | None:
    """The uncertainty level ("1σ", or "" when none is printed) when ``header`` names a quantity
    with its uncertainty ("36Ar ± 1σ", "Age ± 2σ (Ma)"): printed over two columns, the second
    column holds the uncertainty of the first. None when it prints no "±"."""
    found = WITH_UNCERTAINTY.search(plain_letters(header))
    if found is None or not plain_letters(header)[: found.start()].strip():
        return None
    level = re.sub(r"\s+", "", found.group("level") or "")
    return level[:-1] + "σ" if level[-1:] in {"s", "S", "σ"} else level.upper()


def names_analyte(label: str) -> bool:
    label = _subscripts_joined(_unmarked(label))
    bare = strip_units(plain_letters(label))
    if bare in SYMBOLS or re.fullmatch(OXIDE, bare):
        return True
    found = analyte_mentions(plain_letters(label))
    return bool(found) and found[0].start == 0
