"""Reported values in running text → typed measurement rows (analyte, value, unit, uncertainty …).

Sentences such as "SiO2 contents of 52.94–57.28 wt.%", "87Sr/86Sr = 0.70350 ± 0.00002",
"a weighted mean 206Pb/238U age of 410 ± 4 Ma (MSWD = 0.89)" or "U and Th concentrations vary from
54 to 3,283 ppm and from 28 to 6,078 ppm, respectively" are read left to right as a stream of analyte
mentions and value groups:

* a value group is a number, optionally a range (``–``, ``to``, ``from … to``), an uncertainty
  (``±``; the further ones ID-TIMS ages print after it, "± 0.19 (0.36) [1.15] Ma", go to the
  notes) and a unit, with a qualifier in front (``~ ≈ ca. < > ≤ ≥``);
* each value group belongs to the analyte mentioned last before it in the same clause; analytes
  listed one after another ("Al2O3, MgO and TiO2 contents of a, b and c, respectively") take the
  following value groups in order when the sentence says "respectively";
* numbers that name no quantity are not values: citation years, figure/table/section numbers,
  isotope mass numbers (part of the analyte token), counts ("9 samples"), and numbers no analyte
  precedes.

Why our own parser and not a library: quantity parsers (quantulum3, pint's parser) know physical units
but not geochemical analytes (isotope ratios, ε and δ notation, oxide formulas, normalized ratios)
nor the conventions of a results paragraph ("respectively", a range printed high-to-low); this module
is the small grammar those need. Every row keeps the character span of its value group in the text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field

from geo_rag_runtime.measurements import INITIAL_EPSILON, INITIAL_RATIO, PRESENT_EPSILON
from geo_rag_runtime.models import PRINTED_QUALIFIERS
from geo_rag_runtime.text.readable import decimal_points

__all__ = [
    "ELEMENT_SYMBOLS",
    "TextValue",
    "extract_text_values",
    "time_note",
    "oxide_name",
    "parse_number",
]

_MINUS = "\u2212\u2013\u2012\u2010\u2011"  # unicode minus and dashes that print a minus sign
_NUMBER = r"[+\-\u2212]?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
_RANGE_SEP = r"\s*(?:–|—|‐|-|−|to)\s*"
UNITS: dict[str, str] = {
    "wt.%": "wt.%",
    "wt. %": "wt.%",
    "wt%": "wt.%",
    "wt %": "wt.%",
    "ppm": "ppm",
    "µg/g": "ppm",
    "μg/g": "ppm",
    "ppb": "ppb",
    "ng/g": "ppb",
    "g/t": "ppm",  # an ore's grade in grams per tonne: parts per million by mass
    "‰": "‰",
    "per mil": "‰",
    "Ma": "Ma",
    "Myr": "Ma",
    "My": "Ma",
    "ka": "ka",
    "kyr": "ka",
    "Ga": "Ga",
    "Gyr": "Ga",
    "Gy": "Ga",  # "over the past ∼4.4 Gy" (PNAS style), else read as a unitless εHf
    "m.y.": "Ma",
    "°C": "°C",
    "◦C": "°C",
    "ºC": "°C",
    "oC": "°C",  # "ºC" (an ordinal o, not a degree sign) as plain_letters folds it
    "K": "K",
    "GPa": "GPa",
    "kbar": "kbar",
    "%": "%",
    "mol%": "mol%",
    "mol.%": "mol%",
    "mol %": "mol%",
    "ε": "epsilon",
}
_UNIT = "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True))
# Some publishers' PDF fonts put "±" where the text layer reads "6" ("a 609 6 8 Ma weighted mean
# age"): read as ± only between two numbers when a unit follows the second
_PLUS_MINUS_AS_SIX = rf"\s6\s(?={_NUMBER}\s*(?:{_UNIT})(?![A-Za-z]))"
_QUALIFIER = rf"(?:(?P<qual>{'|'.join(PRINTED_QUALIFIERS)})\s*)?"
_LEVEL = r"[12]\s*[σs]|2\s*SE|2\s*SD|1\s*SE|1\s*SD|95\s*%[^),;]*"
_VALUE_GROUP = re.compile(
    _QUALIFIER
    + rf"(?:(?P<between>[Bb]etween)\s+(?:[~∼≈]\s*)?|from\s+)?(?P<lo>{_NUMBER})(?:\s*(?P<lo_unit>{_UNIT})(?![A-Za-z]))?"
    + rf"(?:(?:{_RANGE_SEP}|(?(between)\s+and\s+|(?!)))(?:[~∼≈]\s*)?(?P<hi>{_NUMBER}))?"
    + rf"(?:(?:\s*(?:±|\+/-|\+/−)\s*|{_PLUS_MINUS_AS_SIX})(?P<unc>{_NUMBER})\s*(?P<unc_pct>%)?"
    # ID-TIMS ages: "± 0.19 (0.36) [1.15] Ma", the uncertainty with tracer and with decay constants
    + rf"(?P<more>(?:\s*\({_NUMBER}\))?(?:\s*\[{_NUMBER}\])?))?"
    + r"(?:\s*\+\s*(?P<unc_plus>\d+(?:\.\d+)?)\s*/?\s*[−\-–]\s*(?P<unc_minus>\d+(?:\.\d+)?))?"
    + rf"(?:\s*(?P<unit>{_UNIT})(?![A-Za-z]))?"
    # the level in brackets of its own ("(2σ)"), or opening a bracket that goes on ("(2σ, MSWD = 1.2,
    # n = 25)": looked at, not taken, so the MSWD in it is still read)
    + rf"(?:\s*\((?P<level>{_LEVEL})\)|(?=\s*\((?P<level_open>{_LEVEL})\s*[,;]))?"
)

# Analytes, most specific first. Each maps its match to the canonical name.
SYMBOLS = """H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As
Se Br Kr Rb Sr Y Zr Nb Mo Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb
Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Th U""".split()  # noqa: SIM905 - a symbol table reads best as text
ELEMENT_SYMBOLS = frozenset(SYMBOLS)
# two-letter symbols first: regex alternation takes the first alternative that matches ("Sr", not "S")
_ELEMENT = "(?:" + "|".join(sorted(SYMBOLS, key=len, reverse=True)) + ")"
_TWO_LETTER = "(?:" + "|".join(s for s in SYMBOLS if len(s) == 2) + ")"
# total iron as Fe2O3 or FeO is printed "Fe2O3T", "Fe2O3(T)", "Fe2O3tot" (stored as "Fe2O3T", see
# oxide_name); FeO* keeps its star
# any metal's oxide at the valences analyses print it (SnO2, WO3, Nb2O5, Ta2O5, Li2O, Y2O3, U3O8): ore
# and pegmatite papers report them like the rock-forming ones. By valence, so that a lost subscript
# is no oxide ("NaO+K2O" is no "NaO"); hydrogen, carbon, phosphorus and sulphur are named one by one
# (H2O, CO2, P2O5, SO3; not "PO4")
_VALENCES = {
    "2O": "Li Na K Rb Cs Cu Ag",
    "O": "Be Mg Ca Sr Ba Mn Fe Co Ni Cu Zn Cd Pb Sn",
    "2O3": "B Al Sc Ti V Cr Mn Fe Ga Y La Ce Pr Nd Sm Eu Gd Tb Dy Ho Er Tm Yb Lu As Sb Bi",
    "O2": "Si Ti V Mn Ge Zr Sn Hf Ce Pb Th U",
    "2O5": "V Nb Ta As Sb",
    "O3": "Mo W U",
    "3O8": "U",
}
_METAL_OXIDES = "|".join(
    rf"(?:{'|'.join(sorted(metals.split(), key=len, reverse=True))}){oxygen}"
    for oxygen, metals in sorted(_VALENCES.items(), key=lambda kv: len(kv[0]), reverse=True)
)
OXIDE = (
    r"(?:Fe2O3(?:T|\(T\)|tot)?|FeO(?:T|\(T\)|tot)?|FeO\*|P2O5|H2O|CO2|SO2|SO3|LOI|"
    rf"{_METAL_OXIDES})"
)


def oxide_name(printed: str) -> str:
    """An oxide as stored: total iron's printings as one ("Fe2O3(T)", "Fe2O3tot" → "Fe2O3T"), so that
    it is never taken for ferric iron "Fe2O3"."""
    return re.sub(r"^(Fe2O3|FeO)(?:\(T\)|tot)$", r"\1T", printed)


_ISO = rf"\d{{1,3}}\s?{_ELEMENT}"
# end-members of olivine, plagioclase, feldspar and pyroxene, in mol% ("Fo85" is 85 mol% forsterite)
END_MEMBER = r"(?:Fo|Fa|An|Ab|Or|En|Fs|Wo)"
# a delta value typed with a plain "d" ("d18O", "d13C"), the usual stable-isotope systems only: a
# "d" before a mass number and an element means nothing else in a geochemistry paper
_ASCII_DELTA = r"d(?:2H|7Li|11B|13C|15N|17O|18O|26Mg|30Si|34S|37Cl|44Ca|53Cr|56Fe|65Cu|66Zn|98Mo)(?![a-z0-9])"
_ANALYTE_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"ln\s*[\(\[]\s*{_ISO}\s*/\s*{_ISO}\s*[\)\]]"), "ln"),
    (re.compile(rf"{_ISO}\s*/\s*{_ISO}"), "ratio"),
    (re.compile(rf"\[?\(\s*(?:{_ELEMENT})\s*/\s*(?:{_ELEMENT})\s*\)\s*[NnCc](?:\b|(?=\W))"), "normalized"),
    # the same ratio with the normalisation on each element: "LaN/YbN", "Lacn/Ybcn" (not "Eu_N/Eu*_N")
    (
        re.compile(
            rf"(?<![A-Za-z0-9])(?!Eu\s*[Nn]\s*/\s*Eu)({_ELEMENT})\s*([Nn]|cn|CN)\s*/\s*({_ELEMENT})\s*\2(?![a-z])"
        ),
        "normalized",
    ),
    (re.compile(r"Eu\s*[Nn]?\s*/\s*Eu\s*\*\s*[Nn]?(?![a-z])|Eu\s*/\s*Eu\s*\*"), "Eu/Eu*"),
    (re.compile(r"Fe\s*(?:\+3|3\+)\s*/\s*ΣFe"), "Fe3+/ΣFe"),
    (re.compile(r"Fe\s*(?:\+2|2\+)\s*/\s*ΣFe"), "Fe2+/ΣFe"),
    (re.compile(rf"(?:{OXIDE}|{_ELEMENT})\s*/\s*(?:{OXIDE}|{_ELEMENT})(?![a-z])"), "ratio"),
    # also as typed or as a font without Greek letters prints them: "eNd(t)", "Epsilon Nd", "d18O"
    (
        re.compile(
            r"(?:[εԑϵ]\s*|(?<![A-Za-z])e(?=Nd|Hf)|\b[Ee]psilon[\s-]*)(?:Nd|Hf|Sr|Os)(?:\s*\(\s*[tTi0]\s*\))?"
        ),
        "epsilon",
    ),
    # δD is deuterium; a capital ΔD is a difference in declination or density, no isotope
    (re.compile(rf"[δΔ]\s*\d{{1,3}}\s?{_ELEMENT}|δ\s*D(?![a-z])|(?<![A-Za-z0-9]){_ASCII_DELTA}"), "delta"),
    (re.compile(rf"(?<![A-Za-z0-9]){OXIDE}(?![A-Za-z0-9])"), "oxide"),
    (re.compile(r"\bMSWDs?\b"), "MSWD"),
    (re.compile(r"\b(?:Mg|Fo)\s?#"), "number"),
    # a mineral's end-member content: "Fo85–91", "An content of 45–70 mol%", "Fo = 88" (a capitalised
    # "An" or "Or" in prose is followed by none of these)
    (re.compile(rf"\b{END_MEMBER}(?=\d|\s*(?:contents?\b|=))"), "end-member"),
    (re.compile(r"(?:\bT\s?ex\b|[Ee]xcess (?:potential )?temperatures?)"), "Tex"),
    (re.compile(r"(?:\bT\s?[pP]\b|[Pp]otential temperatures?)"), "Tp"),
    (
        re.compile(r"\b(?:melt fractions?|degrees? of (?:partial )?melting|partial melting)\b"),
        "melt fraction",
    ),
    (re.compile(r"\b(?:temperatures?)\b|\bT(?=\s*[=<>≤≥])"), "T"),
    (re.compile(r"\b(?:pressures?)\b|\bP(?=\s*[=<>≤≥])"), "P"),
    # "t = 800 Ma": t is the age symbol (not "∆t", "dt", "σt": model variables, _OTHER_SYMBOL)
    (re.compile(r"\b(?:ages?|dates?|dated at)\b|(?<![\w∆Δ)\]])t(?=\s*[=≈<>≤≥])"), "age"),
    (
        re.compile(
            rf"(?<![A-Za-z0-9/]){_ELEMENT}(?=\s+(?:and\s+{_ELEMENT}\s+)?(?:contents?|concentrations?|abundances?))"
        ),
        "element",
    ),
    (
        re.compile(rf"(?<![A-Za-z0-9/]){_ELEMENT}(?=\s*(?:=|of|contents?|concentrations?)\s*[~∼<>≈]?\s*\d)"),
        "element",
    ),
    # an element with its concentration in brackets: "high Rb (590–1250 ppm), Ga (45–55 ppm; Table 1)",
    # "F (0.60–1.40%)" (the bracket holds the concentration alone, so "Li (2005)", a citation, and
    # "Ta (50% condensation temperatures …)" are none; of the
    # one-letter symbols only F, U and Y, so "Model B (20%)" names no boron)
    (
        re.compile(
            rf"(?<![A-Za-z0-9/])(?:{_TWO_LETTER}|[FUY])(?=\s*\(\s*[~∼<>≈]?\s*\d[\d.,\s–\-−<>~∼]*"
            r"(?:ppm|ppb|wt\.?\s?%|%|[μµ]g/g|g/t)\s*[);,])"
        ),
        "element",
    ),
    # the element a concentration printed before it is of: "200 ppm Sr", "0.5 wt% Cl", "1.6 g/t Au" (not
    # a word it begins: "5 % S-wave")
    (re.compile(rf"(?:(?<=ppm\s)|(?<=ppb\s)|(?<=%\s)|(?<=g/t\s)){_ELEMENT}(?![A-Za-z0-9]|-\w)"), "element"),
]
UNIT_FOR_KIND = {"ratio": "ratio", "normalized": "ratio", "Eu/Eu*": "ratio", "Fe3+/ΣFe": "ratio",
                  "Fe2+/ΣFe": "ratio",
                  "ln": "ratio", "epsilon": "epsilon", "delta": "‰", "end-member": "mol%"}  # fmt: skip
# a number that labels: "Figure 3", "Scenarios 1 and 2", "Experiment 4, 5 or 6", "Appendix 2"
_SKIP_BEFORE = re.compile(
    r"\b(?:Fig(?:ure)?s?\.?|Tables?|Sect(?:ion)?s?\.?|Eqs?\.?|Equations?|Supplementary|Database|"
    r"Scenarios?|Cases?|Experiments?|Runs?|Steps?|Appendi(?:x|ces)|Chapters?)"
    r"\s*(?:\d+[a-z]?\s*(?:,|,?\s*and|,?\s*or|–|-|to)\s*)*$",
    re.IGNORECASE,
)
# not the quantity but its uncertainty or a rate of change: "a fixed analytical uncertainty of 1 Ma",
# "heating rates of approximately 10°C min-1", "cooling at 5 °C/Myr"
_UNCERTAINTY_BEFORE = re.compile(
    r"\b(?:uncertaint(?:y|ies)|errors?|precision|resolution)\s+(?:of\s+)?(?:about\s+|approximately\s+|[~∼±]\s*)?$",
    re.IGNORECASE,
)
_RATE_AFTER = re.compile(
    r"^\s*(?:/\s*|per\s+)(?:min(?:ute)?|s(?:ec(?:ond)?)?|h(?:our|r)?|km|m|Myr|My|Ma|m\.y\.|kyr|yr|year|a)\b"
    r"|^\s*(?:min|s|h|km|m|Myr|My|Ma|kyr|yr|a)\s*[-−–]\s*1\b",
)
_COUNT_AFTER = re.compile(
    # "9 samples", "∼700 individual zircon analyses" (up to two words between, none a preposition)
    r"^\s*(?:(?!(?:for|of|in|from|with|and|or|at|on|to|by|per|the|an?)\b)[^\W\d][\w-]*\s+){0,2}"
    r"(?:analys[ie]s|samples?|grains?|spots?|zircons?|aliquots?|locations?|points?|measurements?|"
    r"results|datasets?|papers?|studies|times|orders?|iterations?|simulations?|trials?|cycles?|"
    r"km|m\b|cm|mm|μm|µm|nm|s\b|min|h\b|days?|years?|"
    r"S[ED]\b|s\.[ed]\.|sigma\b|"  # "2 SE uncertainty": a confidence level, not a value
    r"arc\b|degrees?\b|°(?!\s*[CF]))",  # "within 5 arc degrees", "a dip of 30°": angles
    re.IGNORECASE,
)
# "∆t = 0.01 σ", "N ≈ 50", "n = 25": a value assigned to a symbol that is no analyte (a variable of
# the paper's model, a count) is that symbol's, not the analyte's named before it
# (not "[206Pb/204Pb]c = 9": a subscript of the analyte)
# ("df > 3", "p < 0.05": a bound on such a symbol likewise)
_OTHER_SYMBOL = re.compile(r"(?<![\w∆Δ\])])((?:[∆Δ]\s?)?[^\W\d_][^\W_]?)\s*[=≈<>≤≥]\s*$")
_WORDS_NOT_SYMBOLS = frozenset({"of", "at", "to", "by", "is", "as", "be", "in", "on", "or", "an", "if", "it"})
_CITATION = re.compile(r"(?:et al\.?,?|and [A-Z][a-z]+,?|[A-Z][a-z]+,)\s*\(?$")
# a time span, not an age: "a repose of ~0.6–2 Ma", "~500 kyr of dispersion", "7–9 Ma after …",
# "allows some ∼0.9 Gy for exhumation"
_DURATION_BEFORE = re.compile(
    r"(?:repose|duration|span|interval|period|lifetime|hiatus|gap)\s+of\s+(?:between\s+|about\s+|up to\s+)?$"
    r"|\b(?:lasted|lasting|lasts|within|over|for|some|span|spanning|spans|spanned)\s+"
    r"(?:about\s+|up to\s+|the (?:last|past|first)\s+)?$",
    re.IGNORECASE,
)
_DURATION_AFTER = re.compile(
    r"^\s*(?:after|before|later|earlier|long|(?:[a-z]+\s+)?time\s?scales?|durations?|"
    r"of (?:dispersion|repose|time|duration|crystalli[sz]ation|"
    r"(?:geologic(?:al)? )?history))\b",
    re.IGNORECASE,
)
# a term of a formula, not a value: an operator joins it to another term ("1 + 2√(2/df)", "1 ± 2/ν",
# "exp[λt] − 1"); a lone "±" before it makes it an uncertainty or offset ("±50 K for temperature");
# "at mass 204" names an isotope
_FORMULA_BEFORE = re.compile(
    r"(?:[\w)\]]\s*[+*^×]|(?<!°C)(?<!◦C)(?<![KMG]a)(?<!ka)[\w)\]]\s*/|[)\]]\s*[−\-–]|√|"
    r"(?<![\d.]\s)(?<![\d.])±|\+/-|\bmass(?:es)?)\s*$"
)
_FORMULA_AFTER = re.compile(r"^\s*(?:[+*^√]|[×x]\s*(?![\d\s]*10)[^\W\d])|^/\s*(?![\d.])")
_ISOTOPE_K = re.compile(r"(?:39|40|41)K")
_CLAUSE_BREAK = re.compile(r"[;:]|\.\s|\bwhereas\b|\bwhile\b|\bbut\b")
_AGE_UNITS = {"Ma", "ka", "Ga"}
_AGE_FACTORS = {"ka": 1e-3, "Ma": 1.0, "Ga": 1e3}  # in Ma
_TEMPERATURE_UNITS = {"°C", "K"}
_PRESSURE_UNITS = {"GPa", "kbar"}
_CONCENTRATION_UNITS = {"wt.%", "ppm", "ppb"}
_GRADE_UNITS = _CONCENTRATION_UNITS | {"%"}  # printed before the element they are of: "0.49% Sn"


@dataclass
class TextValue:
    """One reported value: analyte, value (and range end), unit, uncertainty, qualifier, span."""

    analyte: str
    value: float
    value_max: float | None = None
    unit: str = ""
    uncertainty: float | None = None
    uncertainty_level: str = ""
    qualifier: str = ""
    start: int = 0
    end: int = 0
    printed: str = ""
    notes: list[str] = field(default_factory=list)


def parse_number(text: str) -> float:
    """A printed number as a float: unicode minus, thousands separators and a leading "." handled."""
    cleaned = text.strip().replace(",", "")
    for dash in _MINUS:
        cleaned = cleaned.replace(dash, "-")
    return float(cleaned)


@dataclass
class AnalyteMention:
    name: str
    kind: str
    start: int
    end: int


def _canonical(match: re.Match[str], kind: str) -> str:
    text = re.sub(r"\s+", "", match.group(0))
    if kind == "ln":
        return "ln(" + text[2:].strip("()[]") + ")"
    if kind == "normalized":
        inner = re.search(r"\((.+?)\)\s*([NnCc])", text)
        if inner is None and match.lastindex == 3:  # "LaN/YbN"
            return f"({match.group(1)}/{match.group(3)})N"
        return f"({inner.group(1)}){inner.group(2).upper()}" if inner else text
    if kind == "epsilon":
        return "ε" + re.sub(r"^(?:[εԑϵ]|[Ee]psilon[\s-]*|e)", "", text).split("(")[0].strip()
    if kind == "delta":
        return "δ" + text[1:] if text[0] in "δd" else text
    if kind in {"MSWD", "Tp", "Tex", "melt fraction", "T", "P", "age", "Fe3+/ΣFe", "Fe2+/ΣFe", "Eu/Eu*"}:
        return kind
    return oxide_name(text) if kind == "oxide" else text


def analyte_mentions(text: str) -> list[AnalyteMention]:
    """Analyte mentions, left to right, without overlaps (the first pattern wins a contested span)."""
    found: list[AnalyteMention] = []
    taken: list[tuple[int, int]] = []
    for pattern, kind in _ANALYTE_PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < e and s < end for s, e in taken):
                continue
            taken.append((start, end))
            found.append(AnalyteMention(_canonical(match, kind), kind, start, end))
    return sorted(found, key=lambda a: a.start)


def _unit_of(match: re.Match[str]) -> str:
    return UNITS.get(match.group("unit") or match.group("lo_unit") or "", "")


def _inside(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(s <= start and end <= e for s, e in spans)


# numbered references as PNAS, Science and Nature print them: "(24)", "(29–31)", "(13, 24)"
_NUMBERED_CITATION = re.compile(
    r"\(\s*\d{1,3}(?:\s*[–,\-]\s*\d{1,3})*\s*\)|\[\s*\d{1,3}(?:\s*[–,\-]\s*\d{1,3})*\s*\]"
)
# "× 10^8" / "× 108" (the superscript lost in the PDF's text): a mantissa, which this grammar cannot
# scale, so the number is left out rather than stored wrong
_TIMES_TEN = re.compile(r"^\s*[×x]\s*10")


# an author's years listed ("(Vermeesch, 2008, 2010, 2015)", "Smith et al. 2001, 2004a"): every year
# of the list is a citation's, not only the first
_YEAR_LIST = re.compile(
    r"\b[A-Z][a-z]+(?: et al\.?| and [A-Z][a-z]+)?,?\s+(?:19|20)\d\d[a-z]?(?:\s*,\s*(?:19|20)\d\d[a-z]?\b)+(?!\s*(?:±|Ma|Ga|ka|yr))"
)


def _citation_spans(text: str) -> list[tuple[int, int]]:
    """Bracketed citations ("[Hoggard et al. 2020]") and numbered ones ("(24)", "(29–31)", "[2]"): their
    numbers are not values (author–year references in running text are caught by ``_CITATION``
    before the year)."""
    spans = [m.span() for m in re.finditer(r"\[[^\]]*\b(?:19|20)\d\d[a-z]?\b[^\]]*\]", text)]
    spans += [m.span() for m in _YEAR_LIST.finditer(text)]
    return spans + [m.span() for m in _NUMBERED_CITATION.finditer(text)]


def _assigned_to_other_symbol(text: str, match: re.Match[str], taken: list[tuple[int, int]]) -> bool:
    """Whether the value is written as that of a symbol that is no analyte ("∆t = 0.01 σ", "N ≈ 50"),
    ``_OTHER_SYMBOL``; ``taken`` are the analytes' spans."""
    head_start = max(0, match.start() - 12)
    symbol = _OTHER_SYMBOL.search(text[head_start : match.start("lo")])
    if symbol is None or symbol.group(1).strip("∆Δ ").casefold() in _WORDS_NOT_SYMBOLS:
        return False
    return not any(s <= head_start + symbol.start(1) < e for s, e in taken)


def _value_groups(text: str, analytes: list[AnalyteMention]) -> Iterator[re.Match[str]]:
    taken = [(a.start, a.end) for a in analytes]
    skip = _citation_spans(text)
    position = 0
    while (match := _VALUE_GROUP.search(text, position)) is not None:
        position = max(match.end(), position + 1)
        start = match.start("lo")
        if not match.group("lo") or any(s <= start < e for s, e in taken):
            continue
        if _assigned_to_other_symbol(text, match, taken):
            continue
        # numbers glued to letters are names (19MAT-169, Temora2, OG.1, M127), not values; glued to a
        # bracket, subscripts and formulas ("[40Ar/36Ar]0", "exp(λ238t)-1")
        if (
            start > 0
            and (text[start - 1].isalnum() or text[start - 1] in "_])")
            and not _GLUED_END_MEMBER.search(text[:start])
        ):
            continue
        end_lo = match.end("lo")
        if (
            end_lo < len(text)
            and text[end_lo].isalpha()
            and not match.group("lo_unit")
            and not match.group("unit")
        ):
            continue
        if re.match(r"-[A-Za-z]", text[match.end() : match.end() + 2]):  # "400-My duration", "3-fold"
            continue
        if (
            match.group("lo_unit")
            and match.group("hi") == "1"
            and not match.group("unit")
            and re.fullmatch(r"[-−]", text[match.end("lo_unit") : match.start("hi")])
        ):
            continue  # "λ87 = 0.014 Gyr-1", "5 Myr-1": a rate in a reciprocal unit, not a range to 1
        if (
            _inside(skip, start, end_lo)
            or _SKIP_BEFORE.search(text[:start])
            # "Smith, 2002": a year after an author; "0.01 % Pb, 0.01 % Zn" has units, and Pb no author
            or _CITATION.search(text[:start])
            and not _unit_of(match)
        ):
            continue
        if not (match.group("unit") or match.group("lo_unit")) and _COUNT_AFTER.match(text[match.end() :]):
            continue
        if _TIMES_TEN.match(text[match.end() :]) or re.search(r"\bper\s*$", text[: match.start()]):
            continue  # "2.4 × 108 km3"; "parts per 10,000"
        if _FORMULA_BEFORE.search(text[: match.start()]) or _FORMULA_AFTER.match(text[match.end() :]):
            continue  # "MSWD > 1 + 2√(2/df)", "(exp[λt] − 1)": terms of a formula
        if _ISOTOPE_K.match(text, match.start("lo")):
            continue  # "the decay of 40K to 40Ca": potassium-40, not 40 kelvin
        unit = _unit_of(match)
        if unit and (
            _UNCERTAINTY_BEFORE.search(text[max(0, match.start() - 60) : match.start()])
            or _RATE_AFTER.match(text[match.end() :])
        ):
            continue  # "an uncertainty of 1 Ma", "10 °C min-1": no age, no temperature
        if unit not in _AGE_UNITS and re.search(r"\bby\s*$", text[: match.start()]):
            continue  # "lowers Tp by ~140 °C": a change, not a reported value ("by 340 Ma" is a date)
        if unit in _AGE_UNITS and (
            _DURATION_BEFORE.search(text[max(0, match.start() - 40) : match.start()])
            or _DURATION_AFTER.match(text[match.end() :])
        ):
            continue
        yield match


_NEEDS_UNIT = {"age", "T", "Tp", "Tex", "P", "oxide", "element", "melt fraction"}
_LIST_JOIN = re.compile(r"^\s*(?:,|and|or|,\s*and|,\s*or)\s*$")


# "Fo85": an end-member's content printed against its symbol
_GLUED_END_MEMBER = re.compile(rf"(?<![A-Za-z]){END_MEMBER}$")


def plain_letters(text: str) -> str:
    """Mathematical letters (𝑇𝑝, 𝑃) as plain ones and middle-dot decimal points as "." ("66·0"),
    character by character so offsets stay valid; a variation selector (U+FE00–FE0F, "√︁2" as LaTeX's
    fonts write it) as a space, so "√" still reads as the operator before its number."""
    out = []
    for ch in text:
        if "\ufe00" <= ch <= "\ufe0f":
            out.append(" ")
            continue
        folded = unicodedata.normalize("NFKC", ch)
        out.append(folded if len(folded) == 1 else ch)
    return decimal_points("".join(out))


def extract_text_values(text: str) -> list[TextValue]:
    """Every reported value in ``text`` (a sentence or paragraph) that an analyte claims."""
    text = plain_letters(text)
    analytes = analyte_mentions(text)
    groups = list(_value_groups(text, analytes))
    # "ca. 503 and 478 Ma": a unit printed once after a list applies to the whole list
    units = [_unit_of(g) for g in groups]
    for i in range(len(groups) - 2, -1, -1):
        if not units[i] and units[i + 1] and _LIST_JOIN.match(text[groups[i].end() : groups[i + 1].start()]):
            units[i] = units[i + 1]
    unit_of = {id(g): u for g, u in zip(groups, units, strict=True)}
    respectively = "respectively" in text
    out: list[TextValue] = []
    queue: list[AnalyteMention] = []  # analytes listed since the last value group
    last: AnalyteMention | None = None
    used = 0  # value groups already given to the queued analytes
    events = sorted(
        [(a.start, "a", a) for a in analytes] + [(g.start(), "v", g) for g in groups], key=lambda e: e[0]
    )
    previous_end = 0
    for start, what, item in events:
        if what == "a":
            assert isinstance(item, AnalyteMention)
            if used or _CLAUSE_BREAK.search(text[previous_end:start]):  # a new list starts
                queue, used = [], 0
            queue.append(item)
            last = item
            previous_end = item.end
            continue
        assert isinstance(item, re.Match)
        previous_end = item.end()
        unit = unit_of[id(item)]
        after = _analyte_after(text, item, unit, analytes)
        if after is not None:  # "4 wt% H2O and 2000 ppm CO2": the value's own analyte, not the one before
            out.append(_row(after, item, unit))
            continue
        compound = _COMPOUND_AFTER_VALUE.match(text, item.end())
        if compound and unit in _GRADE_UNITS and not any(a.start == compound.start(1) for a in analytes):
            continue  # "0.3% Sn and 2% WO3": the value of a compound the vocabulary does not name
        owner = last
        if owner is not None and _CLAUSE_BREAK.search(text[owner.end : item.start()]) and not respectively:
            owner = None
        listed = len(queue) + _names_after(text, queue[-1].end) if respectively and queue else len(queue)
        if respectively and listed > 1 and owner is not None:
            if used >= len(queue):  # "MSWD and P values … 0.25 to 1.5 and 0.17 to 0.94, respectively"
                continue
            owner = queue[used]
        used += 1
        owner = _owner_for_unit(owner, unit, analytes, item.start())
        if owner is None:
            continue
        out.append(_row(owner, item, unit))
        note = _time_note(text, owner)
        if note:
            out[-1].notes.append(note)  # "(87Sr/86Sr)i", "εNd(t)": not the measured, present-day value
    return out


# an initial (age-corrected) isotope ratio: "initial 87Sr/86Sr", "(87Sr/86Sr)i", "87Sr/86Sr(t)", "87Sr/86Sri";
# an epsilon at the rock's age "εNd(t)", "εHfi", "initial εNd", or today's "εNd(0)"
_INITIAL_BEFORE = re.compile(r"\binitial\s+\(?$", re.IGNORECASE)
_INITIAL_AFTER = re.compile(r"^\)?\s?(?:i|\(i\)|t|\(t\)|init(?:ial)?)(?!\w)")
_EPSILON_TIME = re.compile(r"\(\s*([tTi0])\s*\)$")


def time_note(text: str) -> str:
    """The note for the isotope ratio or epsilon ``text`` names (a table header, "(87Sr/86Sr)i",
    "εNd(t)", "εNd(0)"): whether it is an initial or a present-day one, "" if it does not say."""
    plain = plain_letters(text)
    found = next((a for a in analyte_mentions(plain) if a.kind in {"ratio", "epsilon"}), None)
    return _time_note(plain, found) if found is not None else ""


def _time_note(text: str, analyte: AnalyteMention) -> str:
    """Why the ratio or epsilon at ``analyte``'s span in ``text`` is no measured present-day value:
    an initial ratio, an epsilon at the rock's age (t) or today's (0). A geochemist compares εNd(t)
    with εNd(t), never with εNd(0): the name alone (εNd) would lose that."""
    if analyte.kind not in {"ratio", "epsilon"}:
        return ""
    marked = bool(
        _INITIAL_BEFORE.search(text[max(0, analyte.start - 20) : analyte.start])
        or _INITIAL_AFTER.match(text[analyte.end :])
    )  # "initial 87Sr/86Sr", "(87Sr/86Sr)i", "εNdi"
    if analyte.kind == "ratio":
        return INITIAL_RATIO if marked else ""
    printed = _EPSILON_TIME.search(text[analyte.start : analyte.end])  # "εNd(t)", "εNd(0)"
    if printed:
        return PRESENT_EPSILON if printed.group(1) == "0" else INITIAL_EPSILON
    return INITIAL_EPSILON if marked else ""


# more names listed after an analyte that are no analytes ("MSWD and P values", "εNd, εHf and TDM")
_MORE_NAMES = re.compile(r"((?:\s*,\s*[A-Za-z][\w/-]*)*\s*,?\s*and\s+[A-Za-z][\w/-]*)")


def _names_after(text: str, end: int) -> int:
    """How many names a list goes on with after the analyte ending at ``end`` (0 when none)."""
    found = _MORE_NAMES.match(text, end)
    return found.group(1).count(",") + found.group(1).count(" and ") if found else 0


# a chemical formula right after a value ("2% WO3", "5 wt% CaCO3"): two or more element symbols, or
# one with a count
_COMPOUND_AFTER_VALUE = re.compile(r"\s*([A-Z][a-z]?\d*(?:[A-Z][a-z]?\d*)+|[A-Z][a-z]?\d+)(?![\w])")


# what may stand between an analyte printed before its value and the value ("SiO2 52 wt%", "MgO = 8 wt.%")
_PREFIXED = re.compile(r"[\s=:]*")


def _analyte_after(
    text: str, group: re.Match[str], unit: str, analytes: list[AnalyteMention]
) -> AnalyteMention | None:
    """The element or oxide a concentration is of when it is printed right after the value ("4 wt%
    H2O", "(0 wt% H2O)", "8 wt.% MgO", "0.49% Sn"), the usual order in petrology's prose; None when an analyte is
    printed right before the value instead ("SiO2 52 wt% Al2O3 15 wt%" lists each before its value)."""
    if unit not in _GRADE_UNITS:
        return None
    after = next((a for a in analytes if a.start >= group.end()), None)
    if after is None or after.kind not in {"oxide", "element"} or text[group.end() : after.start].strip():
        return None
    before = [a for a in analytes if a.end <= group.start()]
    if before and _PREFIXED.fullmatch(text[before[-1].end : group.start()]):
        return None
    return after


def _owner_for_unit(
    owner: AnalyteMention | None, unit: str, analytes: list[AnalyteMention], at: int
) -> AnalyteMention | None:
    """The analyte a value's unit allows: Ma/ka/Ga are ages, °C temperatures, GPa pressures; a
    concentration unit needs an element or oxide; a value without a unit needs an analyte that has none
    (a ratio, ε, δ, MSWD, Mg#). None drops the value."""
    before = [a for a in analytes if a.end <= at]
    if unit in _AGE_UNITS:
        return owner if owner is not None and owner.kind == "age" else AnalyteMention("age", "age", at, at)
    if unit in _TEMPERATURE_UNITS:
        if owner is not None and owner.kind in {"T", "Tp", "Tex"}:
            return owner
        recent = next((a for a in reversed(before) if a.kind in {"T", "Tp", "Tex"}), None)
        return recent or AnalyteMention("T", "T", at, at)
    if unit == "epsilon":
        if owner is not None and owner.kind == "epsilon":
            return owner
        return next((a for a in reversed(before) if a.kind == "epsilon"), None)
    if unit in _PRESSURE_UNITS:
        return owner if owner is not None and owner.kind == "P" else AnalyteMention("P", "P", at, at)
    if owner is None:
        return None
    if unit in _CONCENTRATION_UNITS:
        return owner if owner.kind in {"oxide", "element"} else None
    if unit == "%":
        return owner if owner.kind in {"oxide", "element", "melt fraction"} else None
    if unit == "mol%":
        return owner if owner.kind in {"end-member", "oxide", "element"} else None
    if not unit and owner.kind in _NEEDS_UNIT:
        return None
    return owner


def _row(analyte: AnalyteMention, match: re.Match[str], unit: str) -> TextValue:
    lo = parse_number(match.group("lo"))
    hi = parse_number(match.group("hi")) if match.group("hi") else None
    notes: list[str] = []
    if not unit and analyte.kind == "end-member" and lo is not None and lo <= 1 and (hi is None or hi <= 1):
        notes.append("fraction (0–1), not mol%")  # "Fo=0.95"
    elif not unit:
        unit = UNIT_FOR_KIND.get(analyte.kind, "")
    qualifier = {"∼": "~", "≈": "~", "ca.": "~", "c.": "~", "about": "~", "approximately": "~",
                 "≤": "<", "≲": "<", "up to": "<", "as high as": "<", "≥": ">", "≳": ">",
                 "as low as": ">"}.get(match.group("qual") or "", match.group("qual") or "")  # fmt: skip
    lo_unit = UNITS.get(match.group("lo_unit") or "", "")
    if hi is not None and lo_unit and lo_unit != unit:
        # "from 800 Ma to 1.5 Ga": each end in its own unit; both ends in the range's (last) unit
        if lo_unit in _AGE_FACTORS and unit in _AGE_FACTORS:
            lo = lo * _AGE_FACTORS[lo_unit] / _AGE_FACTORS[unit]
            notes.append(f"one end printed in {lo_unit}")
        else:
            hi = None
            notes.append(f"range end in another unit ({unit}) left out")
            unit = lo_unit
    if hi is not None:
        if hi < lo:  # printed high-to-low ("415–410 Ma"): stored low first
            lo, hi = hi, lo
        qualifier = qualifier or "range"
    uncertainty = parse_number(match.group("unc")) if match.group("unc") else None
    if match.group("unc_pct"):
        notes.append("relative uncertainty (%)")
    if match.group("more") and match.group("more").strip():
        notes.append(f"further uncertainties as printed: {' '.join(match.group('more').split())}")
    if match.group("unc_plus"):
        plus, minus = parse_number(match.group("unc_plus")), parse_number(match.group("unc_minus"))
        if plus == minus:
            uncertainty = plus
        else:
            notes.append(f"asymmetric uncertainty +{match.group('unc_plus')}/-{match.group('unc_minus')}")
    printed_level = match.group("level") or match.group("level_open") or ""
    level = re.sub(r"\s+", "", printed_level).replace("s", "σ")
    return TextValue(
        analyte=analyte.name,
        value=lo,
        value_max=hi,
        unit=unit,
        uncertainty=uncertainty,
        uncertainty_level=level,
        qualifier=qualifier,
        start=match.start(),
        end=match.end(),
        printed=match.group(0).strip(),
        notes=notes,
    )
